"""gensim.models.word2vec_corpusfile's reader, for code that uses it directly
(corpus_file training itself is the engine's C tokenizer)."""

from __future__ import annotations

import os
from typing import Iterator

from ..files import open_binary

MAX_SENTENCE_LEN = 10000

__all__ = ["CythonLineSentence", "MAX_SENTENCE_LEN"]


class CythonLineSentence:
    """The sentences of a text file as gensim's corpus_file mode reads them:
    each line split on whitespace into bytes tokens (an empty line gives an
    empty list), cut into pieces of at most max_sentence_length; reading
    starts at byte `offset`."""

    def __init__(self, source: str | os.PathLike, offset: int = 0, max_sentence_length: int = MAX_SENTENCE_LEN):
        if max_sentence_length < 1:
            raise ValueError(f"max_sentence_length must be >= 1, got {max_sentence_length}")
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        self.source = os.fspath(source)
        self.offset = int(offset)
        self.max_sentence_length = int(max_sentence_length)

    def __iter__(self) -> Iterator[list[bytes]]:
        with open_binary(self.source) as f:
            f.seek(self.offset)
            for line in f:
                words = line.split()  # an empty line is an empty sentence, as in gensim
                for start in range(0, max(len(words), 1), self.max_sentence_length):
                    yield words[start:start + self.max_sentence_length]
