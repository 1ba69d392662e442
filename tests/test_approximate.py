"""Approximate neighbours (wv_engine.approximate, hnswlib): on planted
clusters the index finds what brute force finds, its files round-trip
and refuse other vectors and damage, and the gensim layer's indexer and
the CLI answer from it."""

import json

import numpy as np
import pytest

pytest.importorskip("hnswlib")

from wv_engine import FormatError, Vectors  # noqa: E402
from wv_engine.approximate import ApproximateIndex, index_path  # noqa: E402
from wv_engine.cli import main  # noqa: E402
from wv_engine.gensim import KeyedVectors  # noqa: E402
from wv_engine.gensim.similarities import HnswIndexer  # noqa: E402


def _clusters(n=3000, dim=24, k=60, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((k, dim)).astype(np.float32) * 4
    rows = centres[rng.integers(0, k, n)] + rng.standard_normal((n, dim)).astype(np.float32)
    return Vectors([f"w{i}" for i in range(n)], rows)


def test_on_planted_clusters_it_finds_what_brute_force_finds():
    v = _clusters()
    index = ApproximateIndex.build(v, m=16, ef_construction=100, ef=200, threads=2)
    queries = [f"w{i}" for i in range(0, 3000, 30)]
    exact = v.most_similar_many(queries, topn=10)
    approx = index.most_similar_many(queries, topn=10)
    recall = np.mean([len({w for w, _ in a} & {w for w, _ in b}) / 10 for a, b in zip(exact, approx)])
    assert recall >= 0.95
    for q, answer in zip(queries, approx):
        assert q not in [w for w, _ in answer] and len(answer) == 10
        scores = [s for _, s in answer]
        assert scores == sorted(scores, reverse=True)
        np.testing.assert_allclose(scores, [v.similarity(q, w) for w, _ in answer], atol=1e-5)
    assert index.most_similar(v["w5"], topn=3)[0][0] == "w5"  # a vector is not a word: it finds itself


def test_saved_and_loaded_beside_the_vectors_and_refused_elsewhere(tmp_path):
    v = _clusters(800)
    path = index_path(tmp_path / "v.wve")
    assert path.endswith("v.wve.hnsw")
    index = ApproximateIndex.build(v, m=8, ef_construction=50, threads=1)
    index.save(path)
    again = ApproximateIndex.load(path, v)
    assert again.most_similar_many(["w1", "w2"], topn=5) == index.most_similar_many(["w1", "w2"], topn=5)
    with pytest.raises(FormatError, match="other vectors"):
        ApproximateIndex.load(path, _clusters(801))
    renamed = Vectors([f"x{i}" for i in range(800)], v.vectors)
    with pytest.raises(FormatError, match="words_crc32"):
        ApproximateIndex.load(path, renamed)
    with open(path, "r+b") as f:
        f.truncate(100)
    with pytest.raises(FormatError):
        ApproximateIndex.load(path, v)
    (tmp_path / "junk.hnsw.json").write_text("{not json")
    (tmp_path / "junk.hnsw").write_bytes(b"x")
    with pytest.raises(FormatError, match="not the settings"):
        ApproximateIndex.load(tmp_path / "junk.hnsw", v)
    with pytest.raises(ValueError, match="m must be"):
        ApproximateIndex.build(v, m=0)


def test_the_gensim_layer_takes_the_indexer_as_gensim_takes_annoys():
    v = _clusters(1000)
    kv = KeyedVectors.from_vectors(v)
    indexer = HnswIndexer(kv, m=16, ef=200)
    got = kv.most_similar("w7", topn=5, indexer=indexer)
    assert got[0][0] == "w7"  # gensim's indexer path leaves the query word in
    exact = kv.most_similar("w7", topn=4)
    assert [w for w, _ in got[1:]] == [w for w, _ in exact]


def test_the_cli_builds_the_index_and_answers_from_it(tmp_path, capsys):
    v = _clusters(1500)
    path = tmp_path / "v.wve"
    v.save(path, format="native")
    assert main(["index", str(path), "--m", "16", "--threads", "1"]) == 0
    assert (tmp_path / "v.wve.hnsw").exists() and (tmp_path / "v.wve.hnsw.json").exists()
    capsys.readouterr()
    assert main(["similar", str(path), "w3", "w9", "--approximate", "--ef", "300", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    exact = v.most_similar_many(["w3", "w9"], topn=10)
    for word, answer in zip(["w3", "w9"], exact):
        assert len({n for n, _ in got[word]} & {n for n, _ in answer}) >= 9
    assert main(["similar", str(path), "w3", "--index", str(tmp_path / "missing.hnsw")]) != 0
    assert "missing.hnsw" in capsys.readouterr().err
