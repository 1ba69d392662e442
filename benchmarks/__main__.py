"""python -m benchmarks --corpus PATH [--threads 1,2] [--repeats 3] [--quick] [--out DIR]
    [--word2vec-bin PATH] [--fasttext-bin PATH] [--glove-dir PATH]
    [--modes sg-ns,cbow-ns,sg-hs,cbow-hs,glove,sg-sub,cbow-sub] [--absent-pairs 200]

Runs wv-engine and its peers on the same corpus with the same settings,
alternating tools (for repeat: for mode: for threads: for tool), measures
each whole process (wall time, peak RSS), evaluates each vectors file after
its run (untimed) and writes OUT/results.json, OUT/results.md and PNGs.
The subword modes (sg-sub, cbow-sub: fastText's model) train on a copy of
the corpus without some evaluation words (benchmarks.absent_words) and are
also scored on the pairs with a word absent from training. Before and after
each run benchmarks.memory_probe reads how fast the machine's caches and
memory answer (runs[].memory_probe): on a shared machine that moves by 2x
within a minute, and a run's time with it."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import shlex
import os
import sys
import time

from . import absent_words, machine, quality, report
from .corpus import prepare
from .memory_probe import MemoryProbe
from .runners import (GLOVE, MODES, REPO_ROOT, SUBWORD_MODES, GloVeSettings, Settings, WvEngine, make_tools,
                      mode_settings)

QUICK = {"repeats": 1, "threads": "2", "modes": "sg-ns,cbow-ns", "glove_epochs": 3}
FULL = {"repeats": 3, "threads": "1,2", "modes": "sg-ns,cbow-ns,sg-hs,cbow-hs,glove", "glove_epochs": 15}
ALL_MODES = [*MODES, GLOVE, *SUBWORD_MODES]


def _int_list(text: str) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"thread counts must be >= 1, got {text!r}")
    return vals


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True, help="training text (plain, .gz, .bz2 or .xz)")
    p.add_argument("--threads", help=f"comma-separated thread counts (default {FULL['threads']}; "
                                     f"--quick: {QUICK['threads']})")
    p.add_argument("--repeats", type=int, help=f"runs of each configuration (default {FULL['repeats']}; "
                                               f"--quick: {QUICK['repeats']})")
    p.add_argument("--quick", action="store_true",
                   help=f"small configuration: repeats {QUICK['repeats']}, threads {QUICK['threads']}, "
                        f"modes {QUICK['modes']}, GloVe epochs {QUICK['glove_epochs']} (explicit flags still win)")
    p.add_argument("--out", default=os.path.join("benchmarks", "results"),
                   help="output folder (default benchmarks/results)")
    p.add_argument("--modes", help=f"comma-separated, of {', '.join(ALL_MODES)} "
                                   f"(default {FULL['modes']}; --quick: {QUICK['modes']})")
    p.add_argument("--absent-pairs", type=int, default=absent_words.DEFAULT_PAIRS, metavar="N",
                   help="subword modes: train on a copy of the corpus without evaluation words, so that at "
                        f"least N word pairs have a word absent from training (default {absent_words.DEFAULT_PAIRS}; "
                        "0: the corpus as it is); see benchmarks/absent_words.py")
    p.add_argument("--word2vec-bin", metavar="PATH", help="the original word2vec C tool's binary")
    p.add_argument("--fasttext-bin", metavar="PATH", help="fastText's binary")
    p.add_argument("--glove-dir", metavar="PATH",
                   help="folder with Stanford GloVe's built vocab_count, cooccur, shuffle, glove (or its build/)")
    p.add_argument("--tools", help="comma-separated subset of wv-engine,gensim,word2vec.c,fastText,stanford")
    p.add_argument("--wv-args", default="", metavar="ARGS",
                   help='extra flags for every "wv-engine word2vec" run, e.g. "--shared-negatives"')
    p.add_argument("--epochs", type=int, default=1, help="word2vec modes (default 1)")
    p.add_argument("--glove-epochs", type=int,
                   help=f"GloVe mode (default {FULL['glove_epochs']}, Stanford's demo; "
                        f"--quick: {QUICK['glove_epochs']})")
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--timeout", type=float, default=3600, help="seconds per run before it is killed")
    p.add_argument("--vary-seed", action="store_true",
                   help="word2vec and subword modes: repeat r (from 0) trains with seed 1 + r (wv-engine --seed, "
                        "gensim seed, fastText -seed in the subword modes; word2vec.c has no seed); default: seed 1")
    p.add_argument("--no-quality", action="store_true", help="skip the (untimed) quality evaluation")
    p.add_argument("--no-memory-probe", action="store_true",
                   help="do not read benchmarks.memory_probe before and after every run (default: read, about "
                        "1 s a run, when a C compiler is there)")
    p.add_argument("--keep-vectors", action="store_true",
                   help="keep every trained vectors file (default: deleted after evaluation)")
    a = p.parse_args(argv)
    base = QUICK if a.quick else FULL
    a.repeats = a.repeats if a.repeats is not None else base["repeats"]
    try:
        a.threads = _int_list(a.threads or base["threads"])
    except argparse.ArgumentTypeError as exc:
        p.error(str(exc))
    a.glove_epochs = a.glove_epochs if a.glove_epochs is not None else base["glove_epochs"]
    a.modes = [m.strip() for m in (a.modes or base["modes"]).split(",") if m.strip()]
    bad = [m for m in a.modes if m not in ALL_MODES]
    if bad:
        p.error(f"unknown mode(s) {', '.join(bad)}; choose from {', '.join(ALL_MODES)}")
    if a.repeats < 1 or a.epochs < 1 or a.dim < 1 or a.glove_epochs < 1:
        p.error("--repeats, --epochs, --glove-epochs and --dim must be >= 1")
    if a.absent_pairs < 0:
        p.error("--absent-pairs must be >= 0")
    if not os.path.isfile(a.corpus):
        p.error(f"--corpus {a.corpus}: no such file")
    return a


def _importable_engine() -> str | None:
    """The runs import wv_engine from this repository (PYTHONPATH is its root),
    so its compiled modules must be built in place; None when they are."""
    try:
        import wv_engine  # noqa: F401  (from the repository root: the source tree)
    except ImportError as exc:
        return f"{exc}\nFrom a clone, `pip install -e \".[bench]\"` builds it in place and installs the peers."
    return None


def main(argv=None) -> int:
    a = parse_args(argv)
    why = _importable_engine()
    if why:
        print(why, file=sys.stderr)
        return 2
    out = os.path.abspath(a.out)
    runs_dir = os.path.join(out, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    settings = Settings(dim=a.dim, epochs=a.epochs)
    glove_settings = GloVeSettings(dim=a.dim, epochs=a.glove_epochs)

    tools, skipped = [], {}
    wanted = {t.strip().lower() for t in a.tools.split(",")} if a.tools else None
    for tool in make_tools(a.word2vec_bin, a.fasttext_bin, a.glove_dir):
        if type(tool) is WvEngine:   # word2vec only (not fasttext; WvEngineGloVe has its own extra_args)
            tool.extra_args = shlex.split(a.wv_args)
        if not any(m in tool.modes for m in a.modes):
            continue
        if wanted is not None and not wanted & {tool.name.lower(), *tool.aliases}:
            continue
        why = tool.unavailable()
        if why:
            skipped[tool.name] = why
            print(f"skip {tool.name}: {why}")
        else:
            tools.append(tool)
    if not tools:
        print("nothing to run", file=sys.stderr)
        return 2

    corpus = prepare(a.corpus, out)
    absent, sub_corpus = None, corpus
    if any(m in SUBWORD_MODES for m in a.modes):
        # the subword modes' corpus: without the held-out words; its own split copy for gensim
        absent = absent_words.make(corpus.plain, os.path.join(out, "absent"), a.absent_pairs, settings.min_count)
        if absent["corpus"] != os.path.abspath(corpus.plain):
            sub_corpus = prepare(absent["corpus"], os.path.join(out, "absent"))
    results = {
        "created": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "argv": sys.argv,
        "config": {"repeats": a.repeats, "threads": a.threads, "modes": a.modes, "quick": a.quick,
                   "vary_seed": a.vary_seed,
                   "tools": [t.name for t in tools], "timeout_s": a.timeout},
        "settings": {**settings.to_dict(), "alpha": {m: mode_settings(m)["alpha"] for m in a.modes if m != GLOVE},
                     "min_alpha": "alpha * 1e-4 (gensim, word2vec.c); wv-engine's default schedule"},
        "glove_settings": glove_settings.to_dict() if GLOVE in a.modes else None,
        "quality_settings": quality.SETTINGS,
        "machine": machine.describe(REPO_ROOT),
        "corpus": corpus.__dict__,
        "absent_words": absent and {**{k: v for k, v in absent.items() if k != "key"},
                                    "subword_corpus": sub_corpus.__dict__},
        "skipped": skipped,
        "runs": [],
    }
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")

    with contextlib.ExitStack() as stack:
        probe = _memory_probe(a, results, stack)
        _run_all(a, tools, settings, glove_settings, corpus, sub_corpus, absent, runs_dir, env, results, probe)
    written = report.write_all(results, out)
    print("\nwrote " + ", ".join(written))
    with open(os.path.join(out, "results.md")) as f:
        print("\n" + f.read())
    return 0 if all(r["ok"] for r in results["runs"]) else 1


def _memory_probe(a: argparse.Namespace, results: dict, stack: contextlib.ExitStack) -> MemoryProbe | None:
    """The probe read around every run, or None (turned off, or no compiler: said in results["skipped"])."""
    if a.no_memory_probe:
        return None
    why = MemoryProbe.unavailable()
    if why:
        results["skipped"]["memory probe"] = why
        return None
    return stack.enter_context(MemoryProbe())


def _run_all(a, tools, settings, glove_settings, corpus, sub_corpus, absent, runs_dir, env, results,
             probe: MemoryProbe | None) -> None:
    """Every run of the invocation, each appended to results["runs"] (written out after each)."""
    out = os.path.dirname(runs_dir)
    total = a.repeats * len(a.threads) * sum(1 for m in a.modes for t in tools if m in t.modes)
    n = 0
    started = time.perf_counter()
    for rep in range(a.repeats):
        for mode in a.modes:
            for threads in a.threads:
                for tool in [t for t in tools if mode in t.modes]:
                    run_settings = glove_settings if mode == GLOVE else \
                        dataclasses.replace(settings, seed=settings.seed + rep) if a.vary_seed else settings
                    run_corpus = sub_corpus if mode in SUBWORD_MODES else corpus
                    n += 1
                    tag = f"{tool.name}.{mode}.t{threads}.r{rep}".replace("/", "_").replace(" ", "_")
                    prefix = os.path.join(runs_dir, tag)
                    job = tool.job(mode, threads, run_settings, run_corpus, prefix)
                    for path in (job.vectors, job.stats):
                        if path and os.path.exists(path):
                            os.unlink(path)
                    print(f"[{n}/{total}] {tool.name} {mode} threads={threads} repeat={rep + 1}/{a.repeats} ...",
                          end=" ", flush=True)
                    before = probe.read() if probe else None
                    m = tool.execute(job, mode, threads, run_settings, run_corpus, prefix, a.timeout, env, REPO_ROOT)
                    rec = {"tool": tool.name, "mode": mode, "threads": threads, "repeat": rep,
                           "seed": run_settings.seed,
                           **m.to_dict(), "vectors": job.vectors}
                    if probe:
                        rec["memory_probe"] = {"before": before, "after": probe.read()}
                    if m.ok and not os.path.exists(job.vectors):
                        rec["ok"], rec["error"] = False, f"exit 0 but no vectors file at {job.vectors}"
                    elif m.ok:
                        short = tool.shortfall(prefix + ".stdout", run_settings, threads)
                        if short:
                            rec["ok"], rec["error"] = False, short
                    if rec["ok"]:
                        try:
                            tp = tool.results(job, run_corpus, run_settings, m, prefix + ".stdout")
                            rec.update(words_per_sec=tp["words_per_sec"], words_per_sec_basis=tp["basis"],
                                       train_seconds=tp["train_seconds"], tool_stats=tp["tool_stats"])
                            rec.update({k: tp[k] for k in ("count_seconds", "stage_seconds", "epoch_cost")
                                        if k in tp})
                        except (OSError, ValueError, KeyError) as exc:
                            rec["throughput_error"] = f"{type(exc).__name__}: {exc}"
                        if not a.no_quality:
                            try:
                                rec["quality"] = quality.evaluate_subword_file(
                                    job.vectors, absent["pairs_files"], lambda words: tool.own_vectors(job, words)) \
                                    if mode in SUBWORD_MODES else quality.evaluate_file(job.vectors)
                            except Exception as exc:  # a bad vectors file is a result, not a crash
                                rec["quality_error"] = f"{type(exc).__name__}: {exc}"
                        if not a.keep_vectors:
                            for path in {job.vectors, prefix + ".bin", prefix + ".vec"}:
                                if os.path.exists(path):
                                    os.unlink(path)
                    results["runs"].append(rec)
                    if rec["ok"]:
                        q = rec.get("quality") or {}
                        wps = rec.get("words_per_sec")
                        cost = rec.get("epoch_cost") or []
                        print(f"{m.wall_s:.1f} s, "
                              + (f"{wps or 0:,.0f} words/s, " if mode != GLOVE else
                                 f"train {rec.get('train_seconds') or 0:.1f} s, final cost "
                                 f"{cost[-1] if cost else float('nan'):.6f}, ")
                              + f"{m.peak_rss_mib:.0f} MiB"
                              + (f", analogy {q['analogy_pct']:.1f}%" if q.get("analogy_pct") is not None else "")
                              + (f", WS353 {q['ws353']:.3f}" if q.get("ws353") is not None else "")
                              + (f", SimLex {q['simlex']:.3f}" if q.get("simlex") is not None else "")
                              + (f", absent {q['absent_spearman']:.3f} ({q['absent_pairs']} pairs)"
                                 if q.get("absent_spearman") is not None else ""))
                    else:
                        print(f"FAILED: {rec['error']}")
                    report.write_json(results, out)   # partial results survive an interruption
    results["elapsed_s"] = time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main())
