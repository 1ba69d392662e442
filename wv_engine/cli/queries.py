"""`wv-engine eval`, `similar` and `analogy`: questions asked of a vectors
file (flags: args.py)."""

from __future__ import annotations

import json

from ..files import read_as


def run_eval(args) -> int:
    """`wv-engine eval`: analogies and word-pair correlations of a vectors file."""
    from ..epoch_scores import evaluate_sets
    from ..evaluate import read_analogies, read_pairs

    analogies = read_as("--analogies", args.analogies, read_analogies) if args.analogies else None
    pairs = [read_as("--pairs", path, read_pairs) for path in args.pairs or ()]
    results = evaluate_sets(_vectors(args), analogies, pairs, args.restrict_vocab)
    names = [name for name in results if name != "analogy"]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    a = results["analogy"]
    print(f"analogy ({a['method']}, top {a['restrict_vocab']:,} words, case-insensitive): "
          f"{_pct(a['accuracy'], '.2f')} of {a['total']:,} answered questions "
          f"(coverage {_pct(a['coverage'], '.1f')} of {a['questions']:,})")
    for s in a["sections"]:
        print(f"  {s['section']:<32} {_pct(s['accuracy'], '6.2f')}  ({s['correct']}/{s['total']})")
    for name in names:
        r = results[name]
        print(f"{name}: Spearman {_num(r['spearman'])}, Pearson {_num(r['pearson'])} "
              f"({r['pairs']} pairs, OOV {_pct(r['oov_ratio'], '.1f')})")
    return 0


def _pct(value, spec: str) -> str:
    """A share as a percentage, or n/a where nothing could be measured."""
    return "n/a" if value is None else f"{value * 100:{spec}}%"


def _num(value) -> str:
    return "n/a" if value is None or value != value else f"{value:.3f}"


def _vectors(args):
    """The vectors of VECTORS (load_vectors), a failure naming it."""
    from ..io import load_vectors

    return read_as("VECTORS", args.vectors, load_vectors)


def _print_neighbours(pairs) -> None:
    for word, score in pairs:
        print(f"{score:.4f}  {word}")


def run_similar(args) -> int:
    """`wv-engine similar`: nearest neighbours of a word."""
    _print_neighbours(_vectors(args).most_similar(args.word, topn=args.n))
    return 0


def run_analogy(args) -> int:
    """`wv-engine analogy`: A is to B as C is to ?"""
    _print_neighbours(_vectors(args).analogy(args.a, args.b, args.c, topn=args.n))
    return 0
