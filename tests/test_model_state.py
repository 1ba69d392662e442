"""Word2Vec.save / Word2Vec.load: the whole training state, so that a run
stopped after an epoch and resumed gives exactly what one run gives."""

import numpy as np
import pytest

from wv_engine import FormatError, Word2Vec, load_vectors


@pytest.mark.parametrize("arch,loss", [("skipgram", "ns"), ("cbow", "ns"), ("skipgram", "hs"), ("cbow", "hs")])
def test_two_epochs_equal_one_saved_loaded_and_one_more(tmp_path, topics_corpus, arch, loss):
    _, corpus = topics_corpus
    cfg = dict(arch=arch, loss=loss, dim=16, epochs=2, threads=1, seed=7, min_count=1, sample=1e-2)
    straight = Word2Vec(**cfg).fit(corpus)

    path = tmp_path / "model.wv"

    def save_after_first(model, es):
        if es.epoch == 0:
            model.save(path)

    Word2Vec(**cfg).fit(corpus, callbacks=[save_after_first])
    resumed = Word2Vec.load(path)
    halfway = resumed.input_vectors.copy()
    stats = resumed.train(corpus)  # no epochs: finishes the saved schedule

    assert stats.epochs == 1 and resumed.epochs_trained == 2 and len(resumed.history) == 2
    assert not np.array_equal(halfway, resumed.input_vectors)  # it did train
    np.testing.assert_array_equal(resumed.input_vectors, straight.input_vectors)
    np.testing.assert_array_equal(resumed.output_vectors, straight.output_vectors)
    assert resumed.history[1].loss == straight.history[1].loss


def test_saved_state_round_trips_and_reads_as_vectors(tmp_path, topics_corpus):
    _, corpus = topics_corpus
    model = Word2Vec(dim=8, epochs=1, threads=1, min_count=1, window=3, negative=4, regions=3).fit(corpus)
    path = tmp_path / "m.wv"
    model.save(path)
    back = Word2Vec.load(path, threads=2)
    assert back.config() == {**model.config(), "threads": 2} and back.regions == 3
    assert back.vocab.words == model.vocab.words
    np.testing.assert_array_equal(back.vocab.counts, model.vocab.counts)
    assert back.vocab.total_tokens == model.vocab.total_tokens
    np.testing.assert_array_equal(back.output_vectors, model.output_vectors)
    assert [e.loss for e in back.history] == [e.loss for e in model.history]
    plain = load_vectors(path)  # the same file is the model's input vectors
    np.testing.assert_array_equal(plain.vectors, model.input_vectors)
    assert plain.words == model.vocab.words


def test_a_model_saved_before_schedule_and_init_range_existed_loads_with_word2vec_c_ones(tmp_path, topics_corpus,
                                                                                          monkeypatch):
    """States saved before schedule and init_range were settings were trained
    with word2vec.c's schedule and initialised with its 0.5: a loaded one
    keeps both (for its next train() call and for rows a vocabulary update
    adds), not today's defaults for a new model."""
    _, corpus = topics_corpus
    path = tmp_path / "m.wv"
    model = Word2Vec(dim=8, epochs=1, threads=1, min_count=1, schedule="word2vec", init_range=0.5).fit(corpus)
    config = Word2Vec.config
    monkeypatch.setattr(Word2Vec, "config", lambda self: {k: v for k, v in config(self).items()
                                                          if k not in ("schedule", "init_range", "regions")})
    model.save(path)
    assert not {"schedule", "init_range", "regions"} & set(Word2Vec.saved_config(path))
    monkeypatch.undo()
    back = Word2Vec.load(path)
    assert back.init_range == 0.5 and back.schedule == "word2vec" and back.config() == model.config()
    assert back.regions is None  # the default order
    Word2Vec(dim=8, epochs=1, threads=1, min_count=1, init_range=2.0).fit(corpus).save(path)
    back = Word2Vec.load(path)
    assert back.init_range == 2.0 and back.schedule == "epochs"


def test_a_finished_schedule_starts_anew_and_an_unfinished_one_needs_its_corpus(tmp_path, topics_corpus):
    _, corpus = topics_corpus
    path = tmp_path / "m.wv"
    model = Word2Vec(dim=8, epochs=2, threads=1, min_count=1)
    model.fit(corpus, callbacks=[lambda m, es: m.save(path) if es.epoch == 0 else None])
    resumed = Word2Vec.load(path)
    state = resumed.schedule_state
    assert state["epochs"] == 2 and state["epochs_done"] == 1 and Word2Vec().schedule_state is None
    state["epochs_done"] = 2  # a copy: the model's schedule is not changed through it
    assert resumed.unfinished_epochs == 1
    with pytest.raises(ValueError, match="stopped after epoch 1 of 2"):
        resumed.train(corpus[:100])
    assert resumed.train(corpus[:100], epochs=3).epochs == 3  # epochs given: a new schedule
    model.save(path)  # after the whole call: nothing left of its schedule
    assert Word2Vec.load(path).train(corpus).epochs == 2


def test_loading_a_vectors_file_or_a_damaged_state_is_refused(tmp_path, topics_corpus):
    _, corpus = topics_corpus
    model = Word2Vec(dim=8, epochs=1, threads=1, min_count=1).fit(corpus)
    vectors_only = tmp_path / "v.wv"
    model.vectors.save(vectors_only)
    with pytest.raises(FormatError, match="not a saved Word2Vec"):
        Word2Vec.load(vectors_only)
    with pytest.raises(FormatError, match="not a saved Word2Vec"):
        Word2Vec.saved_config(vectors_only)
    saved = tmp_path / "m.wv"
    model.save(saved)
    assert Word2Vec.saved_config(saved) == model.config() == Word2Vec.load(saved).config()
    loaded = Word2Vec.load(saved)
    assert loaded.input_vectors.flags.writeable and loaded.output_vectors.flags.writeable
    np.testing.assert_array_equal(loaded.output_vectors, model.output_vectors)
    damaged = tmp_path / "d.wv"
    model.save(damaged)
    raw = bytearray(damaged.read_bytes())
    at = raw.rfind(b'"epochs_trained": 1')  # the state's (the last one in the header)
    raw[at:at + 19] = b'"epochs_trainee": 1'  # same length: the key goes missing
    damaged.write_bytes(bytes(raw))
    with pytest.raises(FormatError, match="damaged Word2Vec state"):
        Word2Vec.load(damaged)


def _chunky_corpus(n_sentences=30000, length=20, vocab=400, seed=0):
    rng = np.random.default_rng(seed)
    return [[f"w{i}" for i in rng.zipf(1.3, size=length) % vocab] for _ in range(n_sentences)]


def test_checkpoints_in_the_middle_of_an_epoch_resume_where_they_paused(tmp_path):
    """Checkpoints every few ms pause the threads between chunks; a run
    resumed from one of them trains the rest of the epoch, every chunk once:
    the same words and examples (drawn per chunk) as a run never paused."""
    corpus = _chunky_corpus()
    cfg = dict(dim=8, window=3, epochs=1, threads=1, seed=3, min_count=1, sample=1e-3)
    straight = Word2Vec(**cfg).fit(corpus).history[0]

    path, kept = tmp_path / "run.wv", tmp_path / "mid.wv"
    model = Word2Vec(**cfg)
    real_save = Word2Vec.save
    saves = []

    def save_and_keep_the_first(self, p):
        real_save(self, p)
        saves.append(dict(self._schedule))
        if len(saves) == 1:
            real_save(self, kept)

    model.save = save_and_keep_the_first.__get__(model)
    model.build_vocab(corpus)
    model.train(corpus, checkpoint=path, checkpoint_every=1e-6)
    assert len(saves) >= 2 and 0 < saves[0]["claim"] < model._core.claims
    paused = model.history[0]
    assert (paused.words, paused.examples) == (straight.words, straight.examples)

    resumed = Word2Vec.load(kept)
    assert resumed.unfinished_epochs == 1 and resumed._schedule["claim"] == saves[0]["claim"]
    stats = resumed.train(corpus)
    last = resumed.history[-1]
    assert stats.epochs == 1 and (last.words, last.examples) == (straight.words, straight.examples)
    assert np.isfinite(resumed.input_vectors).all()


def test_a_hierarchical_softmax_model_saved_with_one_row_per_inner_node_loads(tmp_path, topics_corpus, monkeypatch):
    """HS output matrices have one row per word (the last unused, as word2vec.c
    and gensim allocate); files saved when they had V - 1 rows still load."""
    _, corpus = topics_corpus
    path = tmp_path / "m.wv"
    model = Word2Vec(dim=8, epochs=1, threads=1, min_count=1, loss="hs").fit(corpus)
    V = len(model.vocab)
    assert model.output_vectors.shape == (V, 8) and not model.output_vectors[-1].any()
    inner = model.output_vectors[:-1].copy()
    monkeypatch.setattr(model, "output_vectors", inner)
    model.save(path)
    monkeypatch.undo()
    back = Word2Vec.load(path)
    assert back.output_vectors.shape == (V, 8) and not back.output_vectors[-1].any()
    np.testing.assert_array_equal(back.output_vectors[:-1], inner)
    back.train(corpus, epochs=1)
