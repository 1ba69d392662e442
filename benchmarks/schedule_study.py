"""The learning-rate schedule study (issue #18): wv-engine under several
schedules against gensim and word2vec.c, per mode and epoch count, several
seeds each, scored on questions-words (top 30,000), WordSim-353 and
SimLex-999 (benchmarks/quality.py's settings).

    python -m benchmarks.schedule_study --corpus wiki_17m.txt.gz --out /tmp/study \\
        --modes sg-ns,cbow-ns,sg-hs,cbow-hs --epochs 1,5 --seeds 1,2,3 \\
        --schedules "epochs;word2vec;0.075:/2E" --word2vec-bin PATH

Every tool runs the benchmark suite's command (benchmarks/runners.py: the
same settings, sample --sample); wv-engine once per schedule:
"default" (the engine's defaults), a name given to its --schedule
("epochs", "word2vec"), "ALPHA:MIN_ALPHA", or "ALPHA:/2E" (min_alpha = alpha /
(2 x epochs)); an empty ALPHA is the mode's (0.025 skip-gram, 0.05 CBOW);
or flags of wv-engine's own, given as they are ("--regions 4", "--regions 2
--exact-negatives"). Each run appends one JSON line to OUT/study.jsonl; the
medians over seeds are printed as a table at the end. Runs are sequential
(one training at a time on the machine).

--rotations N runs every job on N orders of the same text: the corpus and
N - 1 copies of it begun 1/N, 2/N, ... of the way through (the words before
the cut follow the end), each record naming its "rotation". The order of
the text moves SimLex-999 and WS-353 by more than the seeds do and
differently in each tool (docs/performance.md), so a comparison pooled over
rotations says more about the tools than one over seeds alone.

    python -m benchmarks.schedule_study --report OUT

prints the tables of every run in OUT/study.jsonl (several invocations may
append to it): the medians per tool and schedule, and issue #18's check of
wv-engine's default against the best peer per test set (analogy within 0.3
points, WS-353 and SimLex-999 within 0.01)."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time

from .corpus import prepare, rotated
from .quality import evaluate_file
from .runners import MODES, Gensim, Settings, Word2VecC, WvEngine, word2vec_c_shortfall


def schedule_args(text: str, mode: str, epochs: int) -> list[str]:
    """wv-engine's flags for one schedule of the study."""
    if text == "default":
        return []
    if text.startswith("--"):  # the engine's own flags
        return text.split()
    if ":" not in text:  # a named schedule (wv-engine --schedule)
        return ["--schedule", text]
    alpha, end = text.split(":")
    alpha = alpha or repr(MODES[mode]["alpha"])
    min_alpha = float(alpha) / (2 * epochs) if end == "/2E" else float(end)
    return ["--alpha", alpha, "--min-alpha", repr(min_alpha)]


def _run(cmd: list[str]) -> tuple[float, str]:
    """The command's wall seconds and its stdout."""
    t0 = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{run.stderr[-2000:]}")
    return round(time.perf_counter() - t0, 2), run.stdout


METRICS = ("analogy", "ws353", "simlex")
SLACK = {"analogy": 0.3, "ws353": 0.01, "simlex": 0.01}  # issue #18's bars under the best peer


def _medians(recs: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in recs) for k in (*METRICS, "wall_s")}


def best_of(peers) -> dict:
    """The best peer's score on each test set (each set its own peer)."""
    peers = list(peers)
    return {m: max(p[m] for p in peers) for m in METRICS}


def under_bar(ours: dict, best: dict) -> list[str]:
    """The test sets on which `ours` falls under issue #18's bar."""
    return [m for m in METRICS if ours[m] < best[m] - SLACK[m]]


def read_records(path: str) -> list[dict]:
    """The records of a study.jsonl (one JSON object a line)."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def report(records: list[dict]) -> str:
    """The medians table and the check of wv-engine's default against the
    best peer, per mode and epoch count."""
    rows: dict[tuple, list[dict]] = {}
    for r in records:
        rows.setdefault((r["mode"], r["epochs"], r["tool"], r["schedule"]), []).append(r)
    out = ["| mode | epochs | tool | schedule | analogy | WS-353 | SimLex | wall s | runs |",
           "|---|---|---|---|---|---|---|---|---|"]
    for (mode, epochs, tool, sched), recs in rows.items():
        med = _medians(recs)
        out.append(f"| {mode} | {epochs} | {tool} | {sched or 'its default'} | {med['analogy']:.2f} | "
                   f"{med['ws353']:.3f} | {med['simlex']:.3f} | {med['wall_s']:.1f} | {len(recs)} |")
    out += ["", "| mode | epochs | wv-engine (default) | best peer | under the bar |", "|---|---|---|---|---|"]
    for mode, epochs in dict.fromkeys((k[0], k[1]) for k in rows):
        ours = rows.get((mode, epochs, "wv-engine", "default"))
        peers = {k[2]: _medians(v) for k, v in rows.items() if k[:2] == (mode, epochs) and k[2] != "wv-engine"}
        if not ours or not peers:
            continue
        med = _medians(ours)
        best = best_of(peers.values())
        who = {m: "/".join(t for t, p in peers.items() if p[m] == best[m]) for m in METRICS}
        short = [f"{m} {med[m] - best[m] + SLACK[m]:+.3f}" for m in under_bar(med, best)]
        out.append(f"| {mode} | {epochs} | {med['analogy']:.2f} / {med['ws353']:.3f} / {med['simlex']:.3f} | "
                   + " / ".join(f"{best[m]:.{2 if m == 'analogy' else 3}f} ({who[m]})" for m in METRICS)
                   + f" | {', '.join(short) or 'none'} |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--report"]:
        if len(argv) != 2:
            p.error("--report takes the study's output directory")
        print(report(read_records(os.path.join(argv[1], "study.jsonl"))))
        return 0
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--modes", default="cbow-ns", help=f"comma-separated, of {', '.join(MODES)}")
    p.add_argument("--epochs", default="1,5")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--sample", type=float, default=Settings.sample)
    p.add_argument("--schedules", default="default")
    p.add_argument("--no-gensim", action="store_true")
    p.add_argument("--word2vec-bin", help="word2vec.c's binary (run once per seed: it takes no seed)")
    p.add_argument("--rotations", type=int, default=1,
                   help="run every job on this many orders of the text (the corpus begun at 0, 1/N, 2/N, ...)")
    a = p.parse_args(argv)
    bad = [m for m in a.modes.split(",") if m not in MODES]
    if bad:
        p.error(f"unknown mode(s) {', '.join(bad)}; choose from {', '.join(MODES)}")
    if a.rotations < 1:
        p.error("--rotations must be at least 1")
    os.makedirs(a.out, exist_ok=True)
    corpus = prepare(a.corpus, a.out)
    texts = [corpus] + [prepare(rotated(corpus.plain, r, a.rotations,
                                        os.path.join(a.out, "corpus", f"rotation{r}of{a.rotations}.txt")),
                                os.path.join(a.out, f"rotation{r}")) for r in range(1, a.rotations)]
    peers = ([] if a.no_gensim else [("gensim", Gensim())]) + (
        [("word2vec.c", Word2VecC(a.word2vec_bin))] if a.word2vec_bin else [])
    log = open(os.path.join(a.out, "study.jsonl"), "a")
    records: list[dict] = []
    for mode in a.modes.split(","):
        for epochs in map(int, a.epochs.split(",")):
            for seed, (rotation, text) in itertools.product(map(int, a.seeds.split(",")), enumerate(texts)):
                s = Settings(sample=a.sample, epochs=epochs, seed=seed)
                prefix = os.path.join(a.out, "run")
                runs = [(name, "", tool.job(mode, a.threads, s, text, prefix).cmd) for name, tool in peers]
                engine = WvEngine().job(mode, a.threads, s, text, prefix)
                runs += [("wv-engine", sched, engine.cmd + schedule_args(sched, mode, epochs))
                         for sched in a.schedules.split(";")]
                for tool, sched, cmd in runs:
                    wall, stdout = _run(cmd)
                    short = word2vec_c_shortfall(stdout, epochs, a.threads) \
                        if tool == "word2vec.c" else None
                    if short:
                        raise RuntimeError(short)
                    q = evaluate_file(prefix + ".bin")
                    rec = dict(tool=tool, schedule=sched, mode=mode, epochs=epochs, seed=seed, rotation=rotation,
                               sample=a.sample, threads=a.threads, wall_s=wall, analogy=q["analogy_pct"],
                               ws353=q["ws353"], simlex=q["simlex"])
                    print(json.dumps(rec), flush=True)
                    log.write(json.dumps(rec) + "\n")
                    log.flush()
                    records.append(rec)
    print("\n" + report(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
