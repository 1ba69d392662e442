"""The gensim Doc2Vec drop-in (wv_engine.gensim.Doc2Vec): gensim's names and
paths, tags keyed as gensim keys them, inference, word2vec-format export,
saving and pickling. gensim's own test_doc2vec.py runs through
tests/gensim_compat/run.py."""

import copy
import pickle

import numpy as np
import pytest

from wv_engine import load_vectors
from wv_engine.gensim import Doc2Vec, TaggedDocument, TaggedLineDocument
from wv_engine.gensim.models.doc2vec import Doc2Vec as ModelsDoc2Vec


def _docs(n=300, seed=0):
    rng = np.random.default_rng(seed)
    topics = [[f"t{t}w{w}" for w in range(20)] for t in range(4)]
    labels = rng.integers(4, size=n)
    return [TaggedDocument([topics[t][i] for i in rng.integers(20, size=25)], [d, f"s{d}"])
            for d, t in enumerate(labels)], labels


def test_the_drop_in_keeps_int_and_str_tags_and_finds_the_topics(tmp_path):
    docs, labels = _docs()
    model = Doc2Vec(docs, vector_size=16, min_count=1, epochs=15, workers=2, dm=0)
    assert ModelsDoc2Vec is Doc2Vec and model.corpus_count == 300
    assert model.dv.index_to_key[:3] == [0, "s0", 1] and model.dv[5].shape == (16,)
    assert np.array_equal(model.dv[5], model.dv.vectors[model.dv.get_index(5)])
    near = [k for k, _ in model.dv.most_similar(0, topn=10) if isinstance(k, int)]
    assert near and np.mean([labels[k] == labels[0] for k in near]) >= 0.8
    v = model.infer_vector(docs[3].words)
    assert v.shape == (16,) and np.array_equal(v, model.engine.infer_vector(docs[3].words))
    same = model.similarity_unseen_docs(docs[0].words, docs[0].words)
    assert same == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(TypeError, match="list of strings"):
        model.infer_vector("a str")
    with pytest.raises(KeyError):
        model["no such tag"]


def test_save_word2vec_format_writes_words_and_tags_with_the_prefix(tmp_path):
    docs, _ = _docs(50)
    model = Doc2Vec(docs, vector_size=8, min_count=1, epochs=2, workers=1)
    path = tmp_path / "all.txt"
    model.save_word2vec_format(path, doctag_vec=True, word_vec=True, prefix="*dt_")
    vectors = load_vectors(path)
    assert len(vectors) == len(model.wv) + len(model.dv) and "*dt_0" in vectors and "*dt_s0" in vectors
    assert np.allclose(vectors["*dt_3"], model.dv[3], atol=1e-6)


def test_a_saved_or_pickled_model_keeps_its_tags_and_trains_on(tmp_path):
    docs, _ = _docs(80)
    model = Doc2Vec(docs, vector_size=8, min_count=1, epochs=2, workers=1)
    model.save(tmp_path / "m")
    back = Doc2Vec.load(tmp_path / "m")
    assert back.dv.index_to_key == model.dv.index_to_key and np.array_equal(back.dv.vectors, model.dv.vectors)
    back.train(docs, total_examples=back.corpus_count, epochs=1)
    for again in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert again.dv.index_to_key == model.dv.index_to_key and np.array_equal(again.dv[7], model.dv[7])
    with pytest.raises(AttributeError):
        model.load(tmp_path / "m")  # gensim's load is called on the class
    assert isinstance(pickle.loads(pickle.dumps(Doc2Vec(vector_size=4))), Doc2Vec)  # nothing trained yet


def test_a_line_document_file_and_corpus_file_tag_lines_by_number(tmp_path):
    path = tmp_path / "docs.txt"
    path.write_text("".join(" ".join(d.words) + "\n" for d in _docs(40)[0]))
    assert next(iter(TaggedLineDocument(path))).tags == [0]
    for model in (Doc2Vec(TaggedLineDocument(path), vector_size=8, min_count=1, epochs=2, workers=1),
                  Doc2Vec(corpus_file=str(path), vector_size=8, min_count=1, epochs=2, workers=1)):
        assert model.dv.index_to_key[:3] == [0, 1, 2] and len(model.dv) == 40


@pytest.mark.parametrize("settings", [dict(dm=1), dict(dm=0, hs=1, negative=0, dbow_words=1),
                                      dict(dm=1, dm_concat=1, window=2)], ids=["dm", "dbow-hs", "dm-concat"])
def test_a_model_gensim_saved_loads_as_it_was_and_infers_as_gensims_does(tmp_path, settings):
    """A Doc2Vec gensim trained and saved (read without running gensim's
    code): the same tags, word, document and output rows (dm_concat's null
    word the row after the vocabulary's). Inference is convex in the one
    free row, so at many passes ours and gensim's on the same model reach
    the same vector (cosine > 0.95; vectors inferred on another gensim model
    are at ~0): rows in the wrong places, the Huffman tree's above all,
    would not. gensim's dm_concat inference returns its starting vector
    untrained, so there only the rows are compared. The model trains on and
    saves as ours."""
    gensim_doc2vec = pytest.importorskip("gensim.models.doc2vec")
    docs, _ = _docs(200)
    theirs = gensim_doc2vec.Doc2Vec([gensim_doc2vec.TaggedDocument(d.words, d.tags) for d in docs], vector_size=16,
                                    min_count=1, epochs=20, workers=1, seed=3, **settings)
    theirs.save(str(tmp_path / "gensim.model"))
    ours = Doc2Vec.load(tmp_path / "gensim.model")
    assert ours.dv.index_to_key == theirs.dv.index_to_key and np.array_equal(ours.dv.vectors, theirs.dv.vectors)
    words = [w for w in theirs.wv.index_to_key if w != "\0"]
    assert ours.wv.index_to_key == words and np.array_equal(ours.wv.vectors, theirs.wv.vectors[:len(words)])
    if settings.get("dm_concat"):
        assert np.array_equal(ours.engine.word_vectors[-1], theirs.wv["\0"])
    output = theirs.syn1 if settings.get("hs") else theirs.syn1neg
    if ours.engine.vocab.tree is None:  # else gensim's own tree is kept, its rows as they were
        assert np.array_equal(ours.engine.output_vectors, output[:len(words)])
    rng = np.random.default_rng(5)
    unseen = [[f"t{t}w{w}" for w in rng.integers(20, size=25)] for t in range(4)]
    if not settings.get("dm_concat"):
        for words_ in unseen:
            a, b = theirs.infer_vector(words_, epochs=300), ours.infer_vector(words_, epochs=300)
            assert a @ b / np.linalg.norm(a) / np.linalg.norm(b) > 0.95
    ours.train(docs[:20], total_examples=20, epochs=1)
    ours.save(tmp_path / "ours")
    back = Doc2Vec.load(tmp_path / "ours")
    assert np.array_equal(back.engine.output_vectors, ours.engine.output_vectors)
    assert np.array_equal(back.infer_vector(unseen[0]), ours.infer_vector(unseen[0]))


def test_other_gensim_files_are_refused_by_doc2vec_load(tmp_path):
    gensim_word2vec = pytest.importorskip("gensim.models.word2vec")
    from wv_engine.errors import FormatError

    gensim_word2vec.Word2Vec([["a", "b", "c"]] * 20, vector_size=4, min_count=1, epochs=1).save(str(tmp_path / "w"))
    with pytest.raises(FormatError, match="a gensim Word2Vec, not a Doc2Vec"):
        Doc2Vec.load(tmp_path / "w")


def test_build_vocab_update_adds_words_and_tags_and_keeps_the_rest():
    docs, _ = _docs(100)
    model = Doc2Vec(docs, vector_size=8, min_count=1, epochs=2, workers=1)
    before = model.dv[5].copy(), model.wv["t0w1"].copy()
    more = [TaggedDocument(["fresh", "words", "t0w1"], [1000, "extra"])] * 3
    model.build_vocab(more, update=True)
    assert "fresh" in model.wv and 1000 in model.dv and "extra" in model.dv and model.dv.index_to_key[0] == 0
    assert np.array_equal(model.dv[5], before[0]) and np.array_equal(model.wv["t0w1"], before[1])
    assert model.corpus_count == 3 and model.corpus_total_words == 9
    model.train(more, total_examples=3, epochs=2)
    assert not np.array_equal(model.dv[1000], model.dv["extra"])
    with pytest.raises(RuntimeError, match="online vocabulary-update"):
        Doc2Vec(vector_size=8).build_vocab(more, update=True)
