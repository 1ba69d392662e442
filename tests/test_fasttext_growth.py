"""FastText.add_vocab and gensim's build_vocab(update=True) on it: new words
get rows of their own, every row follows its word, the n-gram rows stay, and
each word's rows are its own row and its n-grams' (by hand) in the grown
matrix."""

import numpy as np
import pytest

from wv_engine import FastText
from wv_engine.gensim.models import FastText as GensimFastText

NEW_LINES = [["zyxonic", "quaver", "muttered", "quaver"]] * 40  # two new words, one known


def grown(loss, arch, truth):
    _, lines = truth.morphology(sentences=300)
    model = FastText(loss=loss, arch=arch, dim=16, min_count=2, bucket=4000, threads=1, epochs=1, sample=0,
                     seed=5).fit(lines, progress=False)
    return model, lines


def rows_by_hand(model, word, truth):
    V = len(model.vocab)
    return [model.vocab.index[word]] + [V + truth.fnv1a(g) % model.bucket for g in truth.ngrams(word, 3, 6)]


@pytest.mark.parametrize("loss,arch", [("ns", "skipgram"), ("hs", "cbow"), ("hs", "skipgram")])
def test_new_words_join_with_their_own_rows_and_the_ngram_rows_stay(loss, arch, truth):
    model, lines = grown(loss, arch, truth)
    old_words = list(model.vocab.words)
    V0 = len(old_words)
    assert "muttered" in model.vocab and "zyxonic" not in model.vocab
    before = {w: model.vectors[w].copy() for w in old_words[:20] + ["zyxonic"]}
    own_rows = {w: model.input_vectors[model.vocab.index[w]].copy() for w in old_words}
    ngrams = model.ngram_vectors.copy()
    out_rows = {w: model.output_vectors[model.vocab.index[w]].copy() for w in old_words}

    model.add_vocab(NEW_LINES, progress=False)
    V = len(model.vocab)
    assert V == V0 + 2 and {"zyxonic", "quaver"} <= set(model.vocab.words)
    assert model.input_vectors.shape == (V + 4000, 16)
    np.testing.assert_array_equal(model.ngram_vectors, ngrams)
    for w in old_words:
        np.testing.assert_array_equal(model.input_vectors[model.vocab.index[w]], own_rows[w])
        if loss == "ns":  # an NS output row is its word's; HS's are the tree's nodes
            np.testing.assert_array_equal(model.output_vectors[model.vocab.index[w]], out_rows[w])
    for w in old_words[:20]:  # their means, from the rebuilt table, are what they were
        np.testing.assert_allclose(model.vectors[w], before[w], rtol=1e-6, atol=1e-7)
    for w in ("zyxonic", "quaver"):
        row = model.input_vectors[model.vocab.index[w]]
        assert row.any() and np.abs(row).max() <= 1 / 16
        np.testing.assert_allclose(model.vectors[w], model.input_vectors[rows_by_hand(model, w, truth)].mean(axis=0),
                                   rtol=1e-5, atol=1e-7)
    # an unseen word's vector was its n-grams' mean; as a word it has a row of its own too
    assert not np.allclose(model.vectors["zyxonic"], before["zyxonic"])
    offsets, table = model.subword_table()
    i = model.vocab.index["quaver"]
    assert list(table[offsets[i]:offsets[i + 1]]) == rows_by_hand(model, "quaver", truth)

    fresh = model.input_vectors[model.vocab.index["zyxonic"]].copy()
    trained_ngrams = model.ngram_vectors.copy()
    model.train(NEW_LINES, epochs=1, progress=False)
    assert not np.array_equal(model.input_vectors[model.vocab.index["zyxonic"]], fresh)
    assert not np.array_equal(model.ngram_vectors, trained_ngrams)
    model.train(lines, epochs=1, progress=False)  # the old corpus trains on too


def test_growth_needs_a_vocabulary_and_a_failed_growth_leaves_the_model_whole(truth):
    with pytest.raises(RuntimeError, match="build_vocab"):
        FastText(dim=8, bucket=100).add_vocab(NEW_LINES)
    model, _ = grown("ns", "skipgram", truth)
    inp = model.input_vectors
    with pytest.raises(ValueError, match="corpus or a vocabulary"):
        model.add_vocab()
    assert model.input_vectors is inp


@pytest.mark.parametrize("hs", [0, 1])
def test_gensim_build_vocab_update_grows_a_fasttext(hs, truth):
    _, lines = truth.morphology(sentences=300)
    model = GensimFastText(lines, vector_size=16, min_count=2, bucket=4000, workers=1, epochs=1, hs=hs,
                           negative=0 if hs else 5, seed=2)
    known = model.wv.index_to_key[7]
    before = model.wv[known].copy()
    ngrams = model.wv.vectors_ngrams.copy()
    model.build_vocab(NEW_LINES, update=True)
    assert model.wv.has_index_for("zyxonic") and len(model.wv) == len(model.wv.vectors)
    np.testing.assert_allclose(model.wv[known], before, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(model.wv.vectors_ngrams, ngrams)
    model.train(NEW_LINES, total_examples=len(NEW_LINES), epochs=1)
    assert not np.array_equal(model.wv.vectors_ngrams, ngrams)
    if hs:
        assert len(model.wv.get_vecattr("zyxonic", "code")) > 0
