"""Thread scaling of the word2vec training loop: words/s of one epoch at
several thread counts, on token ids already in memory (the C loop only).

    python -m benchmarks.thread_scaling --corpus wiki_17m.txt.gz --threads 1,2,4,8,16 [--repeats 3]
        [--modes sg-ns,cbow-ns,sg-hs] [--hot-rows 0,1024,4096]

Prints a markdown table (median words/s, speed-up over 1 thread) and, with
--json, writes the raw runs. --hot-rows sweeps Word2Vec(hot_rows=...), the
output rows each thread keeps a private copy of (see csrc/w2v.c): the
setting that most depends on the core count."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from wv_engine import Vocabulary, Word2Vec

from .machine import cpu_model

MODES = {"sg-ns": ("skipgram", "ns"), "cbow-ns": ("cbow", "ns"), "sg-hs": ("skipgram", "hs")}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.thread_scaling", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--modes", default="sg-ns")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--sample", type=float, default=1e-4)
    p.add_argument("--hot-rows", default="auto", help="comma-separated values to sweep (auto: the default per loss)")
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    hot_rows = [None if h == "auto" else int(h) for h in args.hot_rows.split(",")]
    t0 = time.perf_counter()
    vocab = Vocabulary.build(args.corpus, min_count=5)
    probe = Word2Vec(min_count=5)
    probe.build_vocab(vocab=vocab)
    encoded = probe.encode(args.corpus)
    print(f"# {cpu_model()}, {os.cpu_count()} cores; vocabulary {len(vocab):,}, "
          f"{encoded.words:,} words; prepared in {time.perf_counter() - t0:.1f} s", flush=True)
    runs = []
    for mode in args.modes.split(","):
        arch, loss = MODES[mode]
        for r in range(args.repeats):
            for hot in hot_rows:
                for n in threads:
                    m = Word2Vec(arch=arch, loss=loss, sample=args.sample, epochs=1, threads=n,
                                 alpha=0.05 if arch == "cbow" else 0.025, hot_rows=hot)
                    m.build_vocab(vocab=vocab)
                    stats = m.train(encoded, progress=False)
                    runs.append({"mode": mode, "threads": n, "hot_rows": m.hot_rows, "repeat": r,
                                 "words_per_sec": stats.words_per_sec, "seconds": stats.train_seconds})
                    print(f"{mode} hot_rows={m.hot_rows} threads={n} repeat={r}: "
                          f"{stats.words_per_sec:,.0f} words/s", flush=True)
    print("\n| mode | hot rows | threads | words/s (median) | speed-up vs 1 thread |\n|---|---|---|---|---|")
    for mode in args.modes.split(","):
        for hot in sorted({x["hot_rows"] for x in runs if x["mode"] == mode}):
            base = None
            for n in threads:
                med = statistics.median(x["words_per_sec"] for x in runs
                                        if x["mode"] == mode and x["threads"] == n and x["hot_rows"] == hot)
                base = base or (med if n == 1 else None)
                ratio = f"{med / base:.2f}x" if base else "-"
                print(f"| {mode} | {hot} | {n} | {med:,.0f} | {ratio} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_model(), "cores": os.cpu_count(), "runs": runs}, f, indent=2)


if __name__ == "__main__":
    main()
