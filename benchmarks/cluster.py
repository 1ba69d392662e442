"""wv_engine on a dask LocalCluster against one machine, on the same corpus:

    python -m benchmarks.cluster --corpus ../shared/data/corpora/wiki_17m.txt.gz --workers 2 \
        --threads 1 --epochs 5 [--window 15] [--sync-words 250000] [--json PATH]

1. word counts: one machine vs the cluster, must be equal;
2. co-occurrence counts (GloVe, distance-weighted): must be equal bit for bit;
3. skip-gram NS word2vec at equal epochs: one machine with workers x threads
   threads vs the cluster (model averaging), with analogy / WordSim-353 of both
   and the bytes that crossed the loopback interface during cluster training
   (all of it is dask traffic: weights out, moves back).

The corpus is decompressed once to a plain file first: the cluster cuts plain
files into byte ranges (a compressed file would be a single shard)."""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np

from wv_engine import Vocabulary, Word2Vec, cooccur
from wv_engine.cluster import close, connect
from wv_engine.corpus import is_compressed, open_binary
from wv_engine.io import save_vectors

from .quality import evaluate_file


def loopback_bytes() -> int:
    import psutil

    return psutil.net_io_counters(pernic=True)["lo"].bytes_sent


def plain_copy(path: str, folder: str) -> str:
    if not is_compressed(path):
        return path
    dest = os.path.join(folder, os.path.basename(path).rsplit(".", 1)[0])
    if not os.path.exists(dest):
        with open_binary(path) as src, open(dest + ".tmp", "wb") as out:
            while block := src.read(1 << 24):
                out.write(block)
        os.replace(dest + ".tmp", dest)
    return dest


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def quality_of(model, folder: str, name: str) -> dict:
    path = os.path.join(folder, f"{name}.bin")
    save_vectors(model.vectors, path, "word2vec-bin")
    q = evaluate_file(path)
    os.unlink(path)
    return {k: q[k] for k in ("analogy_pct", "ws353", "simlex")}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cluster", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=1, help="threads per worker")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--window", type=int, default=15, help="co-occurrence window (GloVe demo: 15)")
    p.add_argument("--sync-words", type=int, default=250_000)
    p.add_argument("--sample", type=float, default=1e-4)
    p.add_argument("--skip", default="", help="comma-separated of counts,cooccur,word2vec")
    p.add_argument("--tmp", default=tempfile.gettempdir())
    p.add_argument("--json", metavar="PATH")
    a = p.parse_args(argv)
    skip = set(a.skip.split(","))
    corpus = plain_copy(a.corpus, a.tmp)
    report: dict = {"corpus": a.corpus, "workers": a.workers, "threads_per_worker": a.threads,
                    "one_machine_threads": a.workers * a.threads}
    client = connect(f"local:{a.workers}", a.threads)
    try:
        one_vocab, t_one = timed(lambda: Vocabulary.build(corpus, 5))
        if "counts" not in skip:
            many_vocab, t_many = timed(lambda: Vocabulary.build(corpus, 5, client=client))
            equal = many_vocab.words == one_vocab.words and np.array_equal(many_vocab.counts, one_vocab.counts)
            report["word_counts"] = {"equal": bool(equal), "vocab_size": len(one_vocab),
                                     "one_machine_s": t_one, "cluster_s": t_many}
            print(f"word counts: equal={equal}, {len(one_vocab):,} words, {t_one:.1f} s vs {t_many:.1f} s")
        if "cooccur" not in skip:
            threads = a.workers * a.threads
            one, t_one = timed(lambda: cooccur.count(corpus, one_vocab, a.window, threads=threads, progress=False))
            many, t_many = timed(lambda: cooccur.count(corpus, one_vocab, a.window, threads=a.threads,
                                                       progress=False, client=client))
            equal = (one.nnz == many.nnz and np.array_equal(one.indptr, many.indptr)
                     and np.array_equal(one.indices, many.indices) and np.array_equal(one.data, many.data))
            report["cooccurrence"] = {"equal_bit_for_bit": bool(equal), "nonzeros": int(one.nnz),
                                      "window": a.window, "one_machine_s": t_one, "cluster_s": t_many}
            print(f"co-occurrences: equal={equal}, {one.nnz:,} non-zeros, {t_one:.1f} s vs {t_many:.1f} s")
            del one, many
        if "word2vec" not in skip:
            settings = dict(dim=100, window=5, negative=5, sample=a.sample, min_count=5, epochs=a.epochs)
            single = Word2Vec(threads=a.workers * a.threads, **settings).build_vocab(vocab=one_vocab)
            _, t_one = timed(lambda: single.train(corpus, progress=False))
            q_one = quality_of(single, a.tmp, "one")
            multi = Word2Vec(threads=a.threads, **settings).build_vocab(vocab=one_vocab)
            before = loopback_bytes()
            stats, t_many = timed(lambda: multi.train(corpus, client=client, sync_words=a.sync_words,
                                                      progress=False))
            moved = loopback_bytes() - before
            q_many = quality_of(multi, a.tmp, "cluster")
            syncs = stats.syncs
            model_bytes = 2 * len(one_vocab) * 100 * 4
            report["word2vec"] = {
                "settings": settings, "sync_words": a.sync_words,
                "one_machine": {"train_s": t_one, **q_one},
                "cluster": {"train_s": t_many, **q_many, "syncs": syncs, "loopback_bytes": moved,
                            "bytes_per_sync_per_worker": moved / max(syncs * a.workers, 1),
                            "model_bytes_in_plus_out": model_bytes},
            }
            print(f"word2vec {a.epochs} epochs: one machine {t_one:.1f} s, analogy {q_one['analogy_pct']:.2f}, "
                  f"WS353 {q_one['ws353']:.3f}; cluster {t_many:.1f} s, analogy {q_many['analogy_pct']:.2f}, "
                  f"WS353 {q_many['ws353']:.3f}; {syncs} syncs, {moved / 2**20:,.0f} MiB over loopback "
                  f"({moved / max(syncs * a.workers, 1) / 2**20:.1f} MiB per sync per worker; "
                  f"input+output matrices {model_bytes / 2**20:.1f} MiB)")
    finally:
        close(client)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
