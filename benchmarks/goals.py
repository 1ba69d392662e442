"""Issue #60's goal column: each trainer's whole command against its peers,
read from the suite's own records of one day, beside what the machine's
limit (benchmarks.limits, the same day) allows it:

    python -m benchmarks.goals --limits limits.json RECORD [RECORD ...] [--json PATH]

A RECORD is `python -m benchmarks`'s results.json (the word2vec, subword and
GloVe modes), `benchmarks.phrases`'s phrases.json (cases w2p1, default1) or
`benchmarks.scale --mode glove`'s scale.json (GloVe at scale). Each job's
ratio is of the medians of its repeats, whole process against whole process;
the goals are issue #60's.

Where a goal is missed, the row says what bounds the job and how close to
that bound it is. The training phase's steps per unit are counted from the
job's own corpus and settings as the limit table counts them (the corpus
must still be where the record says; otherwise the limit table's own count
is taken, and the row says so); with the probe's rates they give the least
time training can take with the rows in L1 (no trainer can be faster) and in
L3. "best ratio" is the ratio the whole command would reach against the
goal's peer if training ran at that bound and the rest of the command
(counting, encoding, start-up, saving: its wall time less its training) took
what it takes now: a goal above it cannot be met by faster training alone at
these settings on these cores; "needs" is the share of the L1 bound training
would have to reach for the goal, the rest as now."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

from . import limits

# issue #60's goals: the peer and how many times faster than it ("faster": the faster of the job's peers)
GOALS = {
    "sg-ns": {"gensim": 10, "word2vec.c": 15},
    "cbow-ns": {"gensim": 6, "word2vec.c": 8},
    "sg-hs": {"gensim": 5, "word2vec.c": 8},
    "sg-sub": {"faster": 8},
    "phrases": {"word2phrase.c": 12, "gensim": 25},
    "glove": {"Stanford GloVe": 12},
}
JOBS = {"sg-ns": "skip-gram NS", "cbow-ns": "CBOW NS", "sg-hs": "skip-gram HS", "sg-sub": "subwords (skip-gram)",
        "phrases": "phrases, one pass", "glove": "GloVe"}
PHRASE_CASES = {"w2p1": "word2phrase.c", "default1": "gensim"}


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _steps_per_word(mode: str, corpus: str | None, settings: dict, fallback: dict) -> tuple[float, str]:
    """Steps per corpus word of a word2vec-family job, counted on its corpus."""
    if corpus and os.path.exists(corpus):
        from wv_engine.corpus import Corpus
        from wv_engine.vocab import Vocabulary

        vocab = Vocabulary.build(Corpus(corpus), settings["min_count"], threads=2)
        work = limits.work_per_word(vocab, settings["window"], settings["negative"], settings["sample"])
        return work[mode], os.path.basename(corpus)
    return fallback[mode], "the limit table's corpus"


def _phase_seconds(stats: dict, phase: str) -> float | None:
    """A phase's seconds from a --stats-json: GloVe's in stage_seconds, word2vec's as PHASE_seconds."""
    return (stats.get("stage_seconds") or {}).get(phase, stats.get(f"{phase}_seconds"))


def _suite_jobs(record: dict, fallback: dict, threads: int) -> list[dict]:
    """The jobs of a results.json at the limit table's thread count (one row a mode)."""
    jobs = []
    settings = record.get("settings") or {}
    for summary in record["summary"]:
        if summary["tool"] != "wv-engine" or summary["mode"] not in GOALS or summary["threads"] != threads:
            continue
        mode = summary["mode"]
        ours_runs = [r for r in record["runs"] if r["tool"] == "wv-engine" and r["mode"] == mode
                     and r["threads"] == threads and r.get("ok")]
        peers = {s["tool"]: s["wall_s"]["median"] for s in record["summary"]
                 if s["mode"] == mode and s["threads"] == threads and s["tool"] != "wv-engine" and s.get("ok_runs")}
        job = {"job": mode, "corpus": os.path.basename(record["corpus"]["source"]), "repeats": len(ours_runs),
               "wall": summary["wall_s"]["median"], "train": summary["train_seconds"]["median"], "peers": peers}
        job["outside"] = {phase: _median(_phase_seconds(r["tool_stats"], phase) for r in ours_runs)
                          for phase in ("count", "encode", "records", "save")}
        if mode == "glove":
            job["units"] = _median(r["tool_stats"]["nonzeros"] * r["tool_stats"]["epochs"] for r in ours_runs)
            job["steps"], job["counted_on"] = 2.0, "two steps a record"
        else:
            job["units"] = _median(r["tool_stats"]["corpus_words"] * r["tool_stats"]["epochs"] for r in ours_runs)
            corpus = record["corpus"].get("plain")
            if mode == "sg-sub" and record.get("absent_words"):  # its copy without the held-out words, if kept
                held_out = record["absent_words"]["subword_corpus"].get("plain")
                corpus = held_out if held_out and os.path.exists(held_out) else corpus
            job["steps"], job["counted_on"] = _steps_per_word(mode, corpus, {**limits.SETTINGS, **settings}, fallback)
        jobs.append(job)
    return jobs


def _phrases_jobs(record: dict) -> list[dict]:
    """One job a case: wv-engine at word2phrase's settings against it, at gensim's against gensim."""
    jobs = []
    for case, peer in PHRASE_CASES.items():
        row = record["cases"].get(case)
        runs = [r for r in row["wv-engine"]["runs"] if r.get("stats")] if row else []
        if not runs:
            continue
        jobs.append({"job": "phrases", "corpus": os.path.basename(record["corpus"]), "repeats": len(runs),
                     "wall": _median(r["wall_s"] for r in runs),
                     "train": _median(r["stats"]["learn_seconds"] for r in runs),
                     "units": _median(r["stats"]["passes"][0]["corpus_words"] for r in runs),
                     "outside": {"apply": _median(r["stats"].get("apply_seconds") for r in runs)},
                     "peers": {peer: _median(r["wall_s"] for r in row[peer]["runs"] if r.get("ok"))},
                     "steps": 2.0,
                     "counted_on": "read, hash, two counts a token"})
    return jobs


def _scale_job(record: dict) -> dict:
    ours, peer = record["summary"]["wv-engine"], record["summary"].get("Stanford GloVe")
    return {"job": "glove", "corpus": os.path.basename(record["corpus"]), "tokens": record.get("tokens"),
            "repeats": record["repeats"], "wall": ours["wall_s"], "train": ours["train"],
            "units": ours["nonzeros"] * record["epochs"], "peers": {"Stanford GloVe": peer["wall_s"]} if peer else {},
            "steps": 2.0, "counted_on": "two steps a record",
            "outside": {k: ours[k] for k in ("count", "shuffle", "save", "other") if ours.get(k) is not None}}


def jobs_of(record: dict, fallback: dict, threads: int) -> list[dict]:
    """The jobs of one record; refused where it ran other threads or dim than the limit table's probe."""
    ran = record.get("threads") or (record.get("config") or {}).get("threads")
    ran = ran if isinstance(ran, list) else [ran] if ran else []
    dim = (record.get("settings") or {}).get("dim", limits.SETTINGS["dim"])
    if (ran and threads not in ran) or dim != limits.SETTINGS["dim"]:
        raise SystemExit(f"a record ran {ran} threads at dim {dim}; the limit table's probe ran {threads} threads "
                         f"at dim {limits.SETTINGS['dim']}: run them alike")
    if "cases" in record:
        return _phrases_jobs(record)
    if record.get("mode") == "glove" and isinstance(record.get("summary"), dict):
        return [_scale_job(record)]
    return _suite_jobs(record, fallback, threads)


def judge(job: dict, rates: dict) -> dict:
    """The job's ratios against its goals, and where its training sits
    against the bounds."""
    best = limits.best_rates(job["job"], job["steps"], rates)
    rate = job["units"] / job["train"]
    rest = job["wall"] - job["train"]
    goals = []
    for peer, times in GOALS[job["job"]].items():
        if peer == "faster":
            if not job["peers"]:
                continue
            peer = min(job["peers"], key=job["peers"].get)
        if peer not in job["peers"]:
            continue
        peer_wall = job["peers"][peer]
        left = peer_wall / times - rest  # the seconds training may take for the goal, the rest as now
        goals.append({"peer": peer, "goal": times, "ratio": peer_wall / job["wall"],
                      "met": peer_wall / job["wall"] >= times,
                      "needs_share_L1": job["units"] / left / best["L1"] if left > 0 else None,
                      # training at a bound, or as now where it is already faster than that bound
                      "best_ratio": {level: peer_wall / (rest + min(job["train"], job["units"] / best[level]))
                                     for level in ("L1", "L3")}})
    if job["job"] == "phrases":
        bounded_by = "the reader and the counts' table (one bound at every level)"
    elif rate >= best["L3"]:
        bounded_by = "the rows' fetches, above the L3 bound (hot rows held in L1/L2)"
    elif rate >= best["memory"]:
        bounded_by = "the rows' fetches, between the memory and L3 bounds"
    else:
        bounded_by = "below the memory bound"
    if rest >= 0.4 * job["wall"]:  # the command's other phases are a large share of it
        parts = ", ".join(f"{k} {v:.1f} s" for k, v in job.get("outside", {}).items() if v is not None)
        bounded_by = (f"outside training: {rest:.1f} of {job['wall']:.1f} s" + (f" ({parts})" if parts else "")
                      + f"; training: {bounded_by}")
    return {**job, "train_rate": rate, "best": best, "share_L1": rate / best["L1"], "share_L3": rate / best["L3"],
            "rest": rest, "goals": goals, "bounded_by": bounded_by}


def _needs(goal: dict) -> str:
    share = goal["needs_share_L1"]
    if share is None:
        return "more than the rest of the command leaves"
    return f"{share:.0%}" + (" (past it)" if share > 1 else "")


def markdown(rows: list[dict]) -> str:
    lines = ["| job | corpus | wv-engine s (training) | peer s | ours faster by | goal | met | training: share of "
             "the L1 / L3 bound | the goal needs, of the L1 bound | best ratio, training at the L3 / L1 bound | "
             "what bounds it |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        first = True
        for g in r["goals"]:
            head = (f"| {JOBS[r['job']]} | {r['corpus']} | {r['wall']:.1f} ({r['train']:.1f}) " if first
                    else "| | | ")
            tail = (f"| {r['share_L1']:.0%} / {r['share_L3']:.0%} " if first else "| ")
            lines.append(f"{head}| {g['peer']} {r['peers'][g['peer']]:.1f} | {g['ratio']:.2f}x | {g['goal']}x | "
                         f"{'yes' if g['met'] else 'no'} {tail}| {_needs(g)} | {g['best_ratio']['L3']:.1f}x / "
                         f"{g['best_ratio']['L1']:.1f}x | {r['bounded_by'] if first else ''} |")
            first = False
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.goals", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--limits", required=True, help="benchmarks.limits --json's file (the probe's rates)")
    p.add_argument("records", nargs="+", help="results.json, phrases.json or scale.json files")
    p.add_argument("--json", metavar="PATH")
    a = p.parse_args(argv)
    with open(a.limits, encoding="utf-8") as f:
        table = json.load(f)
    rows = []
    for path in a.records:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        rows.extend(judge(job, table["rates"]) for job in jobs_of(record, table["work"], table["threads"]))
    order = list(GOALS)
    rows.sort(key=lambda r: (order.index(r["job"]), r.get("tokens") or 0))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"limits": a.limits, "records": a.records, "rates": table["rates"], "rows": rows}, f, indent=1)
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
