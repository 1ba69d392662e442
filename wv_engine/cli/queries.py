"""`wv-engine eval`, `similar` and `analogy`: questions asked of a vectors
file (flags: args.py)."""

from __future__ import annotations

import json
import sys

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
    """The vectors of VECTORS (load_vectors), a failure naming it; a native
    file is mapped (opened in milliseconds, its norms and word table stored)."""
    from ..io import detect_format, load_vectors

    try:
        native = detect_format(args.vectors) == "native"
    except (OSError, ValueError):  # load_vectors names what is wrong with it
        native = False
    return read_as("VECTORS", args.vectors, load_vectors, "auto", "surrogateescape", None, native)


def _print_neighbours(pairs, indent: str = "") -> None:
    print("\n".join(f"{indent}{score:.4f}  {word}" for word, score in pairs))


def run_similar(args) -> int:
    """`wv-engine similar`: nearest neighbours of one word or many (all
    answered in one pass over the vectors)."""
    queries = list(args.word)
    if args.words:
        queries += _query_words(args.words)
    if not queries:
        raise ValueError("similar needs at least one WORD or --words FILE")
    vectors = _vectors(args)
    unknown = [w for w in dict.fromkeys(queries) if w not in vectors]
    if unknown:
        named = ", ".join(repr(w) for w in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        if not args.skip_unknown or len(unknown) == len(set(queries)):
            if len(queries) == 1:
                vectors.get_index(queries[0])  # the one word's own error
            raise KeyError(f"{len(unknown)} of the query words are not in the vocabulary "
                           f"({len(vectors):,} words): {named}")
        print(f"wv-engine: skipped {len(unknown)} words not in the vocabulary: {named}", file=sys.stderr)
        queries = [w for w in queries if w not in set(unknown)]
    if args.approximate or args.index:
        if args.restrict_vocab:
            raise ValueError("--restrict-vocab searches exactly; it does not go with --approximate")
        from ..approximate import ApproximateIndex, index_path

        index = read_as("--index", args.index or index_path(args.vectors), ApproximateIndex.load, vectors)
        if args.ef:
            index.ef = args.ef
        answers = index.most_similar_many(queries, topn=args.n)
    else:
        answers = vectors.most_similar_many(queries, topn=args.n, restrict_vocab=args.restrict_vocab)
    if args.json:
        print(json.dumps({w: [[n, s] for n, s in a] for w, a in zip(queries, answers)}, ensure_ascii=False))
    elif len(queries) == 1:
        _print_neighbours(answers[0])
    else:
        for word, answer in zip(queries, answers):
            print(f"{word}:")
            _print_neighbours(answer, indent="  ")
    return 0


def run_index(args) -> int:
    """`wv-engine index`: an approximate-neighbour index saved beside the vectors."""
    from ..approximate import ApproximateIndex, index_path

    vectors = _vectors(args)
    out = args.output or index_path(args.vectors)
    index = ApproximateIndex.build(vectors, m=args.m, ef_construction=args.ef_construction, ef=args.ef,
                                   threads=args.threads, seed=args.seed)
    index.save(out)
    print(f"wrote {out} ({len(vectors):,} rows)", file=sys.stderr)
    return 0


def _query_words(path: str) -> list[str]:
    """The words of a --words file, one a line (blank lines skipped)."""
    if path == "-":
        return [line.strip() for line in sys.stdin if line.strip()]
    return read_as("--words", path, _lines)


def _lines(path: str) -> list[str]:
    from ..files import check_input

    with open(check_input(path, "--words file"), encoding="utf-8", errors="surrogateescape") as f:
        return [line.strip() for line in f if line.strip()]


def run_analogy(args) -> int:
    """`wv-engine analogy`: A is to B as C is to ?"""
    _print_neighbours(_vectors(args).analogy(args.a, args.b, args.c, topn=args.n))
    return 0
