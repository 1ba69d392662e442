"""benchmarks.doc2vec_books on handmade inputs: the books found by their
title lines, the passages and the split, and the logistic regression
against a numerical gradient and a planted structure (no corpus, no gensim)."""

import importlib.util
import os

import numpy as np
import pytest

import wv_engine  # noqa: F401  (the installed package, before the benchmark module is read)

# benchmarks/ is a folder at the repository root, not an installed package;
# this module imports nothing of it, so it is read from its path.
_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "doc2vec_books.py")
_spec = importlib.util.spec_from_file_location("doc2vec_books", _PATH)
books = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(books)


def test_books_are_cut_at_their_title_lines():
    words = "a by b one two x y z c by d three four p q".split()
    assert books.split_books(words, ("a by b one two", "c by d three four")) == [(0, 8), (8, 15)]


def test_a_missing_or_misordered_title_is_named():
    words = "c by d three four x a by b one two y".split()
    with pytest.raises(ValueError, match="'c by d three four' is not in the corpus after word 11"):
        books.split_books(words, ("a by b one two", "c by d three four"))


def test_passages_drop_each_books_short_tail_and_keep_its_label():
    words = [str(i) for i in range(12)]
    docs, labels = books.passages(words, [(0, 7), (7, 12)], 3)
    assert docs == [["0", "1", "2"], ["3", "4", "5"], ["7", "8", "9"]]
    assert labels.tolist() == [0, 0, 1]


def test_the_split_takes_half_of_each_label_and_is_fixed_by_its_seed():
    labels = np.array([0] * 10 + [1] * 7 + [2] * 2)
    train = books.split_half(labels, seed=5)
    assert [int(train[labels == k].sum()) for k in range(3)] == [5, 3, 1]
    assert np.array_equal(train, books.split_half(labels, seed=5))
    assert not np.array_equal(train, books.split_half(labels, seed=6))


def test_the_logistic_gradient_is_the_numerical_one():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 4)), rng.integers(0, 3, size=20)
    Y = np.eye(3)[y]
    w = rng.normal(size=4 * 3 + 3)
    _, g = books.logistic_loss(w, X, Y, 0.7)
    h = 1e-6
    numeric = [(books.logistic_loss(w + h * e, X, Y, 0.7)[0] - books.logistic_loss(w - h * e, X, Y, 0.7)[0]) / (2 * h)
               for e in np.eye(len(w))]
    assert np.allclose(g, numeric, rtol=1e-5, atol=1e-6)


def test_the_classifier_finds_planted_classes_at_the_bayes_error():
    # Three classes, Gaussian around means 3 apart on one axis of ten: the
    # Bayes rule errs where a point crosses a midpoint (1.5 sd): P(z > 1.5) =
    # 6.7% for each outer class, twice that for the middle one, 8.9% in all.
    rng = np.random.default_rng(1)
    n = 6000
    y = rng.integers(0, 3, size=n)
    X = rng.normal(size=(n, 10))
    X[:, 3] += 3.0 * y
    train = np.arange(n) < n // 2
    err = books.error(X[train], y[train], X[~train], y[~train])
    bayes = float(np.mean(np.clip(np.rint(X[~train, 3] / 3.0), 0, 2) != y[~train]))
    assert abs(err - bayes) < 0.01
    assert 0.05 < bayes < 0.10
