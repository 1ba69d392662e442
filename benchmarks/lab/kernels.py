"""Micro-benchmarks of the training kernels, without any file I/O:

    python -m benchmarks.lab.kernels [--dim 100] [--seconds 3] [--threads 1,2] [--kernels SG-NS,CBOW-NS,SG-HS,GloVe]

A synthetic corpus of random Zipf-distributed word ids (sentences of 1,000
words) is built in memory once; for each kernel (SG-NS, CBOW-NS, SG-HS) and
thread count, wv_engine.Word2Vec trains on it through the Python API
(build_vocab(vocab=Vocabulary(...)) then train(EncodedCorpus(...))) for about
--seconds, after a short warm-up. Subsampling is off (sample=0) so every word
is trained and the update counts below are well defined.

Columns: words/s = centre words trained per second; updates/s = estimated
output-row updates per second (one dot product + two axpy of length dim):
SG-NS (window+1)*(1+negative) per word (shrunk windows average window+1
context words), CBOW-NS (1+negative) per word, SG-HS (window+1)*mean Huffman
code length per word; ns/update = 1e9 / updates/s (per thread: x threads);
scaling = throughput relative to 1 thread.

GloVe: a synthetic co-occurrence matrix (--glove-nnz distinct non-zeros,
row and column ids drawn from the same Zipf law over --vocab words, values
1/distance-like sums from a heavy tail so some exceed x_max) is built once;
wv_engine.glove.GloVe(dim, threads, epochs=1) trains on it through the Python
API (build_vocab(vocab=Vocabulary(...)), train(matrix) as warm-up, then
train(epochs=...) for about --seconds). records/s = non-zeros x epochs /
train seconds; each record is one AdaGrad update (one dot product and, for
the word and the context row, an update of the vector, its squared-gradient
accumulator and its bias: ~ 2 axpy-like passes of length dim);
ns/record = 1e9 / records/s."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

KERNELS = {  # name -> (arch, loss)
    "SG-NS": ("skipgram", "ns"),
    "CBOW-NS": ("cbow", "ns"),
    "SG-HS": ("skipgram", "hs"),
}
SENTENCE = 1000


def synthetic_corpus(vocab_size: int, words: int, exponent: float, seed: int):
    """(Vocabulary, EncodedCorpus): ids drawn from a Zipf law over vocab_size
    ranks, renumbered so id 0 is the most frequent, -1 after every sentence."""
    from wv_engine import EncodedCorpus, Vocabulary

    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab_size + 1, dtype=np.float64) ** exponent
    p /= p.sum()
    raw = rng.choice(vocab_size, size=words, p=p).astype(np.int32)
    counts = np.bincount(raw, minlength=vocab_size)
    order = np.argsort(-counts, kind="stable")
    order = order[counts[order] > 0]                   # words never drawn are left out
    remap = np.full(vocab_size, -1, dtype=np.int32)
    remap[order] = np.arange(len(order), dtype=np.int32)
    ids = remap[raw]
    n_sent = math.ceil(words / SENTENCE)
    ids = np.append(np.insert(ids, np.arange(SENTENCE, words, SENTENCE), -1), np.int32(-1))
    vocab = Vocabulary([f"w{i}" for i in range(len(order))], counts[order])
    corpus = EncodedCorpus(ids=ids.astype(np.int32), tokens=words, words=words, oov=0, sentences=n_sent)
    return vocab, corpus


def updates_per_word(arch: str, loss: str, window: int, negative: int, mean_code: float) -> float:
    contexts = window + 1
    if loss == "hs":
        return (contexts if arch == "skipgram" else 1) * mean_code
    return (contexts if arch == "skipgram" else 1) * (1 + negative)


def bench(vocab, corpus, arch, loss, threads, dim, window, negative, seconds):
    from wv_engine import Word2Vec

    def model():
        return Word2Vec(arch=arch, loss=loss, dim=dim, window=window, negative=negative,
                        sample=0.0, min_count=1, epochs=1, threads=threads).build_vocab(vocab=vocab)

    # warm-up on a slice (page faults, thread start), which also estimates the rate
    m = model()
    head = corpus.ids[: min(len(corpus.ids), 200 * (SENTENCE + 1))]
    n_head = int(np.count_nonzero(head != -1))
    from wv_engine import EncodedCorpus
    st = m.train(EncodedCorpus(ids=head, tokens=n_head, words=n_head, oov=0,
                               sentences=int(np.count_nonzero(head == -1))), progress=False)
    rate = st.words_per_sec or 1.0
    epochs = max(1, math.ceil(seconds * rate / corpus.words))
    st = m.train(corpus, epochs=epochs, progress=False)
    return st.words_per_sec, st.train_seconds, epochs


def synthetic_cooccurrence(vocab_size: int, nnz: int, exponent: float, seed: int):
    """(Vocabulary, CSR float32 matrix): about nnz distinct non-zeros whose row
    and column ids follow a Zipf law (the frequent words' rows are hot, as in
    a real matrix), values from a heavy tail (sums of 1/distance weights)."""
    import scipy.sparse as sp
    from wv_engine import Vocabulary

    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab_size + 1, dtype=np.float64) ** exponent
    p /= p.sum()
    cdf = np.cumsum(p)
    keys = np.empty(0, dtype=np.int64)
    while len(keys) < nnz:   # draw pairs until enough distinct ones
        k = nnz - len(keys)
        rows = np.minimum(np.searchsorted(cdf, rng.random(2 * k)), vocab_size - 1)
        cols = np.minimum(np.searchsorted(cdf, rng.random(2 * k)), vocab_size - 1)
        keys = np.unique(np.concatenate([keys, rows.astype(np.int64) * vocab_size + cols]))
    keys = rng.permutation(keys)[:nnz]
    rows, cols = np.divmod(keys, vocab_size)
    values = (1.0 / rng.uniform(0.02, 1.0, nnz) ** 1.2).astype(np.float32)   # ~1 ... ~110
    m = sp.csr_matrix((values, (rows, cols)), shape=(vocab_size, vocab_size), dtype=np.float32)
    m.sum_duplicates()
    counts = np.maximum(1, np.asarray(m.sum(axis=1)).ravel().round().astype(np.int64))
    vocab = Vocabulary([f"w{i}" for i in range(vocab_size)], np.sort(counts)[::-1])
    return vocab, m


def bench_glove(vocab, matrix, threads: int, dim: int, seconds: float):
    """(records/s, train seconds, epochs) of GloVe's AdaGrad epochs on matrix."""
    from wv_engine.glove import GloVe

    m = GloVe(dim=dim, threads=threads, epochs=1)
    m.build_vocab(vocab=vocab)
    st = m.train(matrix, progress=False)          # warm-up; also makes the records once
    rate = st.nonzeros / st.train_seconds if st.train_seconds else 1.0
    epochs = max(1, math.ceil(seconds * rate / st.nonzeros))
    st = m.train(epochs=epochs, progress=False)   # same records, no re-shuffle cost
    return st.nonzeros * epochs / st.train_seconds, st.train_seconds, epochs, st.nonzeros


def glove_kernel(a, threads: list[int]) -> list[dict]:
    t0 = time.perf_counter()
    vocab, matrix = synthetic_cooccurrence(a.vocab, a.glove_nnz, a.zipf, seed=2)
    print(f"\nGloVe: synthetic co-occurrence matrix {a.vocab:,} x {a.vocab:,}, {matrix.nnz:,} non-zeros "
          f"(Zipf {a.zipf} ids), built in {time.perf_counter() - t0:.1f} s; dim {a.dim}, AdaGrad, float32")
    head = f"{'kernel':<8} {'threads':>7} {'records/s':>14} {'ns/record':>10} {'scaling':>8} {'seconds':>8}"
    print(head)
    print("-" * len(head))
    rows, base = [], None
    for t in threads:
        rps, secs, epochs, nnz = bench_glove(vocab, matrix, t, a.dim, a.seconds)
        base = base or (rps if t == threads[0] else None)
        scale = rps / base if base else float("nan")
        print(f"{'GloVe':<8} {t:>7} {rps:>14,.0f} {1e9 / rps:>10.2f} {scale:>7.2f}x {secs:>8.2f}", flush=True)
        rows.append({"kernel": "GloVe", "threads": t, "records_per_sec": rps, "ns_per_record": 1e9 / rps,
                     "scaling_vs_first": scale, "train_seconds": secs, "epochs": epochs, "nonzeros": nnz})
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.lab.kernels",
                                description=__doc__.split("\n\n", 1)[0],
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--seconds", type=float, default=3.0, help="target training time per measurement")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--kernels", default=",".join([*KERNELS, "GloVe"]),
                   help=f"subset of {','.join([*KERNELS, 'GloVe'])}")
    p.add_argument("--vocab", type=int, default=50000, help="synthetic vocabulary size")
    p.add_argument("--words", type=int, default=2_000_000, help="synthetic corpus size")
    p.add_argument("--zipf", type=float, default=1.0, help="Zipf exponent")
    p.add_argument("--window", type=int, default=5)
    p.add_argument("--negative", type=int, default=5)
    p.add_argument("--glove-nnz", type=int, default=2_000_000,
                   help="non-zeros of the synthetic GloVe co-occurrence matrix (0: skip GloVe)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    a = p.parse_args(argv)
    threads = [int(t) for t in a.threads.split(",")]
    kernels = [k.strip().upper() for k in a.kernels.split(",")]
    bad = [k for k in kernels if k not in KERNELS and k != "GLOVE"]
    if bad:
        p.error(f"unknown kernel(s) {bad}; choose from {[*KERNELS, 'GloVe']}")

    import wv_engine
    print(f"wv_engine {wv_engine.__version__}; {os.cpu_count()} cores")
    rows, mean_code = [], None
    w2v = [k for k in kernels if k in KERNELS]
    if w2v:
        t0 = time.perf_counter()
        vocab, corpus = synthetic_corpus(a.vocab, a.words, a.zipf, seed=1)
        code_len, _, _ = vocab.huffman()
        mean_code = float(np.dot(np.asarray(code_len[: len(vocab)], np.float64), vocab.counts)
                          / vocab.counts.sum())
        print(f"synthetic corpus: {corpus.words:,} words, {len(vocab):,} "
              f"distinct (Zipf {a.zipf}), built in {time.perf_counter() - t0:.1f} s; dim {a.dim}, window "
              f"{a.window}, negative {a.negative}, sample 0, mean Huffman code length {mean_code:.2f}")
        head = (f"{'kernel':<8} {'threads':>7} {'words/s':>12} {'updates/s':>14} {'ns/update':>10} "
                f"{'scaling':>8} {'seconds':>8}")
        print(head)
        print("-" * len(head))
    for k in w2v:
        arch, loss = KERNELS[k]
        upw = updates_per_word(arch, loss, a.window, a.negative, mean_code)
        base = None
        for t in threads:
            wps, secs, epochs = bench(vocab, corpus, arch, loss, t, a.dim, a.window, a.negative, a.seconds)
            ups = wps * upw
            base = base or (wps if t == threads[0] else None)
            scale = wps / base if base else float("nan")
            print(f"{k:<8} {t:>7} {wps:>12,.0f} {ups:>14,.0f} {1e9 / ups:>10.2f} {scale:>7.2f}x {secs:>8.2f}",
                  flush=True)
            rows.append({"kernel": k, "threads": t, "words_per_sec": wps, "updates_per_sec": ups,
                         "updates_per_word": upw, "ns_per_update": 1e9 / ups,
                         "scaling_vs_first": scale, "train_seconds": secs, "epochs": epochs})
    glove_rows = glove_kernel(a, threads) if "GLOVE" in kernels and a.glove_nnz > 0 else []
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"settings": vars(a), "mean_code_length": mean_code, "results": rows,
                       "glove": glove_rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
