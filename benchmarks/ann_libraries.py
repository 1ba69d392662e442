"""The approximate-neighbour libraries measured side by side on one set of
vectors, to choose the one wv_engine's optional extra uses:

    python -m benchmarks.ann_libraries VECTORS [--rows N] [--queries 200] [--threads 2]
        [--libraries hnswlib,faiss-hnsw,faiss-ivf,usearch,annoy] [--build 32:200] [--ef 64,128,256,512]
        [--out FILE]

Each library indexes the first --rows unit rows (cosine as inner product),
its build timed; then answers --queries words (rows spread over the set) one
query at a time, at a few search settings each, against the exact top 10 of
wv_engine's most_similar_many (the query word itself left out of both):
recall@10 and the time per query, next to the exact search's per query
(Vectors.most_similar, one at a time). Prints a table and writes JSON."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

K = 10


def _exact(vectors, rows: np.ndarray) -> tuple[list[set[int]], float]:
    words = [vectors.word(int(r)) for r in rows]
    t = time.perf_counter()
    for w in words[:20]:
        vectors.most_similar(w, topn=K)
    per_query = (time.perf_counter() - t) / min(20, len(words))
    answers = vectors.most_similar_many(words, topn=K)
    return [{vectors.get_index(w) for w, _ in a} for a in answers], per_query


def _recall(found: list[list[int]], rows: np.ndarray, truth: list[set[int]]) -> float:
    hits = 0
    for got, own, want in zip(found, rows.tolist(), truth):
        hits += len(set([int(g) for g in got if int(g) != own][:K]) & want)
    return hits / (K * len(truth))


def _timed_queries(search, unit: np.ndarray, rows: np.ndarray) -> tuple[list[list[int]], float]:
    found = []
    t = time.perf_counter()
    for r in rows:
        found.append(search(unit[r]))
    return found, (time.perf_counter() - t) / len(rows)


def run_hnswlib(unit, rows, truth, threads, settings):
    import hnswlib

    out = []
    for m, efc in settings.get("build", [(32, 200)]):
        index = hnswlib.Index(space="ip", dim=unit.shape[1])
        t = time.perf_counter()
        index.init_index(max_elements=len(unit), M=m, ef_construction=efc, random_seed=1)
        index.add_items(unit, np.arange(len(unit)), num_threads=threads)
        build = time.perf_counter() - t
        index.set_num_threads(1)
        for ef in settings.get("ef", [64, 128, 256, 512]):
            index.set_ef(max(ef, K + 1))
            found, per = _timed_queries(lambda q: index.knn_query(q, k=K + 1)[0][0], unit, rows)
            out.append({"library": "hnswlib", "build": f"M={m} ef_construction={efc}", "search": f"ef={ef}",
                        "build_s": build, "per_query_s": per, "recall": _recall(found, rows, truth)})
            print(json.dumps(out[-1]), flush=True)
    return out


def run_faiss_hnsw(unit, rows, truth, threads, settings):
    import faiss

    faiss.omp_set_num_threads(threads)
    out = []
    for m, efc in settings.get("build", [(32, 200)]):
        index = faiss.IndexHNSWFlat(unit.shape[1], m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = efc
        t = time.perf_counter()
        index.add(unit)
        build = time.perf_counter() - t
        faiss.omp_set_num_threads(1)
        for ef in settings.get("ef", [64, 128, 256, 512]):
            index.hnsw.efSearch = max(ef, K + 1)
            found, per = _timed_queries(lambda q: index.search(q[None, :], K + 1)[1][0], unit, rows)
            out.append({"library": "faiss-hnsw", "build": f"M={m} efConstruction={efc}", "search": f"efSearch={ef}",
                        "build_s": build, "per_query_s": per, "recall": _recall(found, rows, truth)})
            print(json.dumps(out[-1]), flush=True)
        faiss.omp_set_num_threads(threads)
    return out


def run_faiss_ivf(unit, rows, truth, threads, settings):
    import faiss

    faiss.omp_set_num_threads(threads)
    lists = int(4 * np.sqrt(len(unit)))
    quantizer = faiss.IndexFlatIP(unit.shape[1])
    index = faiss.IndexIVFFlat(quantizer, unit.shape[1], lists, faiss.METRIC_INNER_PRODUCT)
    t = time.perf_counter()
    index.train(unit[np.random.default_rng(0).choice(len(unit), min(len(unit), 40 * lists), replace=False)])
    index.add(unit)
    build = time.perf_counter() - t
    faiss.omp_set_num_threads(1)
    out = []
    for probe in settings.get("nprobe", [8, 32, 128]):
        index.nprobe = probe
        found, per = _timed_queries(lambda q: index.search(q[None, :], K + 1)[1][0], unit, rows)
        out.append({"library": "faiss-ivf", "build": f"IVF{lists},Flat", "search": f"nprobe={probe}",
                    "build_s": build, "per_query_s": per, "recall": _recall(found, rows, truth)})
        print(json.dumps(out[-1]), flush=True)
    return out


def run_usearch(unit, rows, truth, threads, settings):
    from usearch.index import Index

    out = []
    for m, efc in settings.get("build", [(32, 200)]):
        index = Index(ndim=unit.shape[1], metric="ip", dtype="f32", connectivity=m, expansion_add=efc)
        t = time.perf_counter()
        index.add(np.arange(len(unit)), unit, threads=threads)
        build = time.perf_counter() - t
        for ef in settings.get("ef", [64, 128, 256, 512]):
            index.expansion_search = max(ef, K + 1)
            found, per = _timed_queries(lambda q: index.search(q, K + 1, threads=1).keys, unit, rows)
            out.append({"library": "usearch", "build": f"connectivity={m} expansion_add={efc}",
                        "search": f"expansion_search={ef}", "build_s": build, "per_query_s": per,
                        "recall": _recall(found, rows, truth)})
            print(json.dumps(out[-1]), flush=True)
    return out


def run_annoy(unit, rows, truth, threads, settings):
    from annoy import AnnoyIndex

    out = []
    for trees in settings.get("trees", [100]):
        index = AnnoyIndex(unit.shape[1], "dot")
        for i, row in enumerate(unit):
            index.add_item(i, row)
        t = time.perf_counter()
        index.build(trees, n_jobs=threads)
        build = time.perf_counter() - t
        for search_k in settings.get("search_k", [10000, 100000]):
            found, per = _timed_queries(lambda q: index.get_nns_by_vector(q, K + 1, search_k=search_k), unit, rows)
            out.append({"library": "annoy", "build": f"trees={trees}", "search": f"search_k={search_k}",
                        "build_s": build, "per_query_s": per, "recall": _recall(found, rows, truth)})
            print(json.dumps(out[-1]), flush=True)
    return out


RUNNERS = {"hnswlib": run_hnswlib, "faiss-hnsw": run_faiss_hnsw, "faiss-ivf": run_faiss_ivf, "usearch": run_usearch,
           "annoy": run_annoy}


def main(argv: list[str] | None = None) -> int:
    from wv_engine import load_vectors

    p = argparse.ArgumentParser(prog="python -m benchmarks.ann_libraries", description=__doc__.split("\n\n")[0])
    p.add_argument("vectors")
    p.add_argument("--rows", type=int, default=None)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--libraries", default="hnswlib,faiss-hnsw,faiss-ivf,usearch,annoy")
    p.add_argument("--ef", default="64,128,256,512")
    p.add_argument("--build", default="32:200", help="the graphs' M:ef_construction pairs, comma-separated")
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    vectors = load_vectors(a.vectors, limit=a.rows)
    unit = np.ascontiguousarray(vectors.vectors * (1.0 / np.maximum(vectors.norms, 1e-30))[:, None], dtype=np.float32)
    rows = np.linspace(0, len(unit) - 1, a.queries).astype(np.int64)
    truth, exact_per = _exact(vectors, rows)
    print(json.dumps({"exact_per_query_s": exact_per, "rows": len(unit)}), flush=True)
    settings = {"ef": [int(x) for x in a.ef.split(",")],
                "build": [tuple(int(v) for v in pair.split(":")) for pair in a.build.split(",")]}
    results = []
    for lib in a.libraries.split(","):
        results += RUNNERS[lib](unit, rows, truth, a.threads, settings)
    print(f"\nexact: {exact_per * 1000:.1f} ms a query over {len(unit):,} rows\n")
    print("| library | build | search | build s | ms a query | recall@10 | faster than exact |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['library']} | {r['build']} | {r['search']} | {r['build_s']:.1f} | {r['per_query_s'] * 1000:.2f} | "
              f"{r['recall']:.3f} | {exact_per / r['per_query_s']:.0f}x |")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"exact_per_query_s": exact_per, "rows": len(unit), "results": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
