"""Two builds of wv-engine against each other, in the same run: for each
repeat, for each mode, both builds run the same command back to back (their
order alternating between repeats), each whole process measured (wall time,
peak RSS), its vectors evaluated afterwards (untimed). Prints the medians,
and per mode the after/before speed ratio of each back-to-back pair with the
median of those ratios and its 95% confidence interval, and writes
OUT/ab.json.

    python -m benchmarks.ab --before DIR --after DIR --corpus PLAIN.txt [--repeats 3] [--threads 2]
        [--modes sg-ns,cbow-ns,sg-hs,glove] [--glove-epochs 5] [--out DIR]
        [--quality-repeats K] [--before-flags "..."] [--after-flags "..."]

DIR is a source tree built in place (python setup.py build_ext --inplace);
each run is `python -m wv_engine.cli ...` with that tree first on PYTHONPATH.
The corpus must be plain text (decompress it first: every run reads it).
Modes sg-sub and cbow-sub run `wv-engine fasttext` at fastText's defaults
(one epoch, as the others), scored on the words' vectors.

On a machine whose speed drifts (a shared VM: the same command's time moved
by half within minutes), the medians of each build do not resolve a few per
cent; the ratios of back-to-back pairs cancel the drift that is slower than
a pair, and with enough pairs the interval says what is resolved. Only the
first K repeats are evaluated (--quality-repeats), so that many timing pairs
cost no evaluation. Where the drift comes in jumps (the same command's time
doubling from one run to the next), pairs do not cancel it either; the
ratio of each build's fastest run is then the steadier figure, also
printed. --before-flags / --after-flags add a build's own flags (for
instance to give a newer build the older defaults).

--side-by-side runs the two builds of a pair at the same time, each with
--threads threads (1 on a 2-core machine): whatever the machine does then
(a neighbour's load, the clock) reaches both, and their ratio holds where
back-to-back pairs do not (docs/performance.md, "fastText's n-gram rows").
It measures the builds sharing the caches and memory, one thread each."""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
import json
import math
import os
import statistics
import sys
import time

from .measure import run_measured
from .quality import evaluate_file
from .runners import NGRAMS, SUBWORD_MODES, SUBWORD_NS_EXPONENT

WORD2VEC = {
    "sg-ns": ["--arch", "skipgram", "--loss", "ns", "--alpha", "0.025"],
    "cbow-ns": ["--arch", "cbow", "--loss", "ns", "--alpha", "0.05"],
    "sg-hs": ["--arch", "skipgram", "--loss", "hs", "--alpha", "0.025"],
    "cbow-hs": ["--arch", "cbow", "--loss", "hs", "--alpha", "0.05"],
}
COMMON = ["--dim", "100", "--window", "5", "--negative", "5", "--sample", "1e-4", "--min-count", "5",
          "--epochs", "1", "--seed", "1"]


def median_interval(values: list[float], level: float = 0.95) -> tuple[float, float] | None:
    """A distribution-free confidence interval for the median of `values`:
    the order statistics (k, n + 1 - k) with the largest k whose binomial
    coverage is at least `level`; None when there are too few values."""
    xs = sorted(values)
    n = len(xs)
    below = 0.0  # P(Binomial(n, 1/2) <= k - 1), for k = 1, 2, ...
    best = None
    for k in range(1, n // 2 + 1):
        below += math.comb(n, k - 1) / 2 ** n
        if 1 - 2 * below < level:
            break
        best = k
    return None if best is None else (xs[best - 1], xs[n - best])


def paired_ratios(runs: list[dict], mode: str) -> list[float]:
    """Per repeat of `mode`, before's train time over after's (> 1: after is faster)."""
    ratios = []
    for rep in sorted({r["repeat"] for r in runs if r["mode"] == mode}):
        pair = {r["build"]: r for r in runs if r["mode"] == mode and r["repeat"] == rep and r["ok"]}
        if len(pair) == 2:
            ratios.append(pair["before"]["stats"]["train_seconds"] / pair["after"]["stats"]["train_seconds"])
    return ratios


def command(mode: str, corpus: str, out: str, stats: str, threads: int, glove_epochs: int) -> list[str]:
    base = [sys.executable, "-m", "wv_engine.cli"]
    if mode == "glove":  # Stanford's demo settings
        return base + ["glove", corpus, "-o", out, "--dim", "100", "--window", "15", "--x-max", "10",
                       "--epochs", str(glove_epochs), "--min-count", "5", "--threads", str(threads), "--seed", "1",
                       "--format", "txt", "--stats-json", stats, "--quiet"]
    if mode in SUBWORD_MODES:  # fastText's defaults, as the suite runs them (runners.py), but one epoch
        m = SUBWORD_MODES[mode]
        return base + ["fasttext", corpus, "-o", out, "--arch", m["arch"], "--alpha", repr(m["alpha"]), *COMMON,
                       "--ns-exponent", repr(SUBWORD_NS_EXPONENT),
                       *(x for k, v in NGRAMS.items() for x in (f"--{k}", str(v))), "--format", "txt",
                       "--threads", str(threads), "--stats-json", stats, "--quiet"]
    return base + ["word2vec", corpus, "-o", out, *WORD2VEC[mode], *COMMON, "--threads", str(threads),
                   "--stats-json", stats, "--quiet"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.ab", description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, metavar="DIR")
    p.add_argument("--after", required=True, metavar="DIR")
    p.add_argument("--corpus", required=True, help="plain text")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--modes", default="sg-ns,cbow-ns,sg-hs,glove")
    p.add_argument("--glove-epochs", type=int, default=5)
    p.add_argument("--out", default="/tmp/wv_ab")
    p.add_argument("--quality-repeats", type=int, default=None, metavar="K",
                   help="evaluate the vectors of the first K repeats only (default: all)")
    p.add_argument("--before-flags", default="", help="flags added to the before build's commands")
    p.add_argument("--after-flags", default="", help="flags added to the after build's commands")
    p.add_argument("--side-by-side", action="store_true",
                   help="run the two builds of each pair at the same time (use --threads 1 on 2 cores)")
    a = p.parse_args(argv)
    flags = {"before": a.before_flags.split(), "after": a.after_flags.split()}
    modes = [m for m in a.modes.split(",") if m]
    os.makedirs(a.out, exist_ok=True)
    builds = {"before": os.path.abspath(a.before), "after": os.path.abspath(a.after)}
    runs = []

    def measured(build: str, mode: str, rep: int):
        tag = f"{build}.{mode}.r{rep}"
        vectors = os.path.join(a.out, tag + (".bin" if mode in WORD2VEC else ".txt"))
        stats = os.path.join(a.out, tag + ".json")
        env = dict(os.environ, PYTHONPATH=builds[build])
        m = run_measured(command(mode, a.corpus, vectors, stats, a.threads, a.glove_epochs) + flags[build],
                         stdout_path=os.path.join(a.out, tag + ".out"),
                         stderr_path=os.path.join(a.out, tag + ".err"), env=env, cwd=a.out)
        return tag, vectors, stats, m

    for rep in range(a.repeats):
        for mode in modes:
            order = ["before", "after"] if rep % 2 == 0 else ["after", "before"]
            if a.side_by_side:
                with ThreadPoolExecutor(max_workers=2) as pool:
                    done = list(pool.map(lambda build: measured(build, mode, rep), order))
            else:
                done = [measured(build, mode, rep) for build in order]
            for build, (tag, vectors, stats, m) in zip(order, done):
                rec = {"build": build, "mode": mode, "repeat": rep, "ok": m.ok, "wall_s": m.wall_s,
                       "peak_rss_mib": m.peak_rss_mib, "error": m.error, "side_by_side": a.side_by_side}
                if m.ok:
                    rec["stats"] = json.load(open(stats))
                    if a.quality_repeats is None or rep < a.quality_repeats:
                        rec["quality"] = evaluate_file(vectors)
                    os.unlink(vectors)
                runs.append(rec)
                q = rec.get("quality", {})
                train = rec.get("stats", {}).get("train_seconds")
                print(f"{tag}: wall {m.wall_s:.2f} s, train {train or float('nan'):.2f} s, "
                      f"analogy {q.get('analogy_pct')}, ws353 {q.get('ws353')}, simlex {q.get('simlex')}"
                      + ("" if m.ok else f" FAILED {m.error}"), flush=True)
    summary = {}
    for mode in modes:
        row = {}
        for build in builds:
            rs = [r for r in runs if r["mode"] == mode and r["build"] == build and r["ok"]]
            if not rs:
                continue
            med = lambda f, rs=rs: statistics.median(f(r) for r in rs)  # noqa: E731
            scored = [r for r in rs if "quality" in r]
            row[build] = {"wall_s": med(lambda r: r["wall_s"]),
                          "train_s": med(lambda r: r["stats"]["train_seconds"]),
                          "train_s_best": min(r["stats"]["train_seconds"] for r in rs),
                          "peak_rss_mib": med(lambda r: r["peak_rss_mib"]),
                          **{k: med(lambda r, k=k: r["quality"][k] or 0.0, scored) if scored else None
                             for k in ("analogy_pct", "ws353", "simlex")}}
        if len(row) == 2:
            row["train_speed_ratio"] = row["before"]["train_s"] / row["after"]["train_s"]
            row["wall_speed_ratio"] = row["before"]["wall_s"] / row["after"]["wall_s"]
            ratios = paired_ratios(runs, mode)
            row["paired_train_ratios"] = ratios
            row["paired_train_ratio_median"] = statistics.median(ratios)
            row["paired_train_ratio_ci95"] = median_interval(ratios)
            row["best_train_ratio"] = row["before"]["train_s_best"] / row["after"]["train_s_best"]
        summary[mode] = row
    with open(os.path.join(a.out, "ab.json"), "w") as f:
        json.dump({"created": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv, "builds": builds,
                   "runs": runs, "summary": summary}, f, indent=2)
    print("\n| mode | build | wall s | train s | peak RSS MiB | analogy % | WS-353 | SimLex |")
    print("|---|---|---|---|---|---|---|---|")
    for mode, row in summary.items():
        for build in builds:
            if build in row:
                r = row[build]
                q = " | ".join("–" if r[k] is None else f"{r[k]:{f}}"
                               for k, f in (("analogy_pct", ".2f"), ("ws353", ".3f"), ("simlex", ".3f")))
                print(f"| {mode} | {build} | {r['wall_s']:.2f} | {r['train_s']:.2f} | {r['peak_rss_mib']:.0f} | {q} |")
        if "train_speed_ratio" in row:
            print(f"| {mode} | after/before speed | {row['wall_speed_ratio']:.3f}x | {row['train_speed_ratio']:.3f}x | | | | |")
    print("\n| mode | pairs | after/before train speed, median of the pairs | 95% interval | of the best runs |")
    print("|---|---|---|---|---|")
    for mode, row in summary.items():
        if "paired_train_ratios" in row:
            ci = row["paired_train_ratio_ci95"]
            print(f"| {mode} | {len(row['paired_train_ratios'])} | {row['paired_train_ratio_median']:.3f}x | "
                  + ("too few pairs" if ci is None else f"{ci[0]:.3f}x - {ci[1]:.3f}x")
                  + f" | {row['best_train_ratio']:.3f}x |")
    return 0 if all(r["ok"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
