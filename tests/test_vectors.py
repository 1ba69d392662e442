"""Vectors: construction, lookups and similarity queries checked against independent math."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wv_engine.vectors import UnknownWordError, Vectors


def angles_vectors() -> Vectors:
    """Unit 2-D vectors at known angles: cos(a, b) = cos(angle difference)."""
    degrees = {"zero": 0, "ten": 10, "thirty": 30, "sixty": 60, "ninety": 90, "oneeighty": 180}
    words = list(degrees)
    mat = np.array([[math.cos(math.radians(d)), math.sin(math.radians(d))]
                    for d in degrees.values()])
    # Scale rows differently: cosines must not depend on norms.
    mat *= np.arange(1, len(words) + 1)[:, None]
    return Vectors(words, mat)


def concept_vectors() -> Vectors:
    """Words built from orthogonal concepts so that analogies have known answers."""
    e = np.eye(8)
    royal, male, female, person, other = e[0], e[1], e[2], e[3], e[4]
    words = {
        "king": royal + male,
        "man": person + male,
        "woman": person + female,
        "queen": royal + female,
        "prince": royal + male + 0.5 * e[5],
        "apple": other,
        "zero": np.zeros(8),
    }
    return Vectors(list(words), np.array(list(words.values())))


# ---------------------------------------------------------------------------- construction


def test_construction_converts_and_validates():
    v = Vectors(["a", "b"], np.array([[1, 2], [3, 4]], dtype=np.float64), counts=[5, 3])
    assert v.vectors.dtype == np.float32 and v.vectors.flags.c_contiguous
    assert v.dim == 2 and len(v) == 2 and list(v) == ["a", "b"]
    assert v.counts.dtype == np.int64 and v.counts.tolist() == [5, 3]
    assert v.key_to_index == {"a": 0, "b": 1} and v.get_index("b") == 1
    assert "a" in v and "z" not in v and v.metadata == {}
    np.testing.assert_array_equal(v["b"], [3, 4])
    np.testing.assert_array_equal(v[["b", "a"]], [[3, 4], [1, 2]])

    with pytest.raises(ValueError, match="duplicate word 'a'"):
        Vectors(["a", "b", "a"], np.zeros((3, 2)))
    with pytest.raises(ValueError, match="3 rows but there are 2 words"):
        Vectors(["a", "b"], np.zeros((3, 2)))
    with pytest.raises(ValueError, match="2-D"):
        Vectors(["a", "b"], np.zeros(2))
    with pytest.raises(ValueError, match="counts must have shape"):
        Vectors(["a", "b"], np.zeros((2, 2)), counts=[1, 2, 3])
    with pytest.raises(ValueError, match="must be str"):
        Vectors([b"a"], np.zeros((1, 2)))


def test_readonly_memmap_is_not_copied(tmp_path):
    path = tmp_path / "m.f32"
    np.arange(6, dtype=np.float32).tofile(path)
    mm = np.memmap(path, dtype=np.float32, mode="r", shape=(3, 2))
    v = Vectors(["a", "b", "c"], mm)
    assert np.shares_memory(v.vectors, mm) and not v.vectors.flags.writeable
    # Queries work on read-only data (unit vectors are a separate array).
    assert v.most_similar("a", topn=1)[0][0] in {"b", "c"}


def test_unknown_word_error_names_the_word():
    v = angles_vectors()
    with pytest.raises(UnknownWordError) as info:
        v["xyz"]
    assert isinstance(info.value, KeyError)
    assert str(info.value) == "word 'xyz' is not in the vocabulary (6 words)"
    for call in (lambda: v.most_similar("xyz"), lambda: v.similarity("zero", "xyz"),
                 lambda: v[["zero", "xyz"]], lambda: v.analogy("zero", "ten", "xyz"),
                 lambda: v.doesnt_match(["zero", "xyz"]), lambda: v.get_index("xyz")):
        with pytest.raises(UnknownWordError, match="'xyz'"):
            call()


# ---------------------------------------------------------------------------- unit vectors


def test_unit_vectors_and_cache_invalidation():
    v = Vectors(["a", "b", "zero"], np.array([[3.0, 4.0], [0.0, -2.0], [0.0, 0.0]]))
    u = v.unit_vectors
    np.testing.assert_allclose(u, [[0.6, 0.8], [0.0, -1.0], [0.0, 0.0]], atol=1e-7)
    assert u.dtype == np.float32 and not np.isnan(u).any()
    assert v.unit_vectors is u  # cached
    v.vectors[0] = [1.0, 0.0]
    v.vectors_changed()
    np.testing.assert_allclose(v.unit_vectors[0], [1.0, 0.0])
    assert v.similarity("a", "zero") == 0.0


# ---------------------------------------------------------------------------- similarity


def test_most_similar_orders_by_angle():
    v = angles_vectors()
    result = v.most_similar("zero", topn=10)
    assert [w for w, _ in result] == ["ten", "thirty", "sixty", "ninety", "oneeighty"]
    expected = [math.cos(math.radians(d)) for d in (10, 30, 60, 90, 180)]
    np.testing.assert_allclose([s for _, s in result], expected, atol=1e-6)
    assert v.most_similar("zero", topn=2) == result[:2]
    # restrict_vocab searches only the first N rows.
    assert [w for w, _ in v.most_similar("zero", restrict_vocab=3)] == ["ten", "thirty"]
    assert v.most_similar("zero", topn=None).shape == (6,)
    # A raw vector query excludes nothing.
    assert v.similar_by_vector(np.array([1.0, 0.01]), topn=1)[0][0] == "zero"
    assert v.similar_by_word("ninety", topn=1)[0][0] == "sixty"


def test_most_similar_mean_of_unit_vectors_matches_direct_formula():
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(50)]
    raw = rng.standard_normal((50, 7)) * rng.uniform(0.1, 10, (50, 1))
    v = Vectors(words, raw)

    def unit(x):
        return x / np.linalg.norm(x)

    query = unit(unit(raw[1]) + unit(raw[2]) - unit(raw[3]))
    direct = sorted(
        ((float(unit(raw[i]) @ query), words[i]) for i in range(50) if i not in (1, 2, 3)),
        reverse=True,
    )[:5]
    got = v.most_similar(positive=["w1", "w2"], negative=["w3"], topn=5)
    assert [w for w, _ in got] == [w for _, w in direct]
    np.testing.assert_allclose([s for _, s in got], [s for s, _ in direct], atol=1e-5)
    # A vector term behaves like the word whose (unnormalised) vector it is, minus exclusion.
    by_vec = v.most_similar(positive=[raw[1] * 3, "w2"], negative=["w3"], topn=6)
    assert [w for w, _ in by_vec if w != "w1"][:5] == [w for w, _ in got]


def test_cosmul_matches_per_word_formula():
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(60)]
    raw = rng.standard_normal((60, 5))
    v = Vectors(words, raw)

    def cos(x, y):
        return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))

    a, b, c = 4, 9, 17  # "a : b :: c : ?"
    scores = []
    for i in range(60):
        if i in (a, b, c):
            continue
        num = (1 + cos(raw[i], raw[b])) / 2 * (1 + cos(raw[i], raw[c])) / 2
        den = (1 + cos(raw[i], raw[a])) / 2 + 1e-6
        scores.append((num / den, words[i]))
    scores.sort(reverse=True)
    got = v.most_similar_cosmul(positive=["w9", "w17"], negative=["w4"], topn=8)
    assert [w for w, _ in got] == [w for _, w in scores[:8]]
    np.testing.assert_allclose([s for _, s in got], [s for s, _ in scores[:8]], rtol=1e-5)
    assert v.analogy("w4", "w9", "w17", topn=8, method="3cosmul") == got


def test_analogy_answers_by_construction():
    v = concept_vectors()
    # man : king :: woman : queen, since king - man + woman = royal + female.
    for method in ("3cosadd", "3cosmul"):
        best, score = v.analogy("man", "king", "woman", topn=1, method=method)[0]
        assert best == "queen"
    assert v.analogy("man", "king", "woman", topn=1)[0][1] == pytest.approx(1.0, abs=1e-6)
    # The query words are never returned, even when one of them is nearest.
    got = [w for w, _ in v.most_similar(positive=["king"], topn=10)]
    assert "king" not in got and got[0] == "prince"
    with pytest.raises(ValueError, match="method"):
        v.analogy("man", "king", "woman", method="cos")


def test_similarity_distance_n_similarity_doesnt_match():
    v = angles_vectors()
    assert v.similarity("zero", "sixty") == pytest.approx(0.5, abs=1e-6)
    assert v.distance("zero", "sixty") == pytest.approx(0.5, abs=1e-6)
    assert v.similarity("zero", "oneeighty") == pytest.approx(-1.0, abs=1e-6)
    # Mean of unit vectors at 0 and 60 degrees points at 30 degrees.
    assert v.n_similarity(["zero", "sixty"], ["thirty"]) == pytest.approx(1.0, abs=1e-6)
    assert v.doesnt_match(["zero", "ten", "thirty", "oneeighty"]) == "oneeighty"
    c = concept_vectors()
    assert c.similarity("king", "zero") == 0.0  # zero vector: 0, not NaN


# ---------------------------------------------------------------------------- gensim


def test_gensim_round_trip_keeps_vectors_counts_and_answers():
    pytest.importorskip("gensim")
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)] + ["caf\udcc3"]  # a raw-byte (surrogateescape) token
    v = Vectors(words, rng.standard_normal((41, 6)), counts=np.arange(41, 0, -1))
    kv = v.to_gensim()
    assert kv.index_to_key == words
    np.testing.assert_array_equal(kv.vectors, v.vectors)
    assert kv.get_vecattr("w3", "count") == 38
    ours = v.most_similar(positive=["w1", "w2"], negative=["w5"], topn=5)
    theirs = kv.most_similar(positive=["w1", "w2"], negative=["w5"], topn=5)
    assert [w for w, _ in ours] == [w for w, _ in theirs]
    np.testing.assert_allclose([s for _, s in ours], [s for _, s in theirs], atol=1e-5)
    back = Vectors.from_gensim(kv)
    assert back.words == words
    np.testing.assert_array_equal(back.vectors, v.vectors)
    np.testing.assert_array_equal(back.counts, v.counts)
