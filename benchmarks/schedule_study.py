"""The learning-rate schedule study (issue #18): wv-engine under several
(alpha, min_alpha) schedules against gensim at its defaults, per mode and
epoch count, several seeds each, scored on questions-words (top 30,000),
WordSim-353 and SimLex-999 (benchmarks/quality.py's settings).

    python -m benchmarks.schedule_study --corpus wiki_17m.txt.gz --out /tmp/study \\
        --modes cbow-ns --epochs 1,5 --seeds 1,2,3 \\
        --schedules "default;0.05:0.025;0.075:0.0375"

A schedule is "default" (the engine's defaults), "ALPHA:MIN_ALPHA", or
"ALPHA:/2E" (min_alpha = alpha / (2 x epochs)). Each run appends one JSON line to
OUT/study.jsonl; the medians over seeds are printed as a table at the end.
Runs are sequential (one training at a time on the machine)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from .corpus import prepare
from .quality import evaluate_file

MODES = {"sg-ns": ("skipgram", "ns"), "cbow-ns": ("cbow", "ns"), "sg-hs": ("skipgram", "hs"),
         "cbow-hs": ("cbow", "hs")}
SETTINGS = dict(dim=100, window=5, sample=1e-3, min_count=5)


def _schedule(text: str, epochs: int) -> dict:
    if text == "default":
        return {}
    alpha, end = text.split(":")
    alpha_f = float(alpha)
    return {"alpha": alpha_f, "min_alpha": alpha_f / (2 * epochs) if end == "/2E" else float(end)}


def _wv_engine(corpus: str, mode: str, epochs: int, seed: int, threads: int, schedule: dict, out: str) -> dict:
    arch, loss = MODES[mode]
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in {**SETTINGS, **schedule}.items()]
    cmd = [sys.executable, "-m", "wv_engine.cli", "word2vec", corpus, "-o", out, "--arch", arch, "--loss", loss,
           "--epochs", str(epochs), "--threads", str(threads), "--seed", str(seed), "--quiet", *flags]
    return _timed(cmd)


def _gensim(corpus: str, mode: str, epochs: int, seed: int, threads: int, out: str) -> dict:
    arch, loss = MODES[mode]
    alpha = 0.025  # gensim's default for both architectures
    cmd = [sys.executable, "-m", "benchmarks.gensim_train", "--corpus", corpus, "--output", out,
           "--sg", "1" if arch == "skipgram" else "0", "--hs", "1" if loss == "hs" else "0",
           "--negative", "5" if loss == "ns" else "0", "--dim", "100", "--window", "5", "--sample", "1e-3",
           "--min-count", "5", "--epochs", str(epochs), "--alpha", str(alpha), "--min-alpha", "0.0001",
           "--workers", str(threads), "--seed", str(seed)]
    return _timed(cmd)


def _timed(cmd: list[str]) -> dict:
    t0 = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{run.stderr[-2000:]}")
    return {"wall_s": round(time.perf_counter() - t0, 2)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--modes", default="cbow-ns")
    p.add_argument("--epochs", default="1,5")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--schedules", default="default")
    p.add_argument("--no-gensim", action="store_true")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    corpus = prepare(a.corpus, a.out)
    log = open(os.path.join(a.out, "study.jsonl"), "a")
    rows: dict[tuple, list[dict]] = {}
    for mode in a.modes.split(","):
        for epochs in map(int, a.epochs.split(",")):
            tools = [("wv-engine", s) for s in a.schedules.split(";")] + ([] if a.no_gensim else [("gensim", "")])
            for seed in map(int, a.seeds.split(",")):
                for tool, sched in tools:
                    vec = os.path.join(a.out, "vectors.bin")
                    if tool == "gensim":
                        rec = _gensim(corpus.split, mode, epochs, seed, a.threads, vec)
                    else:
                        rec = _wv_engine(corpus.plain, mode, epochs, seed, a.threads, _schedule(sched, epochs), vec)
                    q = evaluate_file(vec)
                    rec.update(tool=tool, schedule=sched, mode=mode, epochs=epochs, seed=seed,
                               analogy=q["analogy_pct"], ws353=q["ws353"], simlex=q["simlex"])
                    print(json.dumps(rec), flush=True)
                    log.write(json.dumps(rec) + "\n")
                    log.flush()
                    rows.setdefault((mode, epochs, tool, sched), []).append(rec)
    print("\n| mode | epochs | tool | schedule | analogy | WS-353 | SimLex | wall s | seeds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (mode, epochs, tool, sched), recs in rows.items():
        med = {k: statistics.median(r[k] for r in recs) for k in ("analogy", "ws353", "simlex", "wall_s")}
        print(f"| {mode} | {epochs} | {tool} | {sched or 'its default'} | {med['analogy']:.2f} | "
              f"{med['ws353']:.3f} | {med['simlex']:.3f} | {med['wall_s']:.1f} | {len(recs)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
