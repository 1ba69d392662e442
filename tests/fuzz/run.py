"""Runs every fuzz harness for a bounded time, two at a time, from seed
inputs it writes first (valid files of each format).

    python tests/fuzz/run.py [--seconds 600] [--jobs 2] [--out /tmp/wv_fuzz]

Exits non-zero if any harness found a crash (libFuzzer writes crash-* files
into the output folder; reproduce one with `python HARNESS.py CRASHFILE`)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESSES = ["fuzz_tokenizer", "fuzz_loaders", "fuzz_records", "fuzz_vocab_file", "fuzz_corpus",
             "fuzz_gensim_files"]


def write_seeds(out: str) -> None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
    from wv_engine import Vectors, Vocabulary, cooccur
    from wv_engine.io import save_vectors

    words = ["the", "cat", "caf\udce9", "sat"]
    v = Vectors(words, np.arange(12, dtype=np.float32).reshape(4, 3), np.array([9, 5, 3, 1]))
    seeds = {name: os.path.join(out, "seeds", name) for name in HARNESSES}
    for d in seeds.values():
        os.makedirs(d, exist_ok=True)
    text = b"the cat sat on the mat\nthe dog\n\n caf\xe9 \xff end"
    for i, fmt in enumerate(["native", "word2vec-bin", "word2vec-txt", "glove-txt"]):
        path = os.path.join(out, f"seed.{fmt}")
        save_vectors(v, path, fmt)
        with open(path, "rb") as f:
            data = f.read()
        for k in range(5):  # the first byte picks the format in fuzz_loaders
            with open(os.path.join(seeds["fuzz_loaders"], f"{fmt}-{k}"), "wb") as f:
                f.write(bytes([k]) + data)
    X = cooccur.count([["a", "b", "a", "c"], ["c", "b"]], Vocabulary(["a", "b", "c"], [2, 2, 2]), 2,
                      progress=False)
    rec = os.path.join(out, "seed.records")
    cooccur.write_records(X, rec)
    with open(rec, "rb") as f:
        records = f.read()
    with open(os.path.join(seeds["fuzz_records"], "records"), "wb") as f:
        f.write(bytes([2]) + records)
    with open(os.path.join(seeds["fuzz_vocab_file"], "vocab"), "wb") as f:
        f.write(b"the 9\ncat 5\ncaf\xe9 3\n")
    with open(os.path.join(seeds["fuzz_tokenizer"], "text"), "wb") as f:
        f.write(b"\x00\x10" + text)
    for k in range(4):
        with open(os.path.join(seeds["fuzz_corpus"], f"text-{k}"), "wb") as f:
            f.write(bytes([k]) + text)
    try:  # seeds for the gensim reader: models gensim saved, when gensim is installed
        from gensim.models import Word2Vec as GensimWord2Vec
    except ImportError:
        return
    sentences = [text.decode("latin-1").split()] * 20
    for k, settings in enumerate([dict(sg=1), dict(hs=1, negative=0)]):
        path = os.path.join(out, f"seed-{k}.model")
        GensimWord2Vec(sentences, vector_size=4, min_count=1, workers=1, epochs=1, **settings).save(path)
        with open(path, "rb") as f:
            data = f.read()
        for first in (0, 1):  # the first byte picks the loader; the harness puts the pickle's back
            with open(os.path.join(seeds["fuzz_gensim_files"], f"model-{k}-{first}"), "wb") as f:
                f.write(bytes([first]) + data[1:])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seconds", type=int, default=600)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", default="/tmp/wv_fuzz")
    p.add_argument("--only", nargs="*", default=HARNESSES)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    write_seeds(args.out)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([HERE, os.path.dirname(os.path.dirname(HERE)),
                                                        os.environ.get("PYTHONPATH", "")])}
    pending, running, failed = list(args.only), [], []
    while pending or running:
        while pending and len(running) < args.jobs:
            name = pending.pop(0)
            work = os.path.join(args.out, name)
            os.makedirs(work, exist_ok=True)
            log = open(os.path.join(args.out, f"{name}.log"), "w")
            cmd = [sys.executable, os.path.join(HERE, f"{name}.py"), f"-max_total_time={args.seconds}",
                   f"-artifact_prefix={work}/", "-rss_limit_mb=4096", work, os.path.join(args.out, "seeds", name)]
            print(f"start {name}: {' '.join(cmd)}", flush=True)
            running.append((name, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env), log))
        time.sleep(2)
        for item in list(running):
            name, proc, log = item
            if proc.poll() is not None:
                log.close()
                running.remove(item)
                with open(os.path.join(args.out, f"{name}.log")) as f:
                    tail = f.read().splitlines()[-3:]
                status = "ok" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
                print(f"{name}: {status}; " + " | ".join(tail), flush=True)
                if proc.returncode:
                    failed.append(name)
    print("crashes in: " + ", ".join(failed) if failed else "no crash", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
