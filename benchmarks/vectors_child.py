"""One tool's side of benchmarks.vectors, run as its own process: load a
set, ask its queries, print one JSON line of phase times and memory.

    python -m benchmarks.vectors_child TOOL TASK FILE [--queries 1000] [--loop N]

TOOL: gensim (gensim 4), ours (wv_engine.load_vectors / Vectors), ours-gensim
(wv_engine.gensim, gensim's calls). TASK: bin, txt (word2vec's formats), mapped
(gensim: KeyedVectors.load(FILE, mmap='r') of its own .kv; ours: the native file
with mmap=True; ours-gensim: KeyedVectors.load(gensim's .kv, mmap='r')), fasttext
(load_facebook_vectors of a .bin). Queries: the first most_similar after the load
(row 100's word), the median of 5 later ones (rows 200..600), then --queries words
at once (ours: most_similar_many; gensim: a loop over the first --loop of them, its
time scaled to --queries, `loop_words` says how many were timed)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time


def _status_mib(key: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _load(tool: str, task: str, path: str):
    if tool == "gensim":
        from gensim.models import KeyedVectors
        from gensim.models.fasttext import load_facebook_vectors
    elif tool == "ours-gensim":
        from wv_engine.gensim import KeyedVectors
        from wv_engine.gensim.models.fasttext import load_facebook_vectors
    else:
        from wv_engine import load_vectors
        if task == "fasttext":
            raise SystemExit("ours: a fastText .bin is read through wv_engine.gensim's load_facebook_vectors")
    start = time.perf_counter()
    if task == "fasttext":
        kv = load_facebook_vectors(path)
    elif tool == "ours":
        kv = load_vectors(path, mmap=task == "mapped")
    elif task == "mapped":
        kv = KeyedVectors.load(path, mmap="r")
    else:
        kv = KeyedVectors.load_word2vec_format(path, binary=task == "bin")
    return kv, time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("tool", choices=["gensim", "ours", "ours-gensim"])
    p.add_argument("task", choices=["bin", "txt", "mapped", "fasttext"])
    p.add_argument("file")
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--loop", type=int, default=1000)
    args = p.parse_args(argv)
    started = time.perf_counter()
    import numpy  # noqa: F401 - imported before the baseline, as the tools need it
    if args.tool == "gensim":
        import gensim.models  # noqa: F401
    else:
        import wv_engine.gensim  # noqa: F401
    imported = time.perf_counter() - started
    rss_before = _status_mib("VmRSS:")
    kv, load_s = _load(args.tool, args.task, args.file)
    hwm = _status_mib("VmHWM:")
    word = (lambda i: kv.word(i)) if args.tool == "ours" else (lambda i: kv.index_to_key[i])
    first_word, later_words = word(100), [word(i) for i in range(200, 700, 100)]  # the words, before the clock
    t = time.perf_counter()
    kv.most_similar(first_word)
    first = time.perf_counter() - t
    later = []
    for w in later_words:
        t = time.perf_counter()
        kv.most_similar(w)
        later.append(time.perf_counter() - t)
    words = [word(1000 + i) for i in range(args.queries)]
    t = time.perf_counter()
    if args.tool == "ours":
        kv.most_similar_many(words, topn=10)
        bulk, timed = time.perf_counter() - t, len(words)
    else:
        timed = min(args.loop, len(words))
        for w in words[:timed]:
            kv.most_similar(w, topn=10)
        bulk = (time.perf_counter() - t) * len(words) / timed
    print(json.dumps({"tool": args.tool, "task": args.task, "import_s": imported, "load_s": load_s,
                      "first_query_s": first, "later_query_s": statistics.median(later),
                      "queries": len(words), "bulk_s": bulk, "loop_words": timed,
                      "rss_before_mib": rss_before, "hwm_after_load_mib": hwm,
                      "load_peak_mib": hwm - rss_before}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
