"""A set of trained vectors the size of a pretrained one (issue #58's
approximate search on millions of words), made here from a corpus:

    python -m benchmarks.trained_set --corpus wiki_17m.txt --rows 2000000 --dim 300 --out set.wv
        [--epochs 1] [--threads 2] [--seed 1]

Random rows have no neighbourhoods (in 300 dimensions a row's ten nearest
are barely nearer than the rest), so they say little about an approximate
index on real vectors; and no real text here has two million distinct
words. This set is what fastText gives a user for two million keys: its
subword model (skip-gram, negative sampling, n-grams of 3-6 characters, 2M
buckets, min_count 5) trained on the corpus, then the vector of every
distinct word of the corpus, followed by its most frequent pairs of
adjacent words joined by "_" (the phrases a vocabulary such as word2vec's
GoogleNews set holds), most frequent first, until --rows: a vocabulary
word's vector is the mean of its own row and its n-grams' rows, any other
key's the mean of its n-grams' rows, as fastText computes them. The same
arguments give the same file (one thread with the same seed; the model's
Hogwild threads otherwise). Written as the native file (norms stored,
mapped on load)."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def frequent_keys(tokens: list[bytes], rows: int) -> list[str]:
    """Every distinct token (most frequent first, ties in first-seen order),
    then the most frequent pairs of adjacent tokens joined by '_' (ties in
    the order of their words' ranks), until `rows` keys; a pair already
    among the tokens is left out."""
    index: dict[bytes, int] = {}
    ids = np.fromiter((index.setdefault(t, len(index)) for t in tokens), dtype=np.int64, count=len(tokens))
    counts = np.bincount(ids, minlength=len(index))
    order = np.argsort(-counts, kind="stable")  # ids are first-seen order: ties stay in it
    words = list(index)
    keys = [words[i].decode("utf-8", "surrogateescape") for i in order]
    if len(keys) >= rows:
        return keys[:rows]
    rank = np.empty(len(keys), dtype=np.int64)
    rank[order] = np.arange(len(keys))
    pairs = rank[ids[:-1]] * len(keys) + rank[ids[1:]]
    distinct, pair_counts = np.unique(pairs, return_counts=True)
    known = set(keys)
    for code in distinct[np.argsort(-pair_counts, kind="stable")]:
        key = f"{keys[code // len(rank)]}_{keys[code % len(rank)]}"
        if key not in known:
            keys.append(key)
            known.add(key)
            if len(keys) == rows:
                break
    return keys


def subword_vectors(model, keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each key's vector and norm from a trained FastText model, as
    fastText gives them: keys[:V] must be the model's vocabulary in order
    (their own row and n-grams), the rest are any other strings (n-grams only)."""
    from wv_engine import _subwords

    V = len(model.vocab)
    if list(keys[:V]) != list(model.vocab.words):
        raise ValueError("the keys must start with the model's vocabulary, in its order")
    offsets, rows = _subwords.subword_table(keys, model.minn, model.maxn, model.ngram_buckets)
    offsets = offsets.astype(np.int64)
    own = np.zeros(len(rows), dtype=bool)
    own[offsets[V:-1]] = True  # an unseen key's first entry points at a row of its own that the model lacks
    rows = rows[~own].astype(np.int64)
    lengths = np.diff(offsets)
    lengths[V:] -= 1
    rows[rows >= len(keys)] += V - len(keys)  # n-gram rows sit past the model's vocabulary, not past the keys'
    new_offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    out = np.empty((len(keys), model.dim), dtype=np.float32)
    norms = np.empty(len(keys), dtype=np.float32)
    _subwords.mean_rows(model.input_vectors, new_offsets.astype(np.int32), rows.astype(np.int32), out,
                        model.threads, norms)
    return out, norms


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.trained_set", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True, help="plain text")
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--dim", type=int, default=300)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True, help="the native vectors file to write")
    a = p.parse_args(argv)
    from wv_engine import FastText, Vectors

    t = time.perf_counter()
    model = FastText(dim=a.dim, epochs=a.epochs, threads=a.threads, seed=a.seed).fit(a.corpus)
    print(f"trained: {len(model.vocab):,} words, dim {a.dim}, {time.perf_counter() - t:.1f} s", flush=True)
    t = time.perf_counter()
    with open(a.corpus, "rb") as f:
        tokens = f.read().split()
    counted = frequent_keys(tokens, a.rows + len(model.vocab))
    vocab = list(model.vocab.words)
    in_vocab = set(vocab)
    keys = (vocab + [k for k in counted if k not in in_vocab])[:a.rows]
    del tokens
    print(f"keys: {len(keys):,} ({len(vocab):,} vocabulary words, {sum('_' in k for k in keys):,} pairs), "
          f"{time.perf_counter() - t:.1f} s", flush=True)
    t = time.perf_counter()
    matrix, _ = subword_vectors(model, keys)
    del model
    Vectors(keys, matrix, metadata={"made_by": "benchmarks.trained_set", "corpus": a.corpus, "dim": a.dim,
                                    "epochs": a.epochs, "seed": a.seed}).save(a.out)
    print(f"wrote {a.out}: {matrix.shape[0]:,} x {matrix.shape[1]}, {time.perf_counter() - t:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
