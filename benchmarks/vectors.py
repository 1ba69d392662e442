"""Loading and querying pretrained-sized vectors against gensim, same run:

    python -m benchmarks.vectors [--sizes 400000,2000000] [--dim 300] [--text-sizes 400000]
        [--fasttext 400000] [--bucket 2000000] [--repeats 3] [--queries 1000] [--loop 1000,200]
        [--tools gensim,ours,ours-gensim] [--work /tmp/wv_vectors] [--out DIR]

Makes the sets once in --work (outside the repository; several GB): for each
size, random normal vectors under distinct words of 4 to 12 random letters
(the mean length of an English vocabulary's words, which sets how many n-gram
rows a fastText word sums), written as word2vec binary (and text for
--text-sizes), our native file and gensim's own KeyedVectors.save (its matrix
in a .npy beside it, what its mmap='r' maps); a fastText .bin of --fasttext
words and --bucket n-gram rows. Then, for each repeat, each task and each
tool in turn, one process (benchmarks.vectors_child) loads the set and asks
its queries: the load, the first most_similar, a later one, --queries words
at once (gensim: its loop over the first --loop words, scaled; one --loop a
size), the load's peak memory over the process's before it, and the whole
process's time and peak RSS (benchmarks.measure). Finally `wv-engine similar`
of one word on the largest native file, the whole command. Writes
OUT/vectors.json and prints the table of medians with gensim's over ours
(over ours-gensim where ours has no row: the fastText .bin). The mapped rows
set gensim's .kv (load(mmap='r')) beside our native file (mmap=True)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

from .machine import describe
from .measure import run_measured

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LETTERS = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)


def random_words(n: int, seed: int = 0) -> list[str]:
    """n distinct words of 4 to 12 random letters."""
    rng = np.random.default_rng(seed)
    seen: dict[str, None] = {}
    while len(seen) < n:
        want = n - len(seen)
        lengths = rng.integers(4, 13, size=want)
        letters = LETTERS[rng.integers(0, 26, size=int(lengths.sum()))].tobytes().decode()
        ends = np.cumsum(lengths)
        for a, b in zip(ends - lengths, ends):
            seen.setdefault(letters[a:b])
    return list(seen)[:n]


def make_sets(work: str, n: int, dim: int, text: bool) -> dict[str, str]:
    """The files of one size (made once): bin, txt, wve, kv."""
    from gensim.models import KeyedVectors as GensimKeyedVectors

    from wv_engine import Vectors

    stem = os.path.join(work, f"r{n}x{dim}")
    files = {"bin": stem + ".bin", "wve": stem + ".wve", "kv": stem + ".kv"}
    if text:
        files["txt"] = stem + ".txt"
    if all(os.path.exists(f) for f in files.values()):
        return files
    words = random_words(n)
    matrix = np.random.default_rng(1).standard_normal((n, dim), dtype=np.float32)
    vectors = Vectors(words, matrix, counts=np.arange(n, 0, -1))
    vectors.save(files["bin"], format="word2vec-bin")
    vectors.save(files["wve"], format="native")
    if text:
        vectors.save(files["txt"], format="word2vec-txt")
    kv = GensimKeyedVectors(dim)
    kv.add_vectors(words, matrix)
    kv.save(files["kv"])
    return files


def make_fasttext(work: str, n: int, bucket: int, dim: int) -> str:
    from wv_engine.fasttext.bin_file import write_fasttext_bin

    path = os.path.join(work, f"ft{n}x{dim}_b{bucket}.bin")
    if not os.path.exists(path):
        rng = np.random.default_rng(2)
        rows = rng.standard_normal((n + bucket, dim), dtype=np.float32)
        rows *= 0.1
        write_fasttext_bin(path, words=random_words(n, 3), counts=np.arange(n, 0, -1) + 5, input_matrix=rows,
                           output_matrix=np.zeros((n, dim), np.float32), arch="skipgram", window=5, epochs=5,
                           min_count=5, negative=5, minn=3, maxn=6, bucket=bucket, sample=1e-4, ntokens=10**9)
    return path


def run_child(tool: str, task: str, path: str, queries: int, loop: int, work: str) -> dict:
    tag = f"{tool}_{task}_{os.path.basename(path)}"
    cmd = [sys.executable, "-m", "benchmarks.vectors_child", tool, task, path, "--queries", str(queries),
           "--loop", str(loop)]
    m = run_measured(cmd, stdout_path=os.path.join(work, tag + ".out"), stderr_path=os.path.join(work, tag + ".err"),
                     cwd=REPO_ROOT)
    row = {"tool": tool, "task": task, "file": path, "whole_s": m.wall_s, "peak_rss_mib": m.peak_rss_mib}
    if not m.ok:
        return {**row, "error": m.error or m.stderr_tail[-400:]}
    with open(os.path.join(work, tag + ".out")) as f:
        row.update(json.loads(f.read().strip().splitlines()[-1]))
    return row


def run_similar(path: str, work: str) -> dict:
    cmd = [sys.executable, "-m", "wv_engine.cli", "similar", path, "abcd", "--skip-unknown", "-n", "10"]
    from wv_engine import load_vectors

    word = load_vectors(path, mmap=True).word(100)
    cmd[5] = word
    m = run_measured(cmd, stdout_path=os.path.join(work, "similar.out"), stderr_path=os.path.join(work, "similar.err"),
                     cwd=REPO_ROOT)
    return {"tool": "ours", "task": "similar-command", "file": path, "whole_s": m.wall_s,
            "peak_rss_mib": m.peak_rss_mib, "ok": m.ok}


def _median(rows: list[dict], key: str) -> float | None:
    vals = [r[key] for r in rows if r.get(key) is not None and "error" not in r]
    return statistics.median(vals) if vals else None


def table(rows: list[dict]) -> str:
    keys = [("load_s", "load"), ("first_query_s", "first most_similar"), ("later_query_s", "a later most_similar"),
            ("bulk_s", "query words at once (gensim: a loop)"), ("load_peak_mib", "load's peak memory, MiB"),
            ("whole_s", "whole process")]
    out = ["| set | task | measure | gensim | ours | ours-gensim | gensim / ours |", "|---|---|---|---|---|---|---|"]
    def stem(row: dict) -> str:
        return os.path.splitext(os.path.basename(row["file"]))[0]

    groups = sorted({(stem(r), r["task"]) for r in rows if r["task"] != "similar-command"})
    for name_of_set, task in groups:
        for key, name in keys:
            vals = {t: _median([r for r in rows if stem(r) == name_of_set and r["task"] == task and r["tool"] == t],
                               key) for t in ("gensim", "ours", "ours-gensim")}
            if all(v is None for v in vals.values()):
                continue
            mine = vals["ours"] or vals["ours-gensim"]
            ratio = f"{vals['gensim'] / mine:.1f}x" if vals["gensim"] and mine else ""
            cells = " | ".join("" if v is None else (f"{v:.0f}" if key == "load_peak_mib" else f"{v:.3f}")
                               for v in vals.values())
            out.append(f"| {name_of_set} | {task} | {name} | {cells} | {ratio} |")
    for r in rows:
        if r["task"] == "similar-command":
            out.append(f"| {os.path.basename(r['file'])} | wv-engine similar | whole command | | "
                       f"{r['whole_s']:.3f} | | |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.vectors", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="400000,2000000")
    p.add_argument("--dim", type=int, default=300)
    p.add_argument("--text-sizes", default="400000")
    p.add_argument("--fasttext", default="400000", help="words of the fastText .bin ('' for none)")
    p.add_argument("--bucket", type=int, default=2000000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--gensim-repeats", type=int, default=1, help="repeats of gensim's text and fastText loads")
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--loop", default="1000,200", help="words gensim's loop times, one a size")
    p.add_argument("--tools", default="gensim,ours,ours-gensim")
    p.add_argument("--tasks", default="bin,txt,mapped,fasttext")
    p.add_argument("--work", default="/tmp/wv_vectors")
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    os.makedirs(a.work, exist_ok=True)
    out = a.out or a.work
    os.makedirs(out, exist_ok=True)
    sizes = [int(s) for s in a.sizes.split(",") if s]
    loops = [int(s) for s in a.loop.split(",")]
    texts = {int(s) for s in a.text_sizes.split(",") if s}
    tools, tasks = a.tools.split(","), a.tasks.split(",")
    sets = {n: make_sets(a.work, n, a.dim, n in texts) for n in sizes}
    ft = make_fasttext(a.work, int(a.fasttext), a.bucket, a.dim) if a.fasttext and "fasttext" in tasks else None
    rows = []
    for repeat in range(a.repeats):
        for i, n in enumerate(sizes):
            loop = loops[min(i, len(loops) - 1)]
            for task in tasks:
                if task == "fasttext" and (ft is None or i):
                    continue
                for tool in tools:
                    if task == "fasttext" and tool == "ours":
                        continue  # the .bin's vectors are read through load_facebook_vectors (ours-gensim)
                    slow = tool == "gensim" and task in ("txt", "fasttext")
                    if (task == "txt" and "txt" not in sets[n]) or (slow and repeat >= a.gensim_repeats):
                        continue
                    path = ft if task == "fasttext" else sets[n]["wve" if task == "mapped" and tool == "ours" else
                                                                   "kv" if task == "mapped" else task]
                    rows.append({"repeat": repeat, **run_child(tool, task, path, a.queries, loop, a.work)})
                    print(json.dumps(rows[-1]), flush=True)
        if sizes:
            rows.append({"repeat": repeat, **run_similar(sets[sizes[-1]]["wve"], a.work)})
            print(json.dumps(rows[-1]), flush=True)
    record = {"created": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv, "machine": describe(REPO_ROOT),
              "rows": rows, "table": table(rows)}
    with open(os.path.join(out, "vectors.json"), "w") as f:
        json.dump(record, f, indent=2)
    print(record["table"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
