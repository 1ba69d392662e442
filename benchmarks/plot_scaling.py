"""Draws words/s against threads from the JSON files of
`python -m benchmarks.thread_scaling --json` (or of benchmarks.many_cores).

    python -m benchmarks.plot_scaling OUT.png RUNS.json [RUNS.json ...]
"""

from __future__ import annotations

import json
import statistics
import sys


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        print(__doc__.strip())
        return 2
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out, paths = args[0], args[1:]
    series: dict[str, dict[int, list[float]]] = {}
    cpu = ""
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        cpu = f"{data['cpu']}, {data['cores']} cores"
        sweep = len({run.get("hot_rows") for run in data["runs"]}) > 1
        for run in data["runs"]:
            label = f"{run['mode']} hot_rows={run['hot_rows']}" if sweep else run["mode"]
            series.setdefault(label, {}).setdefault(run["threads"], []).append(run["words_per_sec"])
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.5), dpi=110)
    for mode, by_threads in sorted(series.items()):
        threads = sorted(by_threads)
        rate = [statistics.median(by_threads[t]) / 1e6 for t in threads]
        ax.plot(threads, rate, marker="o", label=mode)
        ax2.plot(threads, [r / rate[0] for r in rate], marker="o", label=mode)
    top = max(max(v) for v in series.values())
    ax2.plot([1, top], [1, top], color="grey", linestyle="--", label="linear")
    ax.set(xlabel="threads", ylabel="million words/s (training loop)", title="throughput")
    ax2.set(xlabel="threads", ylabel="speed-up over 1 thread", title="scaling")
    for a in (ax, ax2):
        a.grid(alpha=0.3)
        a.legend()
    fig.suptitle(f"wv-engine word2vec thread scaling, wiki_17m, 1 epoch ({cpu})")
    fig.tight_layout()
    fig.savefig(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
