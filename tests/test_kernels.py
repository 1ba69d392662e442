"""One training step of each loss against an independent float64 reference:
the analytic gradient, itself checked against a numerical gradient."""

import numpy as np
import pytest

from wv_engine import Vocabulary, _word2vec


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def make_core(loss, V=6, dim=5, seed=0, counts=None):
    rng = np.random.default_rng(seed)
    scale = 0.4 * np.sqrt(5 / dim)  # dot products of the same size at any dim
    inp = (rng.standard_normal((V, dim)) * scale).astype(np.float32)
    rows = V
    out = (rng.standard_normal((rows, dim)) * scale).astype(np.float32)
    counts = np.array(counts if counts is not None else sorted(rng.integers(1, 50, V))[::-1])
    vocab = Vocabulary([f"w{i}" for i in range(V)], counts)
    core = _word2vec.Word2VecCore(
        arch="skipgram", loss=loss, dim=dim, window=2, negative=3, max_sentence_length=100,
        cbow_mean=True, shrink_windows=True, seed=1, input_vectors=inp, output_vectors=out,
        keep_prob=np.ones(V, np.float32), noise=vocab.noise_sampler() if loss == "ns" else None,
        huffman=vocab.huffman() if loss == "hs" else None)
    return core, inp, out, vocab


def numerical_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def ns_loss(h, out, target, negs):
    return -np.log(sigmoid(h @ out[target])) - sum(np.log(sigmoid(-(h @ out[j]))) for j in negs)


# dim 45 = 32 + 8 + 4 + 1 runs every block size of the vector kernels
@pytest.mark.parametrize("dim", [5, 45])
def test_ns_step_matches_gradient(dim):
    core, inp, out, _ = make_core("ns", dim=dim)
    h = inp[2].copy()
    target, negs, alpha = 1, [0, 3, 5], 0.1
    before = out.astype(np.float64)
    h64 = h.astype(np.float64)
    loss, neu1e = core.step(h, target, negs, alpha)
    grad_h = numerical_grad(lambda x: ns_loss(x, before, target, negs), h64)
    grad_out = numerical_grad(lambda o: ns_loss(h64, o, target, negs), before)
    # sigmoid-table resolution: bins of 0.012, so about 3e-3 per sigmoid
    tol = alpha * 4 * 3e-3 * np.abs(before).max()
    np.testing.assert_allclose(neu1e, -alpha * grad_h, atol=tol)
    np.testing.assert_allclose(out - before, -alpha * grad_out, atol=alpha * 3e-3 * np.abs(h).max() + 1e-7)
    assert loss == pytest.approx(ns_loss(h64, before, target, negs), abs=0.05)
    # rows that took no part are untouched
    assert np.array_equal(out[[2, 4]], before[[2, 4]].astype(np.float32))


def test_ns_skips_a_negative_equal_to_the_target():
    core, inp, out, _ = make_core("ns")
    h = inp[0].copy()
    before = out.copy()
    _, e_dup = core.step(h, 1, [1, 1, 2], 0.1)
    out[:] = before
    _, e_one = core.step(h, 1, [2], 0.1)
    np.testing.assert_array_equal(e_dup, e_one)


def test_a_negative_drawn_twice_is_trained_twice_in_turn():
    """As word2vec.c: the second draw's dot product sees the first draw's
    change to that row (float64 reference with the exact sigmoid)."""
    core, inp, out, _ = make_core("ns", dim=45)
    h, alpha = inp[2].copy(), 0.5
    h64 = h.astype(np.float64)

    def reference(in_turn):
        rows, e = out.astype(np.float64), np.zeros(45)
        old = rows.copy()
        for word, label in [(1, 1.0), (3, 0.0), (3, 0.0), (4, 0.0)]:
            seen = rows[word] if in_turn else old[word]
            g = (label - sigmoid(h64 @ seen)) * alpha
            e += g * seen
            rows[word] += g * h64
        return rows, e

    rows, e = reference(in_turn=True)
    _, e_batched = reference(in_turn=False)  # both draws from the old row: what must not happen
    tol_e, tol_rows = alpha * 4 * 3e-3 * np.abs(rows).max(), alpha * 2 * 3e-3 * np.abs(h).max() + 1e-7
    assert np.abs(e_batched - e).max() > 3 * tol_e
    _, neu1e = core.step(h, 1, [3, 3, 4], alpha)
    np.testing.assert_allclose(neu1e, e, atol=tol_e)
    np.testing.assert_allclose(out, rows, atol=tol_rows)


def test_ns_saturates_outside_the_table_like_word2vec_c():
    core, inp, out, _ = make_core("ns", dim=2)
    out[1] = [10.0, 0.0]
    h = np.array([1.0, 0.0], np.float32)  # f = 10 > 6: positive gradient is (1 - 1) = 0
    _, e = core.step(h, 1, [], 0.5)
    np.testing.assert_array_equal(e, 0)
    out[3] = [10.0, 0.0]  # a negative with f = 10: gradient -(1) * alpha, full step
    _, e = core.step(h, 1, [3], 0.5)
    np.testing.assert_allclose(e, -0.5 * np.array([10.0, 0.0]), rtol=1e-6)


def hs_loss(h, out, lengths, codes, points, target):
    total = 0.0
    for d in range(lengths[target]):
        f = h @ out[points[target, d]]
        total -= np.log(sigmoid(-f if codes[target, d] else f))
    return total


@pytest.mark.parametrize("dim", [5, 45])
def test_hs_step_matches_gradient(dim):
    core, inp, out, vocab = make_core("hs", V=7, dim=dim, counts=[40, 30, 20, 10, 5, 3, 1])
    lengths, codes, points = vocab.huffman()
    h = inp[3].copy()
    before = out.astype(np.float64)
    h64 = h.astype(np.float64)
    target, alpha = 6, 0.2
    loss, neu1e = core.step(h, target, None, alpha)
    f = lambda x: hs_loss(x, before, lengths, codes, points, target)
    grad_h = numerical_grad(f, h64)
    grad_out = numerical_grad(lambda o: hs_loss(h64, o, lengths, codes, points, target), before)
    tol = alpha * lengths[target] * 3e-3 * np.abs(before).max()
    np.testing.assert_allclose(neu1e, -alpha * grad_h, atol=tol)
    np.testing.assert_allclose(out - before, -alpha * grad_out, atol=alpha * 3e-3 * np.abs(h).max() + 1e-7)
    assert loss == pytest.approx(f(h64), abs=0.05)


def test_softmax_step_is_exact():
    core, inp, out, _ = make_core("softmax", V=8)
    h = inp[1].copy()
    before = out.astype(np.float64)
    h64 = h.astype(np.float64)
    target, alpha = 4, 0.3

    def loss_fn(o, x=h64):
        s = o @ x
        return -(s[target] - np.log(np.exp(s).sum()))

    loss, neu1e = core.step(h, target, None, alpha)
    np.testing.assert_allclose(neu1e, -alpha * numerical_grad(lambda x: loss_fn(before, x), h64), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out - before, -alpha * numerical_grad(loss_fn, before), rtol=1e-4, atol=1e-6)
    assert loss == pytest.approx(loss_fn(before), rel=1e-5)


def test_core_checks_shapes_once():
    V, dim = 4, 3
    vocab = Vocabulary(list("abcd"), [4, 3, 2, 1])
    good = dict(arch="skipgram", loss="ns", dim=dim, window=2, negative=2, max_sentence_length=10,
                cbow_mean=True, shrink_windows=True, seed=1,
                input_vectors=np.zeros((V, dim), np.float32), output_vectors=np.zeros((V, dim), np.float32),
                keep_prob=np.ones(V, np.float32), noise=vocab.noise_sampler())
    core = _word2vec.Word2VecCore(**good)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        core.set_corpus(np.array([0, 1, 4], np.int32), 3, 0.025, 0.0)
    with pytest.raises(ValueError):
        _word2vec.Word2VecCore(**{**good, "output_vectors": np.zeros((V, dim + 1), np.float32)})
    with pytest.raises(ValueError):
        _word2vec.Word2VecCore(**{**good, "keep_prob": np.ones(V + 1, np.float32)})


def test_shared_negatives_window_matches_the_batched_gradient():
    core, inp, out, _ = make_core("ns", V=8, dim=5)  # negative=3
    ctx, target, negs, alpha = [0, 2, 5], 1, [3, 6, 1], 0.1  # the last negative equals the target: skipped
    I0, O0 = inp.astype(np.float64), out.astype(np.float64)
    loss = core.window_step(ctx, target, negs, alpha)
    rows = [target] + negs
    labels = np.array([1.0, 0.0, 0.0, np.nan])
    S = I0[ctx] @ O0[rows].T
    G = np.where(np.isnan(labels), 0.0, (np.nan_to_num(labels) - sigmoid(S)) * alpha)
    dI = G @ O0[rows]
    dO = G.T @ I0[ctx]
    expect_in, expect_out = I0.copy(), O0.copy()
    np.add.at(expect_in, ctx, dI)
    np.add.at(expect_out, rows, dO)
    tol = alpha * 3e-3 * 4 * max(np.abs(O0).max(), np.abs(I0).max())
    np.testing.assert_allclose(inp, expect_in, atol=tol)
    np.testing.assert_allclose(out, expect_out, atol=tol)
    ll = -(np.log(sigmoid(S[:, 0])).sum() + np.log(sigmoid(-S[:, 1:3])).sum())
    assert loss == pytest.approx(ll, abs=0.05)
