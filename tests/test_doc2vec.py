"""Paragraph vectors (wv_engine.Doc2Vec, csrc/d2v_train.c, csrc/d2v_infer.c): each mode's step
against a numerical gradient, planted topics found by every mode and by
inference, reproducibility, documents from files and iterables, the saved
state, and hostile documents."""

import numpy as np
import pytest

from wv_engine import CorpusError, load_vectors
from wv_engine.doc2vec import Doc2Vec, Documents
from wv_engine.doc2vec import settings as doc2vec_settings


def _topics(n_docs=1200, n_topics=6, words=25, length=30, seed=0):
    """Documents that each draw their words from one topic; tag d{i}."""
    rng = np.random.default_rng(seed)
    topics = [[f"t{t}w{w}" for w in range(words)] for t in range(n_topics)]
    labels = rng.integers(n_topics, size=n_docs)
    docs = [([topics[t][i] for i in rng.integers(words, size=length)], [f"d{d}"]) for d, t in enumerate(labels)]
    return docs, labels


def _purity(model, labels, k=5):
    hits = 0
    for d in range(0, len(labels), 10):
        hits += sum(labels[int(key[1:])] == labels[d] for key, _ in model.dv.most_similar(f"d{d}", topn=k))
    return hits / (k * len(range(0, len(labels), 10)))


# ---------------------------------------------------------------- one step against the gradient

def _loss(h, out, target, negatives, loss, codes=None, points=None):
    """The step's loss for the hidden vector h, in float64: NS's positive and
    negatives, or HS's decisions along the path."""
    sig = lambda x: 1.0 / (1.0 + np.exp(-x))  # noqa: E731
    if loss == "ns":
        return -np.log(sig(h @ out[target])) - sum(np.log(sig(-h @ out[n])) for n in negatives if n != target)
    return -sum(np.log(sig((1 - 2 * int(c)) * (h @ out[p]))) for c, p in zip(codes, points))


def _core_on_random_rows(model, rng):
    """The model's core with its rows drawn at random (so that every step
    has a gradient), its documents attached at a constant rate."""
    model.output_vectors[:] = rng.normal(0, 0.3, model.output_vectors.shape)
    model.doc_vectors[:] = rng.normal(0, 0.3, model.doc_vectors.shape)
    model.word_vectors[:] = rng.normal(0, 0.3, model.word_vectors.shape)
    core = model._make_core(model.word_vectors)
    enc = model._documents[1]
    core.set_documents(enc.words, enc.doc_start, model.doc_vectors, enc.tag_start, enc.tags, schedule_words=10,
                       alpha=0.1, min_alpha=0.1)
    return core


def _numeric_grad(f, x, eps=1e-4):
    g = np.zeros_like(x)
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("loss", ["ns", "hs"])
@pytest.mark.parametrize("mode", ["dbow", "dm_mean", "dm_sum", "dm_concat"])
def test_each_modes_step_moves_the_rows_down_the_gradient(mode, loss):
    arch = "dbow" if mode == "dbow" else "dm"
    docs = [(["a", "b", "c", "d", "e", "a", "b"], ["x", "y"] if mode != "dm_concat" else ["x"]),
            (["e", "d", "a"], ["y"])]
    model = Doc2Vec(arch=arch, loss=loss, dim=4, window=1, negative=3, min_count=1, sample=0, threads=1,
                    dm_mean=mode != "dm_sum", dm_concat=mode == "dm_concat", epochs=1).build_vocab(docs)
    core = _core_on_random_rows(model, np.random.default_rng(1))
    words = model.vocab.words
    target = words.index("c")
    tags = [0, 1] if mode in ("dm_mean", "dm_sum") else [0]  # DBOW's tags each step in turn: one here
    ctx = [words.index("b"), words.index("d")]
    negatives = [words.index("a"), words.index("e"), words.index("d")]
    codes = points = None
    if loss == "hs":
        lengths, all_codes, all_points = model.vocab.huffman()
        codes, points = all_codes[target, :lengths[target]], all_points[target, :lengths[target]]
    out = model.output_vectors.astype(np.float64).copy()
    before_tags = model.doc_vectors[tags].astype(np.float64)
    before_words = model.word_vectors[ctx].astype(np.float64)
    alpha = 0.1
    core.step(tags, ctx if arch == "dm" else None, target, negatives if loss == "ns" else None, alpha)
    moved_tags = model.doc_vectors[tags] - before_tags
    moved_words = model.word_vectors[ctx] - before_words
    f = lambda h: _loss(h, out, target, negatives, loss, codes, points)  # noqa: E731
    tol = dict(rtol=0.02, atol=2e-4)  # the sigmoid is read from word2vec.c's table
    if mode == "dbow":
        np.testing.assert_allclose(moved_tags[0], -alpha * _numeric_grad(f, before_tags[0]), **tol)
        assert not moved_words.any()
    elif mode == "dm_concat":
        h = np.concatenate([before_tags[0], before_words[0], before_words[1]])
        g = -alpha * _numeric_grad(f, h)
        np.testing.assert_allclose(moved_tags[0], g[:4], **tol)
        np.testing.assert_allclose(moved_words[0], g[4:8], **tol)
        np.testing.assert_allclose(moved_words[1], g[8:], **tol)
    else:
        rows = np.concatenate([before_tags, before_words])
        h = rows.sum(axis=0) / (len(rows) if mode == "dm_mean" else 1)
        g = -alpha * _numeric_grad(f, h)
        if mode == "dm_sum":  # gensim divides the sum's error by the rows' number
            g /= len(rows)
        for moved in list(moved_tags) + list(moved_words):
            np.testing.assert_allclose(moved, g, **tol)


def test_a_shared_negatives_group_is_k_predictions_at_one_point():
    """PV-DBOW with shared negatives: the tag row moves by alpha times minus
    the gradient of the k positives' losses, each against the whole
    negative set; a negative equal to a target stands against the others
    only, its row as that target's step left it."""
    docs = [(["a", "b", "c", "d", "e", "f"], ["x"])]
    model = Doc2Vec(arch="dbow", dim=5, negative=3, min_count=1, sample=0, threads=1,
                    shared_negatives=True).build_vocab(docs)
    model._group = (8, 3)  # as many negatives a group as a word has: each weighted 1
    rng = np.random.default_rng(2)
    ids = {w: i for i, w in enumerate(model.vocab.words)}
    targets = [ids["a"], ids["b"], ids["c"]]
    for negatives in ([ids["d"], ids["e"], ids["f"]], [ids["d"], ids["b"], ids["f"]]):
        core = _core_on_random_rows(model, rng)
        out = model.output_vectors.astype(np.float64).copy()
        h = model.doc_vectors[0].astype(np.float64)
        if negatives[1] != ids["b"]:  # distinct rows: a step down the gradient of the k predictions' losses
            f = lambda x: sum(_loss(x, out, t, negatives, "ns") for t in targets)  # noqa: E731
            expected_move = -0.1 * _numeric_grad(f, h)
        core.group_step(0, targets, negatives, 0.1)
        # the same step in float64 with the exact sigmoid, written out
        sig = lambda x: 1.0 / (1.0 + np.exp(-x))  # noqa: E731
        neu1e = np.zeros(5)
        for t in targets:
            g = (1 - sig(h @ out[t])) * 0.1
            neu1e += g * out[t]
            out[t] += g * h
        for n in negatives:
            weight = sum(t != n for t in targets)
            g = -sig(h @ out[n]) * 0.1 * weight
            neu1e += g * out[n]
            out[n] += g * h
        # the core reads the sigmoid from word2vec.c's table (steps of 0.012): over the 12 terms here
        # that is up to 1e-3 in a move of 0.03-0.2
        np.testing.assert_allclose(model.doc_vectors[0] - h, neu1e, rtol=0.02, atol=1e-3)
        np.testing.assert_allclose(model.output_vectors, out, rtol=0.02, atol=1e-3)
        if negatives[1] != ids["b"]:
            np.testing.assert_allclose(model.doc_vectors[0] - h, expected_move, rtol=0.02, atol=1e-3)


def test_frozen_rows_do_not_move_in_a_step():
    docs = [(["a", "b", "c"], ["x"])]
    model = Doc2Vec(arch="dm", dim=4, window=1, negative=2, min_count=1, sample=0, threads=1).build_vocab(docs)
    model.output_vectors[:] = 0.1
    core = model._make_core(model.word_vectors)
    enc = model._documents[1]
    core.set_documents(enc.words, enc.doc_start, model.doc_vectors, enc.tag_start, enc.tags, schedule_words=1,
                       alpha=0.1, min_alpha=0.1)
    words, out, tags = model.word_vectors.copy(), model.output_vectors.copy(), model.doc_vectors.copy()
    core.step([0], [0, 2], 1, [0, 2], 0.1, learn_words=False, learn_hidden=False)
    assert np.array_equal(words, model.word_vectors) and np.array_equal(out, model.output_vectors)
    assert not np.array_equal(tags, model.doc_vectors)


# ---------------------------------------------------------------- planted structure

def _topic_of_inferred(model, labels, inferred):
    """Each inferred vector's topic: the one whose documents' mean unit vector is nearest."""
    unit = model.doc_vectors / np.linalg.norm(model.doc_vectors, axis=1, keepdims=True)
    rows = np.array([model.tag_keys.index(f"d{d}") for d in range(len(labels))])
    centroids = np.stack([unit[rows[labels == t]].mean(axis=0) for t in range(labels.max() + 1)])
    return np.argmax(inferred @ centroids.T, axis=1)


# What each mode reaches on 1,200 documents of 6 topics (chance: 1/6) in 15 epochs; gensim's Doc2Vec on
# the same documents: DBOW 1.0 / 1.0, DM 0.77-0.83 / 0.37-0.62, DM-HS 0.34-0.40 / below chance (its
# inferred vectors do not find their topic either).
@pytest.mark.parametrize("arch, kwargs, purity, inferred", [
    ("dbow", {}, 0.95, 0.9), ("dbow", {"dbow_words": True}, 0.95, 0.9), ("dbow", {"loss": "hs"}, 0.95, 0.9),
    ("dbow", {"shared_negatives": True}, 0.95, 0.9),
    ("dm", {}, 0.6, 0.4), ("dm", {"dm_mean": False}, 0.6, 0.4), ("dm", {"loss": "hs"}, 0.25, None),
])
def test_documents_of_one_topic_are_neighbours_and_inference_finds_their_topic(arch, kwargs, purity, inferred):
    docs, labels = _topics()
    model = Doc2Vec(arch=arch, dim=24, epochs=15, min_count=1, threads=2, seed=3, **kwargs).fit(docs, progress=False)
    assert _purity(model, labels) >= purity
    probe = list(range(0, 1200, 20))
    found = _topic_of_inferred(model, labels, model.infer([docs[i][0] for i in probe]))
    if inferred is not None:
        assert np.mean(found == labels[probe]) >= inferred
    assert model.history[-1].loss < model.history[0].loss


def test_dm_concat_trains_documents_with_its_number_of_tags_and_skips_others():
    docs, labels = _topics(n_docs=400)
    docs.append((["t0w1", "t0w2", "t0w3"], ["two", "tags"]))
    model = Doc2Vec(arch="dm", dm_concat=True, dim=8, window=2, epochs=3, min_count=1, threads=1).build_vocab(docs)
    before = model.doc_vectors.copy()
    model.train(docs, progress=False)
    moved = np.abs(model.doc_vectors - before).sum(axis=1)
    two = [model.tag_keys.index("two"), model.tag_keys.index("tags")]
    assert np.all(moved[two] == 0) and np.all(np.delete(moved, two) > 0)


# ---------------------------------------------------------------- reproducibility and inference

def test_one_thread_and_a_seed_reproduce_a_run_bit_for_bit():
    docs, _ = _topics(n_docs=300)
    runs = [Doc2Vec(arch=a, dim=8, epochs=2, min_count=1, threads=1, seed=7).fit(docs, progress=False)
            for a in ("dm", "dm")]
    assert np.array_equal(runs[0].doc_vectors, runs[1].doc_vectors)
    other = Doc2Vec(arch="dm", dim=8, epochs=2, min_count=1, threads=1, seed=8).fit(docs, progress=False)
    assert not np.array_equal(runs[0].doc_vectors, other.doc_vectors)


def test_inference_of_a_document_does_not_depend_on_the_batch_or_the_threads():
    docs, _ = _topics(n_docs=300)
    model = Doc2Vec(arch="dm", dim=8, epochs=3, min_count=1, threads=2).fit(docs, progress=False)
    words = [d[0] for d in docs[:50]]
    one = model.infer_vector(words[7])
    batch = model.infer(words, threads=2)
    assert np.array_equal(one, batch[7])
    assert np.array_equal(batch, model.infer(words, threads=1))
    assert np.array_equal(batch[7], model.infer(words[7:8] + words[:7], threads=2)[0])
    assert not np.array_equal(one, model.infer_vector(words[7], epochs=5))
    assert model.word_vectors is not None and batch.shape == (50, 8)


def test_inference_leaves_the_model_as_it_was():
    docs, _ = _topics(n_docs=200)
    model = Doc2Vec(arch="dbow", dbow_words=True, dim=8, epochs=2, min_count=1, threads=2).fit(docs, progress=False)
    state = [model.word_vectors.copy(), model.output_vectors.copy(), model.doc_vectors.copy()]
    model.infer([d[0] for d in docs[:30]])
    assert all(np.array_equal(a, b) for a, b in zip(state, [model.word_vectors, model.output_vectors,
                                                           model.doc_vectors]))


@pytest.mark.parametrize("kwargs", [{"arch": "dbow"}, {"arch": "dm", "window": 1},
                                    {"arch": "dm", "dm_mean": False, "window": 1},
                                    {"arch": "dm", "dm_concat": True, "window": 1}])
def test_inference_takes_the_steps_of_gensims_infer_vector(kwargs):
    """Against numpy, in float64: one word in the vocabulary, so every
    negative is the target and skipped (word2vec.c's rule), and a pass over
    "a a a" is three steps of h predicting the word's output row, the tag's
    row moved by the error (with dm's sum, a share of it; with concat, its
    own columns). The starting row: the same document inferred at a rate
    too small to move it."""
    model = Doc2Vec(dim=8, epochs=3, min_count=1, sample=0, negative=3, threads=1, seed=3, **kwargs)
    model.fit([(["a"] * 6, [0]), (["a"] * 4, [1])], progress=False)
    doc, alpha = ["a", "a", "a"], 0.05
    start = model.infer_vector(doc, epochs=1, alpha=1e-30, min_alpha=1e-30).astype(np.float64)
    out = model.output_vectors[0].astype(np.float64)
    word = model.word_vectors[0].astype(np.float64)
    null = model.word_vectors[1].astype(np.float64) if kwargs.get("dm_concat") else None
    tag = start.copy()
    for i in range(len(doc)):
        if kwargs["arch"] == "dbow":
            h, share = tag, 1.0
        elif kwargs.get("dm_concat"):
            h, share = np.concatenate([tag, word if i > 0 else null, word if i < len(doc) - 1 else null]), 1.0
        else:  # a window of 1: both neighbours of the middle word, one of an end's
            n_ctx = 1 if i in (0, len(doc) - 1) else 2
            h = (n_ctx * word + tag) / ((n_ctx + 1) if model.dm_mean else 1)
            share = 1.0 if model.dm_mean else 1.0 / (n_ctx + 1)
        g = (1.0 - 1.0 / (1.0 + np.exp(-(h @ out)))) * alpha * share
        tag = tag + g * out[:len(tag)]
    got = model.infer_vector(doc, epochs=1, alpha=alpha).astype(np.float64)
    assert np.abs(got - start).max() > 1e-3  # it moved
    # the sigmoid table's resolution, not the arithmetic, sets the tolerance
    np.testing.assert_allclose(got - start, tag - start, rtol=0.02, atol=1e-5)


def test_inference_takes_lists_of_words_and_names_a_bad_one():
    docs, _ = _topics(n_docs=200)
    model = Doc2Vec(arch="dbow", dim=8, epochs=2, min_count=1, threads=1).fit(docs, progress=False)
    words = [d[0] for d in docs[:5]]
    assert np.array_equal(model.infer(words), model.infer([tuple(w) for w in words]))
    assert np.array_equal(model.infer(words), model.infer(iter(w) for w in words))
    for bad, n in [([["t0w1"], ["t0w2 t0w3"]], 1), ([["t0w1", ""], ["t0w2"]], 0), ([["t0w1\tt0w2"]], 0),
                   ([[], ["t0w1"], ["", "x"]], 2)]:
        with pytest.raises(CorpusError, match=f"document {n} has an empty word or a word holding whitespace"):
            model.infer(bad)
    with pytest.raises(CorpusError, match="document 1's words are a str"):
        model.infer([["t0w1"], "t0w2 t0w3"])
    assert model.infer([]).shape == (0, 8)


def test_a_document_of_unknown_words_or_none_keeps_its_starting_vector():
    docs, _ = _topics(n_docs=200)
    model = Doc2Vec(arch="dm", dim=8, epochs=2, min_count=1, threads=1).fit(docs, progress=False)
    unknown = model.infer([["nothing", "known"], [], ["nothing", "known"]])
    assert np.array_equal(unknown[0], unknown[2]) and np.all(np.abs(unknown) <= 0.5 / 8)
    assert np.isfinite(unknown).all()
    with pytest.raises(TypeError, match="list of words"):
        model.infer_vector("a string")


# ---------------------------------------------------------------- documents

def test_a_file_tags_lines_by_number_or_by_their_tag_column(tmp_path):
    path = tmp_path / "docs.txt"
    path.write_text("a b c\n\nspam eggs\tb c a\nx\ty\tz a\n\t a b\n")
    docs = Documents(str(path))
    vocab = docs.count(1)
    enc = docs.encode(vocab)
    assert enc.keys == ["0", "1", "spam", "eggs", "x", "4"]
    assert enc.n_docs == 5 and docs.n_docs == 5 and docs.tag_bound == 6
    assert [enc.tag_start[i + 1] - enc.tag_start[i] for i in range(5)] == [1, 1, 2, 1, 1]
    words = [[vocab.words[i] for i in enc.words[enc.doc_start[d]:enc.doc_start[d + 1]]] for d in range(5)]
    assert words == [["a", "b", "c"], [], ["b", "c", "a"], ["y", "z", "a"], ["a", "b"]]  # later TABs are spaces


def test_iterables_take_pairs_and_tagged_documents_and_refuse_what_is_not(tmp_path):
    from collections import namedtuple

    Tagged = namedtuple("Tagged", "words tags")
    enc = Documents([(["a", "b"], [3]), Tagged(["b"], ["three", 3])]).encode(Documents([(["a", "b"], [])]).count(1))
    assert enc.keys == ["3", "three"] and enc.tags.tolist() == [0, 1, 0]
    for bad, message in [([("a b", ["x"])], "not a list of words"), ([(["a"], "x")], "not a list of tags"),
                         ([(["a"], [1.5])], "a str or an int"), ([["a", "b", "c"]], "(words, tags)"),
                         ([(["a b"], ["x"])], "whitespace")]:
        with pytest.raises(CorpusError, match=message):
            Documents(bad).count(1)
    with pytest.raises(CorpusError, match="one-shot"):
        Documents(x for x in [(["a"], ["b"])])


def test_a_binary_file_or_an_empty_one_is_refused(tmp_path):
    binary = tmp_path / "v.bin"
    binary.write_bytes(np.random.default_rng(0).bytes(2000))
    with pytest.raises(CorpusError, match="control bytes"):
        Doc2Vec(min_count=1).fit(str(binary))
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(CorpusError, match="no documents"):
        Doc2Vec(min_count=1).fit(str(empty))


def test_a_long_document_trains_in_pieces_under_its_tag_and_many_tags_are_fine():
    rng = np.random.default_rng(0)
    long_doc = [f"w{i}" for i in rng.integers(50, size=120_000)]
    docs = [(long_doc, ["long"])] + [([f"w{i}" for i in rng.integers(50, size=5)], [f"t{j}"]) for j in range(50_000)]
    model = Doc2Vec(arch="dbow", dim=4, epochs=1, min_count=1, threads=2, max_sentence_length=1000)
    model.fit(docs, progress=False)
    assert len(model.tag_keys) == 50_001 and np.isfinite(model.doc_vectors).all()


def test_the_memory_check_refuses_a_model_before_encoding(monkeypatch, tmp_path):
    from wv_engine import memory

    path = tmp_path / "docs.txt"
    path.write_text("".join(f"a b c d {i}\n" for i in range(2000)))
    model = Doc2Vec(dim=1000, min_count=1, threads=1)
    monkeypatch.setattr(memory, "available_memory", lambda: 4_000_000)
    encoded = []
    monkeypatch.setattr(Documents, "encode", lambda *a, **k: encoded.append(1))
    with pytest.raises(MemoryError, match="document vectors"):
        model.build_vocab(str(path))
    assert not encoded
    need = doc2vec_settings.memory_needed(model, 5, 2000, 10_000, 2000, 1)
    assert need["doc_vectors"] == 2000 * 1000 * 4 and need["total"] > need["doc_vectors"]


# ---------------------------------------------------------------- the saved state

def test_a_saved_model_loads_whole_and_its_file_reads_as_the_document_vectors(tmp_path):
    import pickle

    docs, _ = _topics(n_docs=300)
    model = Doc2Vec(arch="dm", loss="hs", dim=8, epochs=2, min_count=1, threads=1).fit(docs, progress=False)
    path = tmp_path / "m.d2v"
    model.save(path)
    back = Doc2Vec.load(path)
    for name in ("word_vectors", "doc_vectors", "output_vectors"):
        assert np.array_equal(getattr(model, name), getattr(back, name)), name
    assert back.config() == model.config() and back.tag_keys == model.tag_keys
    assert back.vocab.words == model.vocab.words and back.epochs_trained == 2
    assert np.array_equal(model.infer_vector(docs[0][0]), back.infer_vector(docs[0][0]))
    vectors = load_vectors(path)
    assert vectors.words == model.tag_keys and np.array_equal(vectors.vectors, model.doc_vectors)
    back.train(docs, epochs=1, progress=False)
    assert back.epochs_trained == 3
    again = pickle.loads(pickle.dumps(model))
    assert np.array_equal(again.doc_vectors, model.doc_vectors)


def test_the_settings_are_checked():
    for bad, message in [(dict(arch="pv"), "arch"), (dict(dm_concat=True, arch="dbow"), "dm_concat"),
                         (dict(dbow_words=True), "dbow_words"), (dict(dim=2**31), "dim"),
                         (dict(negative=0), "negative"), (dict(min_alpha=1.0), "min_alpha"),
                         (dict(dm_tag_count=0), "dm_tag_count")]:
        with pytest.raises(ValueError, match=message):
            Doc2Vec(**bad)


# ---------------------------------------------------------------- the command line

def test_the_doc2vec_and_infer_commands_train_save_and_infer(tmp_path):
    from wv_engine.cli import main

    docs, labels = _topics(n_docs=600)
    path = tmp_path / "docs.txt"
    path.write_text("".join((f"d{i} extra\t" if i % 3 == 0 else "") + " ".join(w) + "\n"
                            for i, (w, _) in enumerate(docs)))
    model_path, dv, stats = tmp_path / "m.d2v", tmp_path / "dv.txt", tmp_path / "s.json"
    assert main(["doc2vec", str(path), "-o", str(model_path), "--arch", "dbow", "--dim", "16", "--min-count", "1",
                 "--epochs", "10", "--threads", "2", "--vectors", str(dv), "--format", "txt", "--stats-json",
                 str(stats), "--quiet"]) == 0
    model = Doc2Vec.load(model_path)
    assert model.arch == "dbow" and model.dim == 16 and "d0" in model.tag_keys and "extra" in model.tag_keys
    assert "1" in model.tag_keys and "0" not in model.tag_keys  # line 0 is tagged d0 and extra
    written = load_vectors(dv)
    assert written.words == model.tag_keys and np.allclose(written.vectors, model.doc_vectors, atol=1e-6)
    out = tmp_path / "inferred.txt"
    assert main(["infer", str(model_path), str(path), "-o", str(out), "--threads", "2", "--quiet"]) == 0
    inferred = load_vectors(out)
    assert inferred.words[:3] == ["d0", "1", "2"] and len(inferred) == 600
    assert np.allclose(inferred.vectors[1], model.infer_vector(docs[1][0]), atol=1e-6)
    near = model.dv.most_similar(inferred.vectors[1], topn=1)[0][0]  # the document itself, or one of its topic
    assert labels[int(near)] == labels[1] if near.isdigit() else True


def test_a_run_interrupted_after_a_checkpoint_resumes_to_the_same_vectors(tmp_path):
    docs, _ = _topics(n_docs=300)
    settings = dict(arch="dm", dim=8, epochs=4, min_count=1, threads=1, seed=5)
    whole = Doc2Vec(**settings).fit(docs, progress=False)

    def stop_after_two(model, epoch):
        if epoch.epoch == 1:
            raise KeyboardInterrupt

    path = tmp_path / "ckpt.d2v"
    broken = Doc2Vec(**settings).build_vocab(docs)
    with pytest.raises(KeyboardInterrupt):
        broken.train(docs, progress=False, callbacks=[stop_after_two], checkpoint=path)
    back = Doc2Vec.load(path)
    assert back.epochs_trained == 2 and back.unfinished_epochs == 2
    back.train(docs, progress=False)
    assert back.epochs_trained == 4 and back.unfinished_epochs == 0
    assert np.array_equal(back.doc_vectors, whole.doc_vectors)
    assert np.array_equal(back.word_vectors, whole.word_vectors)


def test_the_command_resumes_a_checkpoint_and_refuses_a_setting_it_contradicts(tmp_path):
    from wv_engine.cli import main

    docs, _ = _topics(n_docs=200)
    path = tmp_path / "docs.txt"
    path.write_text("".join(" ".join(w) + "\n" for w, _ in docs))
    common = ["--dim", "8", "--min-count", "1", "--threads", "1", "--quiet"]
    assert main(["doc2vec", str(path), "-o", str(tmp_path / "a.d2v"), "--epochs", "2",
                 "--checkpoint", str(tmp_path / "c.d2v"), *common]) == 0
    assert main(["doc2vec", str(path), "-o", str(tmp_path / "b.d2v"), "--resume", str(tmp_path / "c.d2v"),
                 "--epochs", "3", *common]) == 1  # the checkpoint was trained with epochs=2
    assert main(["doc2vec", str(path), "-o", str(tmp_path / "b.d2v"), "--resume", str(tmp_path / "c.d2v"),
                 *common]) == 0
    assert Doc2Vec.load(tmp_path / "b.d2v").epochs_trained == 4  # two more: the model's epochs


def test_document_scores_find_halves_by_their_tags_and_refuse_a_bad_file(tmp_path):
    from wv_engine.cli import main
    from wv_engine.doc2vec import DocumentScores

    # each document: words of its topic and four of its own, in both of its halves
    topics, _ = _topics(n_docs=300, length=16)
    docs = [[w for pair in zip(words, [f"u{i}x{k % 4}" for k in range(16)]) for w in pair] for i, (words, _) in
            enumerate(topics)]
    train = tmp_path / "train.txt"
    train.write_text("".join(f"d{i}\t" + " ".join(w) + "\n" for i, w in enumerate(docs)))
    halves = tmp_path / "halves.txt"
    halves.write_text("".join(f"d{i}\t" + " ".join(w[16:]) + "\n" for i, w in enumerate(docs[:100])))
    scores = DocumentScores(halves, every=10)
    model = Doc2Vec(arch="dbow", dim=16, epochs=20, alpha=0.1, min_count=1, threads=1, sample=0)
    model.fit(str(train), progress=False, callbacks=[scores])
    assert [e["epoch"] for e in scores.scores] == [10, 20]
    assert scores.scores[-1]["top1"] >= 0.8 and model.last_stats.epoch_scores == scores.scores
    # an independent count: the own document is the nearest by cosine, for each half
    inferred = model.infer([w[16:] for w in docs[:100]])
    unit = model.doc_vectors / np.linalg.norm(model.doc_vectors, axis=1, keepdims=True)
    rows = [model.tag_keys.index(f"d{i}") for i in range(100)]
    top1 = np.mean([np.argmax(unit @ (v / np.linalg.norm(v))) == r for v, r in zip(inferred, rows)])
    assert scores.scores[-1]["top1"] == pytest.approx(top1)
    bad = tmp_path / "bad.txt"
    bad.write_text("a b\tc d\n")  # two tags on a line
    with pytest.raises(ValueError, match="one trained document"):
        DocumentScores(bad)
    stats = tmp_path / "s.json"
    assert main(["doc2vec", str(train), "-o", str(tmp_path / "m.d2v"), "--arch", "dbow", "--dim", "8",
                 "--min-count", "1", "--epochs", "3", "--eval-every", "2", "--eval-documents", str(halves),
                 "--threads", "1", "--quiet", "--stats-json", str(stats)]) == 0
    import json

    assert [e["epoch"] for e in json.load(open(stats))["epoch_scores"]] == [2, 3]
    assert main(["doc2vec", str(train), "-o", str(tmp_path / "n.d2v"), "--eval-documents", str(bad), "--quiet"]) == 1


@pytest.mark.parametrize("kwargs", [{"arch": "dbow"}, {"arch": "dbow", "loss": "hs"},
                                    {"arch": "dm", "dm_concat": True, "window": 2}])
def test_add_vocab_keeps_what_was_learned_and_new_words_and_tags_learn_their_topic(kwargs):
    """Documents of topics 0-2 first; then add_vocab with documents of
    topics 0 and 3-5 (words t3w*... new): every old word keeps its rows
    (output rows too under NS; HS keeps its inner nodes by index), counts
    add up, old tags keep their vectors, new tags and words join; after
    training on the new documents, new documents of the new topics are
    neighbours of their own topic (PV-DBOW)."""
    docs, labels = _topics(n_docs=1200)
    old = [d for d, t in zip(docs, labels) if t < 3][:400]
    chosen = [d for d in range(len(docs)) if labels[d] in (0, 3, 4, 5)][:500]
    new, new_labels = [(docs[d][0], [f"n{i}"]) for i, d in enumerate(chosen)], labels[chosen]
    model = Doc2Vec(dim=16, epochs=10, min_count=1, threads=1, seed=3, **kwargs).fit(old, progress=False)
    rows = {w: model.word_vectors[i].copy() for i, w in enumerate(model.vocab.words)}
    outs = {w: model.output_vectors[i].copy() for i, w in enumerate(model.vocab.words)}
    counts = dict(zip(model.vocab.words, model.vocab.counts.tolist()))
    tags = {k: model.doc_vectors[i].copy() for i, k in enumerate(model.tag_keys)}
    nodes = model.output_vectors.copy()
    null_row = model.word_vectors[len(model.vocab):].copy()
    model.add_vocab(new)
    index = {w: i for i, w in enumerate(model.vocab.words)}
    assert all(np.array_equal(model.word_vectors[index[w]], r) for w, r in rows.items())
    if model.loss == "ns":
        assert all(np.array_equal(model.output_vectors[index[w]], r) for w, r in outs.items())
        assert not model.output_vectors[index["t4w0"]].any()
    else:
        assert np.array_equal(model.output_vectors[:len(nodes)], nodes)
    assert np.array_equal(model.word_vectors[len(model.vocab):], null_row)
    added = {}
    for words, _ in new:
        for w in words:
            added[w] = added.get(w, 0) + 1
    assert all(int(model.vocab.counts[index[w]]) == counts.get(w, 0) + added.get(w, 0) for w in index)
    assert list(model.vocab.counts) == sorted(model.vocab.counts, reverse=True)
    assert all(np.array_equal(model.doc_vectors[model.tag_keys.index(k)], v) for k, v in tags.items())
    assert len(model.tag_keys) == 400 + 500
    model.train(progress=False)
    if kwargs["arch"] == "dbow":  # dm_concat finds no topics at this size even from scratch (0.15 of 5 either way)
        new_topics = {f"n{d}": t for d, t in enumerate(new_labels)}
        near = [sum(new_topics.get(k) == new_topics[f"n{d}"] for k, _ in model.dv.most_similar(f"n{d}", topn=5))
                for d in range(0, 500, 10) if new_topics[f"n{d}"] != 0]
        assert np.mean(near) / 5 >= 0.8
    with pytest.raises(RuntimeError, match="build_vocab first"):
        Doc2Vec().add_vocab(new)
