"""Instructions per training epoch of two builds, counted by valgrind's
callgrind: a count that does not move with the machine's speed, for changes
that should leave the training loops' work alone (the 2-core machine's wall
clock does not resolve a few per cent; benchmarks.ab).

    python -m benchmarks.instructions --before DIR --after DIR --corpus PLAIN.txt
        [--modes sg-ns,cbow-ns,sg-hs,glove] [--out DIR] [--cache]

Each build runs benchmarks.ab's command for each mode at one thread under
callgrind, once with one epoch and once with two; the difference of the two
whole-process totals is one epoch's instructions (counting, encoding, start
up and saving cancel). One thread and a seed make both runs deterministic.
Under callgrind a run takes 50-100 times as long: use a corpus of about a
million words. Memory behaviour is not counted: this shows whether a change
added work to the loops, not how the caches took it. `--cache` runs
cachegrind's cache simulation instead (slower again) and adds each epoch's
data reads and their first- and last-level misses (Dr, D1mr, DLmr), so the
two builds' memory traffic can be compared too. Writes
OUT/instructions.json."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from .ab import command


CACHE_EVENTS = ("Ir", "Dr", "D1mr", "DLmr")  # what --cache reports of cachegrind's events


def valgrind_totals(path: str) -> dict[str, int]:
    """The whole run's count of each event that a callgrind or cachegrind
    output file sums up (its 'events:' names and 'summary:' or 'totals:'
    figures)."""
    events: list[str] = []
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith(("summary:", "totals:")) and events:
                return dict(zip(events, map(int, line.split()[1:])))
    raise ValueError(f"{path}: no 'events:' and 'summary:' or 'totals:' lines (not a callgrind output file?)")


def callgrind_total(path: str) -> int:
    """The instructions executed (Ir) that a callgrind output file sums up."""
    return valgrind_totals(path)["Ir"]


def epoch_instructions(totals: dict[int, int]) -> int:
    """One epoch's instructions from the totals of a 1-epoch and a 2-epoch run."""
    return totals[2] - totals[1]


def epoch_events(totals: dict[int, dict[str, int]]) -> dict[str, int]:
    """One epoch's count of each event, from the 1-epoch and 2-epoch runs'."""
    return {k: epoch_instructions({e: t[k] for e, t in totals.items()}) for k in totals[1]}


def count(build: str, mode: str, corpus: str, epochs: int, out: str, cache: bool = False) -> dict[str, int]:
    """The whole process's events for one run of `mode` at one thread: the
    instructions (Ir), and with `cache` cachegrind's data reads and misses."""
    stats, vectors, trace = (os.path.join(out, name) for name in ("run.json", "run.vec", "valgrind.out"))
    cmd = command(mode, corpus, vectors, stats, 1, epochs) + ["--epochs", str(epochs)]
    tool = ["--tool=cachegrind", "--cache-sim=yes", f"--cachegrind-out-file={trace}"] if cache else \
        ["--tool=callgrind", f"--callgrind-out-file={trace}"]
    # the interpreter itself, not a wrapper script (valgrind does not follow exec'd children)
    run = subprocess.run(["valgrind", *tool, *cmd],
                         env=dict(os.environ, PYTHONPATH=build), cwd=out, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} under valgrind failed:\n{run.stderr[-2000:]}")
    totals = valgrind_totals(trace)
    return {k: totals[k] for k in (CACHE_EVENTS if cache else ("Ir",))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.instructions", description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, metavar="DIR")
    p.add_argument("--after", required=True, metavar="DIR")
    p.add_argument("--corpus", required=True, help="plain text, about a million words")
    p.add_argument("--modes", default="sg-ns,cbow-ns,sg-hs,glove")
    p.add_argument("--out", default="/tmp/wv_instructions")
    p.add_argument("--cache", action="store_true", help="simulate the caches (cachegrind): data reads and misses too")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    builds = {"before": os.path.abspath(a.before), "after": os.path.abspath(a.after)}
    corpus = os.path.abspath(a.corpus)
    rows, cache_rows = {}, {}
    for mode in [m for m in a.modes.split(",") if m]:
        per_epoch = {}
        for name, tree in builds.items():
            totals = {e: count(tree, mode, corpus, e, a.out, a.cache) for e in (1, 2)}
            per_epoch[name] = epoch_events(totals)
            print(f"{mode} {name}: {totals[1]['Ir']:,} / {totals[2]['Ir']:,} instructions at 1 / 2 epochs",
                  flush=True)
        before, after = per_epoch["before"], per_epoch["after"]
        rows[mode] = {"before": before["Ir"], "after": after["Ir"], "after_over_before": after["Ir"] / before["Ir"]}
        if a.cache:
            cache_rows[mode] = {k: {"before": before[k], "after": after[k]} for k in CACHE_EVENTS}
    record = {"created": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv, "builds": builds, "rows": rows}
    if a.cache:
        record["cache_rows"] = cache_rows
    with open(os.path.join(a.out, "instructions.json"), "w") as f:
        json.dump(record, f, indent=2)
    print("\n| mode | before, instructions an epoch | after | after / before |\n|---|---|---|---|")
    for mode, r in rows.items():
        print(f"| {mode} | {r['before']:,} | {r['after']:,} | {r['after_over_before']:.4f} |")
    if a.cache:
        print("\n| mode | event an epoch | before | after | after / before |\n|---|---|---|---|---|")
        for mode, r in cache_rows.items():
            for k, v in r.items():
                ratio = f"{v['after'] / v['before']:.4f}" if v["before"] else "-"
                print(f"| {mode} | {k} | {v['before']:,} | {v['after']:,} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
