"""Instructions per training epoch of two builds, counted by valgrind's
callgrind: a count that does not move with the machine's speed, for changes
that should leave the training loops' work alone (the 2-core machine's wall
clock does not resolve a few per cent; benchmarks.ab).

    python -m benchmarks.instructions --before DIR --after DIR --corpus PLAIN.txt
        [--modes sg-ns,cbow-ns,sg-hs,glove] [--out DIR]

Each build runs benchmarks.ab's command for each mode at one thread under
callgrind, once with one epoch and once with two; the difference of the two
whole-process totals is one epoch's instructions (counting, encoding, start
up and saving cancel). One thread and a seed make both runs deterministic.
Under callgrind a run takes 50-100 times as long: use a corpus of about a
million words. Memory behaviour is not counted: this shows whether a change
added work to the loops, not how the caches took it. Writes
OUT/instructions.json."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from .ab import command


def callgrind_total(path: str) -> int:
    """The instructions executed (Ir) that a callgrind output file sums up."""
    with open(path) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise ValueError(f"{path}: no 'summary:' or 'totals:' line (not a callgrind output file?)")


def epoch_instructions(totals: dict[int, int]) -> int:
    """One epoch's instructions from the totals of a 1-epoch and a 2-epoch run."""
    return totals[2] - totals[1]


def count(build: str, mode: str, corpus: str, epochs: int, out: str) -> int:
    """The whole process's instructions for one run of `mode` at one thread."""
    stats, vectors, trace = (os.path.join(out, name) for name in ("run.json", "run.vec", "callgrind.out"))
    cmd = command(mode, corpus, vectors, stats, 1, epochs) + ["--epochs", str(epochs)]
    # the interpreter itself, not a wrapper script (callgrind does not follow exec'd children)
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={trace}", *cmd],
                         env=dict(os.environ, PYTHONPATH=build), cwd=out, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} under callgrind failed:\n{run.stderr[-2000:]}")
    return callgrind_total(trace)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.instructions", description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, metavar="DIR")
    p.add_argument("--after", required=True, metavar="DIR")
    p.add_argument("--corpus", required=True, help="plain text, about a million words")
    p.add_argument("--modes", default="sg-ns,cbow-ns,sg-hs,glove")
    p.add_argument("--out", default="/tmp/wv_instructions")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    builds = {"before": os.path.abspath(a.before), "after": os.path.abspath(a.after)}
    corpus = os.path.abspath(a.corpus)
    rows = {}
    for mode in [m for m in a.modes.split(",") if m]:
        per_epoch = {}
        for name, tree in builds.items():
            totals = {e: count(tree, mode, corpus, e, a.out) for e in (1, 2)}
            per_epoch[name] = epoch_instructions(totals)
            print(f"{mode} {name}: {totals[1]:,} / {totals[2]:,} instructions at 1 / 2 epochs", flush=True)
        rows[mode] = {**per_epoch, "after_over_before": per_epoch["after"] / per_epoch["before"]}
    with open(os.path.join(a.out, "instructions.json"), "w") as f:
        json.dump({"created": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv, "builds": builds,
                   "rows": rows}, f, indent=2)
    print("\n| mode | before, instructions an epoch | after | after / before |\n|---|---|---|---|")
    for mode, r in rows.items():
        print(f"| {mode} | {r['before']:,} | {r['after']:,} | {r['after_over_before']:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
