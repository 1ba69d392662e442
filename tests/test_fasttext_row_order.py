"""The n-gram rows' training order (wv_engine/fasttext/row_order.py,
csrc/row_order.c): the in-place moves against numpy's gather, the order's
renumbering against the table it came from, and training in that order
against training in fastText's layout (one thread and a seed: the same
arithmetic, so the same bits), with the matrix back in fastText's layout
whenever anything else can read it."""

import numpy as np
import pytest

from wv_engine import FastText
from wv_engine import _subwords
from wv_engine.fasttext import TrainingOrder


@pytest.mark.parametrize("n", [1, 2, 7, 1000])
def test_moving_rows_by_cycles_is_numpys_gather_and_undoes_exactly(n):
    rng = np.random.default_rng(n)
    for stay in (0.0, 0.5, 0.95):  # fixed points, none to most
        src = rng.permutation(n).astype(np.int32)
        keep = rng.random(n) < stay
        src[keep] = np.arange(n)[keep]
        src[~keep] = rng.permutation(np.arange(n)[~keep])
        matrix = rng.random((n, 5), dtype=np.float32)
        cycles = _subwords.row_cycles(src)
        assert len(cycles) == np.count_nonzero(src != np.arange(n))
        moved = matrix.copy()
        _subwords.move_rows(moved, cycles, True)
        np.testing.assert_array_equal(moved, matrix[src])
        _subwords.move_rows(moved, cycles, False)
        np.testing.assert_array_equal(moved, matrix)


def test_what_is_not_a_permutation_is_refused():
    with pytest.raises(ValueError, match="outside"):
        TrainingOrder(np.array([0, 1, 9], dtype=np.int32), 2, 9)
    with pytest.raises(ValueError, match="permutation"):  # moves more rows than it was told
        _subwords.row_cycles(np.array([1, 0, 3, 2], dtype=np.int32), 3)
    with pytest.raises(ValueError, match="permutation"):
        _subwords.row_cycles(np.array([1, 1, 0], dtype=np.int32))
    with pytest.raises(ValueError, match="permutation"):
        _subwords.row_cycles(np.array([0, 3, 1], dtype=np.int32))
    cycles = _subwords.row_cycles(np.array([2, 0, 1], dtype=np.int32))
    with pytest.raises(ValueError, match="fit"):
        _subwords.move_rows(np.zeros((2, 3), dtype=np.float32), cycles, True)


def test_the_order_puts_each_words_ngrams_side_by_side_first_named_first():
    words = ["the", "of", "where", "there", "</s>", "whereas"]
    V, buckets = len(words), 5000
    offsets, rows = _subwords.subword_table(words, 3, 6, buckets)
    order = TrainingOrder(rows, V, V + buckets)
    assert np.array_equal(order.rows[rows < V], rows[rows < V])  # the words' own rows stay
    first_named = list(dict.fromkeys(rows[rows >= V]))
    assert sorted(set(order.rows[rows >= V] - V)) == list(range(len(first_named)))
    assert [order.rows[list(rows).index(r)] - V for r in first_named] == list(range(len(first_named)))
    matrix = np.random.default_rng(0).random((V + buckets, 4), dtype=np.float32)
    before = matrix.copy()
    order.apply(matrix)
    order.apply(matrix)  # once is all
    np.testing.assert_array_equal(matrix[order.rows], before[rows])  # every word reads the same rows
    np.testing.assert_array_equal(np.sort(matrix, axis=0), np.sort(before, axis=0))  # nothing lost
    order.restore(matrix)
    order.restore(matrix)
    np.testing.assert_array_equal(matrix, before)


def small(**kw):
    cfg = dict(dim=24, min_count=1, bucket=5000, threads=1, epochs=3, sample=0, seed=3, window=3)
    cfg.update(kw)
    return FastText(**cfg)


@pytest.mark.parametrize("arch,loss", [("skipgram", "ns"), ("cbow", "ns"), ("cbow", "hs")])
def test_training_in_row_order_gives_the_same_model_and_callbacks_see_fastTexts_layout(
        monkeypatch, truth, arch, loss):
    _, lines = truth.morphology(sentences=400)
    seen = {}

    def trained(in_order):
        monkeypatch.setattr(FastText, "train_in_row_order", in_order)
        model = small(arch=arch, loss=loss)
        model.build_vocab(lines)
        ngrams = model.ngram_vectors  # a view held across training, as gensim's wrapper holds one
        copies = []  # through the view, which no property puts back
        model.train(lines, progress=False,
                    callbacks=[lambda m, es: copies.append((ngrams.copy(), m.vectors["stemless"]))])
        seen[in_order] = model.__dict__["_row_order"] is not None
        model.train(lines, epochs=1, progress=False)  # no callbacks: back in fastText's layout at the end
        return model, ngrams.copy(), copies  # read through the view before any property can put rows back

    plain, plain_view, plain_copies = trained(False)
    ordered, view, copies = trained(True)
    assert seen == {False: False, True: True}
    np.testing.assert_array_equal(ordered.input_vectors, plain.input_vectors)
    np.testing.assert_array_equal(ordered.output_vectors, plain.output_vectors)
    np.testing.assert_array_equal(view, plain_view)
    assert len(copies) == len(plain_copies) == 3
    for (a, va), (b, vb) in zip(copies, plain_copies):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(va, vb)


def test_an_epoch_that_raises_leaves_fastTexts_layout(monkeypatch, truth):
    _, lines = truth.morphology(sentences=300)

    def stop(model, es):
        raise KeyError("stop")

    models = []
    for in_order in (False, True):
        monkeypatch.setattr(FastText, "train_in_row_order", in_order)
        model = small()
        model.build_vocab(lines)
        ngrams = model.ngram_vectors
        with pytest.raises(KeyError):
            model.train(lines, progress=False, callbacks=[stop])
        models.append((model, ngrams.copy()))
    (plain, plain_ngrams), (ordered, ngrams) = models
    np.testing.assert_array_equal(ngrams, plain_ngrams)  # read through the view: no property put them back
    np.testing.assert_array_equal(ordered.input_vectors, plain.input_vectors)


def test_the_flag_moves_with_the_rows_in_one_call():
    matrix = np.arange(12, dtype=np.float32).reshape(4, 3)
    cycles = _subwords.row_cycles(np.array([1, 0, 3, 2], dtype=np.int32))
    moved = np.zeros(1, dtype=np.uint8)
    _subwords.move_rows(matrix, cycles, True, moved)
    assert moved[0] == 1 and matrix[0, 0] == 3
    _subwords.move_rows(matrix, cycles, True, moved)  # says moved: nothing happens
    assert matrix[0, 0] == 3
    _subwords.move_rows(matrix, cycles, False, moved)
    assert moved[0] == 0 and matrix[0, 0] == 0


def test_another_thread_may_not_read_the_rows_while_train_runs(truth):
    import threading
    _, lines = truth.morphology(sentences=100)
    model = small()
    model.build_vocab(lines)
    model._core = model._make_core()
    model._layout_for_training(True)
    errors = []

    def read():
        try:
            model.input_vectors
        except RuntimeError as exc:
            errors.append(str(exc))

    with model._training:  # as train() holds it
        reader = threading.Thread(target=read)
        reader.start()
        reader.join()
    assert errors and "another thread" in errors[0]
    assert model.__dict__["_row_order"].applied  # the reader moved nothing
    model.input_vectors
    assert not model.__dict__["_row_order"].applied


def test_rows_being_trained_are_not_moved_under_the_threads(truth):
    _, lines = truth.morphology(sentences=100)
    model = small()
    model.build_vocab(lines)
    before = model.input_vectors.copy()
    model._core = model._make_core()
    model._layout_for_training(True)
    assert not np.array_equal(model.__dict__["_matrix"], before)  # moved

    class Running:
        running = True

    core, model._core = model._core, Running()
    with pytest.raises(RuntimeError, match="being trained"):
        model.input_vectors
    model._core = core
    np.testing.assert_array_equal(model.input_vectors, before)
