"""FastText: fastText's hash and n-grams against hand computations, the
subword step against a numerical gradient, a planted morphology that unseen
words must recover, reproducibility, save/resume and the refusals."""

import numpy as np
import pytest

from wv_engine import FastText, FormatError, Word2Vec
from wv_engine import _subwords
from wv_engine.evaluate import evaluate_word_pairs
from wv_engine.fasttext import SubwordVectors, ngram_rows


def test_the_hash_is_fnv1a_with_fastTexts_signed_bytes(truth):
    assert _subwords.fasttext_hash(b"") == 2166136261
    assert _subwords.fasttext_hash(b"a") == 0xE40C292C  # the published FNV-1a 32-bit vectors
    assert _subwords.fasttext_hash(b"foobar") == 0xBF9CF968
    # a byte >= 0x80 enters as 0xFFFFFFxx, not 0x000000xx: differs from plain FNV-1a
    e_acute = "é".encode()
    expected = truth.fnv1a(e_acute)
    plain = 2166136261
    for b in e_acute:
        plain = ((plain ^ b) * 16777619) & 0xFFFFFFFF
    assert _subwords.fasttext_hash(e_acute) == expected != plain


@pytest.mark.parametrize("word", ["where", "a", "naïve", "日本語", "Straße", "x"])
@pytest.mark.parametrize("minn,maxn", [(3, 6), (1, 2), (2, 4)])
def test_ngram_rows_are_fastTexts_characters_hashed_modulo_bucket(word, minn, maxn, truth):
    bucket = 1000
    expected = [truth.fnv1a(g) % bucket for g in truth.ngrams(word, minn, maxn)]
    assert list(ngram_rows(word, minn, maxn, bucket)) == expected
    assert len(expected) > 0 or len(word) + 2 < minn


def test_words_without_ngrams():
    assert len(ngram_rows("</s>", 3, 6, 100)) == 0  # fastText's end of line has none
    assert len(ngram_rows("", 3, 6, 100)) == 0  # "<>" is shorter than minn
    assert len(ngram_rows("word", 3, 6, 0)) == 0 and len(ngram_rows("word", 3, 0, 100)) == 0
    table_offsets, table_rows = _subwords.subword_table(["</s>", "ab"], 3, 4, 10)
    assert list(table_offsets) == [0, 1, 1 + 1 + 3]  # "</s>": its own row only; "ab": itself + <ab, ab>, <ab>
    assert table_rows[0] == 0 and table_rows[1] == 1 and min(table_rows[2:]) >= 2


def small(**kw):
    cfg = dict(dim=24, min_count=1, bucket=5000, threads=1, epochs=3, sample=0, seed=3, window=3)
    cfg.update(kw)
    return FastText(**cfg)


# full softmax over the vocabulary is the slow one; its kernels' other tests are short
@pytest.mark.parametrize("loss", ["ns", "hs", pytest.param("softmax", marks=pytest.mark.heavy_under_sanitizers)])
@pytest.mark.parametrize("arch", ["skipgram", "cbow"])
def test_unseen_words_land_with_their_family(arch, loss, truth):
    fams, lines = truth.morphology()
    model = small(arch=arch, loss=loss).fit(lines, progress=False)
    v = model.vectors
    assert isinstance(v, SubwordVectors) and "luminish" not in v
    for fam, other in (("alpha", "beta"), ("beta", "alpha")):
        unseen = fams[fam][0] + "ish"  # a suffix never seen, on a family's stem
        near = [w for w, _ in v.most_similar(unseen, topn=5)]
        assert all(any(w.startswith(s) for s in fams[fam]) for w in near), (unseen, near)
        assert v.similarity(unseen, fams[fam][1] + "ing") > v.similarity(unseen, fams[other][1] + "ing")


def test_most_similar_of_a_known_word_is_the_plain_vectors_answer(truth):
    """A vocabulary word's neighbours are those of the same rows as plain
    Vectors (SubwordVectors once mistook its row number for a word)."""
    from wv_engine.vectors import Vectors

    _, lines = truth.morphology()
    v = small().fit(lines, progress=False).vectors
    word = v.words[3]
    plain = Vectors(v.words, v.vectors)
    got, expected = v.most_similar(word, topn=5), plain.most_similar(word, topn=5)
    assert [w for w, _ in got] == [w for w, _ in expected]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-5)


def test_vectors_are_means_of_word_and_ngram_rows(truth):
    _, lines = truth.morphology(sentences=300)
    model = small(epochs=1).fit(lines, progress=False)
    V = len(model.vocab)
    assert model.input_vectors.shape == (V + 5000, 24)
    word = model.vocab.words[4]
    rows = [4] + [V + r for r in ngram_rows(word, 3, 6, 5000)]
    np.testing.assert_allclose(model.vectors[word], model.input_vectors[rows].mean(axis=0), rtol=1e-5, atol=1e-7)
    unseen = "radiatish"
    grams = ngram_rows(unseen, 3, 6, 5000)
    np.testing.assert_allclose(model.vectors[unseen], model.ngram_vectors[grams].mean(axis=0), rtol=1e-5)
    assert not model.vectors.has_vector("")
    assert not model.vectors[""].any() and model.vectors.similarity("", word) == 0.0


def trained_with_random_outputs(truth, seed):
    """A small NS model (3 negatives) trained one epoch, its output rows then
    random (so that a step's gradients are far from zero), its core and V."""
    _, lines = truth.morphology(sentences=200)
    model = small(epochs=1, negative=3).fit(lines, progress=False)
    rng = np.random.default_rng(seed)
    model.output_vectors[...] = rng.normal(0, 0.3, model.output_vectors.shape).astype(np.float32)
    return model, model._make_core(), len(model.vocab)


def test_a_step_moves_every_row_by_the_gradient_of_the_mean(truth):
    """Each of a word's rows gets alpha times the gradient of the log-likelihood
    with respect to their mean, taken here by finite differences in float64."""
    model, core, V = trained_with_random_outputs(truth, seed=1)
    rows = np.array([2, V + 7, V + 99, V + 7], dtype=np.int32)  # a repeated row gets the gradient twice
    target, negatives, alpha = 5, [1, 3, 8], 0.1
    out_before = model.output_vectors.copy()

    def loglik(x):
        o = out_before.astype(np.float64)
        sig = lambda z: 1.0 / (1.0 + np.exp(-z))  # noqa: E731
        return np.log(sig(x @ o[target])) + sum(np.log(sig(-(x @ o[n]))) for n in negatives)

    truth.check_subword_step(model, rows, loglik, lambda: core.subword_step(rows, target, negatives, alpha), alpha,
                             rtol=0.05)
    assert not np.array_equal(model.output_vectors[target], out_before[target])


def test_a_skipgram_window_over_positions_follows_each_contexts_gradient(truth):
    """Skip-gram with shared negatives: each context word's mean predicts the
    centre word against one negative set. Each of a context's rows moves by
    alpha x the gradient of that context's log-likelihood at its mean (finite
    differences, float64; a row in two contexts gets both), each output row
    by alpha x the gradient with respect to it, a negative equal to the
    centre word is skipped, and nothing else moves."""
    model, core, V = trained_with_random_outputs(truth, seed=2)
    contexts = [[2, V + 7, V + 99], [4, V + 7], [6]]
    target, negatives, alpha = 5, [1, 5, 8], 0.1
    inp, out = model.input_vectors.astype(np.float64), model.output_vectors.astype(np.float64)
    sig = lambda z: 1.0 / (1.0 + np.exp(-z))  # noqa: E731
    terms = [(target, 1.0)] + [(n, 0.0) for n in negatives if n != target]

    def loglik(x):
        return sum(np.log(sig(x @ out[n] if label else -(x @ out[n]))) for n, label in terms)

    want_in, want_out, want_loss, eps = np.zeros_like(inp), np.zeros_like(out), 0.0, 1e-5
    for rows in contexts:
        h = inp[rows].mean(axis=0)
        grad = np.array([(loglik(h + eps * e) - loglik(h - eps * e)) / (2 * eps) for e in np.eye(len(h))])
        for r in rows:
            want_in[r] += alpha * grad
        for n, label in terms:
            want_out[n] += alpha * (label - sig(h @ out[n])) * h
        want_loss -= loglik(h)
    loss = core.subword_window_step(contexts, target, negatives, alpha)
    assert loss == pytest.approx(want_loss, rel=1e-2)
    assert np.abs(want_in).max() > 1e-3 and np.abs(want_out).max() > 1e-3  # not a vacuous comparison
    np.testing.assert_allclose(model.input_vectors - inp, want_in, rtol=0.05, atol=2e-4)
    np.testing.assert_allclose(model.output_vectors - out, want_out, rtol=0.05, atol=2e-4)
    with pytest.raises(ValueError, match="at least one row"):
        core.subword_window_step([[2], []], target, negatives, alpha)


@pytest.mark.parametrize("arch,loss,shared", [("skipgram", "ns", None), ("skipgram", "ns", False), ("cbow", "ns", None),
                                              ("cbow", "hs", None), ("skipgram", "hs", None),
                                              ("skipgram", "softmax", None)])
def test_seeded_one_thread_runs_are_identical_and_resume_exactly(tmp_path, truth, arch, loss, shared):
    _, lines = truth.morphology(sentences=600)
    cfg = dict(epochs=2, arch=arch, loss=loss, shared_negatives=shared)
    a = small(**cfg).fit(lines, progress=False)
    b = small(**cfg).fit(lines, progress=False)
    np.testing.assert_array_equal(a.input_vectors, b.input_vectors)
    path = tmp_path / "ft.wv"

    def save_after_first(model, es):
        if es.epoch == 0:
            model.save(path)

    small(**cfg).fit(lines, progress=False, callbacks=[save_after_first])
    resumed = FastText.load(path)
    assert resumed.config() == a.config() and resumed.unfinished_epochs == 1
    resumed.train(lines, progress=False)
    np.testing.assert_array_equal(resumed.input_vectors, a.input_vectors)
    np.testing.assert_array_equal(resumed.output_vectors, a.output_vectors)
    np.testing.assert_array_equal(resumed.vectors["stemless"], a.vectors["stemless"])
    with pytest.raises(FormatError):  # a saved FastText is not a saved Word2Vec, nor the reverse
        Word2Vec.load(path)


def test_maxn_zero_trains_plain_word2vec(truth):
    _, lines = truth.morphology(sentences=300)
    model = small(maxn=0, epochs=1).fit(lines, progress=False)
    assert model.input_vectors.shape == (len(model.vocab), 24)
    assert model.vectors.vectors is model.input_vectors
    assert not model.vectors["unseenword"].any()


@pytest.mark.parametrize("kw,message", [
    (dict(minn=5, maxn=3), "minn"),
    (dict(bucket=0), "bucket"),
    (dict(loss="ova"), "loss"),
    (dict(minn=-1), "minn"),
    (dict(bucket=2**31), "bucket"),
])
def test_bad_settings_are_refused(kw, message):
    with pytest.raises(ValueError, match=message):
        small(**kw)


def test_an_ngram_matrix_that_cannot_fit_names_bucket():
    with pytest.raises(MemoryError, match="bucket"):
        small(bucket=2**31 - 1, dim=100_000).build_vocab([["a", "b"]])


def test_the_memory_estimate_holds_the_ngram_rows():
    from wv_engine import Word2Vec

    m = small(bucket=50_000, dim=20).build_vocab([["alpha", "beta", "gamma"]] * 10)
    est = m.memory_needed(m.vocab)
    assert est["ngram_rows"] == 50_000 * 20 * 4 == m.input_vectors[len(m.vocab):].nbytes
    assert est["total"] == Word2Vec.memory_needed(m, m.vocab)["total"] + est["ngram_rows"]
    # each thread keeps two rows a sentence position (their sums and pending gradients) in CBOW and
    # skip-gram NS: the estimate holds them, where plain word2vec's threads keep none
    for arch in ("cbow", "skipgram"):
        ft = small(arch=arch, dim=20, threads=2, max_sentence_length=500)
        w2v = Word2Vec(arch=arch, dim=20, window=ft.window, threads=2, max_sentence_length=500,
                       shared_negatives=ft.shared_negatives)
        ft_threads = ft.memory_needed(m.vocab)["training_threads"]
        assert ft_threads - w2v.memory_needed(m.vocab)["training_threads"] >= 2 * (2 * 500 * 20 * 4)


def test_word_pairs_with_unseen_words_are_all_scored(tmp_path, truth):
    _, lines = truth.morphology(sentences=1500)
    v = small().fit(lines, progress=False).vectors
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("luminish\tluminer\t9\nluminish\tgrumbling\t1\nmutterish\tmurmurs\t8\n"
                     "sparkling\tgrumbler\t2\n")
    result = evaluate_word_pairs(v, pairs)
    assert result["oov"] == 0 and result["pairs"] == 4
    assert result["spearman"] > 0.5
