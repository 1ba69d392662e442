"""The vocabulary: words and counts in frequency order, and what training
derives from them once (subsampling keep-probabilities, the noise sampler,
Huffman codes, a memory estimate)."""

from __future__ import annotations

import os
from typing import Iterator, Sequence

import numpy as np

from . import _word2vec, scaleout
from .corpus import CorpusError, CorpusSource, describe
from .files import atomic_write, check_input
from .settings import bounded
from .wordcount import count_chunks, count_corpus

__all__ = ["Vocabulary", "count_chunks"]


def _to_bytes(word: str) -> bytes:
    return word.encode("utf-8", "surrogateescape")


def _to_str(word: bytes) -> str:
    # Lossless: bytes that are not UTF-8 survive as lone surrogates and are
    # written back unchanged; only display replaces them.
    return word.decode("utf-8", "surrogateescape")


def _check_limits(min_count, max_vocab_size, max_final_vocab) -> None:
    bounded("min_count", min_count)
    bounded("max_vocab_size", max_vocab_size, none=True)
    bounded("max_final_vocab", max_final_vocab, none=True)


def read_word_counts(path: str | os.PathLike, where: str = "line ") -> Iterator[tuple[int, bytes, int]]:
    """(line number, word, count) for each "word count" line of a vocabulary
    file, in the file's order (blank lines skipped); a line of another shape
    or a count past 64 bits is a ValueError "{where}N: ..."."""
    with open(check_input(path, "vocabulary file"), "rb") as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 2 or not parts[1].isdigit():
                raise ValueError(f"{where}{n}: expected 'word count', got {line[:80]!r}")
            # past 19 digits it cannot fit (and int() refuses 4,300)
            count = int(parts[1]) if len(parts[1].lstrip(b"0")) <= 19 else 2**63
            if count >= 2**63:
                raise ValueError(f"{where}{n}: count {parts[1][:30]!r}... does not fit in 64 bits")
            yield n, parts[0], count


class Vocabulary:
    """Words sorted by count (descending; a corpus's words of equal count in
    the order it first shows them, as word2vec.c orders them).

    Build it from a corpus with `Vocabulary.build(...)`, or from words and
    counts you already have. `total_tokens` is the number of tokens in the
    corpus it was counted on (in and out of the vocabulary)."""

    def __init__(self, words: Sequence[str], counts: Sequence[int] | np.ndarray,
                 total_tokens: int | None = None, distinct_words: int | None = None, *,
                 words_distinct: bool = False):
        counts = np.asarray(counts, dtype=np.int64)
        if len(words) != len(counts):
            raise ValueError(f"{len(words)} words but {len(counts)} counts")
        if len(words) == 0:
            raise ValueError("a vocabulary needs at least one word")
        if np.any(counts <= 0):
            raise ValueError("word counts must be positive")
        if np.any(np.diff(counts) > 0):
            raise ValueError("words must be sorted by count, most frequent first")
        self.words = list(words)
        self.counts = counts
        # words_distinct: the caller knows (a count's words), and the index
        # of millions of words waits until something looks a word up
        self._index: dict[str, int] | None = None
        if not words_distinct and len(self.index) != len(self.words):
            raise ValueError("duplicate words in the vocabulary")
        self.total_tokens = int(total_tokens) if total_tokens is not None else int(counts.sum())
        self.distinct_words = int(distinct_words) if distinct_words is not None else len(words)
        # True when counting pruned rare words (max_vocab_size): distinct_words
        # is then the number held at the end, a lower bound of the corpus's.
        self.pruned = False
        self._joined: bytes | None = None  # the words as counted, joined by newlines (from a count)
        self.tree: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # a Huffman tree given (huffman())

    @classmethod
    def build(cls, corpus: CorpusSource, min_count: int = 5, max_vocab_size: int | None = None,
              max_final_vocab: int | None = None, *, client=None, threads: int = 1,
              progress: bool | None = None) -> "Vocabulary":
        """Counts a corpus (path or re-iterable of token lists) in C; with a
        dask.distributed `client`, the workers count shards of the file(s)
        (a path or a list of paths) and the counts merge in a tree.

        min_count drops rarer words; max_vocab_size prunes rare words while
        counting whenever more distinct words are held (bounded memory, counts
        of rare words become approximate, as in word2vec.c); max_final_vocab
        raises min_count just enough to keep at most that many words.
        threads > 1 counts byte ranges of a large uncompressed file at once
        and adds the counts up (exact without max_vocab_size). progress shows
        bytes read, bytes/s and an ETA.

        max_vocab_size with threads = T > 1 (a large plain file): each thread
        counts its byte range (the file cut in T near-equal ranges at
        whitespace) with word2vec.c's pruning at max_vocab_size // T distinct
        words (at least 1), then the T counts are added up, one slice of
        the words per thread. So the threads hold about max_vocab_size words
        together while counting (each one word more just before it prunes),
        the merged count at most max_vocab_size, and the result depends only
        on the file and T, never on scheduling. A
        reported count is a lower bound of the true count: each range loses
        at most what its prunings dropped. A word is exact when no thread
        ever pruned it, e.g. when within every range its running count stays
        above the bar of each pruning there (1, 2, ... up to that range's
        number of prunings): frequent words spread over the corpus are exact.
        One pass (threads=1, or a compressed file) prunes at max_vocab_size
        as word2vec.c does, so the two can differ among the rare words.

        Only the words kept (count >= min_count) leave C; distinct_words
        and the messages come from the counter's totals."""
        _check_limits(min_count, max_vocab_size, max_final_vocab)
        if client is None:
            return cls.from_counter(count_corpus(corpus, max_vocab_size, threads, progress), corpus,
                                    min_count, max_vocab_size, max_final_vocab)
        raw_words, counts, tokens, distinct = scaleout.count_words(client, corpus, max_vocab_size)
        vocab = cls.from_counts(raw_words, counts, tokens, distinct, min_count, max_final_vocab)
        vocab.pruned = distinct is None
        return vocab

    @classmethod
    def from_counter(cls, counter, corpus: CorpusSource, min_count: int = 5, max_vocab_size: int | None = None,
                     max_final_vocab: int | None = None) -> "Vocabulary":
        """The vocabulary of a C counter (_tokenize.WordCounter) fed the
        whole corpus (named in errors), with build's limits."""
        _check_limits(min_count, max_vocab_size, max_final_vocab)
        if counter.tokens == 0:
            raise CorpusError(f"the corpus has no words: {describe(corpus)}")
        raw_words, counts = counter.sorted_blob(min_count)
        held = counter.distinct
        if counter.prunes and not len(raw_words):
            raise ValueError(
                f"max_vocab_size={max_vocab_size:,} pruned away every word seen at least {min_count} "
                f"time(s) ({held:,} distinct words left of {counter.tokens:,} tokens): pruning drops the "
                "rarest words whenever more than max_vocab_size are held; raise max_vocab_size")
        vocab = cls.from_counts(raw_words, counts, counter.tokens, held if counter.prunes == 0 else None,
                                min_count, max_final_vocab, held=held, most_frequent=counter.max_count)
        vocab.pruned = counter.prunes > 0
        return vocab

    @classmethod
    def from_counts(cls, raw_words: Sequence[bytes] | bytes, counts: np.ndarray, total_tokens: int,
                    distinct_words: int | None, min_count: int = 5,
                    max_final_vocab: int | None = None, *, held: int | None = None,
                    most_frequent: int | None = None) -> "Vocabulary":
        """The vocabulary from raw counts sorted as `build` sorts them (count
        descending, ties first seen first): min_count drops rarer words,
        max_final_vocab raises min_count just enough to keep at most that
        many. distinct_words None: unknown (counting pruned words).
        raw_words: a list of bytes, or one bytes object of them joined by
        newlines (WordCounter.sorted_blob: decoded in one call).
        raw_words may stop at the words seen >= min_count times when held
        (the number of distinct words counted) and most_frequent (the
        largest count) are given for the rest."""
        _check_limits(min_count, None, max_final_vocab)
        counts = np.asarray(counts, dtype=np.int64)
        keep = counts >= min_count
        if max_final_vocab is not None and keep.sum() > max_final_vocab:
            # the smallest min_count that leaves at most max_final_vocab words
            keep &= counts > counts[max_final_vocab]
        n = int(keep.sum())  # counts are sorted, so kept words are a prefix
        if held is None:
            held = len(raw_words)
        if n == 0:
            top = most_frequent if most_frequent is not None else int(counts[0])
            raise ValueError(
                f"min_count={min_count} left no words: the corpus has {held:,} distinct "
                f"words, the most frequent seen {top:,} times; lower min_count")
        if isinstance(raw_words, bytes):
            joined = raw_words if n == len(counts) else b"\n".join(raw_words.split(b"\n", n)[:n])
            words = _to_str(joined).split("\n")
        else:
            joined = b"\n".join(raw_words[:n])
            words = [_to_str(w) for w in raw_words[:n]]
        vocab = cls(words, counts[:n], total_tokens=total_tokens,
                    distinct_words=distinct_words if distinct_words is not None else held,
                    words_distinct=isinstance(raw_words, bytes))  # a count's words
        vocab._joined = joined
        return vocab

    @property
    def index(self) -> dict[str, int]:
        """word -> its position (id)."""
        if self._index is None:
            self._index = dict(zip(self.words, range(len(self.words))))
        return self._index

    @property
    def built_index(self) -> dict[str, int] | None:
        """`index` if it has been made, else None (nothing is built to answer)."""
        return self._index

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def __repr__(self) -> str:
        return f"Vocabulary({len(self):,} words, {self.train_words:,} tokens in vocabulary)"

    @property
    def train_words(self) -> int:
        """Corpus tokens that are in the vocabulary (word2vec.c's train_words)."""
        return int(self.counts.sum())

    def words_as_bytes(self) -> list[bytes]:
        """The words as the bytes they were in the corpus."""
        return self._joined.split(b"\n") if self._joined is not None else [_to_bytes(w) for w in self.words]

    def words_joined(self) -> bytes:
        """The words as the bytes they were in the corpus, joined by
        newlines (no token holds one): what the C encoder reads in one call."""
        return self._joined if self._joined is not None else b"\n".join(map(_to_bytes, self.words))

    def keep_probabilities(self, sample: float) -> np.ndarray:
        """Probability of keeping each word under subsampling, word2vec.c's
        formula: sqrt(t/f) + t/f with f = count / train_words, capped at 1.
        sample = 0 keeps every word."""
        if not 0 <= sample < 1:
            raise ValueError(f"sample must be in [0, 1), got {sample}")
        if sample == 0:
            return np.ones(len(self), dtype=np.float32)
        threshold = sample * self.train_words
        c = self.counts.astype(np.float64)
        keep = (np.sqrt(c / threshold) + 1.0) * threshold / c
        return np.minimum(keep, 1.0).astype(np.float32)

    def noise_distribution(self, exponent: float = 0.75) -> np.ndarray:
        """Negative-sampling probabilities, count^exponent normalised."""
        w = self.counts.astype(np.float64) ** exponent
        return w / w.sum()

    def noise_sampler(self, exponent: float = 0.75) -> tuple[np.ndarray, np.ndarray]:
        """Alias table (threshold, alias) over count^exponent, for the C core."""
        return _word2vec.build_alias(self.noise_distribution(exponent))

    def huffman(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(code_length, codes, points) as word2vec.c's CreateBinaryTree, or
        the tree this vocabulary was given (`tree`: a model read from gensim,
        whose heap can break ties among counts into another shape)."""
        return self.tree if self.tree is not None else _word2vec.build_huffman(self.counts)

    def merged(self, other: "Vocabulary", min_count: int) -> tuple["Vocabulary", list[int]]:
        """This vocabulary with `other`'s counts added: known words' counts
        grow, new words seen at least min_count times join after the old
        ones; re-sorted by count (ties keep their order). Returns it and,
        for each of its words, its index among the old words then the new."""
        counts = dict(zip(self.words, self.counts.tolist()))
        new_words = []
        for w, c in zip(other.words, other.counts.tolist()):
            if w in counts:
                counts[w] += c
            elif c >= min_count:
                counts[w] = c
                new_words.append(w)
        words = self.words + new_words
        order = sorted(range(len(words)), key=lambda i: -counts[words[i]])  # stable: ties keep their order
        merged = Vocabulary([words[i] for i in order], [counts[words[i]] for i in order],
                            total_tokens=self.total_tokens + other.total_tokens,
                            distinct_words=max(self.distinct_words, len(words)))
        return merged, order

    @staticmethod
    def merged_output_rows(output: np.ndarray, order: Sequence[int], hs: bool) -> np.ndarray:
        """A model's output rows after merged() re-sorted its words (`order`,
        merged's second result): under negative sampling each row follows its
        word and new words' rows are zero; under hierarchical softmax the rows
        are the tree's inner nodes, kept by index (new ones zero)."""
        V, width = len(order), output.shape[1]
        if hs:
            out = np.zeros((V, width), dtype=np.float32)
            keep = min(V, len(output))
            out[:keep] = output[:keep]
            return out
        return np.concatenate([output, np.zeros((V - len(output), width), np.float32)])[order]

    def kept(self, min_count: int, without: Sequence[str] = ()) -> "Vocabulary":
        """The words seen at least min_count times, less those `without`
        names (a vocabulary read from a file, as word2vec.c's -read-vocab
        keeps it). Raises ValueError when none is left."""
        keep = [i for i, (w, c) in enumerate(zip(self.words, self.counts.tolist()))
                if c >= min_count and w not in without]
        if not keep:
            raise ValueError(f"no word of the vocabulary is seen {min_count} times or more (min_count)")
        if len(keep) == len(self.words):
            return self
        return Vocabulary([self.words[i] for i in keep], self.counts[keep], words_distinct=True)

    def memory_estimate(self, dim: int = 100, loss: str = "ns") -> dict[str, int]:
        """Bytes the model will need for this vocabulary (gensim-style dry run)."""
        V = len(self)
        est = {
            "vocabulary": V * (80 + 8 + 4) + sum(map(len, self.words)),
            "input_vectors": V * dim * 4,
            "output_vectors": V * dim * 4,
        }
        if loss == "ns":
            est["noise_sampler"] = V * 8
        if loss == "hs":
            est["huffman"] = V * (1 + _word2vec.MAX_CODE_LENGTH * 5)
        est["total"] = sum(est.values())
        return est

    def save(self, path: str | os.PathLike) -> None:
        """Writes "word count" lines, most frequent first (atomic)."""
        with atomic_write(path, "wb") as f:
            for w, c in zip(self.words, self.counts.tolist()):
                f.write(_to_bytes(w) + b" " + str(c).encode() + b"\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Vocabulary":
        """Reads "word count" lines (as written by save, word2vec.c's
        -save-vocab or GloVe's vocab_count)."""
        words, counts = [], []
        for _, word, count in read_word_counts(path, where=f"{os.fspath(path)}:"):
            words.append(_to_str(word))
            counts.append(count)
        if not words:
            raise ValueError(f"vocabulary file is empty: {os.fspath(path)}")
        counts_arr = np.asarray(counts, dtype=np.int64)
        if np.any(np.diff(counts_arr) > 0):
            order = np.lexsort((np.arange(len(words)), -counts_arr))
            words = [words[i] for i in order]
            counts_arr = counts_arr[order]
        return cls(words, counts_arr)
