"""wv_engine.gensim, the gensim 4 drop-in: argument mapping and defaults,
training from sentences and files, query return types, online vocabulary
growth, save/load, callbacks, loss and the errors for unsupported arguments.
Needs no gensim (except the test marked with importorskip)."""

import logging

import numpy as np
import pytest

from wv_engine import NotAModelError
from wv_engine import Word2Vec as EngineWord2Vec
from wv_engine.gensim import CallbackAny2Vec, KeyedVectors, LineSentence, Text8Corpus, Word2Vec

# Nine small "documents" (gensim's common_texts, typed out here) repeated for a stable vocabulary.
TEXTS = [["human", "interface", "computer"], ["survey", "user", "computer", "system", "response", "time"],
         ["eps", "user", "interface", "system"], ["system", "human", "system", "eps"],
         ["user", "response", "time"], ["trees"], ["graph", "trees"], ["graph", "minors", "trees"],
         ["graph", "minors", "survey"]]
CORPUS = TEXTS * 20
SMALL = dict(vector_size=16, min_count=1, workers=1, epochs=2)


def test_gensim_defaults_map_to_engine_settings():
    m = Word2Vec()
    e = m.engine
    assert (e.arch, e.loss, e.dim, e.window, e.negative, e.min_count, e.sample, e.epochs) == \
        ("cbow", "ns", 100, 5, 5, 5, 1e-3, 5)
    # gensim's alpha is 0.025 for CBOW too (the engine's own CBOW default is 0.05), min_alpha absolute
    assert (e.alpha, e.min_alpha, e.threads, e.seed, e.ns_exponent, e.cbow_mean, e.shrink_windows) == \
        (0.025, 0.0001, 3, 1, 0.75, True, True)
    assert (e.max_vocab_size, e.max_final_vocab) == (None, None)
    assert (m.sg, m.hs, m.negative, m.vector_size, m.workers, m.cbow_mean) == (0, 0, 5, 100, 3, 1)


def test_gensim_names_map_to_engine_settings():
    m = Word2Vec(vector_size=32, sg=1, hs=1, negative=0, window=3, min_count=0, workers=2, epochs=7, alpha=0.1,
                 min_alpha=0.01, seed=9, sample=0, ns_exponent=0.5, cbow_mean=0, shrink_windows=False)
    e = m.engine
    assert (e.arch, e.loss, e.dim, e.window, e.min_count, e.threads, e.epochs) == ("skipgram", "hs", 32, 3, 1, 2, 7)
    assert (e.alpha, e.min_alpha, e.seed, e.sample, e.ns_exponent, e.cbow_mean, e.shrink_windows) == \
        (0.1, 0.01, 9, 0.0, 0.5, False, False)
    m.alpha = 0.2  # attributes write through to the engine
    assert e.alpha == 0.2


@pytest.mark.parametrize("kwargs, error", [
    (dict(sorted_vocab=0), NotImplementedError), (dict(hashfxn=lambda s: 0), NotImplementedError),
    (dict(null_word=1), NotImplementedError), (dict(hs=0, negative=0), ValueError),
])
def test_unsupported_arguments_raise(kwargs, error):
    with pytest.raises(error):
        Word2Vec(**kwargs)


def test_arguments_without_effect_are_logged_as_gensim_logs(caplog, capfd):
    """Through the logger, as gensim says such things: nothing on stderr
    unless the application configures logging."""
    with caplog.at_level(logging.WARNING):
        Word2Vec(batch_words=100)
        Word2Vec(hs=1, negative=5)
    assert "batch_words" in caplog.text and "hierarchical softmax only" in caplog.text
    caplog.clear()
    logging.getLogger("wv_engine").propagate = False  # as with no logging configured: no handler at all
    try:
        Word2Vec(hs=1, negative=5)
        m = Word2Vec(CORPUS, **SMALL)
        m.train(CORPUS, total_examples=m.corpus_count, epochs=1)
        m.train(CORPUS, total_examples=m.corpus_count, epochs=1, start_alpha=0.05)  # alpha above the last
    finally:
        logging.getLogger("wv_engine").propagate = True
    assert capfd.readouterr().err == ""
    m = Word2Vec(CORPUS, **SMALL)
    with pytest.raises(NotImplementedError):
        m.train(CORPUS, total_examples=m.corpus_count, epochs=1, word_count=5)


    class Planted:  # an indexer answers instead of the exact search, as in gensim
        def most_similar(self, vector, num_neighbors):
            assert vector.shape == (m.wv.vector_size,) and abs(np.linalg.norm(vector) - 1) < 1e-5
            return [("planted", 1.0)] * num_neighbors

    assert m.wv.most_similar("graph", topn=2, indexer=Planted()) == [("planted", 1.0)] * 2


def test_training_from_sentences_matches_the_engine():
    """Same settings through both doors, one thread and a seed: the same vectors."""
    m = Word2Vec(CORPUS, vector_size=16, min_count=1, workers=1, epochs=3, sg=1, seed=5)
    e = EngineWord2Vec(arch="skipgram", dim=16, min_count=1, threads=1, epochs=3, alpha=0.025, min_alpha=0.0001,
                       seed=5, max_sentence_length=10000).fit(CORPUS)
    assert m.wv.index_to_key == e.vectors.words
    np.testing.assert_array_equal(m.wv.vectors, e.input_vectors)
    assert m.corpus_count == len(CORPUS) and m.corpus_total_words == sum(map(len, CORPUS))


def test_training_from_corpus_file_and_readers(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("\n".join(" ".join(s) for s in CORPUS) + "\n")
    a = Word2Vec(corpus_file=str(path), **SMALL)
    b = Word2Vec(LineSentence(str(path)), **SMALL)
    c = Word2Vec(CORPUS, **SMALL)
    np.testing.assert_array_equal(a.wv.vectors, c.wv.vectors)
    np.testing.assert_array_equal(b.wv.vectors, c.wv.vectors)
    assert a.corpus_count == len(CORPUS)
    assert list(LineSentence(str(path), max_sentence_length=2))[:3] == [["human", "interface"], ["computer"], ["survey", "user"]]
    text8 = tmp_path / "t8"
    text8.write_text(" ".join(w for s in CORPUS for w in s))
    sentences = list(Text8Corpus(str(text8), max_sentence_length=100))
    assert [len(s) for s in sentences[:-1]] == [100] * (len(sentences) - 1)
    assert sum(sentences, []) == [w for s in CORPUS for w in s]


def test_generator_is_refused():
    with pytest.raises(TypeError):
        Word2Vec((s for s in CORPUS), **SMALL)


def test_query_return_types():
    wv = Word2Vec(CORPUS, **SMALL).wv
    sims = wv.most_similar(positive=["graph", "trees"], negative=["user"], topn=3)
    assert len(sims) == 3 and all(isinstance(w, str) and isinstance(s, float) for w, s in sims)
    assert {"graph", "trees", "user"}.isdisjoint(w for w, _ in sims)
    assert wv.most_similar("graph", topn=None).shape == (len(wv),)
    assert wv.most_similar("graph", topn=0) == []
    assert isinstance(wv.similarity("graph", "trees"), np.floating)
    assert wv.distance("graph", "trees") == pytest.approx(1 - wv.similarity("graph", "trees"))
    assert wv.distances("graph", ["trees", "user"]).shape == (2,)
    assert wv["graph"].shape == (16,) and wv[["graph", "trees"]].shape == (2, 16)
    assert np.linalg.norm(wv.get_vector("graph", norm=True)) == pytest.approx(1, abs=1e-6)
    assert wv.get_normed_vectors().shape == wv.vectors.shape
    assert wv.index_to_key[wv.key_to_index["graph"]] == "graph" == wv.index_to_key[wv.get_index("graph")]
    assert "graph" in wv and "nope" not in wv and wv.has_index_for("graph") and len(wv) == 12
    assert wv.doesnt_match(["graph", "trees", "minors", "nope"]) in {"graph", "trees", "minors"}
    assert wv.rank("graph", wv.most_similar("graph", topn=1)[0][0]) == 1
    assert wv.most_similar_to_given("graph", ["trees", "human"]) in {"trees", "human"}
    assert isinstance(wv.most_similar_cosmul(positive=["graph"], topn=2)[0][1], float)
    assert wv.similar_by_vector(wv["graph"], topn=1)[0][0] == "graph"
    assert wv.similar_by_word("graph", topn=2) == wv.most_similar("graph", topn=2)
    assert wv.get_vecattr("system", "count") == 4 * 20
    with pytest.raises(KeyError):
        wv["nope"]


def test_keyedvectors_add_and_files(tmp_path):
    kv = KeyedVectors(3)
    kv.add_vectors(["a", "b"], np.array([[1, 0, 0], [0, 1, 0]], dtype=np.float64))
    kv["c"] = np.array([0, 0, 1.0])
    assert kv.vectors.dtype == np.float32 and kv.index_to_key == ["a", "b", "c"]
    assert kv.most_similar("a", topn=1)[0][1] == pytest.approx(0.0)
    for binary in (True, False):
        kv.save_word2vec_format(str(tmp_path / "v"), binary=binary)
        back = KeyedVectors.load_word2vec_format(str(tmp_path / "v"), binary=binary)
        assert back.index_to_key == kv.index_to_key and (back.vectors == kv.vectors).all()
    kv.save(str(tmp_path / "kv"))
    assert (KeyedVectors.load(str(tmp_path / "kv"), mmap="r").vectors == kv.vectors).all()
    np.save(tmp_path / "m.npy", kv.vectors)
    assert KeyedVectors.load_npy(tmp_path / "m.npy", kv.index_to_key).index_to_key == ["a", "b", "c"]


def test_gensim_pickles_are_refused(tmp_path):
    import pickle

    (tmp_path / "p").write_bytes(pickle.dumps({"x": 1}))
    for load in (KeyedVectors.load, Word2Vec.load):
        with pytest.raises(ValueError, match="pickles"):
            load(str(tmp_path / "p"))


def test_build_vocab_update_adds_words_and_trains():
    m = Word2Vec(CORPUS, vector_size=16, min_count=1, workers=1, epochs=2, hs=1, negative=0)
    before = {w: m.wv[w].copy() for w in m.wv.index_to_key}
    more = [["quantum", "graph", "trees"], ["quantum", "system"]] * 5
    m.build_vocab(more, update=True)
    assert len(m.wv) == 13 and "quantum" in m.wv
    assert m.wv.get_vecattr("graph", "count") == 3 * 20 + 5
    assert m.wv.get_vecattr("quantum", "count") == 10
    for w, v in before.items():  # known words keep their vectors through the regrowth
        np.testing.assert_array_equal(m.wv[w], v)
    q = m.wv["quantum"].copy()
    assert np.all(np.abs(q) < 1.0 / 16)  # initialised as build_vocab does (gensim's range)
    assert m.syn1.shape == (13, 16)  # one row per word, the last unused, as gensim
    m.train(more, total_examples=len(more), epochs=m.epochs)
    assert not np.array_equal(m.wv["quantum"], q)
    with pytest.raises(RuntimeError):
        Word2Vec(vector_size=8).build_vocab(more, update=True)


def test_train_requires_gensims_explicit_arguments():
    m = Word2Vec(**SMALL)
    m.build_vocab(CORPUS)
    with pytest.raises(ValueError):
        m.train(CORPUS, total_examples=m.corpus_count)
    with pytest.raises(ValueError):
        m.train(CORPUS, epochs=1)


def test_save_load_round_trip(tmp_path):
    m = Word2Vec(CORPUS, comment="x", **SMALL)
    m.save(str(tmp_path / "m"))
    back = Word2Vec.load(str(tmp_path / "m"))
    assert back.wv.index_to_key == m.wv.index_to_key
    np.testing.assert_array_equal(back.wv.vectors, m.wv.vectors)
    np.testing.assert_array_equal(back.syn1neg, m.syn1neg)
    assert (back.corpus_count, back.comment, back.sg, back.negative) == (m.corpus_count, "x", 0, 5)
    back.build_vocab([["brand", "new"]] * 3, update=True)
    back.train([["brand", "new"]] * 3, total_examples=3, epochs=1)
    with pytest.raises(AttributeError):
        m.load(str(tmp_path / "m"))  # gensim's rule: load on the class only
    m.wv.save(str(tmp_path / "kv"))
    with pytest.raises(AttributeError, match="not a saved Word2Vec model") as caught:  # gensim's error here
        Word2Vec.load(str(tmp_path / "kv"))
    assert isinstance(caught.value, NotAModelError) and caught.value.path == str(tmp_path / "kv")
    with pytest.raises(NotAModelError):
        EngineWord2Vec.load(str(tmp_path / "kv"))


def test_callbacks_run_in_gensims_order_and_loss_accumulates():
    calls = []

    class Recorder(CallbackAny2Vec):
        def on_train_begin(self, model):
            calls.append("train_begin")

        def on_epoch_begin(self, model):
            calls.append("epoch_begin")

        def on_epoch_end(self, model):
            calls.append(("epoch_end", model.get_latest_training_loss()))

        def on_train_end(self, model):
            calls.append("train_end")

    m = Word2Vec(CORPUS, vector_size=16, min_count=1, workers=1, epochs=3, sg=1, compute_loss=True,
                 callbacks=[Recorder()])
    names = [c if isinstance(c, str) else c[0] for c in calls]
    assert names == ["train_begin"] + ["epoch_begin", "epoch_end"] * 3 + ["train_end"]
    losses = [c[1] for c in calls if not isinstance(c, str)]
    assert 0 < losses[0] < losses[1] < losses[2] == m.get_latest_training_loss()
    per_epoch = [e.loss * e.examples for e in m.engine.history]
    assert losses[2] == pytest.approx(sum(per_epoch))


def test_trim_rule_and_max_final_vocab():
    m = Word2Vec(CORPUS, trim_rule=lambda w, c, mc: 1 if w == "human" else 0, **SMALL)
    assert "human" not in m.wv and "trees" in m.wv
    m = Word2Vec(CORPUS, vector_size=8, min_count=1, max_final_vocab=4, workers=1, epochs=1)
    assert len(m.wv) <= 4 and m.effective_min_count > 1


def test_evaluate_methods_return_gensims_shapes(tmp_path):
    wv = Word2Vec(CORPUS, **SMALL).wv
    (tmp_path / "q.txt").write_text(": s\ngraph trees user system\ngraph trees nope system\n")
    score, sections = wv.evaluate_word_analogies(str(tmp_path / "q.txt"))
    assert sections[-1]["section"] == "Total accuracy" and 0 <= score <= 1
    assert len(sections[0]["correct"]) + len(sections[0]["incorrect"]) == 1
    score, sections = wv.evaluate_word_analogies(str(tmp_path / "q.txt"), dummy4unknown=True)
    assert len(sections[-1]["correct"]) + len(sections[-1]["incorrect"]) == 2
    (tmp_path / "p.txt").write_text("graph\ttrees\t9\nuser\tsystem\t5\nhuman\teps\t1\nnope\tx\t3\n")
    pearson, spearman, oov = wv.evaluate_word_pairs(str(tmp_path / "p.txt"))
    assert -1 <= pearson[0] <= 1 and -1 <= spearman[0] <= 1 and oov == 25.0


def test_logs_like_gensim(caplog):
    with caplog.at_level(logging.WARNING):
        Word2Vec(["human", "machine"], min_count=1, workers=1, epochs=1)
    assert "Each 'sentences' item should be a list of words" in caplog.text


def test_same_keyedvectors_answers_as_gensim():
    gensim_kv = pytest.importorskip("gensim.models").KeyedVectors
    wv = Word2Vec(CORPUS, **SMALL).wv
    g = gensim_kv(wv.vector_size)
    g.add_vectors(wv.index_to_key, wv.vectors)
    assert [w for w, _ in wv.most_similar("graph", topn=5)] == [w for w, _ in g.most_similar("graph", topn=5)]
    assert wv.similarity("graph", "trees") == pytest.approx(g.similarity("graph", "trees"))
    assert wv.n_similarity(["graph", "user"], ["trees"]) == pytest.approx(g.n_similarity(["graph", "user"], ["trees"]))
    assert wv.doesnt_match(["graph", "trees", "minors", "human"]) == g.doesnt_match(["graph", "trees", "minors", "human"])


# ---- the engine additions the layer uses --------------------------------------------------
def test_engine_add_vocab_grows_a_trained_model():
    e = EngineWord2Vec(dim=8, min_count=2, threads=1, epochs=1).fit(CORPUS)
    rows = {w: e.input_vectors[i].copy() for i, w in enumerate(e.vocab.words)}
    e.add_vocab([["rare"], ["new", "new", "graph"]])  # 'rare' is below min_count=2
    assert "new" in e.vocab and "rare" not in e.vocab
    assert e.vocab.counts[e.vocab.index["graph"]] == 61 and e.vocab.counts[e.vocab.index["new"]] == 2
    assert list(e.vocab.counts) == sorted(e.vocab.counts, reverse=True)
    for w, v in rows.items():
        np.testing.assert_array_equal(e.input_vectors[e.vocab.index[w]], v)
    assert not e.output_vectors[e.vocab.index["new"]].any()
    e.train([["new", "graph"]] * 5, epochs=1)


def test_engine_save_keeps_extra_and_evaluate_lists_questions(tmp_path):
    from wv_engine.evaluate import evaluate_analogies

    e = EngineWord2Vec(dim=8, min_count=1, threads=1, epochs=1).fit(CORPUS)
    e.save(tmp_path / "m", extra={"k": [1]})
    assert EngineWord2Vec.load(tmp_path / "m").saved_extra == {"k": [1]}
    (tmp_path / "q.txt").write_text(": s\ngraph trees user system\ngraph trees nope system\n")
    s = evaluate_analogies(e.vectors, tmp_path / "q.txt", questions=True)["sections"][0]
    assert len(s["correct_questions"]) + len(s["incorrect_questions"]) == 1
    assert s["oov_questions"] == [("graph", "trees", "nope", "system")]


def test_a_textual_rename_of_gensim_imports_works():
    """Every gensim.models path this layer offers, under wv_engine.gensim.
    (the same module objects as wv_engine.gensim's own)."""
    import importlib

    import wv_engine.gensim as layer

    script = ("from wv_engine.gensim.models import Word2Vec, KeyedVectors\n"
              "from wv_engine.gensim.models.word2vec import LineSentence, Text8Corpus, PathLineSentences\n"
              "from wv_engine.gensim.models.keyedvectors import KeyedVectors as KV\n"
              "from wv_engine.gensim.models.callbacks import CallbackAny2Vec\n")
    names: dict = {}
    exec(script, names)
    assert names["Word2Vec"] is Word2Vec and names["KV"] is KeyedVectors and names["LineSentence"] is LineSentence
    assert names["CallbackAny2Vec"] is CallbackAny2Vec
    assert importlib.import_module("wv_engine.gensim.models.word2vec") is layer.word2vec
    assert layer.models.keyedvectors is layer.keyedvectors


def test_training_a_batch_of_unknown_words_trains_nothing_as_gensim_does(caplog):
    """gensim's quick start: train([["hello", "world"]]) on a model that
    knows neither word returns (0, 2) and leaves the vectors as they were."""
    m = Word2Vec(CORPUS, **SMALL)
    before = m.wv.vectors.copy()
    seen = []

    class Epochs(CallbackAny2Vec):
        def on_epoch_end(self, model):
            seen.append("end")

    with caplog.at_level(logging.WARNING):
        assert m.train([["hello", "world"]], total_examples=1, epochs=2, callbacks=[Epochs()]) == (0, 4)
    assert "nothing trained" in caplog.text and seen == ["end", "end"]
    np.testing.assert_array_equal(m.wv.vectors, before)


def test_gensim3_names_say_what_replaced_them():
    m = Word2Vec(CORPUS, **SMALL)
    for owner, name, replacement in ((m.wv, "vocab", "key_to_index"), (m.wv, "index2word", "index_to_key"),
                                     (m.wv, "syn0", "vectors"), (m, "most_similar", "model.wv.most_similar"),
                                     (m, "iter", "epochs"), (m, "size", "vector_size")):
        with pytest.raises(AttributeError, match="removed in gensim 4") as info:
            getattr(owner, name)
        assert replacement in str(info.value)
    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        m.wv.nonesuch  # noqa: B018
    assert getattr(m.wv, "vectors_nonesuch", None) is None  # getattr's default still works


def test_corpus_count_counts_sentences_as_line_sentence_cuts_them(tmp_path):
    """A line of n words is ceil(n / 10,000) sentences for gensim's
    LineSentence and corpus_file (45,000 words: 5), an empty line none."""
    path = tmp_path / "long.txt"
    words = [f"w{i % 40}" for i in range(45000)]
    path.write_text(" ".join(words) + "\n\n" + " ".join(words[:5]) + "\n")
    settings = dict(vector_size=8, min_count=1, workers=1, epochs=1)
    assert Word2Vec(corpus_file=str(path), **settings).corpus_count == 6
    assert Word2Vec(LineSentence(str(path)), **settings).corpus_count == 6
    assert Word2Vec([words, words[:5]], **settings).corpus_count == 2  # token lists: one sentence each


def test_hierarchical_softmax_codes_and_points_are_an_optimal_prefix_code():
    """get_vecattr(word, "code"/"point"): each word's Huffman code is a
    prefix-free binary code of minimal total length sum(count x length)
    (the cost a textbook Huffman merge gives) and its points are inner
    nodes, the root first, shared by all words."""
    import heapq
    counts = {f"w{i}": c for i, c in enumerate([50, 30, 20, 9, 7, 5, 3, 2, 2, 1])}
    m = Word2Vec(vector_size=4, min_count=1, hs=1, negative=0)
    m.build_vocab_from_freq(counts)
    codes = {w: m.wv.get_vecattr(w, "code") for w in counts}
    points = {w: m.wv.get_vecattr(w, "point") for w in counts}
    assert all(c.dtype == np.uint8 and p.dtype == np.int32 and len(c) == len(p) for c, p in
               zip(codes.values(), points.values()))
    bits = ["".join(map(str, c.tolist())) for c in codes.values()]
    assert not any(a != b and b.startswith(a) for a in bits for b in bits)
    heap, cost = sorted(counts.values()), 0
    while len(heap) > 1:
        a, b = heapq.heappop(heap), heapq.heappop(heap)
        cost += a + b
        heapq.heappush(heap, a + b)
    assert sum(counts[w] * len(codes[w]) for w in counts) == cost
    assert len({p[0] for p in points.values()}) == 1
    assert {int(x) for p in points.values() for x in p} <= set(range(len(counts) - 1))
    with pytest.raises(KeyError):
        Word2Vec(["a b".split()], vector_size=4, min_count=1, hs=0, negative=2).wv.get_vecattr("a", "code")


@pytest.mark.parametrize("sg", [1, 0])
def test_score_is_the_log_probability_along_the_huffman_paths(sg):
    """score(): each sentence's log-probability, checked against a direct
    loop over code and point (gensim's attributes); the path probabilities
    of all words sum to 1 for any hidden vector (a proper distribution)."""
    corpus = [["a", "b", "c", "a", "d"], ["b", "c", "e", "a"]] * 20
    m = Word2Vec(corpus, vector_size=6, min_count=1, hs=1, negative=0, sg=sg, window=2, epochs=2, seed=3)

    def log_p(word, h):
        code, point = m.wv.get_vecattr(word, "code"), m.wv.get_vecattr(word, "point")
        f = m.syn1[point].astype(np.float64) @ h
        return float(np.sum(np.log(1 / (1 + np.exp(np.where(code == 1, f, -f))))))

    h = np.random.default_rng(0).standard_normal(6)
    assert sum(np.exp(log_p(w, h)) for w in m.wv.index_to_key) == pytest.approx(1.0, rel=1e-6)
    sentence = ["a", "zzz", "b", "c", "e"]  # an unknown word is left out
    words = [w for w in sentence if w in m.wv]
    expected = 0.0
    for i, w in enumerate(words):
        ctx = [words[j] for j in range(max(0, i - 2), min(len(words), i + 3)) if j != i]
        vecs = [m.wv[c].astype(np.float64) for c in ctx]
        expected += sum(log_p(w, v) for v in vecs) if sg else log_p(w, np.mean(vecs, axis=0))
    scores = m.score([sentence, ["a", "b"]], total_sentences=2)
    assert scores.dtype == np.float32 and scores.shape == (2,)
    assert scores[0] == pytest.approx(expected, rel=1e-5)
    assert len(m.score([sentence] * 5, total_sentences=3)) == 3
    with pytest.raises(RuntimeError, match="hierarchical softmax"):
        Word2Vec(corpus, vector_size=6, min_count=1, hs=0, negative=2).score([sentence])


def test_cython_line_sentence_reads_bytes_tokens_in_pieces(tmp_path):
    from wv_engine.gensim.models import word2vec_corpusfile
    path = tmp_path / "c.txt"
    path.write_bytes(b"a b  c\n\nd\te f g h\n\xc3\xa9t\xc3\xa9\n")
    lines = list(word2vec_corpusfile.CythonLineSentence(path))
    assert lines == [[b"a", b"b", b"c"], [], [b"d", b"e", b"f", b"g", b"h"], ["été".encode()]]
    assert list(word2vec_corpusfile.CythonLineSentence(str(path), offset=8, max_sentence_length=2)) == \
        [[b"d", b"e"], [b"f", b"g"], [b"h"], ["été".encode()]]
    with pytest.raises(ValueError, match="max_sentence_length"):
        word2vec_corpusfile.CythonLineSentence(path, max_sentence_length=0)


def test_scan_vocab_and_prepare_vocab_report_as_gensim():
    """gensim's two vocabulary steps; the report's numbers by hand: counts
    a 6, b 4, c 3, d 2, e 1 (16 tokens)."""
    corpus = [["a"] * 6 + ["b"] * 4, ["c"] * 3 + ["d"] * 2 + ["e"]]
    m = Word2Vec(vector_size=4, min_count=2, sample=0, max_final_vocab=2)
    assert m.scan_vocab(corpus) == (16, 2)
    assert m.raw_vocab == {"a": 6, "b": 4, "c": 3, "d": 2, "e": 1}
    assert m.prepare_vocab(dry_run=True)["num_retained_words"] == 2 and len(m.wv) == 0
    report = m.prepare_vocab()  # max_final_vocab 2: the third count (3) + 1 is the effective min_count
    assert report == {"drop_unique": 3, "retain_total": 10, "downsample_unique": 0, "downsample_total": 10,
                      "num_retained_words": 2}
    assert m.effective_min_count == 4 and m.wv.index_to_key == ["a", "b"]
    m = Word2Vec(vector_size=4, min_count=1, sample=0.1)
    m.scan_vocab(corpus)
    m.raw_vocab["e"] = 0  # gensim lets the raw counts be edited between the steps
    report = m.prepare_vocab()
    threshold = 0.1 * 15  # word2vec.c's keep probability: (sqrt(c / t) + 1) t / c, capped at 1
    keep = [min(1.0, (np.sqrt(c / threshold) + 1) * threshold / c) for c in (6, 4, 3, 2)]
    assert report["num_retained_words"] == 4 and report["retain_total"] == 15
    assert report["downsample_unique"] == sum(p < 1 for p in keep)
    assert report["downsample_total"] == int(sum(p * c for p, c in zip(keep, (6, 4, 3, 2))))
    m.prepare_weights()
    m.train(corpus, total_examples=2, epochs=1)


def test_vectors_lockf_freezes_the_rows_it_zeroes():
    m = Word2Vec(vector_size=4, min_count=1, hs=1, negative=0, epochs=2)
    m.build_vocab(CORPUS)
    np.testing.assert_array_equal(m.wv.vectors_lockf, np.ones(1, np.float32))  # gensim's default: all train
    m.wv.vectors_lockf = np.ones(len(m.wv), dtype=np.float32)
    m.wv.vectors_lockf[0] = 0.0
    locked, unlocked = m.wv.vectors[0].copy(), m.wv.vectors[1].copy()
    m.train(CORPUS, total_examples=m.corpus_count, epochs=m.epochs)
    np.testing.assert_array_equal(m.wv.vectors[0], locked)
    assert not np.array_equal(m.wv.vectors[1], unlocked)
    assert Word2Vec(CORPUS, **SMALL).cum_table[-1] == 2**31 - 1


@pytest.mark.parametrize("sg", [1, 0])
def test_the_training_loss_sums_every_predictions_loss_over_the_call(sg):
    """get_latest_training_loss(): the sum over all epochs of the last
    train() call of each prediction's -log p. With syn1 at zero and a rate
    too small to move it, every node on a word's path costs log 2: the sum
    is log 2 x (the path lengths of every prediction) x epochs."""
    corpus = [["a", "b", "c", "a", "d"], ["b", "c", "e"]]
    m = Word2Vec(vector_size=4, min_count=1, hs=1, negative=0, sg=sg, window=1, sample=0, workers=1)
    m.build_vocab(corpus)
    m.train(corpus, total_examples=2, epochs=3, start_alpha=1e-12, end_alpha=1e-12, compute_loss=True)
    length = {w: len(m.wv.get_vecattr(w, "code")) for w in m.wv.index_to_key}
    predictions = sum(length[s[i]] * (1 if sg == 0 else (i > 0) + (i < len(s) - 1))
                      for s in corpus for i in range(len(s)))
    assert m.get_latest_training_loss() == pytest.approx(3 * predictions * np.log(2), rel=1e-6)
    m.train(corpus, total_examples=2, epochs=1, start_alpha=1e-12, end_alpha=1e-12, compute_loss=True)
    assert m.get_latest_training_loss() == pytest.approx(predictions * np.log(2), rel=1e-6)  # the last call's
