"""Summaries and outputs: results.json (everything), results.md (a table per
mode, with ratios against each peer) and, when matplotlib is importable,
throughput.png and quality.png."""

from __future__ import annotations

import json
import os
import statistics
from collections import OrderedDict

OURS = "wv-engine"
GLOVE = "glove"
QUALITY_KEYS = ("analogy_pct", "ws353", "simlex")
ABSENT_KEY = "absent_spearman"   # subword modes: Spearman over the pairs with a word absent from training


def _stats(values: list) -> dict | None:
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def summarize(runs: list[dict]) -> list[dict]:
    """One row per (mode, threads, tool), in the order first seen."""
    groups: "OrderedDict[tuple, list[dict]]" = OrderedDict()
    for r in runs:
        groups.setdefault((r["mode"], r["threads"], r["tool"]), []).append(r)
    rows = []
    for (mode, threads, tool), rs in groups.items():
        ok = [r for r in rs if r.get("ok")]
        q = [r.get("quality") or {} for r in ok]
        rows.append({
            "mode": mode, "threads": threads, "tool": tool,
            "runs": len(rs), "ok_runs": len(ok),
            "errors": [r["error"] for r in rs if r.get("error")],
            "wall_s": _stats([r.get("wall_s") for r in ok]),
            "words_per_sec": _stats([r.get("words_per_sec") for r in ok]),
            "train_seconds": _stats([r.get("train_seconds") for r in ok]),
            "peak_rss_mib": _stats([r.get("peak_rss_mib") for r in ok]),
            **{k: _stats([x.get(k) for x in q]) for k in (*QUALITY_KEYS, ABSENT_KEY, "absent_pairs")},
            "analogy_coverage": _stats([x.get("analogy_coverage") for x in q]),
        })
        if mode == GLOVE:
            rows[-1].update(_glove_summary(ok))
    return rows


def _glove_summary(ok: list[dict]) -> dict:
    """GloVe rows: count seconds, per-stage seconds and per-epoch cost
    (medians over the repeats), final cost."""
    stages = list(dict.fromkeys(k for r in ok for k in (r.get("stage_seconds") or {})))
    costs = [r.get("epoch_cost") or [] for r in ok]
    n = max((len(c) for c in costs), default=0)
    per_epoch = [statistics.median([c[i] for c in costs if len(c) > i]) for i in range(n)]
    return {
        "count_seconds": _stats([r.get("count_seconds") for r in ok]),
        "stage_seconds": {k: _stats([(r.get("stage_seconds") or {}).get(k) for r in ok]) for k in stages},
        "epoch_cost": per_epoch,
        "final_cost": _stats([c[-1] if c else None for c in costs]),
    }


def _med(row: dict | None, key: str):
    s = row.get(key) if row else None
    return s["median"] if s else None


def comparisons(rows: list[dict]) -> list[dict]:
    """wv-engine against each peer at the same mode and thread count:
    speed-up = peer wall / our wall (whole process), throughput ratio =
    our words/s / peer words/s (training), quality differences = ours - peer."""
    index = {(r["mode"], r["threads"], r["tool"]): r for r in rows}
    out = []
    for r in rows:
        if r["tool"] != OURS:
            continue
        for (mode, threads, tool), p in index.items():
            if mode != r["mode"] or threads != r["threads"] or tool == OURS:
                continue
            def ratio(a, b):
                return a / b if a and b else None
            def diff(key):
                a, b = _med(r, key), _med(p, key)
                return a - b if a is not None and b is not None else None
            out.append({"mode": mode, "threads": threads, "peer": tool,
                        "speedup_wall": ratio(_med(p, "wall_s"), _med(r, "wall_s")),
                        "throughput_ratio": ratio(_med(r, "words_per_sec"), _med(p, "words_per_sec")),
                        **{f"diff_{k}": diff(k) for k in (*QUALITY_KEYS, ABSENT_KEY)}})
            if mode == GLOVE:
                out[-1].update(speedup_count=ratio(_med(p, "count_seconds"), _med(r, "count_seconds")),
                               speedup_train=ratio(_med(p, "train_seconds"), _med(r, "train_seconds")),
                               diff_final_cost=diff("final_cost"))
    return out


# ---- markdown -------------------------------------------------------------

def _f(x, fmt: str, none: str = "–") -> str:
    return none if x is None else format(x, fmt)


def _spread(s: dict | None, fmt: str) -> str:
    if not s:
        return "–"
    if s["n"] == 1:
        return _f(s["median"], fmt)
    return f"{_f(s['median'], fmt)} [{_f(s['min'], fmt)}–{_f(s['max'], fmt)}]"


def _signed(x, fmt: str) -> str:
    return "–" if x is None else format(x, "+" + fmt)


def markdown(results: dict) -> str:
    rows, comps = results["summary"], results["comparisons"]
    m, c, s = results["machine"], results["corpus"], results["settings"]
    peers = [t for t in dict.fromkeys(r["tool"] for r in rows) if t != OURS]
    lines = [
        "# wv_engine benchmark",
        "",
        f"- corpus: `{os.path.basename(c['source'])}`, {c['words']:,} words "
        f"(decompress {c['plain_prep_s']:.1f} s, gensim split copy {c['split_prep_s']:.1f} s: not timed)",
        f"- machine: {m['cpu_model']}, {m['usable_cores']} usable cores, {_f(m['ram_gib'], '.1f')} GiB RAM, "
        f"{m['os']}",
        f"- versions: python {m['python']}, " + ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v),
        f"- word2vec settings: dim {s['dim']}, window {s['window']}, negative {s['negative']} (0 with HS), "
        f"sample {s['sample']:g}, min_count {s['min_count']}, epochs {s['epochs']}, alpha 0.025 skip-gram / "
        f"0.05 CBOW; repeats {results['config']['repeats']}",
        "- wall s: whole process (vocabulary + training + saving), median [min–max] over the repeats; "
        "words/s: training throughput (see README); peak RSS: whole process tree, MiB.",
        "- quality: analogy = 3CosAdd accuracy (%) on questions-words, top 30,000 words, case-insensitive; "
        "WS353 / SimLex = Spearman. Medians over the repeats.",
        "- vs PEER: speed-up = peer wall / wv-engine wall (>1: we are faster), "
        "thr = wv-engine words/s / peer words/s, Δ = wv-engine − peer (analogy points / WS353 / SimLex).",
    ]
    ab = results.get("absent_words")
    if ab:
        lines += [
            "- subword modes (sg-sub, cbow-sub): fastText's model at its defaults (n-grams 3-6 characters, 2M "
            "buckets, lr 0.05, noise count^0.5); each tool's .bin read as subword vectors: a WS353 / SimLex "
            "word outside the vocabulary gets its n-gram vector, no pair skipped.",
            f"- absent ρ: Spearman over all {ab['pairs']} WS353 + SimLex pairs with a word absent from training "
            f"({', '.join(f'{k} {v}' for k, v in ab['pairs_per_set'].items())}; {ab['pairs_absent_naturally']} "
            f"absent in the corpus as it is, {len(ab['held_out'])} words held out: {ab['tokens_removed']:,} "
            f"tokens removed from `{os.path.basename(ab['corpus'])}`, which the subword modes train on; "
            "benchmarks/absent_words.py).",
        ]
    for mode in dict.fromkeys(r["mode"] for r in rows):
        if mode == GLOVE:
            lines += _glove_markdown(results, [r for r in rows if r["mode"] == GLOVE],
                                     [c for c in comps if c["mode"] == GLOVE])
            continue
        lines += ["", f"## {mode}", ""]
        absent = any(r.get(ABSENT_KEY) for r in rows if r["mode"] == mode)
        head = ["tool", "threads", "wall s", "words/s", "peak RSS MiB", "analogy %", "WS353", "SimLex"]
        if absent:
            head.append("absent ρ (pairs)")
        for p in peers:
            head += [f"speed-up vs {p}", f"thr vs {p}", f"Δ vs {p} (an / ws / sl{' / absent' if absent else ''})"]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "|".join(["---"] * len(head)) + "|")
        for r in [r for r in rows if r["mode"] == mode]:
            if not r["ok_runs"]:
                cells = [r["tool"], str(r["threads"]), "FAILED: " + "; ".join(dict.fromkeys(r["errors"]))[:200]]
                cells += [""] * (len(head) - len(cells))
                lines.append("| " + " | ".join(cells).replace("\n", " ") + " |")
                continue
            cells = [r["tool"] + (f" ({r['runs'] - r['ok_runs']} failed)" if r["ok_runs"] < r["runs"] else ""),
                     str(r["threads"]), _spread(r["wall_s"], ".1f"), _spread(r["words_per_sec"], ",.0f"),
                     _spread(r["peak_rss_mib"], ".0f"), _f(_med(r, "analogy_pct"), ".2f"),
                     _f(_med(r, "ws353"), ".3f"), _f(_med(r, "simlex"), ".3f")]
            if absent:
                cells.append(f"{_f(_med(r, ABSENT_KEY), '.3f')} ({_f(_med(r, 'absent_pairs'), '.0f')})")
            for p in peers:
                cmp = next((x for x in comps if x["mode"] == mode and x["threads"] == r["threads"]
                            and x["peer"] == p), None) if r["tool"] == OURS else None
                if cmp is None:
                    cells += ["", "", ""]
                else:
                    diffs = [cmp["diff_analogy_pct"], cmp["diff_ws353"], cmp["diff_simlex"]]
                    cells += [_f(cmp["speedup_wall"], ".2f") + ("×" if cmp["speedup_wall"] else ""),
                              _f(cmp["throughput_ratio"], ".2f") + ("×" if cmp["throughput_ratio"] else ""),
                              "–" if all(d is None for d in diffs) else
                              f"{_signed(diffs[0], '.1f')} / {_signed(diffs[1], '.3f')} / {_signed(diffs[2], '.3f')}"
                              + (f" / {_signed(cmp.get('diff_' + ABSENT_KEY), '.3f')}" if absent else "")]
            lines.append("| " + " | ".join(cells) + " |")
    busy = [r for r in results["runs"] if (r.get("other_cpu_cores") or 0) >= 0.2]
    if busy:
        worst = max(r["other_cpu_cores"] for r in busy)
        lines += ["", f"**Note**: during {len(busy)} of {len(results['runs'])} runs other processes used "
                  f">= 0.2 cores on average (up to {worst:.2f}): those times are inflated by contention "
                  "(see runs[].other_cpu_cores in results.json)."]
    lines += _machine_state_markdown(results["runs"])
    if results.get("skipped"):
        lines += ["", "## Skipped", ""]
        lines += [f"- {k}: {v}" for k, v in results["skipped"].items()]
    failures = [r for r in results["runs"] if r.get("error")]
    if failures:
        lines += ["", "## Failures", ""]
        lines += [f"- {r['tool']} {r['mode']} threads {r['threads']} repeat {r['repeat']}: {r['error']} "
                  f"(log: `{r.get('stderr_path')}`)" for r in failures]
    lines += ["", "Commands: see `results.json` (runs[].cmd).", ""]
    return "\n".join(lines)


def _machine_state_markdown(runs: list[dict]) -> list[str]:
    """Each run's wall time beside the memory probe's readings before and
    after it (benchmarks.memory_probe): the state of the machine it ran in."""
    probed = [r for r in runs if r.get("memory_probe")]
    if not probed:
        return []
    lines = ["", "## Machine state", "",
             "ns per 400-byte row update in an L2-, L3- and memory-sized working set (benchmarks.memory_probe), "
             "read just before and just after each run; higher is a slower machine.", "",
             "| run | wall s | L2 ns before / after | L3 ns | memory ns |", "|---|---|---|---|---|"]
    for r in probed:
        b, a = r["memory_probe"]["before"], r["memory_probe"]["after"]
        lines.append(f"| {r['tool']} {r['mode']} t{r['threads']} r{r['repeat']} | {_f(r.get('wall_s'), '.1f')} | "
                     + " | ".join(f"{b[k]:.1f} / {a[k]:.1f}" for k in ("l2_ns", "l3_ns", "dram_ns")) + " |")
    return lines


def _glove_markdown(results: dict, rows: list[dict], comps: list[dict]) -> list[str]:
    """The GloVe section: one row per (threads, tool) with wall, count and
    train seconds, each stage, peak RSS, quality, final cost and, on
    wv-engine's rows, the ratios against each peer; then the cost per epoch."""
    g = results.get("glove_settings") or {}
    peers = [t for t in dict.fromkeys(r["tool"] for r in rows) if t != OURS]
    lines = ["", f"## {GLOVE}", "",
             f"Settings (Stanford's demo.sh): dim {g.get('dim')}, window {g.get('window')}, x_max "
             f"{g.get('x_max')}, alpha {g.get('alpha')}, eta {g.get('eta')}, epochs {g.get('epochs')}, "
             f"min_count {g.get('min_count')}; Stanford -memory {g.get('memory_gb')}. "
             "count s = vocabulary + co-occurrences (Stanford: vocab_count + cooccur + shuffle; wv-engine: its "
             "count_seconds); train s = Stanford's glove stage (whole process, incl. saving) / wv-engine's "
             "train_seconds (training only); stages: seconds of each (median).", ""]
    head = ["tool", "threads", "wall s", "count s", "train s", "stages s", "peak RSS MiB", "analogy %", "WS353",
            "SimLex", "final cost"]
    for p in peers:
        head += [f"speed-up vs {p} (wall / count / train)", f"Δ vs {p} (an / ws / sl)"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] * len(head)) + "|")
    for r in rows:
        if not r["ok_runs"]:
            cells = [r["tool"], str(r["threads"]), "FAILED: " + "; ".join(dict.fromkeys(r["errors"]))[:200]]
            cells += [""] * (len(head) - len(cells))
            lines.append("| " + " | ".join(cells).replace("\n", " ").replace("|", "/") + " |")
            continue
        stages = ", ".join(f"{k} {_f(v['median'] if v else None, '.1f')}"
                           for k, v in (r.get("stage_seconds") or {}).items())
        cells = [r["tool"] + (f" ({r['runs'] - r['ok_runs']} failed)" if r["ok_runs"] < r["runs"] else ""),
                 str(r["threads"]), _spread(r["wall_s"], ".1f"), _spread(r.get("count_seconds"), ".1f"),
                 _spread(r["train_seconds"], ".1f"), stages or "–", _spread(r["peak_rss_mib"], ".0f"),
                 _f(_med(r, "analogy_pct"), ".2f"), _f(_med(r, "ws353"), ".3f"), _f(_med(r, "simlex"), ".3f"),
                 _f(_med(r, "final_cost"), ".6f")]
        for p in peers:
            cmp = next((x for x in comps if x["threads"] == r["threads"] and x["peer"] == p), None) \
                if r["tool"] == OURS else None
            if cmp is None:
                cells += ["", ""]
                continue
            sp = [cmp["speedup_wall"], cmp.get("speedup_count"), cmp.get("speedup_train")]
            diffs = [cmp["diff_analogy_pct"], cmp["diff_ws353"], cmp["diff_simlex"]]
            cells += [" / ".join(_f(x, ".2f") + ("×" if x else "") for x in sp),
                      "–" if all(d is None for d in diffs) else
                      f"{_signed(diffs[0], '.1f')} / {_signed(diffs[1], '.3f')} / {_signed(diffs[2], '.3f')}"]
        lines.append("| " + " | ".join(cells) + " |")

    # cost per epoch (glove.c's figure: mean weighted squared error per non-zero), median over repeats
    cols = [r for r in rows if r.get("epoch_cost")]
    if cols:
        n = max(len(r["epoch_cost"]) for r in cols)
        lines += ["", "Cost per epoch (mean of 0.5 f(x) (w·w̃ + b + b̃ − log x)² over the non-zeros, as glove.c "
                      "prints it; median over the repeats):", ""]
        head = ["epoch"] + [f"{r['tool']} t{r['threads']}" for r in cols]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "|".join(["---"] * len(head)) + "|")
        for i in range(n):
            lines.append("| " + " | ".join([str(i + 1)] + [
                _f(r["epoch_cost"][i] if i < len(r["epoch_cost"]) else None, ".6f") for r in cols]) + " |")
    return lines


# ---- plots ----------------------------------------------------------------

def plots(results: dict, out_dir: str) -> list[str]:
    """throughput.png and quality.png; [] (with a printed note) without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib is not importable, so no PNGs were drawn (pip install matplotlib); "
              "results.json and results.md are complete without them")
        return []
    rows = [r for r in results["summary"] if r["ok_runs"]]
    if not rows:
        return []
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    w2v_modes = [m for m in modes if m != GLOVE]   # GloVe has no words/s: its timings are in results.md
    tools = list(dict.fromkeys(r["tool"] for r in rows))
    colors = {t: f"C{i}" for i, t in enumerate(tools)}
    corpus = os.path.basename(results["corpus"]["source"])
    written = []

    # throughput against threads, one panel per mode
    fig, axes = plt.subplots(1, max(1, len(w2v_modes)), figsize=(max(7.0, 4.8 * len(w2v_modes)), 4.6),
                             squeeze=False)
    if not w2v_modes:
        axes[0][0].text(0.5, 0.5, "no word2vec mode was run", ha="center", va="center")
    for ax, mode in zip(axes[0], w2v_modes):
        for t in tools:
            pts = sorted((r["threads"], r["words_per_sec"]) for r in rows
                         if r["mode"] == mode and r["tool"] == t and r["words_per_sec"])
            if not pts:
                continue
            xs = [p[0] for p in pts]
            med = [p[1]["median"] / 1e3 for p in pts]
            err = [[(p[1]["median"] - p[1]["min"]) / 1e3 for p in pts],
                   [(p[1]["max"] - p[1]["median"]) / 1e3 for p in pts]]
            ax.errorbar(xs, med, yerr=err, marker="o", capsize=4, label=t, color=colors[t])
        ax.set_title(mode)
        ax.set_xlabel("threads")
        ax.set_xticks(sorted({r["threads"] for r in rows}))
        ax.set_ylabel("training throughput (thousand words/s)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"Training throughput on {corpus}\n(median; error bars: min–max over repeats)")
    fig.tight_layout()
    path = os.path.join(out_dir, "throughput.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    # quality: grouped bars (mode groups, one bar per tool), at the largest thread count
    tmax = max(r["threads"] for r in rows)
    metrics = [("analogy_pct", "analogy accuracy (%)"), ("ws353", "WordSim-353 Spearman"),
               ("simlex", "SimLex-999 Spearman")]
    if any(r.get(ABSENT_KEY) for r in rows):
        metrics.append((ABSENT_KEY, "pairs with a word absent from training, Spearman"))
    fig, axes = plt.subplots(1, len(metrics), figsize=(5.2 * len(metrics), 4.6), squeeze=False)
    width = 0.8 / max(1, len(tools))
    for ax, (key, label) in zip(axes[0], metrics):
        for j, t in enumerate(tools):
            xs, hs = [], []
            for i, mode in enumerate(modes):
                r = next((r for r in rows if r["mode"] == mode and r["tool"] == t and r["threads"] == tmax),
                         None)
                v = _med(r, key)
                if v is not None:
                    xs.append(i + (j - (len(tools) - 1) / 2) * width)
                    hs.append(v)
            bars = ax.bar(xs, hs, width, label=t, color=colors[t])
            ax.bar_label(bars, fmt="%.1f" if key == "analogy_pct" else "%.3f", fontsize=8)
        ax.set_xticks(range(len(modes)))
        ax.set_xticklabels(modes)
        ax.set_title(label)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Quality on {corpus} ({tmax} threads, median over repeats; analogy: 3CosAdd, top 30k words)")
    fig.tight_layout()
    path = os.path.join(out_dir, "quality.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written


def write_json(results: dict, out_dir: str) -> str:
    path = os.path.join(out_dir, "results.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(results, f, indent=1, default=str)
    os.replace(tmp, path)
    return path


def write_all(results: dict, out_dir: str) -> list[str]:
    results["summary"] = summarize(results["runs"])
    results["comparisons"] = comparisons(results["summary"])
    md = os.path.join(out_dir, "results.md")
    with open(md, "w") as f:
        f.write(markdown(results))
    pngs = plots(results, out_dir)
    results["pngs"] = pngs
    return [write_json(results, out_dir), md, *pngs]


def main(argv=None) -> int:
    """python -m benchmarks.report OUT: rebuilds results.md and the PNGs from OUT/results.json."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m benchmarks.report OUT_DIR (rebuilds results.md and PNGs from results.json)")
        return 2
    with open(os.path.join(args[0], "results.json")) as f:
        results = json.load(f)
    print("wrote " + ", ".join(write_all(results, args[0])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
