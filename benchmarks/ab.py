"""Two builds of wv-engine against each other, in the same run: for each
repeat, for each mode, both builds run the same command (their order
alternating between repeats), each whole process measured (wall time, peak
RSS), its vectors evaluated afterwards (untimed). Prints the medians and the
after/before speed ratio per mode, and writes OUT/ab.json.

    python -m benchmarks.ab --before DIR --after DIR --corpus PLAIN.txt [--repeats 3] [--threads 2]
        [--modes sg-ns,cbow-ns,sg-hs,glove] [--glove-epochs 5] [--out DIR]

DIR is a source tree built in place (python setup.py build_ext --inplace);
each run is `python -m wv_engine.cli ...` with that tree first on PYTHONPATH.
The corpus must be plain text (decompress it first: every run reads it)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from .measure import run_measured
from .quality import evaluate_file

WORD2VEC = {
    "sg-ns": ["--arch", "skipgram", "--loss", "ns", "--alpha", "0.025"],
    "cbow-ns": ["--arch", "cbow", "--loss", "ns", "--alpha", "0.05"],
    "sg-hs": ["--arch", "skipgram", "--loss", "hs", "--alpha", "0.025"],
    "cbow-hs": ["--arch", "cbow", "--loss", "hs", "--alpha", "0.05"],
}
COMMON = ["--dim", "100", "--window", "5", "--negative", "5", "--sample", "1e-4", "--min-count", "5",
          "--epochs", "1", "--seed", "1"]


def command(mode: str, corpus: str, out: str, stats: str, threads: int, glove_epochs: int) -> list[str]:
    base = [sys.executable, "-m", "wv_engine.cli"]
    if mode == "glove":  # Stanford's demo settings
        return base + ["glove", corpus, "-o", out, "--dim", "100", "--window", "15", "--x-max", "10",
                       "--epochs", str(glove_epochs), "--min-count", "5", "--threads", str(threads), "--seed", "1",
                       "--format", "txt", "--stats-json", stats, "--quiet"]
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
    a = p.parse_args(argv)
    modes = [m for m in a.modes.split(",") if m]
    os.makedirs(a.out, exist_ok=True)
    builds = {"before": os.path.abspath(a.before), "after": os.path.abspath(a.after)}
    runs = []
    for rep in range(a.repeats):
        for mode in modes:
            order = ["before", "after"] if rep % 2 == 0 else ["after", "before"]
            for build in order:
                tag = f"{build}.{mode}.r{rep}"
                vectors = os.path.join(a.out, tag + (".txt" if mode == "glove" else ".bin"))
                stats = os.path.join(a.out, tag + ".json")
                env = dict(os.environ, PYTHONPATH=builds[build])
                m = run_measured(command(mode, a.corpus, vectors, stats, a.threads, a.glove_epochs),
                                 stdout_path=os.path.join(a.out, tag + ".out"),
                                 stderr_path=os.path.join(a.out, tag + ".err"), env=env, cwd=a.out)
                rec = {"build": build, "mode": mode, "repeat": rep, "ok": m.ok, "wall_s": m.wall_s,
                       "peak_rss_mib": m.peak_rss_mib, "error": m.error}
                if m.ok:
                    rec["stats"] = json.load(open(stats))
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
            med = lambda f: statistics.median(f(r) for r in rs)  # noqa: E731
            row[build] = {"wall_s": med(lambda r: r["wall_s"]),
                          "train_s": med(lambda r: r["stats"]["train_seconds"]),
                          "peak_rss_mib": med(lambda r: r["peak_rss_mib"]),
                          **{k: med(lambda r, k=k: r["quality"][k] or 0.0) for k in ("analogy_pct", "ws353", "simlex")}}
        if len(row) == 2:
            row["train_speed_ratio"] = row["before"]["train_s"] / row["after"]["train_s"]
            row["wall_speed_ratio"] = row["before"]["wall_s"] / row["after"]["wall_s"]
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
                print(f"| {mode} | {build} | {r['wall_s']:.2f} | {r['train_s']:.2f} | {r['peak_rss_mib']:.0f} | "
                      f"{r['analogy_pct']:.2f} | {r['ws353']:.3f} | {r['simlex']:.3f} |")
        if "train_speed_ratio" in row:
            print(f"| {mode} | after/before speed | {row['wall_speed_ratio']:.3f}x | {row['train_speed_ratio']:.3f}x | | | | |")
    return 0 if all(r["ok"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
