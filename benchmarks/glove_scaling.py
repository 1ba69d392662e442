"""Thread scaling of GloVe: co-occurrence counting and one training epoch at
several thread counts (counts and records computed once per thread count for
counting, once in all for training).

    python -m benchmarks.glove_scaling --corpus wiki_17m.txt.gz --threads 1,2,4,8,16 [--window 15]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from wv_engine import Vocabulary, cooccur
from wv_engine.corpus import encode
from wv_engine.glove import GloVe

from .machine import cpu_model


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.glove_scaling", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--window", type=int, default=15)
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    vocab = Vocabulary.build(args.corpus, min_count=5)
    enc = encode(args.corpus, vocab.words_as_bytes())
    print(f"# {cpu_model()}, {os.cpu_count()} cores; vocabulary {len(vocab):,}, {enc.words:,} words", flush=True)
    runs, matrix = [], None
    for n in threads:
        t0 = time.perf_counter()
        matrix = cooccur.count(enc, vocab, args.window, threads=n, memory_limit="2G", progress=False)
        count_s = time.perf_counter() - t0
        m = GloVe(dim=100, window=args.window, x_max=10, epochs=1, threads=n)
        m.build_vocab(vocab=vocab)
        stats = m.train(matrix, progress=False)
        rate = matrix.nnz / stats.train_seconds
        runs.append({"threads": n, "count_seconds": count_s, "epoch_seconds": stats.train_seconds,
                     "records_per_sec": rate, "nonzeros": matrix.nnz})
        print(f"threads={n}: count {count_s:.1f} s, epoch {stats.train_seconds:.1f} s ({rate:,.0f} records/s)",
              flush=True)
    base = runs[0]
    print("\n| threads | count s | speed-up | epoch s | records/s | speed-up |\n|---|---|---|---|---|---|")
    for r in runs:
        print(f"| {r['threads']} | {r['count_seconds']:.1f} | {base['count_seconds'] / r['count_seconds']:.2f}x | "
              f"{r['epoch_seconds']:.1f} | {r['records_per_sec']:,.0f} | "
              f"{r['records_per_sec'] / base['records_per_sec']:.2f}x |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_model(), "cores": os.cpu_count(), "runs": runs}, f, indent=2)


if __name__ == "__main__":
    main()
