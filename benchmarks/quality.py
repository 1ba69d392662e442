"""Evaluating one trained vectors file, in-process, after its run (never
inside the timing).

- analogy: Google questions-words, 3CosAdd, case-insensitive, candidates and
  question words restricted to the 30,000 most frequent words (questions with
  a word outside them are skipped: coverage says how many were answered);
- WordSim-353 and SimLex-999: Spearman correlation of cosine similarity with
  the human scores (pairs with an unknown word skipped: pairs / oov)."""

from __future__ import annotations

import time

ANALOGY_RESTRICT_VOCAB = 30000

SETTINGS = {
    "analogy": {"set": "questions-words (Google, 19,544 questions)", "method": "3cosadd",
                "restrict_vocab": ANALOGY_RESTRICT_VOCAB, "case_insensitive": True,
                "oov_policy": "questions with a word outside the top 30,000 are skipped (see coverage)"},
    "word_pairs": {"sets": ["wordsim353", "simlex999"], "metric": "Spearman",
                   "restrict_vocab": "wv_engine default (300,000)", "case_insensitive": True,
                   "oov_policy": "pairs with an unknown word are skipped (see oov)"},
}


def evaluate_file(path: str) -> dict:
    """{"analogy_pct", "analogy_coverage", "ws353", "simlex", ... , "eval_seconds"}."""
    from wv_engine import datasets, load_vectors
    from wv_engine.evaluate import evaluate_analogies, evaluate_word_pairs

    t0 = time.perf_counter()
    v = load_vectors(path)
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
