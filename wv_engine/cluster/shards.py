"""Splitting the input into shards that workers read on their own: byte
ranges of plain text files, cut just after a whitespace byte so that no word
is ever cut in two (a sentence may be: its two halves are trained as two
sentences, and the co-occurrence count stitches them back, see
`context_before`). Compressed files cannot be entered in the middle, so each
is one shard.

Workers open the paths themselves: on a real cluster the files must be on a
filesystem every worker sees, at the same path."""

from __future__ import annotations

import os

import numpy as np

from .. import corpus as corpus_module
from ..corpus import CorpusError
from ..shards import WHITESPACE, Shard, first_separator, iter_shard, make_shards

__all__ = ["WHITESPACE", "Shard", "context_before", "corpus_paths", "encode_chunks", "iter_shard",
           "make_shards", "plan_shards"]


def context_before(shard: Shard, max_bytes: int) -> tuple[bytes, bool]:
    """The text just before the shard that belongs to the same sentence, at
    most max_bytes of it, starting at a token boundary: (text, complete),
    complete when it reaches back to the line's (or the file's) start.
    Empty and complete for the first shard of a file or a shard that starts
    a line."""
    if shard.compressed or shard.start == 0:
        return b"", True
    lo = max(0, shard.start - max_bytes)
    with open(shard.path, "rb") as f:
        f.seek(lo)
        text = f.read(shard.start - lo)
    line_start = text.rfind(b"\n") + 1
    if line_start > 0 or lo == 0:
        return text[line_start:], True
    return text[first_separator(text):], False


def encode_chunks(words: list[bytes], chunks) -> np.ndarray:
    """Token ids (int32, -1 ends a sentence, out-of-vocabulary words dropped)
    of byte chunks, with the C encoder."""
    return corpus_module.encode_words(words, chunks)


SHARD_BYTES = 256 << 20  # a counting task's input: big enough to amortise, small enough to balance


def corpus_paths(corpus) -> list[str]:
    """The file paths of a corpus given to a cluster call: a path, a list
    of paths or a resolved corpus.Corpus of one file. In-memory token lists
    cannot be read by remote workers."""
    if isinstance(corpus, corpus_module.Corpus):
        corpus = corpus.source
    if isinstance(corpus, (str, os.PathLike)):
        return [os.fspath(corpus)]
    if isinstance(corpus, (list, tuple)) and corpus and all(isinstance(p, (str, os.PathLike)) for p in corpus):
        return [os.fspath(p) for p in corpus]
    raise CorpusError("with a dask client the corpus must be a file path or a list of file paths "
                      "that every worker can read (token lists in memory are not sent to workers)")


def plan_shards(corpus, n_workers: int) -> list[Shard]:
    """Shards for counting: at least one per worker, at most SHARD_BYTES each
    (plain files)."""
    paths = corpus_paths(corpus)
    total = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
    return make_shards(paths, max(n_workers, -(-total // SHARD_BYTES)))
