"""Models and vectors saved by gensim 4 (made here with gensim): read without
running their code, the same vocabulary and weights, and training goes on."""

import os
import pickle

import numpy as np
import pytest

from wv_engine import FormatError
from wv_engine.cli import main
from wv_engine.gensim import KeyedVectors, Word2Vec

gensim_models = pytest.importorskip("gensim.models")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Planted topics: words of a topic share their sentences."""
    rng = np.random.default_rng(7)
    topics = [[f"t{t}w{w}" for w in range(8)] for t in range(5)]
    sentences = [[topics[t][i] for i in rng.integers(8, size=10)] for t in rng.integers(5, size=1500)]
    path = tmp_path_factory.mktemp("corpus") / "topics.txt"
    path.write_text("\n".join(" ".join(s) for s in sentences) + "\n")
    return topics, sentences, str(path)


def _topic_accuracy(wv, topics):
    hits = [w2 in topic for topic in topics for w in topic for w2, _ in wv.most_similar(w, topn=3)]
    return sum(hits) / len(hits)


@pytest.mark.parametrize("settings", [dict(sg=1, negative=5), dict(sg=0, hs=1, negative=0)], ids=["sg-ns", "cbow-hs"])
def test_a_gensim_model_loads_with_its_weights_and_trains_on(corpus, tmp_path, settings):
    topics, sentences, _ = corpus
    g = gensim_models.Word2Vec(sentences, vector_size=16, min_count=1, workers=1, epochs=3, seed=3, **settings)
    g.save(str(tmp_path / "g.model"))
    m = Word2Vec.load(str(tmp_path / "g.model"))
    assert m.wv.index_to_key == g.wv.index_to_key and m.corpus_count == g.corpus_count
    np.testing.assert_array_equal(m.wv.vectors, g.wv.vectors)
    if settings.get("hs"):
        np.testing.assert_array_equal(m.syn1[:-1], g.syn1[:len(g.wv) - 1])  # the tree kept or renumbered as ours
    else:
        np.testing.assert_array_equal(m.syn1neg, g.syn1neg)
    assert (m.sg, m.hs, m.window, m.epochs) == (g.sg, g.hs, g.window, g.epochs)
    before = m.wv.vectors.copy()
    m.train(sentences, total_examples=len(sentences), epochs=2)
    assert not np.array_equal(m.wv.vectors, before)
    assert _topic_accuracy(m.wv, topics) >= 0.9  # training went on from what gensim learned
    m.save(str(tmp_path / "ours.model"))  # and our own file keeps what it needs (an HS tree too)
    again = Word2Vec.load(str(tmp_path / "ours.model"))
    np.testing.assert_array_equal(again.wv.vectors, m.wv.vectors)
    again.train(sentences, total_examples=len(sentences), epochs=1)


def test_vectors_gensim_saved_load_from_either_file_and_arrays_stored_beside(corpus, tmp_path):
    _, sentences, _ = corpus
    g = gensim_models.Word2Vec(sentences, vector_size=8, min_count=1, workers=1, epochs=1)
    g.save(str(tmp_path / "sep.model"), sep_limit=0)  # every array in a .npy file of its own
    assert any(name.endswith(".npy") for name in os.listdir(tmp_path))
    g.wv.save(str(tmp_path / "g.kv"))
    for path in ("g.kv", "sep.model"):
        kv = KeyedVectors.load(str(tmp_path / path))
        assert kv.index_to_key == g.wv.index_to_key
        np.testing.assert_array_equal(kv.vectors, g.wv.vectors)
        assert kv.get_vecattr(kv.index_to_key[0], "count") == g.wv.get_vecattr(kv.index_to_key[0], "count")
    np.testing.assert_array_equal(Word2Vec.load(str(tmp_path / "sep.model")).syn1neg, g.syn1neg)


class _Planted:
    """A pickle that would create a file when unpickled by pickle.load."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_pickle_that_runs_code_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "evil.model").write_bytes(pickle.dumps(_Planted(str(marker))))
    for load in (Word2Vec.load, KeyedVectors.load):
        with pytest.raises(FormatError, match="is not something a gensim model holds"):
            load(str(tmp_path / "evil.model"))
    assert not marker.exists()
    damaged = {"cut": pickle.dumps({"a": 1})[:-3],
               "frame past any size": b"\x80\x04\x95" + (2**63 - 1).to_bytes(8, "little"),  # OverflowError
               "not a model": pickle.dumps([1, 2, 3])}
    for name, data in damaged.items():
        (tmp_path / "bad.model").write_bytes(data)
        for load in (Word2Vec.load, KeyedVectors.load):
            with pytest.raises(FormatError):
                load(str(tmp_path / "bad.model"))


def test_convert_writes_a_model_to_resume_and_vectors(corpus, tmp_path):
    _, sentences, path = corpus
    g = gensim_models.Word2Vec(sentences, vector_size=8, min_count=1, workers=1, epochs=2, sg=1)
    g.save(str(tmp_path / "g.model"))
    assert main(["convert", str(tmp_path / "g.model"), "-o", str(tmp_path / "ours.wv"), "--quiet"]) == 0
    from wv_engine import Word2Vec as Engine

    ours = Engine.load(str(tmp_path / "ours.wv"), threads=1)
    np.testing.assert_array_equal(ours.input_vectors, g.wv.vectors)
    assert ours.train(path, epochs=1, progress=False).epochs == 1
    assert main(["convert", str(tmp_path / "g.model"), "-o", str(tmp_path / "v.txt"), "--format", "txt",
                 "--quiet"]) == 0
    from wv_engine import load_vectors

    np.testing.assert_allclose(load_vectors(str(tmp_path / "v.txt")).vectors, g.wv.vectors, atol=1e-6)


@pytest.mark.parametrize("binary", [False, True])
def test_word2vec_format_with_its_vocabulary_file_keeps_the_counts_and_answers(tmp_path, binary):
    """save_word2vec_format(fvocab=) then load_word2vec_format(fvocab=), as
    gensim's persistence tests do: the counts are the file's, and the keys
    stay usable after they are set (the loaded rows' lazy keys were once lost
    with the query cache)."""
    model = Word2Vec([["a", "b", "c", "c"]] * 10, vector_size=4, min_count=1, seed=1, workers=1)
    path, vocab = str(tmp_path / "v.bin"), str(tmp_path / "vocab.txt")
    model.wv.save_word2vec_format(path, fvocab=vocab, binary=binary)
    back = KeyedVectors.load_word2vec_format(path, fvocab=vocab, binary=binary)
    assert back.index_to_key == model.wv.index_to_key and back.key_to_index == model.wv.key_to_index
    assert [back.get_vecattr(w, "count") for w in back.index_to_key] == [20, 10, 10]
    np.testing.assert_allclose(back.vectors, model.wv.vectors, atol=1e-6)
    assert [w for w, _ in back.most_similar("a")] == [w for w, _ in model.wv.most_similar("a")]
