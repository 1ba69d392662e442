"""The scale modes: wv-engine against its peers on one large corpus in the
same run, alternating tools for each repeat, each whole process measured
(wall time, peak RSS), with each phase's seconds where the tool reports them.

    python -m benchmarks.scale [--mode word2vec] [--tokens 50000000 --types 5000000 | --corpus PATH]
        [--word2vec-bin PATH] [--tools wv-engine,gensim,word2vec.c] [--threads 2] [--epochs 1]
        [--repeats 1] [--wv-args "..."] [--out DIR]
    python -m benchmarks.scale --mode glove [--corpus PATH] [--glove-dir DIR] [--tools wv-engine,stanford]
        [--window 10] [--min-count 5] [--epochs 1] [--threads 2] [--memory-limit 4G] [--tmp-dir DIR]
        [--repeats 1] [--wv-args "..."] [--out DIR]

The corpus is generated into OUT (benchmarks/zipf.py: lines of 1,000
tokens, so gensim reads every word) unless --corpus names one (for real text
at scale: benchmarks/repeat_text.py); it is reused when it exists. It is
read once before the runs (warm_read_s), so that no tool pays the disk
alone. Writes OUT/scale.json (after every run) and prints Markdown tables.

word2vec (issue #16): skip-gram NS, dim 100, window 5, negative 5, sample
1e-4, min_count 5, alpha 0.025. Per tool: wall seconds, the phases
(wv-engine: count, encode, train, save; gensim: build_vocab, train, save;
word2vec.c: the whole process), the share of the wall time outside training,
peak RSS, the model's size (vocabulary x dim x 8 bytes: input and output
matrices), and wv-engine's speed-up against each peer.

glove (issue #17): wv-engine's GloVe against Stanford GloVe's four programs
(benchmarks/runners.py runs both as the suite's GloVe mode does: dim 100,
x_max 10, alpha 0.75, eta 0.05, seed 1), with --window and --min-count, the
memory limit given to both (wv-engine --memory-limit, Stanford's cooccur and
shuffle -memory in GiB) and their temporary files in --tmp-dir (default
OUT/tmp; Stanford's scratch folder is deleted after each run, and anything
either tool leaves there is reported). Per tool: wall seconds, the stages
(wv-engine's stage_seconds; Stanford per program), peak RSS (Stanford: each
program's, and the largest), vocabulary, non-zeros, the final epoch's cost,
and Stanford / wv-engine for each."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time

from . import machine
from .measure import run_measured
from .runners import REPO_ROOT, Corpus, GloVeSettings, StanfordGloVe, WvEngineGloVe, word2vec_c_shortfall
from .zipf import generate

SETTINGS = {"dim": 100, "window": 5, "negative": 5, "sample": 1e-4, "min_count": 5, "alpha": 0.025}
GLOVE_DEFAULTS = {"window": 10, "min_count": 5, "memory_limit": "4G"}
TOOLS = {"word2vec": "wv-engine,gensim,word2vec.c", "glove": "wv-engine,stanford"}
GLOVE_ONLY = ("glove_dir", "window", "min_count", "memory_limit", "tmp_dir")


# ---- word2vec: the commands and what each tool reports

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


def _word2vec_tools(a) -> list[str]:
    tools = _wanted(a.tools, {"wv-engine": (), "gensim": (), "word2vec.c": ()})
    if "word2vec.c" in tools and not a.word2vec_bin:
        print("skip word2vec.c: no --word2vec-bin")
        tools.remove("word2vec.c")
    if "gensim" in tools:
        try:
            import gensim  # noqa: F401
        except ImportError:
            print("skip gensim: not installed")
            tools.remove("gensim")
    return tools


def _word2vec_run(a, corpus: str, env: dict):
    def run(tool: str, rep: int) -> dict:
        out = os.path.join(a.out, f"{tool}.r{rep}")
        cmd = _commands(tool, corpus, out, a.threads, a.epochs, a.word2vec_bin, shlex.split(a.wv_args))
        print(f"{tool} repeat {rep + 1}: {' '.join(cmd)}", flush=True)
        m = run_measured(cmd, stdout_path=out + ".stdout", stderr_path=out + ".stderr", timeout=a.timeout,
                         env=env, cwd=REPO_ROOT)
        rec = _record(tool, rep, m)
        if m.ok and tool == "word2vec.c":
            with open(out + ".stdout", errors="replace") as f:
                short = word2vec_c_shortfall(f.read(), a.epochs, a.threads)
            if short:
                rec.update(ok=False, error=short)
        if rec["ok"]:
            rec.update(_phases(tool, out, out + ".stdout"))
        _remove(out + ".bin")
        return rec
    return run


def _word2vec_report(a, runs: list[dict], tools: list[str]) -> dict:
    rows = _medians(runs, tools, ("wall_s", "peak_rss_mib", "count", "encode", "train", "save", "vocab_size"))
    for row in rows.values():
        row["outside_train_share"] = None if row["train"] is None else 1 - row["train"] / row["wall_s"]
        row["model_mib"] = row["vocab_size"] * SETTINGS["dim"] * 8 / 2**20 if row["vocab_size"] else None
    print("\n| tool | wall s | count s | encode s | train s | save s | outside training | peak RSS MiB | "
          "model MiB | vocabulary | wv-engine speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base = rows.get("wv-engine", {}).get("wall_s")
    for tool, r in rows.items():
        share = "" if r["outside_train_share"] is None else f"{100 * r['outside_train_share']:.0f}%"
        print(f"| {tool} | {_fmt(r['wall_s'])} | {_fmt(r['count'])} | {_fmt(r['encode'])} | {_fmt(r['train'])} | "
              f"{_fmt(r['save'])} | {share} | {_fmt(r['peak_rss_mib'], '.0f')} | {_fmt(r['model_mib'], '.0f')} | "
              f"{_fmt(r['vocab_size'], ',.0f')} | {_ratio(r['wall_s'], base) if tool != 'wv-engine' else ''} |")
    return {"settings": SETTINGS, "summary": rows}


# ---- glove: the suite's two GloVe tools (runners.py) on the large corpus

def _glove_tools(a) -> list:
    wv = WvEngineGloVe()
    wv.extra_args = ["--memory-limit", a.memory_limit, "--tmp-dir", a.tmp_dir, *shlex.split(a.wv_args)]
    candidates = (wv, StanfordGloVe(a.glove_dir, a.tmp_dir))
    wanted = _wanted(a.tools, {t.name: t.aliases for t in candidates})
    tools = []
    for tool in [t for t in candidates if t.name in wanted]:
        why = tool.unavailable()
        if why:
            print(f"skip {tool.name}: {why}")
        else:
            tools.append(tool)
    return tools


def _glove_settings(a) -> GloVeSettings:
    from wv_engine.cooccur import parse_size

    return GloVeSettings(window=a.window, x_max=10.0, epochs=a.epochs, min_count=a.min_count,
                         memory_gb=parse_size(a.memory_limit) / 2**30)


def _glove_run(a, corpus: str, env: dict):
    g = _glove_settings(a)
    plain = Corpus(source=corpus, plain=corpus, split=corpus, words=a.tokens or 0, lines=0,
                   plain_prep_s=0.0, split_prep_s=0.0)

    def run(tool, rep: int) -> dict:
        prefix = os.path.join(a.out, f"{tool.name.replace(' ', '_')}.glove.r{rep}")
        job = tool.job("glove", a.threads, g, plain, prefix)
        before = set(os.listdir(a.tmp_dir))
        print(f"{tool.name} repeat {rep + 1}: {' '.join(job.cmd)}", flush=True)
        m = tool.execute(job, "glove", a.threads, g, plain, prefix, a.timeout, env, REPO_ROOT)
        rec = _record(tool.name, rep, m)
        if m.ok:
            rec.update(_glove_phases(tool, tool.results(job, plain, g, m, prefix + ".stdout"), m))
        rec["tmp_left"] = sorted(set(os.listdir(a.tmp_dir)) - before)
        if rec["tmp_left"]:
            print(f"  left in {a.tmp_dir}: {', '.join(rec['tmp_left'])}")
        _remove(job.vectors)
        return rec
    return run


def _glove_phases(tool, res: dict, m) -> dict:
    """The comparable stages: count (wv-engine: vocabulary and co-occurrence
    counting; Stanford: vocab_count + cooccur), shuffle (wv-engine: making the
    shuffled records; Stanford: shuffle), train (wv-engine: the epochs;
    Stanford: glove, whole process: reading the records, the epochs, writing
    vectors.txt and .bin), save (wv-engine), other (wv-engine: wall - stages:
    start-up, exit); every stage as the tool names it in "stages"."""
    st = res["tool_stats"]
    cost = res.get("epoch_cost") or []
    if isinstance(tool, WvEngineGloVe):
        s = st["stage_seconds"]
        return {"stages": s, "count": s.get("count"), "shuffle": s.get("records"), "train": s.get("train"),
                "save": s.get("save"), "other": m.wall_s - sum(v or 0.0 for v in s.values()),
                "vocab_size": st.get("vocab_size"), "nonzeros": st.get("nonzeros"),
                "out_of_core": st.get("out_of_core"), "blocks": st.get("blocks"),
                "peak_rss_self_mib": st["peak_rss_bytes"] / 2**20 if st.get("peak_rss_bytes") else None,
                "epoch_cost": cost, "final_cost": cost[-1] if cost else None}
    s = res["stage_seconds"]
    return {"stages": s, "count": s["vocab_count"] + s["cooccur"], "shuffle": s["shuffle"], "train": s["glove"],
            "save": None, "other": None, "vocab_size": st.get("vocab_size"), "nonzeros": st.get("nonzeros"),
            "tokens": st.get("tokens"),
            "stage_peak_rss_mib": {r["stage"]: r["peak_rss_mib"] for r in st["stages"]},
            "stage_cpu_s": {r["stage"]: r["cpu_s"] for r in st["stages"]},
            "epoch_cost": cost, "final_cost": cost[-1] if cost else None}


def _glove_report(a, runs: list[dict], tools: list) -> dict:
    keys = ("wall_s", "peak_rss_mib", "count", "shuffle", "train", "save", "other", "vocab_size", "nonzeros",
            "final_cost")
    rows = _medians(runs, [t.name for t in tools], keys)
    print("\n| tool | wall s | count s | shuffle s | train s | save s | other s | peak RSS MiB | vocabulary | "
          "non-zeros | final cost | Stanford / wv-engine |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    base = rows.get("wv-engine", {})
    for tool, r in rows.items():
        last = [x for x in runs if x["tool"] == tool and x["ok"]][-1]
        name = tool
        if last.get("out_of_core") is not None:
            name += f" ({last['blocks']} blocks on disk)" if last["out_of_core"] else " (in memory)"
        print(f"| {name} | {_fmt(r['wall_s'])} | {_fmt(r['count'])} | {_fmt(r['shuffle'])} | {_fmt(r['train'])} | "
              f"{_fmt(r['save'])} | {_fmt(r['other'])} | {_fmt(r['peak_rss_mib'], ',.0f')} | "
              f"{_fmt(r['vocab_size'], ',.0f')} | {_fmt(r['nonzeros'], ',.0f')} | {_fmt(r['final_cost'], '.6f')} | "
              f"{_ratio(r['wall_s'], base.get('wall_s')) if tool != 'wv-engine' else ''} |")
    ratios = {}
    labels = {"wall_s": "wall", "count": "count", "shuffle": "shuffle", "train": "train", "peak_rss_mib": "peak RSS"}
    for tool, r in rows.items():
        if tool != "wv-engine" and base:
            ratios[tool] = {k: (r[k] / base[k] if r[k] and base.get(k) else None) for k in labels}
            print(f"\n{tool} / wv-engine: " + ", ".join(
                f"{label} {_fmt(ratios[tool][k], '.2f')}x" for k, label in labels.items()))
    stanford = [x for x in runs if x["ok"] and "stage_peak_rss_mib" in x]
    if stanford:
        print("\n| Stanford program | wall s | CPU s | peak RSS MiB |\n|---|---|---|---|")
        for stage in stanford[0]["stages"]:
            med = lambda key: statistics.median(x[key][stage] for x in stanford)   # noqa: E731
            print(f"| {stage} | {_fmt(med('stages'))} | {_fmt(med('stage_cpu_s'))} | "
                  f"{_fmt(med('stage_peak_rss_mib'), ',.0f')} |")
    return {"settings": _glove_settings(a).to_dict(), "memory_limit": a.memory_limit, "tmp_dir": a.tmp_dir,
            "summary": rows, "ratios": ratios}


# ---- shared by both modes

def _wanted(text: str, known: dict[str, tuple]) -> list[str]:
    """The tools of `known` (name -> aliases) named in the comma-separated
    text, in known's order; an unknown name stops the run."""
    names = {t.strip().lower() for t in text.split(",") if t.strip()}
    unknown = names - {n.lower() for n in known} - {al for als in known.values() for al in als}
    if unknown:
        raise SystemExit(f"unknown tool(s) {', '.join(sorted(unknown))}; choose from {', '.join(known)}")
    return [n for n, als in known.items() if names & {n.lower(), *als}]


def _record(tool: str, rep: int, m) -> dict:
    """The run's record (and its line of progress)."""
    rec = {"tool": tool, "repeat": rep, "cmd": m.cmd, "ok": m.ok, "error": m.error, "wall_s": m.wall_s,
           "peak_rss_mib": m.peak_rss_mib, "other_cpu_cores": m.other_cpu_cores}
    busy = m.other_cpu_cores or 0.0
    print(f"  {m.wall_s:.1f} s, peak RSS {m.peak_rss_mib or 0:.0f} MiB" + ("" if m.ok else f" FAILED {m.error}")
          + (f" (other processes used {busy:.1f} cores meanwhile: disturbed)" if busy > 0.2 else ""), flush=True)
    return rec


def _remove(path: str | None) -> None:
    if path and os.path.exists(path):
        os.unlink(path)


def _medians(runs: list[dict], tools: list[str], keys) -> dict:
    """Per tool with a successful run, the median of each key over its
    successful runs (None where a run lacks it)."""
    rows = {}
    for tool in tools:
        rs = [r for r in runs if r["tool"] == tool and r["ok"]]
        if rs:
            rows[tool] = {k: statistics.median(r[k] for r in rs) if all(r.get(k) is not None for r in rs)
                          else None for k in keys}
    return rows


def _fmt(v, spec: str = ".1f") -> str:
    return "" if v is None else format(v, spec)


def _ratio(peer, base) -> str:
    return f"{peer / base:.2f}x" if peer and base else ""


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=("word2vec", "glove"), default="word2vec")
    p.add_argument("--tokens", type=int, default=50_000_000, help="generated corpus (without --corpus)")
    p.add_argument("--types", type=int, default=5_000_000, help="generated corpus (without --corpus)")
    p.add_argument("--seed", type=int, default=1, help="generated corpus (without --corpus)")
    p.add_argument("--corpus", help="an existing corpus instead of generating one")
    p.add_argument("--tools", help=f"comma-separated (word2vec: {TOOLS['word2vec']}; glove: {TOOLS['glove']})")
    p.add_argument("--word2vec-bin", metavar="PATH", help="word2vec: the word2vec C tool's binary (skipped without)")
    p.add_argument("--glove-dir", metavar="DIR", help="glove: Stanford's built vocab_count, cooccur, shuffle, "
                                                      "glove (or DIR/build); skipped without")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--window", type=int, help=f"glove (default {GLOVE_DEFAULTS['window']})")
    p.add_argument("--min-count", type=int, help=f"glove (default {GLOVE_DEFAULTS['min_count']})")
    p.add_argument("--memory-limit", metavar="SIZE", help="glove: wv-engine --memory-limit, Stanford -memory "
                                                          f"(default {GLOVE_DEFAULTS['memory_limit']})")
    p.add_argument("--tmp-dir", metavar="DIR", help="glove: both tools' temporary files (default OUT/tmp)")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--wv-args", default="", help="extra flags for wv-engine")
    p.add_argument("--timeout", type=float, default=7200, help="seconds per run (Stanford: its four programs)")
    p.add_argument("--out", default="/tmp/wv_scale")
    a = p.parse_args(argv)
    if a.mode == "glove":
        if a.word2vec_bin:
            p.error("--word2vec-bin is for --mode word2vec")
        for k, v in GLOVE_DEFAULTS.items():
            setattr(a, k, v if getattr(a, k) is None else getattr(a, k))
        a.tmp_dir = os.path.abspath(a.tmp_dir or os.path.join(a.out, "tmp"))
        try:
            _glove_settings(a)
        except ValueError as exc:
            p.error(f"--memory-limit: {exc}")
    else:
        given = [k for k in GLOVE_ONLY if getattr(a, k) is not None]
        if given:
            p.error(", ".join("--" + k.replace("_", "-") for k in given) + ": only with --mode glove")
    if min(a.threads, a.epochs, a.repeats) < 1:
        p.error("--threads, --epochs and --repeats must be >= 1")
    a.tools = a.tools or TOOLS[a.mode]
    return a


def main(argv=None) -> int:
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    corpus = a.corpus or os.path.join(a.out, f"zipf_{a.tokens}_{a.types}_{a.seed}.txt")
    if a.corpus:
        a.tokens = a.types = None   # not known without reading it
    elif not os.path.exists(corpus):
        print(f"generating {corpus}", flush=True)
        generate(corpus, a.tokens, a.types, a.seed)
    if a.mode == "glove":
        os.makedirs(a.tmp_dir, exist_ok=True)
        tools = _glove_tools(a)
        names, run, report = [t.name for t in tools], _glove_run(a, corpus, _env()), _glove_report
    else:
        tools = names = _word2vec_tools(a)
        run, report = _word2vec_run(a, corpus, _env()), _word2vec_report
    if not tools:
        print("nothing to run", file=sys.stderr)
        return 2
    result = {"created": time.strftime("%Y-%m-%d %H:%M:%S %z"), "mode": a.mode, "argv": sys.argv,
              "corpus": corpus, "corpus_bytes": os.path.getsize(corpus), "tokens": a.tokens, "types": a.types,
              "threads": a.threads, "epochs": a.epochs, "repeats": a.repeats, "tools": names,
              "machine": machine.describe(REPO_ROOT), "runs": []}
    path = os.path.join(a.out, "scale.json")
    result["warm_read_s"] = _warm(corpus)
    for rep in range(a.repeats):
        for tool in tools:
            result["runs"].append(run(tool, rep))
            _write_json(path, result)   # partial results survive an interruption
    tokens = a.tokens or next((r["tokens"] for r in result["runs"] if r.get("tokens")), None)
    print(f"\ncorpus {corpus}: {os.path.getsize(corpus):,} bytes"
          + (f", {tokens:,} tokens" if tokens else "") + (f", {a.types:,} types" if a.types else "")
          + f"; {a.threads} threads, {a.epochs} epoch(s); medians of {a.repeats}")
    result.update(report(a, result["runs"], tools), tokens=tokens)
    _write_json(path, result)
    print(f"\nwrote {path}")
    return 0 if all(r["ok"] for r in result["runs"]) else 1


def _warm(corpus: str) -> float | None:
    """Reads the corpus once before the runs, so that every tool reads it
    from the page cache (the first run would otherwise pay the disk alone);
    the seconds it took, or None where it would not stay cached (larger than
    half the memory available)."""
    from wv_engine.memory import available_memory

    if os.path.getsize(corpus) > available_memory() // 2:
        return None
    t0 = time.perf_counter()
    with open(corpus, "rb", buffering=0) as f:
        while f.read(16 << 20):
            pass
    return time.perf_counter() - t0


def _env() -> dict:
    """The runs import wv_engine and benchmarks from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _write_json(path: str, result: dict) -> None:
    with open(path + ".tmp", "w") as f:
        json.dump(result, f, indent=2)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
