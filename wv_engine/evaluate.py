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

import math
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from .files import check_input
from .vectors import Vectors

__all__ = ["evaluate_analogies", "evaluate_word_pairs", "evaluate_all"]

_METHODS = ("3cosadd", "3cosmul")
_SCORE_BYTES = 1 << 25  # bound on one batch's score matrix (32 MiB: stays near the caches)
_GRAM_BYTES = 1 << 28  # bound on a section's table of question-word cosines (256 MiB)


class _Lookup:
    """The restricted, optionally case-folded vocabulary used by an evaluation."""

    def __init__(self, vectors: Vectors, restrict_vocab: int | None, case_insensitive: bool):
        limit = len(vectors) if restrict_vocab is None else min(int(restrict_vocab), len(vectors))
        if limit < 1:
            raise ValueError(f"restrict_vocab must be positive, got {restrict_vocab}")
        self.case_insensitive = case_insensitive
        self.unit = vectors.unit_head(limit)
        keys = vectors.words[:limit]
        if case_insensitive:
            keys = [w.upper() for w in keys]
        index: dict[str, int] = {}
        for i, key in enumerate(keys):
            index.setdefault(key, i)  # the earliest (most frequent) row wins a collision
        self.index = index
        # For each row, the row that stands for its folded string.
        self.canonical = np.fromiter((index[k] for k in keys), dtype=np.int64, count=limit)
        # Rows that lost a collision, grouped by the row they fold into.
        self.aliases: dict[int, list[int]] = {}
        for row in np.flatnonzero(self.canonical != np.arange(limit)):
            self.aliases.setdefault(int(self.canonical[row]), []).append(int(row))

    def fold(self, word: str) -> str:
        return word.upper() if self.case_insensitive else word

    def get(self, word: str) -> int | None:
        return self.index.get(self.fold(word))


def _read_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    # surrogateescape: matches how the package decodes corpus tokens, never fails on bytes.
    with open(check_input(path, "test set"), encoding="utf-8", errors="surrogateescape") as fh:
        for line_no, line in enumerate(fh, 1):
            yield line_no, line.strip()


def _parse_analogies(path: str | os.PathLike) -> list[tuple[str, list[tuple[int, list[str]]]]]:
    """[(section, [(line number, [a, b, c, d])])] from a questions-words style file."""
    sections: list[tuple[str, list[tuple[int, list[str]]]]] = []
    for line_no, line in _read_lines(path):
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


def _cosines(unit: np.ndarray, rows: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray]:
    """(gram, inverse): cosines of the distinct `rows` with every candidate (shifted to
    (1 + cos) / 2 for 3CosMul), and for each entry of `rows` its row in `gram`."""
    uniq, inv = np.unique(rows, return_inverse=True)
    gram = unit[uniq] @ unit.T
    if method == "3cosmul":
        gram += 1.0
        gram *= 0.5
    return gram, inv.reshape(rows.shape)


def _answer_batch(lookup: _Lookup, gram: np.ndarray, inv: np.ndarray, q: np.ndarray,
                  method: str) -> np.ndarray:
    """Best candidate row for each question "a : b :: c : ?".

    `q` holds the (k, 3) row indices of a, b, c; `gram[inv[i, j]]` holds the (shifted for
    3CosMul) cosines of question word q[i, j] with every candidate. Scoring from cosines of distinct words, rather
    than one product per question, saves most of the work since questions share words.
    """
    k = q.shape[0]
    ia, ib, ic = inv[:, 0], inv[:, 1], inv[:, 2]
    qa, qb, qc = q[:, 0], q[:, 1], q[:, 2]
    if method == "3cosadd":
        # argmax of cos(w, b - a + c) equals argmax of cos(w,b) - cos(w,a) + cos(w,c).
        scores = gram[ib]
        scores -= gram[ia]
        scores += gram[ic]
    else:
        # Levy & Goldberg's 3CosMul on cosines already shifted to [0, 1].
        scores = gram[ib]
        scores *= gram[ic]
        scores /= gram[ia] + 1e-6
    rows = np.arange(k)
    for col in (qa, qb, qc):
        scores[rows, col] = -np.inf
    if lookup.aliases:
        # Less frequent spellings of a question word are excluded too (judged by folded form).
        for i in range(k):
            for word_row in (qa[i], qb[i], qc[i]):
                extra = lookup.aliases.get(int(word_row))
                if extra:
                    scores[i, extra] = -np.inf
    return scores.argmax(axis=1)


def evaluate_analogies(
    vectors: Vectors,
    path: str | os.PathLike | None = None,
    restrict_vocab: int | None = 30000,
    case_insensitive: bool = True,
    method: str = "3cosadd",
    questions: bool = False,
) -> dict[str, Any]:
    """Accuracy on "a b c d" analogy questions (a : b :: c : d, answer searched as b - a + c).

    `path`: a questions-words style file (": section" lines, then "a b c d"); None uses the
    shipped Google set. `restrict_vocab`: how many of the most frequent words are used (30,000
    as in word2vec.c's demo; gensim's default is 300,000; None for all). `method`: "3cosadd" or
    "3cosmul".

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
    lookup = _Lookup(vectors, restrict_vocab, case_insensitive)
    batch = max(1, _SCORE_BYTES // (4 * lookup.unit.shape[0]))

    sections = []
    for name, questions_of in _parse_analogies(path):
        ids = [[lookup.get(w) for w in words] for _, words in questions_of]
        known = np.array([q for q in ids if None not in q], dtype=np.int64).reshape(-1, 4)
        correct = 0
        hits = np.zeros(known.shape[0], dtype=bool)
        if known.shape[0]:
            # One cosine table per section when it fits (sections reuse a few hundred words),
            # otherwise one per batch of questions.
            whole = np.unique(known[:, :3]).size * lookup.unit.shape[0] * 4 <= _GRAM_BYTES
            if whole:
                gram, inv = _cosines(lookup.unit, known[:, :3], method)
            for start in range(0, known.shape[0], batch):
                part = known[start:start + batch]
                if whole:
                    g, i = gram, inv[start:start + batch]
                else:
                    g, i = _cosines(lookup.unit, part[:, :3], method)
                best = _answer_batch(lookup, g, i, part[:, :3], method)
                hits[start:start + batch] = lookup.canonical[best] == part[:, 3]
        correct = int(np.count_nonzero(hits))
        listed = {}
        if questions:
            answered = [tuple(words) for (_, words), q in zip(questions_of, ids) if None not in q]
            listed = {"correct_questions": [q for q, h in zip(answered, hits) if h],
                      "incorrect_questions": [q for q, h in zip(answered, hits) if not h],
                      "oov_questions": [tuple(words) for (_, words), q in zip(questions_of, ids) if None in q]}
        sections.append({
            "section": name,
            "correct": correct,
            "total": int(known.shape[0]),
            "questions": len(questions_of),
            "accuracy": correct / known.shape[0] if known.shape[0] else None,
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


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def evaluate_word_pairs(
    vectors: Vectors,
    path: str | os.PathLike | None = None,
    restrict_vocab: int | None = 300000,
    case_insensitive: bool = True,
) -> dict[str, Any]:
    """Correlation between human similarity scores and cosine similarities of word pairs.

    `path`: lines "w1 w2 score" separated by tabs (or whitespace), '#' lines ignored; None
    uses the shipped WordSim-353. Pairs with a word outside the first `restrict_vocab` words
    are skipped and counted as OOV, except with vectors that give any word a vector
    (SubwordVectors, FastText's): those words get theirs and every pair is scored.

    Returns {"pearson", "pearson_pvalue", "spearman", "spearman_pvalue", "pairs" (used),
    "oov" (skipped), "oov_ratio" (fraction of all pairs), "restrict_vocab",
    "case_insensitive"}; correlations are None when fewer than two pairs remain.
    """
    from scipy import stats

    if path is None:
        from .datasets import path as dataset_path

        path = dataset_path("wordsim353")
    lookup = _Lookup(vectors, restrict_vocab, case_insensitive)
    # vectors that give any word a vector (SubwordVectors): a word outside the lookup is
    # scored with its own (its n-grams'), and no pair is skipped
    any_word = getattr(vectors, "word_vector", None)
    gold, units1, units2 = [], [], []
    oov = 0
    for _, w1, w2, score in _parse_pairs(path):
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
        pr = stats.pearsonr(gold, model)
        sr = stats.spearmanr(gold, model)
        result.update(pearson=float(pr[0]), pearson_pvalue=float(pr[1]),
                      spearman=float(sr[0]), spearman_pvalue=float(sr[1]))
    return result


def evaluate_all(
    vectors: Vectors, restrict_vocab: int | None = 30000, pairs_restrict_vocab: int | None = 300000
) -> dict[str, Any]:
    """All shipped benchmarks: {"analogy": evaluate_analogies(restrict_vocab=...),
    "wordsim353": ..., "simlex999": ...} (word pairs use `pairs_restrict_vocab`)."""
    from .datasets import path as dataset_path

    return {
        "analogy": evaluate_analogies(vectors, restrict_vocab=restrict_vocab),
        "wordsim353": evaluate_word_pairs(vectors, dataset_path("wordsim353"),
                                          restrict_vocab=pairs_restrict_vocab),
        "simlex999": evaluate_word_pairs(vectors, dataset_path("simlex999"),
                                         restrict_vocab=pairs_restrict_vocab),
    }
