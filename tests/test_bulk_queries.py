"""Queries in bulk (wv_engine.neighbours, csrc/topk.c, Vectors.most_similar_many,
similarity_matrix, `wv-engine similar` of many words) against a brute-force
ranking in float64 by numpy, with blocks made small so that a query's best
rows come from many blocks, and planted ties."""

import json

import numpy as np
import pytest

from wv_engine import Vectors, neighbours
from wv_engine.cli import main


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(neighbours, "BLOCK_SCORES", 64)
    monkeypatch.setattr(neighbours, "MIN_BLOCK_ROWS", 7)


def _brute(mat, queries, k, limit=None):
    m = mat[:limit].astype(np.float64)
    norms = np.linalg.norm(m, axis=1)
    unit_m = np.divide(m, norms[:, None], out=np.zeros_like(m), where=norms[:, None] > 0)
    q = queries.astype(np.float64)
    scores = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ unit_m.T
    order = np.lexsort((np.broadcast_to(np.arange(m.shape[0]), scores.shape), -scores), axis=1)
    return order[:, :k], np.take_along_axis(scores, order[:, :k], axis=1)


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_best_rows_are_the_brute_force_ranking_ties_to_the_lower_row(small_blocks, threads):
    rng = np.random.default_rng(threads)
    mat = rng.integers(-2, 3, size=(300, 4)).astype(np.float32)  # small integers: many exact ties
    mat[::50] = 0.0
    queries = rng.integers(-2, 3, size=(23, 4)).astype(np.float32)
    queries[queries.sum(axis=1) == 0, 0] = 1.0
    norms = np.linalg.norm(mat, axis=1)
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0).astype(np.float32)
    unit_q = queries / np.linalg.norm(queries, axis=1, keepdims=True)  # callers give unit queries
    rows, scores, filled = neighbours.best_rows(mat, scale, unit_q, 12, threads)
    want_rows, want_scores = _brute(mat, queries, 12)
    assert filled.tolist() == [12] * 23
    np.testing.assert_allclose(scores, want_scores, atol=1e-6)
    exact = _brute(mat, queries, 300)[1]  # every row's cosine in float64, by row
    full_rows = _brute(mat, queries, 300)[0]
    for q in range(23):
        by_row = dict(zip(full_rows[q].tolist(), exact[q].tolist()))
        assert len(set(rows[q].tolist())) == 12  # distinct rows, each scoring what the best 12 score
        np.testing.assert_allclose([by_row[r] for r in rows[q].tolist()], want_scores[q], atol=1e-6)
        for i in range(11):  # equal float32 scores: the lower row first
            assert scores[q, i] > scores[q, i + 1] or rows[q, i] < rows[q, i + 1]
    few, _, filled = neighbours.best_rows(mat[:5], scale[:5], unit_q, 12, threads)
    assert filled.tolist() == [5] * 23 and sorted(few[0, :5].tolist()) == [0, 1, 2, 3, 4]


def _vectors(n=500, dim=16, seed=0):
    rng = np.random.default_rng(seed)
    return Vectors([f"w{i}" for i in range(n)], rng.standard_normal((n, dim)).astype(np.float32))


def test_most_similar_many_is_most_similar_of_each(small_blocks):
    v = _vectors()
    rng = np.random.default_rng(1)
    qvecs = rng.standard_normal((3, 16)).astype(np.float32)
    queries = ["w3", "w499", qvecs[0], "w0", qvecs[1]]
    for restrict in (None, 100):
        many = v.most_similar_many(queries, topn=7, restrict_vocab=restrict)
        one = [v.most_similar(q if isinstance(q, str) else [q], topn=7, restrict_vocab=restrict)
               for q in queries]
        assert [[w for w, _ in a] for a in many] == [[w for w, _ in b] for b in one]
        np.testing.assert_allclose([[s for _, s in a] for a in many], [[s for _, s in b] for b in one], atol=1e-6)
    rows, scores = _brute(v.vectors, qvecs, 5)
    got = v.most_similar_many(qvecs, topn=5)
    assert [[int(w[1:]) for w, _ in a] for a in got] == rows.tolist()
    np.testing.assert_allclose([[s for _, s in a] for a in got], scores, atol=1e-5)
    assert all(a[0][0] != q for q, a in zip(["w3", "w499"], many[:2]))  # a word is not its own answer
    assert v.most_similar_many([], topn=3) == [] and v.most_similar_many(["w1"], topn=0) == [[]]


def test_similarity_matrix_is_the_cosines():
    v = _vectors(50, 8)
    words = ["w1", "w7", "w30"]
    unit = v.vectors / np.linalg.norm(v.vectors, axis=1, keepdims=True)
    np.testing.assert_allclose(v.similarity_matrix(words), unit[[1, 7, 30]] @ unit[[1, 7, 30]].T, atol=1e-6)
    np.testing.assert_allclose(v.similarity_matrix(words, ["w2", v["w5"]]), unit[[1, 7, 30]] @ unit[[2, 5]].T,
                               atol=1e-6)
    with pytest.raises(KeyError):
        v.similarity_matrix(["w1", "nope"])


def test_a_query_vector_with_nan_is_refused():
    v = _vectors(20, 4)
    with pytest.raises(ValueError, match="inf or nan"):
        v.most_similar_many(np.full((1, 4), np.nan, dtype=np.float32))


def test_similar_answers_many_words_from_arguments_a_file_and_stdin(tmp_path, capsys, monkeypatch):
    v = _vectors(200, 8)
    path = tmp_path / "v.wve"
    v.save(path, format="native")
    (tmp_path / "q.txt").write_text("w5\n\nw9\n")
    assert main(["similar", str(path), "w1", "--words", str(tmp_path / "q.txt"), "-n", "3", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = v.most_similar_many(["w1", "w5", "w9"], topn=3)
    assert list(got) == ["w1", "w5", "w9"]
    assert [[n for n, _ in got[w]] for w in got] == [[n for n, _ in a] for a in want]
    assert main(["similar", str(path), "w1", "w2", "-n", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "w1:" and out[3] == "w2:" and len(out) == 6
    assert main(["similar", str(path), "w1", "-n", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(want[0][0][0])
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("w4\n"))
    assert main(["similar", str(path), "--words", "-", "-n", "1", "--restrict-vocab", "50", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["w4"][0][0] == v.most_similar("w4", topn=1, restrict_vocab=50)[0][0]


def test_similar_refuses_unknown_words_before_work_unless_skipped(tmp_path, capsys):
    v = _vectors(30, 4)
    path = tmp_path / "v.wve"
    v.save(path, format="native")
    assert main(["similar", str(path), "w1", "zz", "yy"]) != 0
    err = capsys.readouterr().err
    assert "2 of the query words" in err and "'zz'" in err and "Traceback" not in err
    assert main(["similar", str(path), "w1", "zz", "--skip-unknown", "--json"]) == 0
    captured = capsys.readouterr()
    assert list(json.loads(captured.out)) == ["w1"] and "zz" in captured.err
    assert main(["similar", str(path)]) != 0
    assert "at least one WORD" in capsys.readouterr().err
