"""wv_engine.gensim's FastTextKeyedVectors on words outside the vocabulary,
as gensim 4.4 answers them: 3CosMul of an inferred vector, vectors_for_all
with and without inference, and the origin for a word without n-grams (a
supervised .bin: test_fasttext_files.py). Rankings are checked
against numpy on the vectors the model gives."""

import numpy as np
import pytest

from wv_engine.gensim.fasttext import FastText

SENTENCES = [["human", "interface", "computer", "nights", "night"], ["survey", "user", "computer", "system"],
             ["eps", "user", "interface", "system"], ["system", "human", "system", "eps"],
             ["user", "response", "time"], ["trees"], ["graph", "trees"], ["graph", "minors", "trees"],
             ["graph", "minors", "survey"]] * 20


@pytest.fixture(scope="module")
def model():
    return FastText(SENTENCES, vector_size=12, min_count=1, bucket=500, epochs=2, workers=1, seed=3)


def unit(v):
    return v / np.linalg.norm(v)


def test_cosmul_of_an_oov_word_ranks_the_vocabulary_by_its_inferred_vector(model):
    wv = model.wv
    assert not wv.has_index_for("nightly") and "nightly" in wv
    got = wv.most_similar_cosmul("nightly", topn=5)
    assert got == wv.most_similar_cosmul(positive=["nightly"], topn=5)
    # one positive term: 3CosMul's (1 + cos) / 2 orders the keys as the cosine does, none excluded
    cos = np.array([unit(wv.vectors[i]) @ unit(wv["nightly"]) for i in range(len(wv))])
    assert [k for k, _ in got] == [wv.index_to_key[i] for i in np.argsort(-cos, kind="stable")[:5]]
    assert len(wv.most_similar_cosmul(["night", "nightly"], topn=5)) == 5


def test_vectors_for_all_infers_oov_words_only_when_allowed(model):
    wv = model.wv
    words = ["graph", "trees", "an oov word", "graph"]
    strict = wv.vectors_for_all(words, allow_inference=False)
    assert strict.index_to_key == ["graph", "trees"]
    assert np.allclose(strict["graph"], wv["graph"])
    inferred = wv.vectors_for_all(words)
    assert inferred.index_to_key == ["graph", "trees", "an oov word"]
    assert np.allclose(inferred["an oov word"], wv["an oov word"])


def test_a_word_without_ngrams_is_the_origin_unless_there_are_no_buckets(model):
    v = model.wv[""]  # "<>" is shorter than min_n: no n-grams, as fastText and gensim give zeros
    assert v.shape == (12,) and not v.any()
    plain = FastText(SENTENCES, vector_size=12, min_count=1, max_n=0, epochs=1, workers=1)
    assert plain.wv.bucket == 0
    with pytest.raises(KeyError, match="without ngrams"):
        plain.wv["nightly"]
