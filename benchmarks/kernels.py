"""Micro-benchmarks of the training kernels, without any file I/O:

    python -m benchmarks.kernels [--dim 100] [--seconds 3] [--threads 1,2]

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
scaling = throughput relative to 1 thread. GloVe: TODO once wv_engine has it."""

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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.kernels",
                                description=__doc__.split("\n\n", 1)[0],
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--seconds", type=float, default=3.0, help="target training time per measurement")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--kernels", default=",".join(KERNELS), help=f"subset of {','.join(KERNELS)}")
    p.add_argument("--vocab", type=int, default=50000, help="synthetic vocabulary size")
    p.add_argument("--words", type=int, default=2_000_000, help="synthetic corpus size")
    p.add_argument("--zipf", type=float, default=1.0, help="Zipf exponent")
    p.add_argument("--window", type=int, default=5)
    p.add_argument("--negative", type=int, default=5)
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    a = p.parse_args(argv)
    threads = [int(t) for t in a.threads.split(",")]
    kernels = [k.strip().upper() for k in a.kernels.split(",")]
    bad = [k for k in kernels if k not in KERNELS]
    if bad:
        p.error(f"unknown kernel(s) {bad}; choose from {list(KERNELS)}")

    import wv_engine
    t0 = time.perf_counter()
    vocab, corpus = synthetic_corpus(a.vocab, a.words, a.zipf, seed=1)
    code_len, _, _ = vocab.huffman()
    mean_code = float(np.dot(np.asarray(code_len[: len(vocab)], np.float64), vocab.counts) / vocab.counts.sum())
    print(f"wv_engine {wv_engine.__version__}; synthetic corpus: {corpus.words:,} words, {len(vocab):,} "
          f"distinct (Zipf {a.zipf}), built in {time.perf_counter() - t0:.1f} s; dim {a.dim}, window "
          f"{a.window}, negative {a.negative}, sample 0, mean Huffman code length {mean_code:.2f}; "
          f"{os.cpu_count()} cores")
    head = f"{'kernel':<8} {'threads':>7} {'words/s':>12} {'updates/s':>14} {'ns/update':>10} {'scaling':>8} {'seconds':>8}"
    print(head)
    print("-" * len(head))
    rows = []
    for k in kernels:
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
    print("GloVe: TODO (wv_engine has no GloVe trainer yet)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"settings": vars(a), "mean_code_length": mean_code, "results": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
