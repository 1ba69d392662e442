"""Document vectors against gensim's Doc2Vec, same run, same settings:

    python -m benchmarks.doc2vec --corpus DOCS.txt [--archs dbow,dm,dbow+w] [--epochs 10]
        [--threads 2] [--repeats 1] [--infer 25000] [--tools wv-engine,gensim-file,gensim-iter]
        [--seed 1[,2,3]] [--ours FLAGS] [--out DIR]

DOCS holds one document a line (for example Wikipedia text cut into
documents), each document's tag its line number. Both tools train on it;
then the second half of each document is inferred as an unseen document.
For each architecture and tool: the whole training command
(time, peak RSS), then the inference of the first --infer unseen halves
(wv-engine: Doc2Vec.infer, every document at once, and the whole
`wv-engine infer` command; gensim: its infer_vector loop; the models'
loading left out of both), and the
document measure: how often a half's inferred vector finds its own
document among all trained ones (top 1 and top 10, over the first 2,000).
Where the words are trained too (dm, and dbow+w: PV-DBOW with
dbow_words=1), the word vectors are scored as the word2vec benchmarks score
them (benchmarks.quality: analogies over the 30,000 most frequent words,
WS-353, SimLex-999), the same evaluator for both tools. Several seeds run in
turn within each repeat.
gensim's defaults everywhere (dim 100, window 5, 5 negatives, min_count 5,
sample 1e-3). Writes OUT/doc2vec.json and prints a table; the runs
alternate tools within each repeat."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from .measure import run_measured

QUALITY_DOCS = 2000


def halves(corpus: str, out: str, n: int) -> str:
    """OUT/held_N.txt: the second halves of the first n documents."""
    held = os.path.join(out, f"held_{n}.txt")
    with open(corpus, encoding="utf-8", errors="surrogateescape") as f, \
            open(held, "w", encoding="utf-8", errors="surrogateescape") as g:
        for _, line in zip(range(n), f):
            words = line.split()
            g.write(" ".join(words[len(words) // 2:]) + "\n")
    return held


def finds_own(trained: np.ndarray, inferred: np.ndarray) -> dict[str, float]:
    """Share of halves i whose inferred vector has document i among its 1
    and 10 nearest trained documents (cosine): the product's measure
    (wv_engine.doc2vec.scores.finds_own)."""
    from wv_engine.doc2vec.scores import finds_own as own

    return own(trained, np.arange(len(inferred)), inferred)


WORDS_TRAINED = ("dm", "dbow+w")


def word_scores(arch: str, work: str) -> dict:
    """The word vectors' scores (work/words.bin), where the architecture trains them."""
    if arch not in WORDS_TRAINED:
        return {}
    from .quality import evaluate_file

    scores = evaluate_file(os.path.join(work, "words.bin"))
    return {k: scores[k] for k in ("analogy_pct", "ws353", "simlex")}


def run_ours(arch: str, train: str, held: str, args, work: str, seed: int) -> dict:
    model = os.path.join(work, "model.d2v")
    cmd = [sys.executable, "-m", "wv_engine.cli", "doc2vec", train, "-o", model, "--arch", arch.split("+")[0],
           *(["--dbow-words"] if arch == "dbow+w" else []), "--word-vectors", os.path.join(work, "words.bin"),
           "--format", "bin", "--epochs", str(args.epochs), "--threads", str(args.threads), "--seed", str(seed),
           "--quiet", *args.ours.split()]
    m = run_measured(cmd, stdout_path=os.path.join(work, "train.out"), stderr_path=os.path.join(work, "train.err"))
    inferred = os.path.join(work, "inferred.bin")
    i = run_measured([sys.executable, "-m", "wv_engine.cli", "infer", model, held, "-o", inferred, "--format",
                      "native", "--threads", str(args.threads), "--quiet"],
                     stdout_path=os.path.join(work, "infer.out"), stderr_path=os.path.join(work, "infer.err"))
    timed = run_measured([sys.executable, "-m", "benchmarks.doc2vec_child", "infer-ours", model, held,
                          str(args.infer), str(args.threads), work],
                         stdout_path=os.path.join(work, "infer_ours.out"),
                         stderr_path=os.path.join(work, "infer_ours.err"))
    from wv_engine import load_vectors

    if not (m.ok and i.ok and timed.ok):
        return {"error": (m.stderr_tail or i.stderr_tail or timed.stderr_tail)[-500:]}
    trained, guessed = load_vectors(model), load_vectors(inferred)
    order = np.array([trained.get_index(str(d)) for d in range(len(trained))])
    seconds = json.load(open(os.path.join(work, "infer.json")))["seconds"]
    return {"train_s": m.wall_s, "peak_rss_mib": m.peak_rss_mib, "infer_s": seconds, "infer_command_s": i.wall_s,
            "infer_docs": len(guessed), **finds_own(trained.vectors[order], guessed.vectors[:QUALITY_DOCS]),
            **word_scores(arch, work)}


def run_gensim(mode: str, arch: str, train: str, held: str, args, work: str, seed: int) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.doc2vec_child", "train", train, mode, arch, str(args.epochs),
           str(args.threads), work, str(seed)]
    m = run_measured(cmd, stdout_path=os.path.join(work, "train.out"), stderr_path=os.path.join(work, "train.err"))
    i = run_measured([sys.executable, "-m", "benchmarks.doc2vec_child", "infer", work, held, str(args.infer)],
                     stdout_path=os.path.join(work, "infer.out"), stderr_path=os.path.join(work, "infer.err"))
    if not (m.ok and i.ok):
        return {"error": (m.stderr_tail or i.stderr_tail)[-500:]}
    timing = json.load(open(os.path.join(work, "infer.json")))
    return {"train_s": m.wall_s, "peak_rss_mib": m.peak_rss_mib, "infer_s": timing["seconds"],
            "infer_docs": timing["documents"],
            **finds_own(np.load(os.path.join(work, "dv.npy")),
                        np.load(os.path.join(work, "inferred.npy"))[:QUALITY_DOCS]), **word_scores(arch, work)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.doc2vec", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True, help="one document a line, plain text")
    p.add_argument("--archs", default="dbow,dm")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--infer", type=int, default=25000, help="unseen documents inferred")
    p.add_argument("--tools", default="wv-engine,gensim-file,gensim-iter")
    p.add_argument("--seed", default="1", help="both tools' seed, or seeds run in turn (1,2,3)")
    p.add_argument("--ours", default="", metavar="FLAGS",
                   help="more flags of wv-engine doc2vec, e.g. '--shared-negatives'")
    p.add_argument("--out", default="/tmp/wv_doc2vec")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    train, held_n = a.corpus, halves(a.corpus, a.out, a.infer)
    with open(train, "rb") as f:
        n = sum(1 for _ in f)
    rows = []
    for repeat in range(a.repeats):
        for seed in (int(s) for s in a.seed.split(",")):
            for arch in a.archs.split(","):
                for tool in a.tools.split(","):
                    work = os.path.join(a.out, f"{arch}_{tool}_{repeat}_{seed}")
                    os.makedirs(work, exist_ok=True)
                    if tool == "wv-engine":
                        r = run_ours(arch, train, held_n, a, work, seed)
                    else:
                        r = run_gensim(tool.split("-")[1], arch, train, held_n, a, work, seed)
                    rows.append({"arch": arch, "tool": tool, "repeat": repeat, "seed": seed, **r})
                    print(json.dumps(rows[-1]), flush=True)
    record = {"created": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv, "documents": n,
              "epochs": a.epochs, "threads": a.threads, "rows": rows}
    with open(os.path.join(a.out, "doc2vec.json"), "w") as f:
        json.dump(record, f, indent=2)
    print("\n| arch | tool | train s (median) | infer s | top-1 | top-10 | peak RSS MiB | words: analogy % / WS-353 / "
          "SimLex |")
    print("|---|---|---|---|---|---|---|---|")
    for arch in a.archs.split(","):
        for tool in a.tools.split(","):
            rs = [r for r in rows if r["arch"] == arch and r["tool"] == tool and "error" not in r]
            if not rs:
                print(f"| {arch} | {tool} | failed | | | | | |")
                continue
            med = {k: float(np.median([r[k] for r in rs])) for k in ("train_s", "infer_s", "top1", "top10",
                                                                        "peak_rss_mib")}
            words = ""
            if arch in WORDS_TRAINED:
                w = {k: float(np.median([r[k] for r in rs])) for k in ("analogy_pct", "ws353", "simlex")}
                words = f"{w['analogy_pct']:.2f} / {w['ws353']:.3f} / {w['simlex']:.3f}"
            print(f"| {arch} | {tool} | {med['train_s']:.1f} | {med['infer_s']:.1f} | {med['top1']:.3f} | "
                  f"{med['top10']:.3f} | {med['peak_rss_mib']:.0f} | {words} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
