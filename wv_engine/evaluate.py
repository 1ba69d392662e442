"""Standard intrinsic evaluations of word vectors: analogies and word-pair similarity.

Conventions follow word2vec.c's compute-accuracy and gensim's KeyedVectors, so that scores are
comparable with theirs when the same settings are used:

- only the first `restrict_vocab` rows (vocabulary order = frequency order) are used, both to
  look question words up and as answer candidates;
- with `case_insensitive=True` both the vocabulary and the questions are uppercased; when
  several vocabulary words fold to the same string, the most frequent (earliest) one stands
  for it, and an answer is judged by its folded string;
- questions with a word outside the restricted vocabulary are skipped and reported through
  `coverage`; the question words themselves are never accepted as the answer.

Every result dict repeats its settings: scores are not comparable without them.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from . import _evaluate
from .files import check_input, check_text
from .settings import resolve_threads
from .vectors import Vectors

__all__ = ["AnalogySet", "PairSet", "evaluate_analogies", "evaluate_word_pairs", "evaluate_all", "read_analogies",
           "read_pairs"]

_METHODS = ("3cosadd", "3cosmul")
_GRAM_BYTES = 1 << 28  # bound on a section's table of question-word cosines (256 MiB)


class _Lookup:
    """The restricted, optionally case-folded vocabulary used by an evaluation."""

    def __init__(self, vectors: Vectors, restrict_vocab: int | None, case_insensitive: bool):
        limit = len(vectors) if restrict_vocab is None else min(int(restrict_vocab), len(vectors))
        if limit < 1:
            raise ValueError(f"restrict_vocab must be positive, got {restrict_vocab}")
        self.case_insensitive = case_insensitive
        self.unit = vectors.unit_head(limit)
        self.index, self.canonical, self.aliases = _folded(vectors.words, limit, case_insensitive)

    def fold(self, word: str) -> str:
        return word.upper() if self.case_insensitive else word

    def get(self, word: str) -> int | None:
        return self.index.get(self.fold(word))


_FOLDED: list[tuple] = []  # _folded's last results, each with the words list it was made from


def _folded(words: list[str], limit: int, case_insensitive: bool) -> tuple[dict, np.ndarray, dict]:
    """(index, canonical, aliases) of the first `limit` words: the row of
    each (folded) string, the earliest one winning a collision; for each
    row, the row that stands for its string; rows that lost a collision,
    by the row they fold into. Kept for the last few word lists (the list
    itself held, so that it is the same one; a scorer called every epoch
    folds a vocabulary once)."""
    for held, n, key, result in _FOLDED:
        if held is words and n == len(words) and key == (limit, case_insensitive):
            return result
    keys = words[:limit]
    if case_insensitive:
        keys = [w.upper() for w in keys]
    index: dict[str, int] = {}
    for i, key in enumerate(keys):
        index.setdefault(key, i)
    canonical = np.fromiter((index[k] for k in keys), dtype=np.int64, count=limit)
    aliases: dict[int, list[int]] = {}
    for row in np.flatnonzero(canonical != np.arange(limit)):
        aliases.setdefault(int(canonical[row]), []).append(int(row))
    _FOLDED.insert(0, (words, len(words), (limit, case_insensitive), (index, canonical, aliases)))
    del _FOLDED[4:]
    return index, canonical, aliases


def _read_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    # surrogateescape: matches how the package decodes corpus tokens, never fails on bytes.
    with open(check_input(path, "test set"), encoding="utf-8", errors="surrogateescape") as fh:
        for line_no, line in enumerate(fh, 1):
            yield line_no, line.strip()


def _parse_analogies(path: str | os.PathLike, data: bytes) -> list[tuple[str, list[tuple[int, list[str]]]]]:
    """[(section, [(line number, [a, b, c, d])])] from a questions-words style file's bytes."""
    sections: list[tuple[str, list[tuple[int, list[str]]]]] = []
    # surrogateescape: matches how the package decodes corpus tokens, never fails on bytes.
    for line_no, line in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(":"):
            sections.append((line[1:].strip(), []))
            continue
        words = line.split()
        if len(words) != 4:
            raise ValueError(f"{os.fspath(path)}, line {line_no}: expected 4 words "
                             f"'a b c d', found {len(words)}")
        if not sections:
            sections.append(("", []))  # questions before any ": section" header
        sections[-1][1].append((line_no, words))
    return sections


class AnalogySet(NamedTuple):
    """An analogy test set read and parsed (read_analogies): its sections
    of questions, its distinct words, and each section's questions as (q, 4)
    indices into them."""
    path: str
    sections: list
    words: list[str]
    coded: list[np.ndarray]


class PairSet(NamedTuple):
    """A word-pair test set read and parsed (read_pairs): (line number, w1,
    w2, score) for each pair."""
    path: str
    pairs: list[tuple[int, str, str, float]]


def read_analogies(path: str | os.PathLike) -> AnalogySet:
    """A questions-words file read and parsed, or refused (ValueError naming
    the line; a file with no question, or not text, too): what a run that
    scores every epoch checks before it starts."""
    with open(check_text(path, "test set"), "rb") as f:
        data = f.read()
    parsed = _coded_questions(os.fspath(path), data)
    if not any(len(c) for c in parsed.coded):
        raise ValueError(f"{os.fspath(path)}: no analogy questions ('a b c d' lines) in the file")
    return parsed


def read_pairs(path: str | os.PathLike) -> PairSet:
    """A word-pair file read and parsed, or refused as read_analogies."""
    check_text(path, "test set")
    pairs = _parse_pairs(path)
    if not pairs:
        raise ValueError(f"{os.fspath(path)}: no word pairs ('word1 word2 score' lines) in the file")
    return PairSet(os.fspath(path), pairs)


def _questions(path: str | os.PathLike | AnalogySet) -> AnalogySet:
    """The parsed questions of a file (or a set parsed already). Parsed once
    for each content (a scorer called every epoch reads the file, not its
    questions, again)."""
    if isinstance(path, AnalogySet):
        return path
    with open(check_input(path, "test set"), "rb") as f:
        data = f.read()
    return _coded_questions(os.fspath(path), data)


@functools.lru_cache(maxsize=4)
def _coded_questions(path: str, data: bytes) -> AnalogySet:
    sections = _parse_analogies(path, data)
    code: dict[str, int] = {}
    coded = [np.array([[code.setdefault(w, len(code)) for w in words] for _, words in qs],
                      dtype=np.int64).reshape(-1, 4) for _, qs in sections]
    return AnalogySet(path, sections, list(code), coded)


def _cosines(unit: np.ndarray, rows: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray]:
    """(gram, inverse): cosines of the distinct `rows` with every candidate (shifted to
    (1 + cos) / 2 for 3CosMul), and for each entry of `rows` its row in `gram`."""
    uniq, inv = np.unique(rows, return_inverse=True)
    gram = unit[uniq] @ unit.T
    if method == "3cosmul":
        gram += 1.0
        gram *= 0.5
    return np.ascontiguousarray(gram, dtype=np.float32), inv.reshape(rows.shape).astype(np.int32)


def _excluded(lookup: _Lookup, q: np.ndarray) -> np.ndarray:
    """For each question (rows a, b, c), the candidates it may not answer:
    its own words and, case-folded, their less frequent spellings."""
    width = max((len(v) for v in lookup.aliases.values()), default=0)
    if not width:
        return q.astype(np.int32)
    rows, inverse = np.unique(q, return_inverse=True)
    table = np.full((len(rows), width), -1, dtype=np.int32)  # each distinct question word's spellings
    for i, row in enumerate(rows.tolist()):
        spellings = lookup.aliases.get(row)
        if spellings:
            table[i, :len(spellings)] = spellings
    extra = table[inverse.reshape(q.shape)].reshape(len(q), 3 * width)
    return np.ascontiguousarray(np.concatenate([q.astype(np.int32), extra], axis=1))


def _answers(lookup: _Lookup, q: np.ndarray, method: str, threads: int) -> np.ndarray:
    """The candidate row answering each question "a : b :: c : ?" (rows of `q`), -1
    for none. Scored from the cosines of the distinct question words with every
    candidate (one matrix product; questions share words), in C (_evaluate)."""
    n = lookup.unit.shape[0]
    excluded = _excluded(lookup, q)
    best = np.full(len(q), -1, dtype=np.int32)
    # questions per cosine table: all at once when their words' table fits, else in parts that do
    part = max(1, len(q) if np.unique(q).size * n * 4 <= _GRAM_BYTES else _GRAM_BYTES // (3 * 4 * n))
    for start in range(0, len(q), part):
        gram, inv = _cosines(lookup.unit, q[start:start + part], method)
        best[start:start + part] = _evaluate.analogy_best(gram, inv, excluded[start:start + part], method, threads)
    return best


def evaluate_analogies(
    vectors: Vectors,
    path: str | os.PathLike | AnalogySet | None = None,
    restrict_vocab: int | None = 30000,
    case_insensitive: bool = True,
    method: str = "3cosadd",
    questions: bool = False,
    threads: int | None = None,
) -> dict[str, Any]:
    """Accuracy on "a b c d" analogy questions (a : b :: c : d, answer searched as b - a + c).

    `path`: a questions-words style file (": section" lines, then "a b c d"), or one read
    already (read_analogies); None uses the shipped Google set. `restrict_vocab`: how many of
    the most frequent words are used (30,000 as in word2vec.c's demo; gensim's default is
    300,000; None for all). `method`: "3cosadd" or "3cosmul". `threads`: for scoring the
    candidates (None: every core).

    Returns {"accuracy", "correct", "total" (answered), "questions" (all), "coverage",
    "sections": [{"section", "correct", "total", "questions", "accuracy"}], "semantic",
    "syntactic" (sections starting with "gram"), "restrict_vocab", "case_insensitive",
    "method"}. An accuracy is None where no question could be answered.
    With `questions=True` each section also lists its questions as (a, b, c, d) tuples in
    "correct_questions", "incorrect_questions" and "oov_questions" (skipped).
    """
    method = method.lower()
    if method not in _METHODS:
        raise ValueError(f"method must be one of {', '.join(_METHODS)}, got {method!r}")
    if path is None:
        from .datasets import path as dataset_path

        path = dataset_path("questions-words")
    _, parsed, file_words, coded = _questions(path)
    lookup = _Lookup(vectors, restrict_vocab, case_insensitive)
    row_of = np.array([-1 if r is None else r for r in map(lookup.get, file_words)], dtype=np.int64)
    rows = [row_of[c] for c in coded]
    answered = [(r >= 0).all(axis=1) for r in rows]
    known = np.concatenate([r[a] for r, a in zip(rows, answered)] + [np.zeros((0, 4), np.int64)])
    best = _answers(lookup, known[:, :3], method, resolve_threads(threads))
    hits_all = (best >= 0) & (lookup.canonical[np.maximum(best, 0)] == known[:, 3])

    sections, offset = [], 0
    for (name, questions_of), ok in zip(parsed, answered):
        total = int(ok.sum())
        hits = hits_all[offset:offset + total]
        offset += total
        correct = int(np.count_nonzero(hits))
        listed = {}
        if questions:
            asked = [tuple(words) for (_, words), k in zip(questions_of, ok) if k]
            listed = {"correct_questions": [q for q, h in zip(asked, hits) if h],
                      "incorrect_questions": [q for q, h in zip(asked, hits) if not h],
                      "oov_questions": [tuple(words) for (_, words), k in zip(questions_of, ok) if not k]}
        sections.append({
            "section": name,
            "correct": correct,
            "total": total,
            "questions": len(questions_of),
            "accuracy": correct / total if total else None,
            **listed,
        })

    def summary(parts: list[dict[str, Any]]) -> dict[str, Any]:
        c = sum(s["correct"] for s in parts)
        t = sum(s["total"] for s in parts)
        q = sum(s["questions"] for s in parts)
        return {"correct": c, "total": t, "questions": q,
                "accuracy": c / t if t else None, "coverage": t / q if q else None}

    overall = summary(sections)
    return {
        **overall,
        "sections": sections,
        "semantic": summary([s for s in sections if not s["section"].startswith("gram")]),
        "syntactic": summary([s for s in sections if s["section"].startswith("gram")]),
        "restrict_vocab": restrict_vocab,
        "case_insensitive": case_insensitive,
        "method": method,
    }


def _parse_pairs(path: str | os.PathLike) -> list[tuple[int, str, str, float]]:
    """[(line number, w1, w2, score)] from "w1 w2 score" lines; '#' lines are comments."""
    pairs = []
    for line_no, line in _read_lines(path):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        fields = [f.strip() for f in fields]
        if len(fields) < 3:
            raise ValueError(f"{os.fspath(path)}, line {line_no}: expected 'word1 word2 score'")
        try:
            score = float(fields[2])
        except ValueError:
            score = math.nan
        if not math.isfinite(score):  # inf or nan would skew the correlations silently
            raise ValueError(f"{os.fspath(path)}, line {line_no}: score {fields[2]!r} is not "
                             "a finite number")
        pairs.append((line_no, fields[0], fields[1], score))
    return pairs


def _ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks, ties given their mean rank (Spearman's convention)."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    last = np.cumsum(counts)
    return (last - (counts - 1) / 2.0)[inverse]


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r in float64 (NaN when either side is constant)."""
    dx, dy = x - x.mean(), y - y.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.clip(np.dot(dx, dy) / math.sqrt(np.dot(dx, dx) * np.dot(dy, dy)), -1.0, 1.0))


def _pvalue(r: float, n: int) -> float:
    """Two-sided p-value of a correlation r over n pairs under no association
    (Student's t with n - 2 degrees of freedom, as scipy.stats computes it)."""
    from scipy.special import betainc

    if n <= 2 or r != r:
        return 1.0 if n <= 2 else math.nan
    return float(betainc((n - 2) / 2.0, 0.5, max(0.0, 1.0 - r * r)))


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def evaluate_word_pairs(
    vectors: Vectors,
    path: str | os.PathLike | PairSet | None = None,
    restrict_vocab: int | None = 300000,
    case_insensitive: bool = True,
    pvalues: bool = True,
) -> dict[str, Any]:
    """Correlation between human similarity scores and cosine similarities of word pairs.

    `path`: lines "w1 w2 score" separated by tabs (or whitespace), '#' lines ignored, or a
    file read already (read_pairs); None uses the shipped WordSim-353. Pairs with a word
    outside the first `restrict_vocab` words are skipped and counted as OOV, except with
    vectors that give any word a vector (SubwordVectors, FastText's): those words get theirs
    and every pair is scored.

    Returns {"pearson", "pearson_pvalue", "spearman", "spearman_pvalue", "pairs" (used),
    "oov" (skipped), "oov_ratio" (fraction of all pairs), "restrict_vocab",
    "case_insensitive"}; correlations are None when fewer than two pairs remain, p-values
    also when `pvalues` is False (they need scipy, slow to import once).
    """
    if path is None:
        from .datasets import path as dataset_path

        path = dataset_path("wordsim353")
    lookup = _Lookup(vectors, restrict_vocab, case_insensitive)
    # vectors that give any word a vector (SubwordVectors): a word outside the lookup is
    # scored with its own (its n-grams'), and no pair is skipped
    any_word = getattr(vectors, "word_vector", None)
    gold, units1, units2 = [], [], []
    oov = 0
    for _, w1, w2, score in (path.pairs if isinstance(path, PairSet) else _parse_pairs(path)):
        i, j = lookup.get(w1), lookup.get(w2)
        if any_word is None and (i is None or j is None):
            oov += 1
            continue
        gold.append(score)
        units1.append(lookup.unit[i] if i is not None else _unit(any_word(w1)))
        units2.append(lookup.unit[j] if j is not None else _unit(any_word(w2)))
    dim = lookup.unit.shape[1]
    model = np.einsum("ij,ij->i", np.reshape(units1, (-1, dim)), np.reshape(units2, (-1, dim))).astype(np.float64)
    total = len(gold) + oov
    result: dict[str, Any] = {
        "pearson": None, "pearson_pvalue": None, "spearman": None, "spearman_pvalue": None,
        "pairs": len(gold), "oov": oov, "oov_ratio": oov / total if total else None,
        "restrict_vocab": restrict_vocab, "case_insensitive": case_insensitive,
    }
    if len(gold) >= 2:
        gold_array = np.asarray(gold, dtype=np.float64)
        result.update(pearson=_correlation(gold_array, model),
                      spearman=_correlation(_ranks(gold_array), _ranks(model)))
        if pvalues:
            result.update(pearson_pvalue=_pvalue(result["pearson"], len(gold)),
                          spearman_pvalue=_pvalue(result["spearman"], len(gold)))
    return result


def evaluate_all(
    vectors: Vectors, restrict_vocab: int | None = 30000, pairs_restrict_vocab: int | None = 300000,
    threads: int | None = None,
) -> dict[str, Any]:
    """All shipped benchmarks: {"analogy": evaluate_analogies(restrict_vocab=...),
    "wordsim353": ..., "simlex999": ...} (word pairs use `pairs_restrict_vocab`)."""
    from .datasets import path as dataset_path

    return {
        "analogy": evaluate_analogies(vectors, restrict_vocab=restrict_vocab, threads=threads),
        "wordsim353": evaluate_word_pairs(vectors, dataset_path("wordsim353"),
                                          restrict_vocab=pairs_restrict_vocab),
        "simlex999": evaluate_word_pairs(vectors, dataset_path("simlex999"),
                                         restrict_vocab=pairs_restrict_vocab),
    }
