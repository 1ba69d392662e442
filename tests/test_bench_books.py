"""benchmarks.doc2vec_books and doc2vec_labelled on handmade inputs: the
books found by their title lines, the passages and the split, the logistic
regression against a numerical gradient and a planted structure, and the
labelled files read or refused, and a run's record (no corpus, no gensim)."""

import json

import numpy as np
import pytest

from benchmarks import doc2vec_books as books  # the package imported by conftest.py
from benchmarks import doc2vec_labelled as labelled


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


def test_a_labelled_tsv_gives_tokens_and_sorted_label_indices(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_text("pos\ta fine  film\n\nneg\tdull\tand long\r\npos\t\n", encoding="utf-8")
    docs, labels, names = labelled.read_labelled(str(path))
    assert docs == [["a", "fine", "film"], ["dull", "and", "long"], []]
    assert names == ["neg", "pos"] and labels.tolist() == [1, 0, 1]


def test_a_labelled_csv_keeps_the_source_asked_for(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text('text,label,source\n"good, ""very"" good",1,imdb\nbad,0,rt\n"so\nbad",0,imdb\n',
                    encoding="utf-8")
    docs, labels, names = labelled.read_labelled(str(path), "imdb")
    assert docs == [["good,", '"very"', "good"], ["so", "bad"]] and labels.tolist() == [1, 0]
    assert len(labelled.read_labelled(str(path))[0]) == 3


@pytest.mark.parametrize("name, text, source, message", [
    ("a.tsv", "pos\tgood\nneg bad\n", None, r"a.tsv, line 2: no tab after the label"),
    ("b.tsv", "pos\tgood\npos\tfine\n", None, r"every document has the label 'pos'"),
    ("c.tsv", "\n\n", None, r"c.tsv: no labelled documents$"),
    ("d.csv", "text,label\nx,1\n", "imdb", r"no column named source"),
    ("e.csv", "text,label,source\nx,1,rt\n", "imdb", r"no labelled documents with source 'imdb'"),
])
def test_a_bad_labelled_file_is_named(tmp_path, name, text, source, message):
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        labelled.read_labelled(str(tmp_path / name), source)


def test_a_runs_record_holds_its_facts_even_named_as_its_parameters(tmp_path, monkeypatch):
    monkeypatch.setattr(books, "compare", lambda docs, labels, train, args: [{"tool": "t", "seed": 1}])
    args = type("Args", (), {"out": str(tmp_path / "out"), "epochs": 3, "threads": 2})()
    train = np.array([True, False, True])
    rows = books.run_and_record([["a"]] * 3, np.array([0, 1, 0]), train, args, "r.json", labels=["neg", "pos"],
                                docs=3)
    record = json.loads((tmp_path / "out" / "r.json").read_text())
    assert rows == record["rows"] == [{"tool": "t", "seed": 1}]
    assert (record["labels"], record["docs"], record["train"], record["epochs"]) == (["neg", "pos"], 3, 2, 3)
    assert record["settings"] == books.SETTINGS
