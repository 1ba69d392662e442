"""word2vec.c's command lines (issue #59): its demo scripts run with only
the program names replaced, the files they write read by gensim's readers,
distance / word-analogy / compute-accuracy against brute force and a
planted analogy set, -classes against word2vec.c's k-means written out
plainly, and a single-dash flag the tool does not have refused by name."""

import gzip
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from wv_engine import datasets, load_vectors
from wv_engine.cli import main
from wv_engine.io import save_vectors
from wv_engine.vectors import Vectors
from wv_engine.word_classes import word_classes

WV = f"{sys.executable} -m wv_engine.cli"
TEXT_BYTES = 700_000  # about 130,000 words: the demos' 15 epochs of 200-d vectors in a second or two


@pytest.fixture(scope="module")
def demo_text(tmp_path_factory):
    """The shipped demo corpus as a plain file: the demos' text8 stand-in."""
    path = tmp_path_factory.mktemp("text") / "text8"
    with gzip.open(os.path.join(os.path.dirname(datasets.__file__), "demo_small.txt.gz"), "rb") as f:
        text = f.read(TEXT_BYTES)
    path.write_bytes(text[:text.rindex(b" ")])
    return path


def _script(tmp_path, demo_text, body: str, stdin: str = "") -> subprocess.CompletedProcess:
    """A demo script's lines (download and make steps dropped, the text
    linked as text8, ./PROGRAM replaced by wv-engine PROGRAM) run by bash."""
    os.symlink(demo_text, tmp_path / "text8")
    shutil.copy(os.path.join(os.path.dirname(datasets.__file__), "questions-words.txt"), tmp_path)
    script = tmp_path / "demo.sh"
    script.write_text("set -e\n" + body.replace("./", f"{WV} "))
    return subprocess.run(["bash", str(script)], cwd=tmp_path, input=stdin, capture_output=True, text=True, check=False,
                          timeout=300)


def test_demo_word_and_distance(tmp_path, demo_text):
    """demo-word.sh: CBOW training with its flags, then distance on a typed word."""
    run = _script(tmp_path, demo_text, """
time ./word2vec -train text8 -output vectors.bin -cbow 1 -size 200 -window 8 -negative 25 -hs 0 -sample 1e-4 -threads 20 -binary 1 -iter 15
./distance vectors.bin
""", stdin="emma\nEXIT\n")
    assert run.returncode == 0, run.stderr
    from gensim.models import KeyedVectors

    kv = KeyedVectors.load_word2vec_format(str(tmp_path / "vectors.bin"), binary=True)
    assert kv.vector_size == 200 and len(kv) > 1000
    shown = _table(run.stdout)
    assert len(shown) == 40
    expected = kv.most_similar("emma", topn=40)
    assert [w for w, _ in shown[:10]] == [w for w, _ in expected[:10]]
    np.testing.assert_allclose([s for _, s in shown], [s for _, s in expected], atol=2e-6)
    assert f"Word: emma  Position in vocabulary: {kv.key_to_index['emma']}" in run.stdout


def _table(stdout: str) -> list[tuple[str, float]]:
    """The rows distance / word-analogy print under their header."""
    rows = []
    for line in stdout.splitlines():
        if "\t\t" in line:
            word, score = line.split("\t\t")
            assert len(word) == 50  # %50s
            rows.append((word.strip(), float(score)))
    return rows


def test_demo_phrases(tmp_path, demo_text):
    """demo-phrases.sh: its sed/tr normalisation, word2phrase twice, lower
    case, CBOW on the phrased text, distance."""
    os.symlink(demo_text, tmp_path / "news.2012.en.shuffled")
    run = _script(tmp_path, demo_text, """
sed -e "s/’/'/g" -e "s/′/'/g" -e "s/''/ /g" < news.2012.en.shuffled | tr -c "A-Za-z'_ \\n" " " > news.2012.en.shuffled-norm0
time ./word2phrase -train news.2012.en.shuffled-norm0 -output news.2012.en.shuffled-norm0-phrase0 -threshold 200 -debug 2
time ./word2phrase -train news.2012.en.shuffled-norm0-phrase0 -output news.2012.en.shuffled-norm0-phrase1 -threshold 100 -debug 2
tr A-Z a-z < news.2012.en.shuffled-norm0-phrase1 > news.2012.en.shuffled-norm1-phrase1
time ./word2vec -train news.2012.en.shuffled-norm1-phrase1 -output vectors-phrase.bin -cbow 1 -size 200 -window 10 -negative 25 -hs 0 -sample 1e-5 -threads 20 -binary 1 -iter 15
./distance vectors-phrase.bin
""", stdin="mr_knightley\n")
    assert run.returncode == 0, run.stderr
    phrased = (tmp_path / "news.2012.en.shuffled-norm1-phrase1").read_text().split()
    assert phrased.count("mr_knightley") > 100  # a phrase of the demo text, joined
    assert len(_table(run.stdout)) == 40


def test_demo_classes(tmp_path, demo_text):
    run = _script(tmp_path, demo_text, """
time ./word2vec -train text8 -output classes.txt -cbow 1 -size 200 -window 8 -negative 25 -hs 0 -sample 1e-4 -threads 20 -iter 15 -classes 500
sort classes.txt -k 2 -n > classes.sorted.txt
""")
    assert run.returncode == 0, run.stderr
    lines = (tmp_path / "classes.sorted.txt").read_text().splitlines()
    classes = [int(line.split(" ")[1]) for line in lines]
    assert classes == sorted(classes) and 0 <= min(classes) and max(classes) < 500
    assert len(set(classes)) > 250  # k-means spreads the words, not one class


def test_demo_word_accuracy_and_analogy(tmp_path, demo_text):
    run = _script(tmp_path, demo_text, """
time ./word2vec -train text8 -output vectors.bin -cbow 1 -size 200 -window 8 -negative 25 -hs 0 -sample 1e-4 -threads 20 -binary 1 -iter 15
./compute-accuracy vectors.bin 30000 < questions-words.txt
./word-analogy vectors.bin
""", stdin="he his she\nEXIT\n")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.startswith("capital-common-countries:\n")
    assert out.count("ACCURACY TOP1: ") == 14 and "Questions seen / total: " in out
    assert "Enter three words (EXIT to break): " in out and len(_table(out)) == 40


def test_distance_mean_of_words_and_unknown(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)]
    mat = rng.normal(size=(60, 8)).astype(np.float32)
    path = tmp_path / "v.bin"
    save_vectors(Vectors(words, mat), path, "word2vec-bin")
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("w1 w2\nnope\nw3\n"))
    assert main(["distance", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("Enter word or sentence (EXIT to break): ") == 4  # the last meets the end of input
    assert "Word: nope  Position in vocabulary: -1\nOut of dictionary word!\n" in out
    units = mat / np.linalg.norm(mat, axis=1, keepdims=True)
    q = units[1] + units[2]
    scores = units @ (q / np.linalg.norm(q))
    scores[[1, 2]] = -np.inf
    order = np.argsort(-scores, kind="stable")[:40]
    first = _table(out)[:40]
    assert [w for w, _ in first] == [words[i] for i in order]
    np.testing.assert_allclose([s for _, s in first], scores[order], atol=1e-6)


def test_word_analogy_needs_three_words(tmp_path, capsys, monkeypatch):
    path = tmp_path / "v.txt"
    save_vectors(Vectors(["a", "b", "c"], np.eye(3, dtype=np.float32)), path, "word2vec-txt")
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("a b\nEXIT\n"))
    assert main(["word-analogy", str(path)]) == 0
    assert ("Only 2 words were entered.. three words are needed at the input to perform the calculation\n"
            in capsys.readouterr().out)


def test_compute_accuracy_report_on_planted_analogies(tmp_path, capsys, monkeypatch):
    """Planted vectors where b - a + c lands on d for the first section and
    on a wrong word for the second: the report counts, sections and totals
    as compute-accuracy prints them (upper-cased words, 0/0 as -nan)."""
    rng = np.random.default_rng(1)
    base = rng.normal(size=(4, 64)).astype(np.float32)
    words = ["man", "king", "woman", "queen", "Paris", "France", "Rome", "Italy", "other"]
    rows = {w: rng.normal(size=64).astype(np.float32) * 0.01 for w in words}
    rows["man"], rows["king"], rows["woman"] = base[0], base[0] + base[1], base[2]
    rows["queen"] = base[2] + base[1]
    rows["Paris"], rows["France"], rows["Rome"] = base[3], base[3] + base[0], base[1]
    rows["other"] = base[1] + base[0] * 1.01  # nearer to France - Paris + Rome than Italy is
    path = tmp_path / "v.bin"
    save_vectors(Vectors(words, np.stack([rows[w] for w in words])), path, "word2vec-bin")
    questions = (": family\nman king woman queen\nMAN KING WOMAN QUEEN\nman king woman absent\n"
                 ": capital-world\nparis france rome italy\n")
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(questions))
    assert main(["compute-accuracy", str(path)]) == 0
    assert capsys.readouterr().out == (
        "family:\nACCURACY TOP1: 100.00 %  (2 / 2)\n"
        "Total accuracy: 100.00 %   Semantic accuracy: 100.00 %   Syntactic accuracy: -nan % \n"
        "capital-world:\nACCURACY TOP1: 0.00 %  (0 / 1)\n"
        "Total accuracy: 66.67 %   Semantic accuracy: 66.67 %   Syntactic accuracy: -nan % \n"
        "Questions seen / total: 3 4   75.00 % \n")


def test_compute_accuracy_threshold_keeps_the_first_words(tmp_path, capsys, monkeypatch):
    path = tmp_path / "v.txt"
    save_vectors(Vectors(["a", "b", "c", "d"], np.eye(4, dtype=np.float32)), path, "word2vec-txt")
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(": s\na b c d\n"))
    assert main(["compute-accuracy", str(path), "3"]) == 0
    assert capsys.readouterr().out.endswith("Questions seen / total: 0 1   0.00 % \n")  # d is past the threshold


def _kmeans_as_written(vectors: np.ndarray, k: int) -> np.ndarray:
    """word2vec.c's -classes loop, one word and one class at a time."""
    V, D = vectors.shape
    cl = np.arange(V) % k
    for _ in range(10):
        cent = np.zeros((k, D))
        count = np.ones(k)
        for c in range(V):
            cent[cl[c]] += vectors[c]
            count[cl[c]] += 1
        for j in range(k):
            cent[j] /= count[j]
            length = np.sqrt((cent[j] ** 2).sum())
            cent[j] = cent[j] / length if length else np.nan
        for c in range(V):
            best, best_class = -10.0, 0
            for j in range(k):
                x = float(cent[j] @ vectors[c])
                if x > best:
                    best, best_class = x, j
            cl[c] = best_class
    return cl


def test_word_classes_are_word2vecs_kmeans():
    rng = np.random.default_rng(2)
    centres = rng.normal(size=(5, 6)) * 3
    vectors = (centres[rng.integers(0, 5, 120)] + rng.normal(size=(120, 6))).astype(np.float32)
    np.testing.assert_array_equal(word_classes(vectors, 7), _kmeans_as_written(vectors.astype(np.float64), 7))


def test_single_dash_spelling_is_our_run(tmp_path, demo_text):
    """word2vec.c's flags give the vectors our own flags give (one thread,
    the same seed): the same engine, not another path."""
    theirs, ours = tmp_path / "c.bin", tmp_path / "ours.bin"
    assert main(["word2vec", "-train", str(demo_text), "-output", str(theirs), "-cbow", "0", "-size", "16",
                 "-threads", "1", "-iter", "1", "-binary", "1", "-debug", "0"]) == 0
    assert main(["word2vec", str(demo_text), "-o", str(ours), "--arch", "skipgram", "--dim", "16", "--threads",
                 "1", "--epochs", "1", "--alpha", "0.025", "--sample", "1e-3", "--schedule", "word2vec",
                 "--init-range", "0.5", "--quiet"]) == 0
    assert theirs.read_bytes() == ours.read_bytes()


def test_vocabulary_saved_read_and_alone(tmp_path, demo_text):
    """-save-vocab without -output only counts (as word2vec.c); -read-vocab
    takes its words over the text's, word2vec.c's </s> line and words under
    -min-count left out."""
    vocab = tmp_path / "vocab.txt"
    assert main(["word2vec", "-train", str(demo_text), "-save-vocab", str(vocab), "-debug", "0"]) == 0
    lines = vocab.read_text().splitlines()
    assert lines[0].split()[0] == "the" and all(int(line.split()[1]) >= 5 for line in lines)
    vocab.write_text("</s> 9999\n" + "\n".join(lines[:50]) + "\n")
    out = tmp_path / "v.txt"
    assert main(["word2vec", "-train", str(demo_text), "-read-vocab", str(vocab), "-output", str(out),
                 "-size", "8", "-iter", "1", "-min-count", "1", "-debug", "0"]) == 0
    assert load_vectors(out).words == [line.split()[0] for line in lines[:50]]


@pytest.mark.parametrize("argv,message", [
    (["word2vec", "-train", "t", "-outptu", "v"], "unknown flag -outptu (word2vec's flags: -train -output"),
    (["word2vec", "-train", "t", "-size", "0"], "-size '0': must be an integer in [1, "),
    (["word2vec", "-train", "t", "-hs", "1"], "-hs 1 with -negative 5: word2vec.c then trains both"),
    (["word2vec", "-train", "t", "-size", "5", "-size", "6"], "-size is given twice"),
    (["word2vec", "-train"], "-train needs a value"),
    (["word2phrase", "-train", "t", "-thresold", "5"], "unknown flag -thresold"),
    (["compute-accuracy", "v.bin", "many"], "THRESHOLD 'many': not a whole number"),
    (["similar", "v.bin", "-topn", "5"], "unknown flag -topn (wv-engine's own flags are spelled --name"),
    (["word2vec", "corpus.txt", "-output", "v.bin"], "unexpected argument 'corpus.txt'"),
])
def test_a_flag_the_tool_lacks_is_one_line(argv, message, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:  # our own commands' parser exits
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and message in err, err
