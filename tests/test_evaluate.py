"""Analogy and word-pair evaluation on hand-built vectors whose answers are known."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from wv_engine import datasets
from wv_engine.evaluate import evaluate_all, evaluate_analogies, evaluate_word_pairs
from wv_engine.vectors import Vectors


def planted_vectors() -> Vectors:
    """Words made of orthogonal concepts, in frequency order, so each answer is known."""
    e = np.eye(16)
    R, M, F, P, C, N, G1, G2, G3, Z, J, G4 = (e[i] for i in range(12))
    rows = {
        "the": e[15],
        "king": R + M,
        "man": P + M,
        "woman": P + F,
        "Woman": R + F,    # rarer spelling of "woman" that sits exactly on the answer "queen"
        "queen": R + F,
        "athens": C + G1,
        "greece": N + G1,
        "Paris": C + G2,
        "france": N + G2,
        "rome": C + G3,
        "italy": N + G3 + 0.3 * Z,   # the right answer, but not exactly on rome's offset
        "spain": N + e[14],
        "paris": J - N,    # rarer spelling of "Paris" with an unrelated vector
        "italia": N + G3,  # row 14: a decoy that beats "italy" when it is searched
        "berlin": C + G4,  # rows 15 and 16: outside restrict_vocab=14
        "germany": N + G4,
    }
    return Vectors(list(rows), np.array(list(rows.values())))


QUESTIONS = """\
: royal
man king woman queen
MAN KING WOMAN QUEEN
: capital-common-countries
athens greece paris france
athens greece paris spain
athens greece rome italy
athens greece berlin germany
greece athens france paris
athens greece paris xyzzy
: gram-case
man king woman queen
"""


@pytest.fixture()
def questions(tmp_path):
    path = tmp_path / "questions.txt"
    path.write_text(QUESTIONS)
    return path


def section_counts(result):
    return [(s["section"], s["correct"], s["total"], s["questions"]) for s in result["sections"]]


@pytest.mark.parametrize("method", ["3cosadd", "3cosmul"])
def test_planted_analogies_case_insensitive(questions, method):
    v = planted_vectors()
    # All 17 words searched: "italia" beats "italy"; "paris" folds onto the frequent "Paris";
    # "Woman" (an alias of WOMAN) is excluded like the query word itself.
    r = evaluate_analogies(v, questions, restrict_vocab=None, method=method)
    assert section_counts(r) == [("royal", 2, 2, 2), ("capital-common-countries", 3, 5, 6),
                                 ("gram-case", 1, 1, 1)]
    assert (r["correct"], r["total"], r["questions"]) == (6, 8, 9)
    assert r["accuracy"] == pytest.approx(6 / 8) and r["coverage"] == pytest.approx(8 / 9)
    assert r["semantic"]["correct"] == 5 and r["semantic"]["total"] == 7
    assert r["syntactic"] == {"correct": 1, "total": 1, "questions": 1, "accuracy": 1.0,
                              "coverage": 1.0}
    assert (r["method"], r["restrict_vocab"], r["case_insensitive"]) == (method, None, True)

    # restrict_vocab=14: "italia" is no longer a candidate (italy now right), and the
    # berlin/germany question has words outside the searched rows, so it is skipped.
    r = evaluate_analogies(v, questions, restrict_vocab=14, method=method)
    assert section_counts(r)[1] == ("capital-common-countries", 3, 4, 6)
    assert (r["correct"], r["total"], r["questions"]) == (6, 7, 9)


@pytest.mark.parametrize("method", ["3cosadd", "3cosmul"])
def test_planted_analogies_case_sensitive(questions, method):
    v = planted_vectors()
    r = evaluate_analogies(v, questions, restrict_vocab=None, case_insensitive=False,
                           method=method)
    # royal: "Woman" is now an ordinary candidate tied with "queen" and more frequent, so it
    # wins; the uppercase question is out of vocabulary. capital: "paris" is its own junk
    # row; only berlin : germany is right.
    assert section_counts(r) == [("royal", 0, 1, 2), ("capital-common-countries", 1, 5, 6),
                                 ("gram-case", 0, 1, 1)]
    assert (r["correct"], r["total"], r["questions"]) == (1, 7, 9)


def test_batched_path_gives_the_same_answers(questions, monkeypatch):
    """Force one-question cosine tables (the large-vocabulary path)."""
    import wv_engine.evaluate as ev

    v = planted_vectors()
    expected = [evaluate_analogies(v, questions, restrict_vocab=None, method=m)
                for m in ("3cosadd", "3cosmul")]
    monkeypatch.setattr(ev, "_GRAM_BYTES", 0)
    got = [evaluate_analogies(v, questions, restrict_vocab=None, method=m)
           for m in ("3cosadd", "3cosmul")]
    assert got == expected


def test_analogy_edge_cases(tmp_path):
    v = planted_vectors()
    path = tmp_path / "q.txt"
    path.write_text(": none\nfoo bar baz qux\n")
    r = evaluate_analogies(v, path)
    assert r["total"] == 0 and r["accuracy"] is None and r["coverage"] == 0.0
    path.write_text(": bad\nman king woman\n")
    with pytest.raises(ValueError, match="line 2: expected 4 words"):
        evaluate_analogies(v, path)
    with pytest.raises(ValueError, match="method"):
        evaluate_analogies(v, path, method="cosine")


def test_analogies_agree_with_gensim_on_the_shipped_set(tmp_path):
    pytest.importorskip("gensim")
    rng = np.random.default_rng(5)
    # Give each section an offset and place b at a + offset (+ noise) when first seen, so that
    # a good share of questions is answerable and both tools have real work to agree on.
    vec: dict[str, np.ndarray] = {}
    offset = None
    for line in open(datasets.path("questions-words")):
        if line.startswith(":"):
            offset = rng.standard_normal(20)
            continue
        a, b = line.split()[:2]
        vec.setdefault(a, rng.standard_normal(20))
        vec.setdefault(b, vec[a] + offset + 0.3 * rng.standard_normal(20))
    vocab = list(vec)
    # Add lowercase spellings of some words (case collisions), then shuffle frequency order.
    for w in vocab[::3]:
        if w.lower() != w:
            vec[w.lower()] = rng.standard_normal(20)
    vocab = list(vec)
    rng.shuffle(vocab)
    vocab += [f"filler{i}" for i in range(200)]
    mat = [vec[w] if w in vec else rng.standard_normal(20) for w in vocab]
    v = Vectors(vocab, mat)
    # Every 10th question, restricted to 600 rows: some questions are skipped.
    lines = [ln for i, ln in enumerate(open(datasets.path("questions-words")))
             if ln.startswith(":") or i % 10 == 0]
    qpath = tmp_path / "q.txt"
    qpath.write_text("".join(lines))
    ours = evaluate_analogies(v, qpath, restrict_vocab=600)
    _, sections = v.to_gensim().evaluate_word_analogies(str(qpath), restrict_vocab=600)
    theirs = {s["section"]: (len(s["correct"]), len(s["correct"]) + len(s["incorrect"]))
              for s in sections}
    assert ours["correct"] > 100 and 0 < ours["coverage"] < 1
    for s in ours["sections"]:
        assert (s["correct"], s["total"]) == theirs.get(s["section"], (0, 0)), s["section"]
    assert (ours["correct"], ours["total"]) == theirs["Total accuracy"]


# ---------------------------------------------------------------------------- word pairs


def angle_vectors() -> Vectors:
    degrees = {"base": 0, "ten": 10, "thirty": 30, "sixty": 60, "ninety": 90}
    return Vectors(list(degrees), [[math.cos(math.radians(d)), math.sin(math.radians(d))]
                                   for d in degrees.values()])


def test_word_pairs_spearman_and_oov(tmp_path):
    path = tmp_path / "pairs.txt"
    path.write_text("# a comment\n# Word 1\tWord 2\tHuman\n"
                    "base\tten\t9.0\n"
                    "BASE thirty 7.0\n"       # whitespace separated, folded to "base"
                    "base\tsixty\t8.0\n"
                    "\n"
                    "base\tninety\t1.0\n"
                    "base\tunknown\t5.0\n")
    v = angle_vectors()
    r = evaluate_word_pairs(v, path)
    gold = [9.0, 7.0, 8.0, 1.0]
    model = [math.cos(math.radians(d)) for d in (10, 30, 60, 90)]
    # Ranks: gold 4,2,3,1 vs model 4,3,2,1 -> rho = 1 - 6 * 2 / (4 * 15) = 0.8.
    assert r["spearman"] == pytest.approx(0.8)
    assert r["spearman"] == pytest.approx(stats.spearmanr(gold, model)[0])
    assert r["pearson"] == pytest.approx(stats.pearsonr(gold, model)[0], abs=1e-6)
    assert (r["pairs"], r["oov"]) == (4, 1) and r["oov_ratio"] == pytest.approx(0.2)
    # Case-sensitive: "BASE" is unknown too; restrict_vocab=3 drops sixty and ninety.
    assert evaluate_word_pairs(v, path, case_insensitive=False)["oov"] == 2
    r3 = evaluate_word_pairs(v, path, restrict_vocab=3)
    assert (r3["pairs"], r3["oov"]) == (2, 3)
    path.write_text("base ten x\n")
    with pytest.raises(ValueError, match="line 1: score 'x'"):
        evaluate_word_pairs(v, path)


# ---------------------------------------------------------------------------- shipped data


def test_shipped_datasets_are_complete():
    for name in datasets.NAMES:
        assert datasets.path(name).is_file()
    with pytest.raises(KeyError, match="unknown dataset 'nope'"):
        datasets.path("nope")
    v = Vectors(["king", "queen", "man", "woman", "tiger", "cat"], np.eye(6))
    r = evaluate_analogies(v)
    assert r["questions"] == 19544 and len(r["sections"]) == 14
    assert sum(s["section"].startswith("gram") for s in r["sections"]) == 9
    every = evaluate_all(v)
    assert set(every) == {"analogy", "wordsim353", "simlex999"}
    assert every["wordsim353"]["pairs"] + every["wordsim353"]["oov"] == 353
    assert every["simlex999"]["pairs"] + every["simlex999"]["oov"] == 999
    for name, n in (("ws353-similarity", 203), ("ws353-relatedness", 252)):
        r = evaluate_word_pairs(v, datasets.path(name))
        assert r["pairs"] + r["oov"] == n


@pytest.mark.parametrize("method", ["3cosadd", "3cosmul"])
@pytest.mark.parametrize("threads", [1, 3])
def test_the_answer_kernel_is_numpys_argmax(method, threads):
    """The C kernel against numpy on float32: scores in numpy's order, the
    excluded candidates left out, ties (many: the cosines take 9 values) to
    the first candidate, across tiles of 2,048 candidates."""
    from wv_engine import _evaluate

    rng = np.random.default_rng(7)
    n, k = 5000, 400
    gram = (np.round(rng.random((30, n)) * 8) / 8).astype(np.float32)
    abc = rng.integers(0, 30, (k, 3)).astype(np.int32)
    excluded = rng.integers(-1, n, (k, 6)).astype(np.int32)
    a, b, c = gram[abc[:, 0]], gram[abc[:, 1]], gram[abc[:, 2]]
    scores = (b - a) + c if method == "3cosadd" else (b * c) / (a + np.float32(1e-6))
    for col in excluded.T:
        keep = col >= 0
        scores[np.flatnonzero(keep), col[keep]] = -np.inf
    got = _evaluate.analogy_best(gram, abc, excluded, method, threads)
    np.testing.assert_array_equal(got, scores.argmax(axis=1))
    everything = np.array([[0, 1, 2]], np.int32)  # every candidate excluded: no answer
    assert _evaluate.analogy_best(gram[:, :3].copy(), abc[:1] % 3, everything, method, threads).tolist() == [-1]
    with pytest.raises(ValueError, match="outside"):
        _evaluate.analogy_best(gram, abc + 30, excluded, method, threads)
    with pytest.raises(ValueError, match="outside"):
        _evaluate.analogy_best(gram, abc, excluded + n, method, threads)
