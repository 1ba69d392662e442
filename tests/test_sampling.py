"""The alias sampler, Huffman codes and subsampling keep-probabilities."""

import numpy as np
import pytest
from scipy import stats

from wv_engine import Vocabulary, _word2vec


def implied_probabilities(threshold, alias):
    n = len(threshold)
    keep = threshold / 2.0**32
    p = keep / n
    np.add.at(p, alias, (1 - keep) / n)
    return p


def test_alias_table_encodes_the_distribution_exactly():
    w = np.random.default_rng(0).random(500) ** 4
    t, a = _word2vec.build_alias(w)
    np.testing.assert_allclose(implied_probabilities(t, a), w / w.sum(), atol=1e-9)


def test_alias_draws_follow_unigram_075_chi_square():
    counts = np.array([1000, 400, 300, 100, 50, 20, 10, 5, 2, 1], dtype=np.int64)
    vocab = Vocabulary([f"w{i}" for i in range(len(counts))], counts)
    t, a = vocab.noise_sampler(0.75)
    draws = _word2vec.sample_alias(t, a, 400_000, seed=7)
    observed = np.bincount(draws, minlength=len(counts))
    expected = counts**0.75 / (counts**0.75).sum() * len(draws)
    chi2, p = stats.chisquare(observed, expected)
    assert p > 1e-4, (observed, expected)
    # and a wrong exponent is detected by the same test
    wrong = counts / counts.sum() * len(draws)
    assert stats.chisquare(observed, wrong)[1] < 1e-10


def test_alias_rejects_bad_weights():
    for bad in ([0.0, 0.0], [1.0, -1.0], [1.0, np.nan], []):
        with pytest.raises(ValueError):
            _word2vec.build_alias(np.array(bad))


def test_huffman_matches_hand_built_word2vec_c_tree():
    # Worked by hand through word2vec.c's CreateBinaryTree for counts 5,4,3,2,1:
    # nodes 5=(4,3) 6=(5,2) 7=(1,0) 8=(6,7) root; second pick gets bit 1.
    lengths, codes, points = _word2vec.build_huffman(np.array([5, 4, 3, 2, 1]))
    expect_codes = [[1, 1], [1, 0], [0, 1], [0, 0, 1], [0, 0, 0]]
    expect_points = [[3, 2], [3, 2], [3, 1], [3, 1, 0], [3, 1, 0]]
    assert lengths.tolist() == [2, 2, 2, 3, 3]
    for w in range(5):
        n = lengths[w]
        assert codes[w, :n].tolist() == expect_codes[w]
        assert points[w, :n].tolist() == expect_points[w]


def test_huffman_is_optimal_and_prefix_free():
    counts = np.sort(np.random.default_rng(1).integers(1, 1000, 300))[::-1]
    lengths, codes, _ = _word2vec.build_huffman(counts)
    words = ["".join(map(str, codes[w, :lengths[w]])) for w in range(len(counts))]
    assert len(set(words)) == len(words)
    for a in words:  # no code is a prefix of another
        assert not any(b != a and b.startswith(a) for b in words)
    # the weighted length equals the optimum computed with a heap
    import heapq
    heap = list(counts.tolist())
    heapq.heapify(heap)
    optimum = 0
    while len(heap) > 1:
        x, y = heapq.heappop(heap), heapq.heappop(heap)
        optimum += x + y
        heapq.heappush(heap, x + y)
    assert int((lengths.astype(np.int64) * counts).sum()) == optimum


def test_huffman_rejects_unsorted_counts():
    with pytest.raises(ValueError, match="descending"):
        _word2vec.build_huffman(np.array([1, 2, 3]))


def test_keep_probability_is_word2vec_c_formula():
    counts = np.array([10_000, 1_000, 100, 10], dtype=np.int64)
    vocab = Vocabulary(["a", "b", "c", "d"], counts)
    t = 1e-3
    keep = vocab.keep_probabilities(t)
    total = counts.sum()
    for c, k in zip(counts, keep):
        f = c / total
        assert k == pytest.approx(min(1.0, np.sqrt(t / f) + t / f), rel=1e-6)
    assert np.all(vocab.keep_probabilities(0) == 1)
    with pytest.raises(ValueError):
        vocab.keep_probabilities(-1e-3)


def test_initial_rows_are_uniform_and_depend_only_on_seed_stream_and_row():
    from wv_engine import _word2vec

    dim = 50
    rows = _word2vec.uniform_rows(4000, dim, seed=7)
    assert rows.dtype == np.float32 and rows.shape == (4000, dim)
    assert rows.min() >= -0.5 / dim and rows.max() < 0.5 / dim
    # uniform: each tenth of the range holds about a tenth of the 200,000 draws
    share = np.histogram(rows, bins=10, range=(-0.5 / dim, 0.5 / dim))[0] / rows.size
    assert np.all(np.abs(share - 0.1) < 0.005)
    assert abs(np.corrcoef(rows[:, :-1].ravel(), rows[:, 1:].ravel())[0, 1]) < 0.01
    np.testing.assert_array_equal(_word2vec.uniform_rows(1000, dim, seed=7, first_row=3000), rows[3000:])
    assert not np.array_equal(_word2vec.uniform_rows(10, dim, seed=8), rows[:10])
    assert not np.array_equal(_word2vec.uniform_rows(10, dim, seed=7, stream=1), rows[:10])


def test_initial_rows_are_the_same_on_any_number_of_threads():
    one = _word2vec.uniform_rows(200_003, 4, seed=3, first_row=11)
    np.testing.assert_array_equal(_word2vec.uniform_rows(200_003, 4, seed=3, first_row=11, threads=3), one)
    with pytest.raises(ValueError, match="threads >= 1"):
        _word2vec.uniform_rows(10, 4, seed=3, threads=0)


def test_initial_rows_scale_with_the_range():
    """scale r draws the same uniforms stretched to [-r/dim, r/dim): 0.5 (the
    default, word2vec.c's) and 1.0 (gensim's) differ by exactly a factor 2."""
    half = _word2vec.uniform_rows(3000, 8, seed=4)
    one = _word2vec.uniform_rows(3000, 8, seed=4, scale=1.0)
    np.testing.assert_allclose(one, 2 * half, rtol=1e-6, atol=0)
    assert one.min() >= -1.0 / 8 and one.max() < 1.0 / 8 and np.abs(one).max() > 0.99 / 8
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="scale > 0"):
            _word2vec.uniform_rows(10, 4, seed=3, scale=bad)
