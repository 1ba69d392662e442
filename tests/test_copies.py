"""copy.deepcopy, pickle and multiprocessing of models and vectors: through
their native files, a copy holds what a saved model holds, trains on, and
shares nothing with the original."""

import copy
import multiprocessing
import operator
import pickle
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from wv_engine import GloVe, Word2Vec
from wv_engine import gensim as layer


@pytest.fixture(scope="module")
def sentences():
    rng = np.random.default_rng(4)
    return [[f"w{i}" for i in rng.integers(30, size=12)] for _ in range(300)]


def _copies(obj):
    return copy.deepcopy(obj), pickle.loads(pickle.dumps(obj))


def test_a_word2vec_copy_is_the_saved_model_and_trains_on_its_own(sentences):
    model = Word2Vec(dim=8, epochs=2, min_count=1, threads=1, seed=2).fit(sentences, progress=False)
    for c in _copies(model):
        assert c.config() == model.config() and c.vocab.words == model.vocab.words
        np.testing.assert_array_equal(c.input_vectors, model.input_vectors)
        np.testing.assert_array_equal(c.output_vectors, model.output_vectors)
        assert [e.loss for e in c.history] == [e.loss for e in model.history]
        assert c.schedule_state == model.schedule_state
        c.train(sentences, epochs=1, progress=False)
        assert not np.array_equal(c.input_vectors, model.input_vectors)  # the original is untouched
    fresh = pickle.loads(pickle.dumps(Word2Vec(dim=7, arch="cbow", loss="hs")))
    assert (fresh.dim, fresh.arch, fresh.loss, fresh.vocab) == (7, "cbow", "hs", None)


def test_a_glove_copy_is_its_checkpoint(sentences):
    model = GloVe(dim=4, window=3, epochs=2, min_count=1, threads=1).fit(sentences, progress=False)
    for c in _copies(model):
        assert c.epochs_trained == 2 and c.vocab.words == model.vocab.words
        np.testing.assert_array_equal(c.vectors.vectors, model.vectors.vectors)
    assert pickle.loads(pickle.dumps(GloVe(dim=5, x_max=10))).x_max == 10


def test_the_gensim_layer_copies_as_gensim_users_expect(sentences):
    model = layer.Word2Vec(sentences, vector_size=8, min_count=1, workers=1, epochs=2)
    for c in _copies(model):
        np.testing.assert_array_equal(c.wv.vectors, model.wv.vectors)
        assert c.corpus_count == model.corpus_count and c.get_latest_training_loss() == model.get_latest_training_loss()
        assert c.wv.most_similar("w3", topn=3) == model.wv.most_similar("w3", topn=3)
    for c in _copies(model.wv):
        np.testing.assert_array_equal(c.vectors, model.wv.vectors)
        assert c.index_to_key == model.wv.index_to_key
    fresh = pickle.loads(pickle.dumps(layer.Word2Vec(vector_size=9, sg=1, hs=1, negative=0)))
    assert (fresh.vector_size, fresh.sg, fresh.hs) == (9, 1, 1)


def test_a_model_goes_to_another_process(sentences):
    """Sent to a fresh process and its vectors sent back (the function the
    child runs must be importable there: the test modules are not)."""
    model = layer.Word2Vec(sentences, vector_size=8, min_count=1, workers=1, epochs=1)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:  # a child that fails raises, never hangs
        back = pool.submit(operator.attrgetter("wv"), model).result(timeout=120)
    assert back.most_similar("w3", topn=3) == model.wv.most_similar("w3", topn=3)
