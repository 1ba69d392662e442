"""The word2vec scale mode: wv-engine, gensim (corpus_file) and word2vec.c on
one large generated corpus (benchmarks/zipf.py) in the same run, alternating
tools for each repeat, each whole process measured (wall time, peak RSS),
with each phase's seconds where the tool reports them.

    python -m benchmarks.scale --tokens 50000000 --types 5000000 [--corpus PATH]
        [--word2vec-bin PATH] [--tools wv-engine,gensim,word2vec.c] [--threads 2] [--epochs 1]
        [--repeats 1] [--wv-args "..."] [--out DIR]

Settings are the issue's: skip-gram NS, dim 100, window 5, negative 5, sample
1e-4, min_count 5, alpha 0.025. The corpus (lines of 1,000 tokens, so gensim
reads every word) is generated into OUT unless --corpus names one; it is
reused when it exists. Writes OUT/scale.json and prints a Markdown table:
per tool, wall seconds, the phases (wv-engine: count, encode, train, save;
gensim: build_vocab, train, save; word2vec.c: the whole process), the share
of the wall time outside training, peak RSS and the model's size
(vocabulary x dim x 8 bytes: input and output matrices), and wv-engine's
speed-up against each peer."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time

from .measure import run_measured
from .zipf import generate

SETTINGS = {"dim": 100, "window": 5, "negative": 5, "sample": 1e-4, "min_count": 5, "alpha": 0.025}


def _commands(tool: str, corpus: str, out: str, threads: int, epochs: int, word2vec_bin: str | None,
              wv_args: list[str]) -> list[str]:
    s = SETTINGS
    if tool == "wv-engine":
        return [sys.executable, "-m", "wv_engine.cli", "word2vec", corpus, "-o", out + ".bin", "--arch", "skipgram",
                "--loss", "ns", "--dim", str(s["dim"]), "--window", str(s["window"]), "--negative",
                str(s["negative"]), "--sample", str(s["sample"]), "--min-count", str(s["min_count"]),
                "--alpha", str(s["alpha"]), "--epochs", str(epochs), "--threads", str(threads), "--quiet",
                "--stats-json", out + ".json", *wv_args]
    if tool == "gensim":
        return [sys.executable, "-m", "benchmarks.gensim_train", "--corpus", corpus, "--output", out + ".bin",
                "--sg", "1", "--hs", "0", "--negative", str(s["negative"]), "--dim", str(s["dim"]), "--window",
                str(s["window"]), "--sample", str(s["sample"]), "--min-count", str(s["min_count"]), "--epochs",
                str(epochs), "--alpha", str(s["alpha"]), "--min-alpha", str(s["alpha"] * 1e-4), "--workers",
                str(threads)]
    return [word2vec_bin, "-train", corpus, "-output", out + ".bin", "-cbow", "0", "-size", str(s["dim"]),
            "-window", str(s["window"]), "-negative", str(s["negative"]), "-hs", "0", "-sample", str(s["sample"]),
            "-min-count", str(s["min_count"]), "-iter", str(epochs), "-threads", str(threads), "-binary", "1",
            "-alpha", str(s["alpha"])]


def _phases(tool: str, out: str, stdout: str) -> dict:
    """The tool's own phase seconds and vocabulary size (none for word2vec.c)."""
    if tool == "wv-engine":
        d = json.load(open(out + ".json"))
        return {"count": d["count_seconds"], "encode": d["encode_seconds"], "train": d["train_seconds"],
                "save": d["save_seconds"], "vocab_size": d["vocab_size"], "peak_rss_self": d.get("peak_rss_bytes")}
    if tool == "gensim":
        d = json.loads(open(stdout).read().strip().splitlines()[-1])
        return {"count": d["build_vocab_seconds"], "train": d["train_seconds"], "save": d["save_seconds"],
                "vocab_size": d["vocab_size"]}
    with open(out + ".bin", "rb") as f:
        return {"vocab_size": int(f.readline().split()[0])}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__.split("\n\n")[0])
    p.add_argument("--tokens", type=int, default=50_000_000)
    p.add_argument("--types", type=int, default=5_000_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--corpus", help="an existing corpus instead of generating one")
    p.add_argument("--word2vec-bin", metavar="PATH", help="the word2vec C tool's binary (skipped without it)")
    p.add_argument("--tools", default="wv-engine,gensim,word2vec.c")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--wv-args", default="", help="extra flags for wv-engine")
    p.add_argument("--timeout", type=float, default=7200)
    p.add_argument("--out", default="/tmp/wv_scale")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    corpus = a.corpus or os.path.join(a.out, f"zipf_{a.tokens}_{a.types}_{a.seed}.txt")
    if not os.path.exists(corpus):
        print(f"generating {corpus}", flush=True)
        generate(corpus, a.tokens, a.types, a.seed)
    tools = [t for t in a.tools.split(",") if t]
    if "word2vec.c" in tools and not a.word2vec_bin:
        print("skip word2vec.c: no --word2vec-bin")
        tools.remove("word2vec.c")
    if "gensim" in tools:
        try:
            import gensim  # noqa: F401
        except ImportError:
            print("skip gensim: not installed")
            tools.remove("gensim")
    env = dict(os.environ)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = repo + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    runs = []
    for rep in range(a.repeats):
        for tool in tools:
            out = os.path.join(a.out, f"{tool}.r{rep}")
            cmd = _commands(tool, corpus, out, a.threads, a.epochs, a.word2vec_bin, shlex.split(a.wv_args))
            print(f"{tool} repeat {rep + 1}: {' '.join(cmd)}", flush=True)
            m = run_measured(cmd, stdout_path=out + ".stdout", stderr_path=out + ".stderr", timeout=a.timeout,
                             env=env, cwd=repo)
            rec = {"tool": tool, "repeat": rep, "cmd": cmd, "ok": m.ok, "error": m.error, "wall_s": m.wall_s,
                   "peak_rss_mib": m.peak_rss_mib, "other_cpu_cores": m.other_cpu_cores}
            if m.ok:
                rec.update(_phases(tool, out, out + ".stdout"))
            for suffix in (".bin",):
                if os.path.exists(out + suffix):
                    os.unlink(out + suffix)
            runs.append(rec)
            print(f"  {m.wall_s:.1f} s, peak RSS {m.peak_rss_mib:.0f} MiB" + ("" if m.ok else f" FAILED {m.error}"),
                  flush=True)
    rows = {}
    for tool in tools:
        rs = [r for r in runs if r["tool"] == tool and r["ok"]]
        if not rs:
            continue
        med = lambda k: statistics.median(r[k] for r in rs) if all(r.get(k) is not None for r in rs) else None  # noqa: E731
        row = {k: med(k) for k in ("wall_s", "peak_rss_mib", "count", "encode", "train", "save", "vocab_size")}
        row["outside_train_share"] = None if row["train"] is None else 1 - row["train"] / row["wall_s"]
        row["model_mib"] = row["vocab_size"] * SETTINGS["dim"] * 8 / 2**20 if row["vocab_size"] else None
        rows[tool] = row
    with open(os.path.join(a.out, "scale.json"), "w") as f:
        json.dump({"created": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv, "corpus": corpus,
                   "tokens": a.tokens, "types": a.types, "threads": a.threads, "epochs": a.epochs,
                   "settings": SETTINGS, "runs": runs, "summary": rows}, f, indent=2)
    fmt = lambda v, spec=".1f": "" if v is None else format(v, spec)  # noqa: E731
    print(f"\ncorpus {corpus}: {a.tokens:,} tokens, {a.types:,} types; {a.threads} threads, {a.epochs} epoch(s); "
          f"medians of {a.repeats}")
    print("\n| tool | wall s | count s | encode s | train s | save s | outside training | peak RSS MiB | "
          "model MiB | vocabulary | wv-engine speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base = rows.get("wv-engine", {}).get("wall_s")
    for tool, r in rows.items():
        share = "" if r["outside_train_share"] is None else f"{100 * r['outside_train_share']:.0f}%"
        speedup = f"{r['wall_s'] / base:.2f}x" if base and tool != "wv-engine" else ""
        print(f"| {tool} | {fmt(r['wall_s'])} | {fmt(r['count'])} | {fmt(r['encode'])} | {fmt(r['train'])} | "
              f"{fmt(r['save'])} | {share} | {fmt(r['peak_rss_mib'], '.0f')} | {fmt(r['model_mib'], '.0f')} | "
              f"{fmt(r['vocab_size'], ',.0f')} | {speedup} |")
    return 0 if all(r["ok"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
