"""Evaluating one trained vectors file, in-process, after its run (never
inside the timing).

- analogy: Google questions-words, 3CosAdd, case-insensitive, candidates and
  question words restricted to the 30,000 most frequent words (questions with
  a word outside them are skipped: coverage says how many were answered);
- WordSim-353 and SimLex-999: Spearman correlation of cosine similarity with
  the human scores (pairs with an unknown word skipped: pairs / oov).

The subword modes' files (fastText's .bin, whoever wrote it) are read as
SubwordVectors (evaluate_subword_file): the same three scores, where a pair
word outside the vocabulary gets its n-gram vector (no pair skipped), and the
pairs with a word absent from training (benchmarks.absent_words)."""

from __future__ import annotations

import time

ANALOGY_RESTRICT_VOCAB = 30000

SETTINGS = {
    "analogy": {"set": "questions-words (Google, 19,544 questions)", "method": "3cosadd",
                "restrict_vocab": ANALOGY_RESTRICT_VOCAB, "case_insensitive": True,
                "oov_policy": "questions with a word outside the top 30,000 are skipped (see coverage)"},
    "word_pairs": {"sets": ["wordsim353", "simlex999"], "metric": "Spearman",
                   "restrict_vocab": "wv_engine default (300,000)", "case_insensitive": True,
                   "oov_policy": "pairs with an unknown word are skipped (see oov); subword modes: such a word "
                                 "gets its n-gram vector and no pair is skipped"},
    "absent_words": {"sets": ["wordsim353", "simlex999"], "metric": "Spearman over every pair with a word "
                     "absent from the training vocabulary (one list; each set's too)",
                     "how": "benchmarks.absent_words: subword modes only, vectors from the .bin's n-grams; "
                            "a word with no n-gram has a zero vector, cosine 0 (ties ranked by their mean)"},
}


def evaluate_file(path: str) -> dict:
    """{"analogy_pct", "analogy_coverage", "ws353", "simlex", ... , "eval_seconds"}."""
    from wv_engine import load_vectors

    t0 = time.perf_counter()
    return evaluate_vectors(load_vectors(path), t0)


def evaluate_subword_file(path: str, absent_pairs: dict[str, str] | None, check=None) -> dict:
    """evaluate_file's scores for fastText's .bin at `path` read as
    SubwordVectors, plus benchmarks.absent_words.score on the pair files
    `absent_pairs` (its pairs_paths), when given. check(words) -> the
    tool's own vectors of words, or None: the largest difference from the
    vectors read here, over the absent pairs' words, is kept
    (absent_own_max_diff)."""
    from . import absent_words

    t0 = time.perf_counter()
    v = absent_words.load_subword_vectors(path)
    out = evaluate_vectors(v, t0)
    if absent_pairs:
        out.update(absent_words.score(v, absent_pairs))
        words = absent_words.pair_words(absent_pairs)
        out["absent_in_vocab"] = [w for w in absent_words.absent_in(absent_pairs) if w in v]
        own = check(words) if check is not None else None
        if own is not None:
            out["absent_own_max_diff"] = absent_words.own_difference(v, words, own)
    out["eval_seconds"] = time.perf_counter() - t0
    return out


def evaluate_vectors(v, t0: float) -> dict:
    """The scores of evaluate_file for loaded vectors (t0: when the evaluation began)."""
    from wv_engine import datasets
    from wv_engine.evaluate import evaluate_analogies, evaluate_word_pairs

    a = evaluate_analogies(v, restrict_vocab=ANALOGY_RESTRICT_VOCAB, case_insensitive=True,
                           method="3cosadd")
    ws = evaluate_word_pairs(v, datasets.path("wordsim353"))
    sl = evaluate_word_pairs(v, datasets.path("simlex999"))

    def pct(x):
        return None if x is None else 100.0 * x

    return {
        "vocab_size": len(v),
        "analogy_pct": pct(a["accuracy"]),
        "analogy_semantic_pct": pct(a["semantic"]["accuracy"]),
        "analogy_syntactic_pct": pct(a["syntactic"]["accuracy"]),
        "analogy_answered": a["total"],
        "analogy_questions": a["questions"],
        "analogy_coverage": a["coverage"],
        "ws353": ws["spearman"],
        "ws353_pairs": ws["pairs"],
        "ws353_oov": ws["oov"],
        "simlex": sl["spearman"],
        "simlex_pairs": sl["pairs"],
        "simlex_oov": sl["oov"],
        "eval_seconds": time.perf_counter() - t0,
    }
