"""The README's performance table, written from the results.json of a run.

    python -m benchmarks.readme_table RESULTS [RESULTS ...] [--threads N]

RESULTS is a run's --out folder or its results.json. Given several, a mode
found in a later one replaces the same mode of an earlier one. The run the
README's table comes from:

    python -m benchmarks --corpus wiki_17m.txt.gz --threads 2 --repeats 3 --modes sg-ns,cbow-ns,sg-hs,cbow-hs \\
        --tools wv-engine,gensim,word2vec.c --word2vec-bin /path/to/word2vec --out /tmp/bench_readme
    python -m benchmarks.readme_table /tmp/bench_readme

One row per word2vec mode (skip-gram NS, CBOW NS, skip-gram HS, CBOW HS) at one
thread count (default: the largest in the results): wv-engine's median
whole-process wall time; gensim's and word2vec.c's, each with the ratio of
its median to wv-engine's; analogy % and WS-353 of wv-engine, with gensim's
and the C tool's in brackets (medians over the repeats). A missing peer or
figure is a dash. The table goes to stdout; the command of each run read
goes to stderr."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .report import OURS, summarize

ROWS = {"sg-ns": "skip-gram NS", "cbow-ns": "CBOW NS", "sg-hs": "skip-gram HS", "cbow-hs": "CBOW HS"}
PEERS = ("gensim", "word2vec.c")
DASH = "–"


def load(path: str) -> dict:
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
    with open(path) as f:
        return json.load(f)


def _median(row: dict | None, key: str):
    stats = (row or {}).get(key)
    return stats["median"] if stats else None


def _fmt(x, spec: str) -> str:
    return DASH if x is None else format(x, spec)


def table(results: list[dict], threads: int | None = None) -> str:
    """The Markdown table (header, separator, one line per mode present)."""
    by_mode: dict[str, dict[str, dict]] = {}
    epochs = set()
    for res in results:
        rows = res.get("summary") or summarize(res["runs"])
        if threads is None:
            counts = [r["threads"] for r in rows if r["mode"] in ROWS]
        else:
            counts = [threads]
        if not counts:
            continue
        n = max(counts)
        modes = {r["mode"] for r in rows if r["mode"] in ROWS and r["threads"] == n}
        if modes:
            epochs.add(res["settings"]["epochs"])
        for mode in modes:
            by_mode[mode] = {r["tool"]: r for r in rows if r["mode"] == mode and r["threads"] == n}
            by_mode[mode]["threads"] = n
    if len(epochs) > 1:
        raise ValueError(f"the results mix word2vec epochs {sorted(epochs)}: one table is one setting")
    if not by_mode:
        raise ValueError("no skip-gram NS, CBOW NS or skip-gram HS runs at that thread count")
    counts = {tools["threads"] for tools in by_mode.values()}
    if len(counts) > 1:
        raise ValueError(f"the results' largest thread counts differ ({sorted(counts)}): pass --threads")
    n, e = counts.pop(), epochs.pop()
    lines = [f"| {n} thread{'s' if n != 1 else ''}, {e} epoch{'s' if e != 1 else ''} | wv-engine | gensim | "
             "word2vec.c | analogy % (gensim / C) | WS-353 (gensim / C) |",
             "|---|---|---|---|---|---|"]
    for mode, label in ROWS.items():
        if mode not in by_mode:
            continue
        tools = by_mode[mode]
        ours = tools.get(OURS)
        ours_wall = _median(ours, "wall_s")
        cells = [label, DASH if ours_wall is None else f"**{ours_wall:.1f} s**"]
        for peer in PEERS:
            wall = _median(tools.get(peer), "wall_s")
            ratio = f" ({wall / ours_wall:.2f}x)" if wall and ours_wall else ""
            cells.append(DASH if wall is None else f"{wall:.1f} s{ratio}")
        for key, spec in (("analogy_pct", ".1f"), ("ws353", ".3f")):
            peers = " / ".join(_fmt(_median(tools.get(p), key), spec) for p in PEERS)
            cells.append(f"{_fmt(_median(ours, key), spec)} ({peers})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.readme_table", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+", metavar="RESULTS", help="a run's --out folder or its results.json")
    p.add_argument("--threads", type=int, help="thread count of the table (default: the largest run)")
    a = p.parse_args(argv)
    try:
        results = [load(path) for path in a.results]
        text = table(results, a.threads)
    except (OSError, ValueError, KeyError) as exc:
        print(f"readme_table: {exc}", file=sys.stderr)
        return 1
    for path, res in zip(a.results, results):
        commit = ((res.get("machine") or {}).get("wv_engine_git") or {}).get("commit")
        print(f"# {path}: {' '.join(res.get('argv') or [])} (commit {(commit or '?')[:7]}, {res.get('created')})",
              file=sys.stderr)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
