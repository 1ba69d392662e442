"""Thread scaling of GloVe: co-occurrence counting and training epochs at
several thread counts, training under each --grid setting ("4x": 4 bands
per thread; 0: glove.c's one shuffled order split in ranges, the engine's
default; B: B bands).

    python -m benchmarks.glove_scaling --corpus wiki_17m.txt.gz --threads 1,2,4,8,16 [--window 15] \
        [--grid 4x,0] [--epochs 1]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from wv_engine import Vocabulary, _glove, cooccur
from wv_engine.corpus import encode
from wv_engine.glove import GloVe

from .machine import cpu_model


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.glove_scaling", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--window", type=int, default=15)
    p.add_argument("--grid", default="0", help="comma-separated: 4x (4 bands per thread), 0 or a number of bands")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    grids = args.grid.split(",")
    vocab = Vocabulary.build(args.corpus, min_count=5)
    enc = encode(args.corpus, vocab.words_as_bytes())
    print(f"# {cpu_model()}, {os.cpu_count()} cores; vocabulary {len(vocab):,}, {enc.words:,} words", flush=True)
    runs, matrix = [], None
    for n in threads:
        t0 = time.perf_counter()
        matrix = cooccur.count(enc, vocab, args.window, threads=n, memory_limit="2G", progress=False)
        count_s = time.perf_counter() - t0
        for grid in grids:
            bands = min(_glove.MAX_BANDS, 4 * n) if grid == "4x" else int(grid)
            m = GloVe(dim=100, window=args.window, x_max=10, epochs=args.epochs, threads=n, grid=bands)
            m.build_vocab(vocab=vocab)
            stats = m.train(matrix, progress=False)
            epoch_s = stats.train_seconds / args.epochs
            rate = matrix.nnz / epoch_s
            runs.append({"threads": n, "grid": bands, "count_seconds": count_s, "epoch_seconds": epoch_s,
                         "records_per_sec": rate, "nonzeros": matrix.nnz, "cost": stats.epoch_cost[-1]})
            print(f"threads={n} grid={bands}: count {count_s:.1f} s, epoch {epoch_s:.2f} s "
                  f"({rate:,.0f} records/s), cost {stats.epoch_cost[-1]:.6f}", flush=True)
    base = runs[0]
    print("\n| threads | grid bands | count s | speed-up | epoch s | records/s | speed-up | cost |\n"
          "|---|---|---|---|---|---|---|---|")
    for r in runs:
        print(f"| {r['threads']} | {r['grid']} | {r['count_seconds']:.1f} | "
              f"{base['count_seconds'] / r['count_seconds']:.2f}x | {r['epoch_seconds']:.2f} | "
              f"{r['records_per_sec']:,.0f} | {r['records_per_sec'] / base['records_per_sec']:.2f}x | "
              f"{r['cost']:.6f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_model(), "cores": os.cpu_count(), "runs": runs}, f, indent=2)


if __name__ == "__main__":
    main()
