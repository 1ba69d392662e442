"""How often issue #18's bar turns away a tool that is one of the peers.

    python -m benchmarks.lab.bar_noise \\
        benchmarks/figures/issue18_{accept_17m,study_17m,study_c5da5c1,rotations}*.jsonl

The bar (benchmarks.schedule_study) takes the medians of a few seeds of each
tool from one invocation and asks wv-engine's to be within 0.3 analogy points
and 0.01 WS-353 / SimLex-999 of the best peer's. Every tool's score moves from
run to run (seeds; word2vec.c, which takes no seed, by how its threads
interleave), so a tool that trained exactly as a peer would still fall under
the bar in some invocations. This reads the peers' runs recorded by the study
(every jsonl given; records of other thread counts, orders of the text or
sample rates are left out), and for each mode and epoch count plays
invocations again by drawing without replacement from them: a candidate's
seeds and the same peer's seeds from its own runs, and each other peer's
from theirs; it reports how often each peer, as the candidate, fails the bar,
and the chance that a tool equal in every row to the peer that fails least
there passes every row (rows are separate trainings, so the product)."""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import defaultdict

from ..schedule_study import METRICS, best_of, read_records, under_bar

PEERS = ("gensim", "word2vec.c")


def peer_pools(records: list[dict], threads: int = 2, rotation: int = 0, sample: float = 1e-4,
               corpus: str | None = None) -> dict[tuple, list[dict]]:
    """(tool, mode, epochs) -> [{analogy, ws353, simlex}, ...] of the peers'
    runs at these settings; a record without a rotation was read in the
    file's own order, one without a corpus is taken to be of the one asked."""
    pools: dict[tuple, list[dict]] = defaultdict(list)
    for r in records:
        if r.get("tool") not in PEERS or r.get("threads") != threads or r.get("rotation", 0) != rotation:
            continue
        if r.get("sample") != sample or (corpus and r.get("corpus", corpus) != corpus):
            continue
        pools[(r["tool"], r["mode"], r["epochs"])].append({m: r[m] for m in METRICS})
    return dict(pools)


def _medians(runs: list[dict]) -> dict:
    return {m: statistics.median(run[m] for run in runs) for m in METRICS}


def fail_rates(pools: dict[tuple, list[dict]], mode: str, epochs: int, seeds: int = 3, draws: int = 20000,
               seed: int = 0) -> dict[str, dict]:
    """Per peer with at least 2 x seeds runs of this row: how often, as the
    candidate, it falls under the bar ("row"), and under each test set's."""
    rng = random.Random(seed)
    tools = {t: runs for (t, m, e), runs in pools.items() if (m, e) == (mode, epochs) and len(runs) >= seeds}
    out = {}
    for cand, runs in tools.items():
        if len(runs) < 2 * seeds:
            continue
        row = 0
        per_metric = dict.fromkeys(METRICS, 0)
        for _ in range(draws):
            mine = rng.sample(runs, 2 * seeds)
            invocation = [mine[seeds:]] + [rng.sample(r, seeds) for t, r in tools.items() if t != cand]
            under = under_bar(_medians(mine[:seeds]), best_of(_medians(p) for p in invocation))
            row += bool(under)
            for m in under:
                per_metric[m] += 1
        out[cand] = {"runs": len(runs), "row": row / draws, **{m: n / draws for m, n in per_metric.items()}}
    return out


def report(pools: dict[tuple, list[dict]], seeds: int = 3, draws: int = 20000, seed: int = 0) -> str:
    rows = sorted({(m, e) for (_, m, e) in pools})
    out = ["| mode, epochs | peer (runs) | fails the bar | analogy | WS-353 | SimLex |", "|---|---|---|---|---|---|"]
    passes_all = 1.0
    for mode, epochs in rows:
        rates = fail_rates(pools, mode, epochs, seeds, draws, seed)
        if not rates:
            continue
        passes_all *= 1.0 - min(r["row"] for r in rates.values())
        for tool, r in sorted(rates.items(), key=lambda kv: kv[1]["row"]):
            out.append(f"| {mode}, {epochs} | {tool} ({r['runs']}) | {100 * r['row']:.0f}% | "
                       + " | ".join(f"{100 * r[m]:.0f}%" for m in METRICS) + " |")
    out.append(f"\nA tool equal in every row to the peer that fails least there passes every row in "
               f"{100 * passes_all:.1f}% of invocations ({draws:,} draws a row, medians of {seeds}).")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("records", nargs="+", help="the study's jsonl files")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rotation", type=int, default=0)
    p.add_argument("--sample", type=float, default=1e-4)
    p.add_argument("--corpus", help="keep records naming this corpus (and those naming none)")
    p.add_argument("--seeds", type=int, default=3, help="runs per tool in one invocation")
    p.add_argument("--draws", type=int, default=20000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    records = [r for path in a.records for r in read_records(path)]
    pools = peer_pools(records, a.threads, a.rotation, a.sample, a.corpus)
    if not pools:
        p.error("no peer runs at these settings in the files given")
    print(report(pools, a.seeds, a.draws, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
