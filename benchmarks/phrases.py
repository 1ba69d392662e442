"""Phrases (issue #38): `wv-engine phrases` against word2phrase.c and gensim's
Phrases + FrozenPhrases on one corpus, in the same run, alternating tools
for each repeat, each whole process measured (wall time, peak RSS), and the
phrases each forms compared.

    python -m benchmarks.phrases --corpus wiki_17m.txt --word2phrase /tmp/w2p/word2phrase
        [--threads 2] [--repeats 3] [--cases w2p1,w2p2,default1,default2,npmi1] [--out DIR]

Cases: w2p1 / w2p2: word2phrase's settings (min_count 5, threshold 100), one
pass / two (word2phrase run twice), wv-engine against word2phrase.c on the
corpus; default1 / default2 / npmi1: gensim's (min_count 5, threshold 10;
npmi: 0.5), wv-engine --scoring default / npmi against gensim on a copy of
the corpus cut into lines of 10,000 words (what gensim's LineSentence
reads). Per case and tool: the median wall seconds and peak RSS, the
phrases formed (distinct joined tokens in the output that the input does
not hold) and, against the peer, the output tokens that differ (word2phrase)
or the phrases and scores that differ (gensim). Writes OUT/phrases.json and
prints a Markdown table."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

from . import machine
from .measure import run_measured
from .runners import REPO_ROOT

CASES = {
    "w2p1": dict(peer="word2phrase.c", passes=1, scoring="word2phrase", threshold=100.0),
    "w2p2": dict(peer="word2phrase.c", passes=2, scoring="word2phrase", threshold=100.0),
    "default1": dict(peer="gensim", passes=1, scoring="default", threshold=10.0),
    "default2": dict(peer="gensim", passes=2, scoring="default", threshold=10.0),
    "npmi1": dict(peer="gensim", passes=1, scoring="npmi", threshold=0.5),
}
MIN_COUNT = 5


def _cut_lines(corpus: str, out: str, words: int = 10000) -> str:
    """A copy of the corpus in lines of at most `words` words (made once)."""
    if os.path.exists(out):
        return out
    with open(corpus, "rb") as f, open(out + ".tmp", "wb") as g:
        for line in f:
            tokens = line.split()
            for i in range(0, len(tokens), words):
                g.write(b" ".join(tokens[i:i + words]) + b"\n")
    os.replace(out + ".tmp", out)
    return out


def _commands(case: dict, tool: str, corpus: str, out: str, a) -> list[list[str]]:
    """The commands of one run (word2phrase.c: one per pass)."""
    if tool == "word2phrase.c":
        cmds, source = [], corpus
        for p in range(case["passes"]):
            target = out if p == case["passes"] - 1 else f"{out}.pass{p + 1}"
            cmds.append([a.word2phrase, "-train", source, "-output", target, "-min-count", str(MIN_COUNT),
                         "-threshold", str(case["threshold"]), "-debug", "0"])
            source = target
        return cmds
    if tool == "gensim":
        return [[sys.executable, "-m", "benchmarks.phrases_gensim", "--corpus", corpus, "--output", out,
                 "--passes", str(case["passes"]), "--min-count", str(MIN_COUNT), "--threshold",
                 str(case["threshold"]), "--scoring", case["scoring"], "--phrases-json", out + ".phrases.json"]]
    return [[sys.executable, "-m", "wv_engine.cli", "phrases", corpus, "-o", out, "--save-model", out + ".model",
             "--passes", str(case["passes"]), "--min-count", str(MIN_COUNT), "--threshold", str(case["threshold"]),
             "--scoring", case["scoring"], "--threads", str(a.threads), "--quiet", "--stats-json", out + ".json"]]


def _run(cmds: list[list[str]], out: str) -> dict:
    wall, peak, ok, error = 0.0, 0.0, True, None
    for i, cmd in enumerate(cmds):
        m = run_measured(cmd, stdout_path=f"{out}.stdout{i}", stderr_path=f"{out}.stderr{i}", cwd=REPO_ROOT)
        wall += m.wall_s or 0.0
        peak = max(peak, m.peak_rss_mib or 0.0)
        ok, error = ok and m.ok, error or m.error
    return {"wall_s": wall, "peak_rss_mib": peak, "ok": ok, "error": error}


def _tokens(path: str):
    with open(path, "rb") as f:
        for line in f:
            yield from line.split()


def _formed(source: str, output: str) -> set[bytes]:
    """Distinct tokens of the output holding '_' that the source does not hold."""
    given = {t for t in _tokens(source) if b"_" in t}
    return {t for t in _tokens(output) if b"_" in t} - given


def _differing_tokens(a: str, b: str) -> dict:
    """Tokens of two outputs of one text compared in order (the longer one's
    extra tokens at the end are counted apart: word2phrase.c drops a last
    word that no newline ends)."""
    ta, tb = list(_tokens(a)), list(_tokens(b))
    diff = [(x, y) for x, y in zip(ta, tb) if x != y]
    return {"tokens": [len(ta), len(tb)], "differ": len(diff), "tail": [t.decode(errors="replace") for t in
                                                                      (ta if len(ta) > len(tb) else tb)[min(len(ta), len(tb)):]][:5],
            "examples": [[x.decode(errors="replace"), y.decode(errors="replace")] for x, y in diff[:5]]}


def _compare_gensim(out_peer: str, out_ours: str) -> dict:
    sys.path.insert(0, REPO_ROOT)
    from wv_engine.phrases import Phrases

    with open(out_peer + ".phrases.json", encoding="utf-8") as f:
        theirs = json.load(f)
    ours = Phrases.load(out_ours + ".model").layers[-1].phrases()
    both = theirs.keys() & ours.keys()
    with open(out_peer, "rb") as f, open(out_ours, "rb") as g:
        same_text = f.read() == g.read()
    return {"phrases": [len(theirs), len(ours)], "only_peer": sorted(theirs.keys() - ours.keys())[:10],
            "only_ours": sorted(ours.keys() - theirs.keys())[:10], "shared": len(both),
            "max_score_difference": max((abs(theirs[k] - ours[k]) for k in both), default=0.0),
            "same_output": same_text}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.phrases", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--word2phrase", default=None, help="word2phrase built from tmikolov/word2vec")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--out", default="/tmp/bench_phrases")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    cases = [c.strip() for c in a.cases.split(",") if c.strip()]
    if any(CASES[c]["peer"] == "word2phrase.c" for c in cases) and not a.word2phrase:
        raise SystemExit("--word2phrase PATH is needed for the w2p cases")
    report: dict = {"machine": machine.describe(REPO_ROOT), "corpus": a.corpus, "threads": a.threads,
                    "repeats": a.repeats, "cases": {}}
    for name in cases:
        case = CASES[name]
        corpus = a.corpus if case["peer"] == "word2phrase.c" else _cut_lines(a.corpus, os.path.join(a.out, "lines.txt"))
        runs: dict[str, list[dict]] = {case["peer"]: [], "wv-engine": []}
        outs = {tool: os.path.join(a.out, f"{name}.{tool}.txt") for tool in runs}
        for rep in range(a.repeats):
            for tool in runs:
                print(f"{name} {tool} repeat {rep + 1}", flush=True)
                rec = _run(_commands(case, tool, corpus, outs[tool], a), outs[tool])
                if tool == "wv-engine" and rec["ok"]:  # its phases (learn, apply) beside the wall time
                    with open(outs[tool] + ".json", encoding="utf-8") as f:
                        rec["stats"] = json.load(f)
                print(f"  {rec['wall_s']:.1f} s, {rec['peak_rss_mib']:.0f} MiB" + ("" if rec["ok"] else
                                                                                    f" FAILED {rec['error']}"))
                runs[tool].append(rec)
        row = {tool: {"wall_s": statistics.median(r["wall_s"] for r in rs),
                      "peak_rss_mib": statistics.median(r["peak_rss_mib"] for r in rs),
                      "ok": all(r["ok"] for r in rs), "runs": rs,
                      "formed": len(_formed(corpus, outs[tool]))} for tool, rs in runs.items()}
        row["compare"] = (_differing_tokens(outs[case["peer"]], outs["wv-engine"]) if case["peer"] == "word2phrase.c"
                          else _compare_gensim(outs[case["peer"]], outs["wv-engine"]))
        report["cases"][name] = row
        with open(os.path.join(a.out, "phrases.json"), "w") as f:
            json.dump(report, f, indent=2)
    print("| case | tool | wall s | peak RSS MiB | phrases formed | speed-up |")
    print("|---|---|---|---|---|---|")
    for name, row in report["cases"].items():
        ours = row["wv-engine"]["wall_s"]
        for tool in (CASES[name]["peer"], "wv-engine"):
            r = row[tool]
            print(f"| {name} | {tool} | {r['wall_s']:.1f} | {r['peak_rss_mib']:.0f} | {r['formed']:,} | "
                  f"{r['wall_s'] / ours:.1f}x |")
        print(f"<!-- {name}: {json.dumps(row['compare'])} -->")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
