"""Phrases: frequent word pairs ("new york") learned from a corpus and
joined into one token ("new_york"), as word2vec's word2phrase and gensim's
Phrases do, in C on all threads (csrc/phrases.c).

A pass counts every word and every candidate (a word, any connector words
after it, and the next word) in one table, scores the candidates and keeps
those above the threshold; a second pass over the text with the first
pass's phrases joined finds longer ones ("new_york_times"). Applying the
passes joins phrases greedily, left to right, as both references do.

    phrases = Phrases("corpus.txt", passes=2)            # word2phrase's scores
    phrases.apply_file("corpus.txt", "phrased.txt")
    phrases[["new", "york", "times"]]                     # ['new_york_times']
    phrases.save("corpus.phrases"); Phrases.load("corpus.phrases")
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from .. import _tokenize
from ..corpus import Corpus, CorpusSource
from ..files import CHUNK_BYTES, atomic_output
from ..progress import reading
from ..settings import RANGES, bounded, resolve_threads
from ..shards import Shard, iter_shard, map_in_threads
from ..wordcount import merge_counters, thread_vocab_size
from .settings import (
    DEFAULT_THRESHOLDS,
    ENGLISH_CONNECTOR_WORDS,
    SCORINGS,
    check_settings,
    connectors_bytes,
)

__all__ = ["ENGLISH_CONNECTOR_WORDS", "PhraseLayer", "Phrases", "SCORINGS"]

# Bytes of the text before a byte range that set the state its first words
# meet (the word before them, what the passes before hold), and the size of
# the reads after it that settle what its last words join with.
LEAD_BYTES = 1 << 16
# Memory a counted key takes at most (its slot in a table kept under half
# full, its record, the arena's growth, and the merge of the threads'
# tables): memory_limit / KEY_BYTES keys are held before rare ones are pruned.
KEY_BYTES = 256
# Natural text holds about one distinct word or pair per 24 bytes up to a
# few hundred MB (wiki_17m: 4.2M in 100 MB; fewer per byte beyond): a
# counting thread's tables start that large, up to RESERVE_MAX keys, rather
# than grow there by doubling.
BYTES_PER_KEY = 24
RESERVE_MAX = 1 << 23


def _encode(word: str) -> bytes:
    return word.encode("utf-8", "surrogateescape")


class PhraseLayer:
    """One pass's phrases: `keys` (the phrases, bytes joined by the
    delimiter, one per line), their `scores` and `splits` (the cuts of each
    key into a first word and the rest that are phrases, a bit mask over its
    delimiters: bit i the i-th, bit 31 any from the 31st; -1 any cut, as
    gensim's), the `settings` it was learned with (scoring, min_count, threshold,
    delimiter, connector_words) and what counting saw (`stats`)."""

    def __init__(self, keys: bytes, scores: np.ndarray, splits: np.ndarray, settings: dict[str, Any],
                 stats: dict[str, Any] | None = None, table: Any = None) -> None:
        self.keys, self.scores, self.splits = keys, np.asarray(scores, np.float64), np.asarray(splits, np.int32)
        self.settings = settings
        self.stats = stats or {}
        self._table: Any = table

    def __len__(self) -> int:
        return len(self.scores)

    @property
    def table(self) -> Any:
        """The C table (built on first use; threads share it)."""
        if self._table is None:
            s = self.settings
            self._table = _tokenize.PhraseTable(_encode(s["delimiter"]), connectors_bytes(s["connector_words"]),
                                                self.keys, self.scores, self.splits)
        return self._table

    def phrases(self) -> dict[str, float]:
        """Each phrase (its words joined by the delimiter) and its score."""
        keys = self.keys.decode("utf-8", "surrogateescape").split("\n") if len(self) else []
        return dict(zip(keys, self.scores.tolist()))


class Phrases:
    """Phrases learned from a corpus in `passes` passes (a file path, plain
    or compressed, or a re-iterable of token lists), or none yet (fit).

    scoring: "word2phrase" (word2phrase.c: (count(ab) - min_count) /
    count(a) / count(b) x corpus words, in its float arithmetic, pairs of
    words whose three counts reach min_count), "default" (gensim's:
    (count(ab) - min_count) / (count(a) x count(b)) x the number of distinct
    words and candidates counted) or "npmi" (gensim's normalised PMI, in
    -1..1). A candidate is a phrase when its score is above `threshold`
    (default: 100, 10 and 0.5 for the three; a list gives one per pass, its
    last repeated). connector_words (e.g. ENGLISH_CONNECTOR_WORDS) may stand
    inside a phrase, never at its ends. Counting holds at most
    max_vocab_size keys (words and candidates; or memory_limit / 256 bytes),
    pruning rare ones as word2vec.c does past it (stats say when)."""

    def __init__(self, corpus: CorpusSource | Corpus | None = None, *, passes: int = 1, min_count: int = 5,
                 threshold: float | Sequence[float] | None = None, scoring: str = "word2phrase",
                 delimiter: str = "_", connector_words: Iterable[str] = (), max_vocab_size: int | None = None,
                 memory_limit: int | None = None, threads: int | None = None, progress: bool | None = False) -> None:
        threshold = DEFAULT_THRESHOLDS.get(scoring, 0.0) if threshold is None else threshold
        check_settings(min_count, threshold, scoring, delimiter)
        self.min_count, self.threshold, self.scoring, self.delimiter = int(min_count), threshold, scoring, delimiter
        self.connector_words = frozenset(connector_words)
        connectors_bytes(self.connector_words)
        max_vocab_size = bounded("max_vocab_size", max_vocab_size, RANGES["phrase_max_vocab_size"], none=True)
        if memory_limit is not None:
            from ..memory import parse_size

            keys = max(1, parse_size(memory_limit) // KEY_BYTES)
            max_vocab_size = min(max_vocab_size or keys, keys)
        self.max_vocab_size = max_vocab_size
        self.threads = resolve_threads(threads)
        self.progress = progress
        self.layers: list[PhraseLayer] = []
        if corpus is not None:
            self.fit(corpus, passes)

    # ------------------------------------------------------------ learning
    def fit(self, corpus: CorpusSource | Corpus, passes: int = 1) -> "Phrases":
        """Learns `passes` more passes over the corpus (each over the text
        with the passes before joined); returns self."""
        passes = bounded("passes", passes)
        corpus = Corpus.of(corpus)
        for _ in range(passes):
            self.layers.append(self._learn(corpus))
        return self

    def _pass_threshold(self) -> float:
        t = self.threshold
        if isinstance(t, (list, tuple)):
            return float(t[min(len(self.layers), len(t) - 1)])
        return float(t)

    def _settings(self) -> dict[str, Any]:
        return {"scoring": self.scoring, "min_count": self.min_count, "threshold": self._pass_threshold(),
                "delimiter": self.delimiter, "connector_words": sorted(self.connector_words)}

    def _learn(self, corpus: Corpus) -> PhraseLayer:
        settings = self._settings()
        words = _tokenize.PhraseTable(_encode(self.delimiter), connectors_bytes(self.connector_words))
        started = time.perf_counter()
        counter, corpus_words = self._count(corpus, words)
        counted = time.perf_counter()
        vocab_size = counter.distinct
        with ThreadPoolExecutor(max_workers=counter.parts) as pool:
            found = list(pool.map(lambda p: _tokenize.score_part(
                counter, p, words, self.scoring, self.min_count, settings["threshold"], corpus_words, vocab_size),
                range(counter.parts)))
        keys = [k for blob, _, _ in found if blob for k in blob.split(b"\n")]
        scores = np.concatenate([s for _, s, _ in found]) if found else np.zeros(0)
        splits = np.concatenate([p for _, _, p in found]) if found else np.zeros(0, np.int32)
        order = sorted(range(len(keys)), key=lambda i: (-scores[i], keys[i]))  # the same file at any thread count
        stats = {"corpus_words": int(corpus_words), "distinct_keys": int(vocab_size), "phrases": len(keys),
                 "prunes": int(counter.prunes), "min_reduce": int(counter.min_reduce) if counter.prunes else 0,
                 "count_seconds": counted - started, "score_seconds": time.perf_counter() - counted}
        return PhraseLayer(b"\n".join(keys[i] for i in order), scores[order], splits[order], settings, stats)

    def _count(self, corpus: Corpus, words: Any) -> tuple[Any, int]:
        """The merged count of the text through the passes learned so far."""
        layers = [layer.table for layer in self.layers]
        across = self.scoring == "word2phrase"  # word2phrase.c pairs the last word of a line with the next's
        bar = reading(corpus, f"counting phrases (pass {len(self.layers) + 1})", self.progress)
        on_bytes = bar.add if bar is not None else None
        try:
            if self.threads > 1 and corpus.splittable and corpus.phrases is None:
                limit = thread_vocab_size(self.max_vocab_size, self.threads)

                def one(i: int, shard: Shard) -> tuple[Any, int]:
                    counter = _tokenize.WordCounter(limit or 0, self.threads)
                    _tokenize.reserve(counter, min((shard.end - shard.start) // BYTES_PER_KEY, limit or RESERVE_MAX,
                                                   RESERVE_MAX))
                    pipe = _tokenize.PhrasePipe(layers, counter, words, across)
                    for _ in _range_text(pipe, shard, on_bytes):
                        pass
                    return counter, pipe.words

                results = map_in_threads(corpus.path, self.threads, one)  # type: ignore[arg-type]
                return merge_counters([c for c, _ in results]), sum(n for _, n in results)
            counter = _tokenize.WordCounter(self.max_vocab_size or 0, 1)
            pipe = _tokenize.PhrasePipe(layers, counter, words, across)
            for chunk in corpus.chunks(on_bytes=on_bytes):
                pipe.feed(chunk)
            pipe.feed(b"", final=True)
            return counter, pipe.words
        finally:
            if bar is not None:
                bar.close()

    # ------------------------------------------------------------ applying
    def shard_chunks(self, shard: Shard, chunk_bytes: int = CHUNK_BYTES, on_bytes: Any = None) -> Iterator[bytes]:
        """A byte range of a plain file with every pass's phrases joined,
        exactly as in the whole file's (Corpus(..., phrases=) reads its
        ranges on several threads through this)."""
        return _range_text(self.pipe(), shard, on_bytes, chunk_bytes)

    def pipe(self) -> Any:
        """A C pipe that joins every pass's phrases in text fed to it
        (feed(chunk, final=False) -> bytes): what Corpus(..., phrases=)
        reads the text through."""
        return _tokenize.PhrasePipe([layer.table for layer in self.layers])

    def apply_file(self, corpus: CorpusSource | Corpus, output: str | os.PathLike, *, threads: int | None = None,
                   tmp_dir: str | None = None) -> dict[str, Any]:
        """Writes the corpus with every pass's phrases joined to `output`
        (atomically; compressed when its name ends in .gz, .bz2 or .xz):
        tokens separated by a space, lines kept. Returns timings."""
        corpus = Corpus.of(corpus)
        threads = self.threads if threads is None else resolve_threads(threads)
        started = time.perf_counter()
        bar = reading(corpus, "joining phrases", self.progress)
        on_bytes = bar.add if bar is not None else None
        try:
            with atomic_output(output) as out:
                if threads > 1 and corpus.splittable and corpus.phrases is None:
                    directory = tmp_dir or os.path.dirname(os.path.abspath(output))

                    def one(i: int, shard: Shard):
                        piece = tempfile.TemporaryFile(dir=directory)
                        for text in _range_text(self.pipe(), shard, on_bytes):
                            piece.write(text)
                        return piece

                    for piece in map_in_threads(corpus.path, threads, one):  # type: ignore[arg-type]
                        with piece:
                            piece.seek(0)
                            shutil.copyfileobj(piece, out, 1 << 22)
                else:
                    pipe = self.pipe()
                    for chunk in corpus.chunks(on_bytes=on_bytes):
                        out.write(pipe.feed(chunk))
                    out.write(pipe.feed(b"", final=True))
        finally:
            if bar is not None:
                bar.close()
        return {"apply_seconds": time.perf_counter() - started, "threads": threads}

    def __getitem__(self, sentence: Sequence[str] | Iterable[Sequence[str]]) -> Any:
        """The sentence (a list of str) with its phrases joined; for a
        corpus (an iterable of such lists) a generator of them."""
        if isinstance(sentence, str):
            raise TypeError("phrases[...] takes a list of tokens (or a corpus of them), not a str: split it first")
        items = sentence if isinstance(sentence, (list, tuple)) else list(sentence)
        if items and not isinstance(items[0], str):
            return (self.apply_sentence(s) for s in items)
        return self.apply_sentence(items)

    def apply_sentence(self, sentence: Sequence[str]) -> list[str]:
        """One sentence with its phrases joined (tokens must hold no whitespace)."""
        text = b" ".join(_encode(w) for w in sentence)
        if len(text.split()) != len(sentence):
            raise ValueError("a token is empty or holds whitespace; tokens are whitespace-separated in wv_engine")
        if not self.layers:
            return list(sentence)
        out = self.pipe().feed(text, final=True)
        return out.decode("utf-8", "surrogateescape").split() if out else []

    def phrases(self) -> dict[str, float]:
        """Every pass's phrases and their scores."""
        found: dict[str, float] = {}
        for layer in self.layers:
            found.update(layer.phrases())
        return found

    # ------------------------------------------------------------ files
    def save(self, path: str | os.PathLike) -> None:
        """Writes the passes and their settings (file.py's format), atomically."""
        from .file import save_phrases

        save_phrases(path, [{"keys": layer.keys, "scores": layer.scores, "splits": layer.splits,
                             "settings": layer.settings, "stats": layer.stats} for layer in self.layers])

    @classmethod
    def load(cls, path: str | os.PathLike, *, threads: int | None = None) -> "Phrases":
        """A Phrases read from a file `save` wrote (FormatError if damaged)."""
        from .file import load_phrases

        layers = [PhraseLayer(**layer) for layer in load_phrases(path)]
        first = layers[0].settings if layers else {}
        model = cls(min_count=first.get("min_count", 5), scoring=first.get("scoring", "word2phrase"),
                    threshold=[layer.settings["threshold"] for layer in layers] or None,
                    delimiter=first.get("delimiter", "_"), connector_words=first.get("connector_words", ()),
                    threads=threads)
        model.layers = layers
        return model

    @property
    def stats(self) -> list[dict[str, Any]]:
        """What each pass's count saw: corpus_words, distinct_keys, phrases,
        prunes (0: nothing pruned) and min_reduce (keys seen fewer times may
        be missing), count_seconds, score_seconds."""
        return [dict(layer.stats) for layer in self.layers]

    def __repr__(self) -> str:
        return (f"Phrases({len(self.layers)} pass(es), {sum(len(layer) for layer in self.layers):,} phrases, "
                f"scoring={self.scoring!r}, min_count={self.min_count}, threshold={self.threshold!r})")


def _range_text(pipe: Any, shard: Shard, on_bytes: Any = None, chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes]:
    """What a pipe writes for a byte range of a file, exactly as one pass over
    the whole file writes for it (nothing when it counts): the text before
    it sets the state, the text after it settles what its last words join with."""
    size = os.path.getsize(shard.path)
    with open(shard.path, "rb") as f:
        if shard.start > 0:
            begin = max(0, shard.start - LEAD_BYTES)
            f.seek(begin)
            pipe.feed(f.read(shard.start - begin), owned=False)
        for chunk in iter_shard(shard, chunk_bytes, on_bytes):
            if out := pipe.feed(chunk):
                yield out
        if shard.end >= size:
            if out := pipe.feed(b"", final=True):
                yield out
            return
        f.seek(shard.end)
        while not pipe.settled:
            chunk = f.read(LEAD_BYTES)
            if out := pipe.feed(chunk, owned=False, final=not chunk):
                yield out
            if not chunk:
                break
