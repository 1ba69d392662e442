"""fastText's command lines (issue #59): its word vector example with only
the program name replaced, the .bin and .vec read by gensim's readers, the
query commands against the model's own vectors, and a flag fastText's
unsupervised commands do not take refused in one line."""

import io
import os
import select
import subprocess
import sys
import time

import numpy as np
import pytest

from wv_engine.cli import main
from wv_engine.cli.reference import fasttext_c
from wv_engine.fasttext import FastText
from wv_engine.settings import default_threads
from wv_engine.vectors import Vectors

WV = f"{sys.executable} -m wv_engine.cli"


@pytest.fixture(scope="module")
def text(tmp_path_factory):
    """Planted words (shared prefixes, so that n-grams carry meaning)."""
    rng = np.random.default_rng(0)
    stems = ["walk", "talk", "jump", "play", "read", "cook", "paint", "sing"]
    words = [s + e for s in stems for e in ("", "s", "ed", "ing")]
    p = 1 / np.arange(1, len(words) + 1)
    lines = [" ".join(rng.choice(words, size=20, p=p / p.sum())) for _ in range(600)]
    path = tmp_path_factory.mktemp("ft") / "fil9"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def trained(text):
    """fastText's word vector example: skipgram at its flags (a smaller
    -dim, -bucket and -epoch for a test), then print-word-vectors."""
    folder = text.parent
    (folder / "queries.txt").write_text("walking\nsinging\nunseenword\n")
    script = f"""set -e
RESULTDIR=result
DATADIR=data
mkdir -p "${{RESULTDIR}}" "${{DATADIR}}"
cp fil9 "${{DATADIR}}"/fil9
{WV} fasttext skipgram -input "${{DATADIR}}"/fil9 -output "${{RESULTDIR}}"/fil9 -lr 0.025 -dim 16 \\
  -ws 5 -epoch 1 -minCount 5 -neg 5 -loss ns -bucket 20000 \\
  -minn 3 -maxn 6 -thread 4 -t 1e-4 -lrUpdateRate 100 -verbose 0
cat queries.txt | {WV} fasttext print-word-vectors "${{RESULTDIR}}"/fil9.bin > "${{RESULTDIR}}"/vectors.txt
"""
    run = subprocess.run(["bash", "-c", script], cwd=folder, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    return folder / "result"


def test_example_files_read_by_gensim(trained):
    from gensim.models import KeyedVectors
    from gensim.models.fasttext import load_facebook_model

    gensim_model = load_facebook_model(str(trained / "fil9.bin"))
    ours = FastText.load_fasttext(trained / "fil9.bin").vectors
    vec = KeyedVectors.load_word2vec_format(str(trained / "fil9.vec"))
    assert gensim_model.wv.vector_size == 16 and len(vec) == len(ours) == 32
    for word in ("walking", "sings", "unseenword"):
        np.testing.assert_allclose(gensim_model.wv[word], ours[word], atol=1e-5)
    np.testing.assert_allclose(vec["walking"], ours["walking"], atol=1e-5)
    printed = {line.split(" ")[0]: line for line in (trained / "vectors.txt").read_text().splitlines()}
    assert set(printed) == {"walking", "singing", "unseenword"}
    for word, line in printed.items():
        assert line.endswith(" ")  # each value followed by a space, as fastText prints
        np.testing.assert_allclose([float(x) for x in line.split()[1:]], ours[word], rtol=1e-4, atol=1e-6)


def test_single_dash_spelling_is_our_run(text, tmp_path):
    """fastText's flags give the .bin our own flags give (one thread, one seed)."""
    prefix = tmp_path / "m"
    assert main(["fasttext", "cbow", "-input", str(text), "-output", str(prefix), "-dim", "8", "-epoch", "1",
                 "-thread", "1", "-bucket", "1000", "-verbose", "0", "-seed", "3"]) == 0
    assert main(["fasttext", str(text), "-o", str(tmp_path / "own.bin"), "--arch", "cbow", "--dim", "8",
                 "--epochs", "1", "--threads", "1", "--bucket", "1000", "--seed", "3", "--schedule", "word2vec",
                 "--min-alpha", "0", "--quiet"]) == 0
    assert (tmp_path / "m.bin").read_bytes() == (tmp_path / "own.bin").read_bytes()
    assert (tmp_path / "m.vec").read_text().startswith("32 8\n")


def test_the_vec_file_is_written_as_fastText_writes_it(trained):
    """PREFIX.vec: "V dim", then each word and its vector's values as a
    C++ stream prints them at setprecision(5) (C's "%.5g", here Python's),
    each followed by a space (fastText's saveVectors; on a .bin fastText
    itself trained, the same bytes as its own .vec)."""
    vectors = FastText.load_fasttext(trained / "fil9.bin").vectors
    lines = (trained / "fil9.vec").read_bytes().decode().split("\n")
    assert lines[0] == "32 16" and lines[-1] == "" and len(lines) == 34
    for word, line in zip(vectors.words, lines[1:]):
        assert line == word + " " + "".join(f"{float(x):.5g} " for x in vectors[word])


def test_nn_analogies_and_dump(trained, capsys, monkeypatch):
    vectors = FastText.load_fasttext(trained / "fil9.bin").vectors
    units = vectors.vectors / np.linalg.norm(vectors.vectors, axis=1, keepdims=True)
    monkeypatch.setattr(sys, "stdin", io.StringIO("walked\n"))
    assert main(["fasttext", "nn", str(trained / "fil9.bin"), "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Query word? ") and out.endswith("Query word? ")
    q = vectors["walked"] / np.linalg.norm(vectors["walked"])
    scores = units @ q
    scores[vectors.key_to_index["walked"]] = -np.inf
    best = np.argsort(-scores)[:3]
    shown = [line.split(" ") for line in out[len("Query word? "):-len("Query word? ")].splitlines()]
    assert [w for w, _ in shown] == [vectors.words[i] for i in best]
    np.testing.assert_allclose([float(s) for _, s in shown], scores[best], rtol=1e-5)

    monkeypatch.setattr(sys, "stdin", io.StringIO("walked walk talk\n"))
    assert main(["fasttext", "analogies", str(trained / "fil9.bin"), "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"Loading model {trained / 'fil9.bin'}" and len(lines) == 4

    assert main(["fasttext", "dump", str(trained / "fil9.bin"), "args"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "dim 16", "ws 5", "epoch 1", "minCount 5", "neg 5", "wordNgrams 1", "loss ns", "model sg", "bucket 20000",
        "minn 3", "maxn 6", "lrUpdateRate 100", "t 0.0001"]
    assert main(["fasttext", "dump", str(trained / "fil9.bin"), "dict"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "32" and all(line.endswith(" word") for line in lines[1:])


def test_pretrained_vectors_and_save_output(text, tmp_path):
    """-pretrainedVectors starts the words it holds from its rows (an epoch
    at a tiny rate leaves them there); -saveOutput writes PREFIX.output."""
    first = tmp_path / "first"
    assert main(["fasttext", "skipgram", "-input", str(text), "-output", str(first), "-dim", "8", "-epoch", "1",
                 "-bucket", "500", "-maxn", "0", "-verbose", "0"]) == 0
    second = tmp_path / "second"
    assert main(["fasttext", "skipgram", "-input", str(text), "-output", str(second), "-dim", "8", "-epoch", "1",
                 "-bucket", "500", "-maxn", "0", "-lr", "1e-7", "-pretrainedVectors", f"{first}.vec", "-saveOutput",
                 "-verbose", "0"]) == 0
    a = FastText.load_fasttext(f"{first}.bin").vectors
    b = FastText.load_fasttext(f"{second}.bin").vectors
    np.testing.assert_allclose(a.vectors, b.vectors, atol=1e-4)
    lines = (tmp_path / "second.output").read_text().splitlines()
    assert lines[0] == "32 8" and len(lines) == 33


@pytest.mark.parametrize("argv,message", [
    (["fasttext", "skipgram", "-input", "t", "-output", "m", "-minCounts", "2"], "unknown flag -minCounts"),
    (["fasttext", "skipgram", "-input", "t", "-output", "m", "-label", "__l__"], "-label is for fastText's classifiers"),
    (["fasttext", "cbow", "-input", "t", "-output", "m", "-loss", "ova"], "(ova is for classifiers)"),
    (["fasttext", "skipgram", "-input", "t"], "-output is required"),
    (["fasttext", "skipgram", "-input", "t", "-output", "m", "-mincount", "2"], "-mincount; did you mean -minCount?"),
    (["fasttext", "skipgram", "-input", "t", "-output", "m", "-neg", "0"], "-neg 0: -loss ns needs 1 negative"),
    (["fasttext", "skipgram", "-input", "t", "-output", "m", "-neg", "64"], "at most 63 negatives"),
    (["fasttext", "skipgram", "-input", "t", "-output", "m", "-bucket", "0"], "-bucket 0 leaves the n-grams"),
    (["fasttext", "skipgram", "-input", "-", "-output", "m"], "-input -: training reads its file"),
    (["fasttext", "cbow", "-input", "t", "-output", "m", "-dim", "0"], "-dim '0': must be an integer in [1,"),
    (["fasttext", "nn", "m.bin", "0"], "k needs to be 1 or higher"),
    (["fasttext", "dump", "m.bin", "everything"], "usage: wv-engine fasttext dump MODEL.bin"),
    (["fasttext", "supervised", "-input", "t", "-output", "m"], "fastText's supervised is not offered"),
])
def test_bad_command_lines_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_missing_or_foreign_model_is_one_line(tmp_path, capsys):
    (tmp_path / "x.bin").write_bytes(b"not a model at all")
    for path in (tmp_path / "absent.bin", tmp_path / "x.bin"):
        assert main(["fasttext", "print-word-vectors", str(path)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("wv-engine: error: ") and err.count("\n") == 1 and str(path) in err, err


def test_flags_translate_to_fasttexts_defaults_and_schedule():
    """Unset flags are fastText's defaults (src/args.cc); the rate falls on
    a line to 0 (fastText's lr x (1 - progress)); values fastText reads as
    others are given as those."""
    def ours(command, *flags):
        v = fasttext_c.read_flags(command, ["-input", "t", "-output", "m", *flags])
        return fasttext_c._own_command("fasttext", fasttext_c.own_argv(command, v))

    args = ours("skipgram")
    expected = {"arch": "skipgram", "loss": "ns", "alpha": 0.05, "schedule": "word2vec", "min_alpha": 0.0,
                "dim": 100, "window": 5, "epochs": 5, "min_count": 5, "negative": 5, "bucket": 2_000_000,
                "minn": 3, "maxn": 6, "sample": 1e-4, "seed": 0, "threads": min(12, default_threads()),
                "format": "bin", "output": "m.bin", "quiet": False, "pretrained_vectors": None}
    assert {name: getattr(args, name) for name in expected} == expected
    assert "min_alpha" in args.given and "schedule" in args.given
    args = ours("cbow", "-lr", "0.1", "-minCount", "0", "-minn", "0", "-loss", "hs", "-thread", "4096",
                "-verbose", "0", "-lrUpdateRate", "7", "-t", "0")
    assert (args.arch, args.alpha, args.min_count, args.minn, args.loss, args.threads, args.quiet, args.sample) == (
        "cbow", 0.1, 1, 1, "hs", default_threads(), True, 0.0)
    assert (ours("skipgram", "-minn", "7").maxn, ours("skipgram", "-maxn", "0", "-bucket", "0").bucket) == (0, 0)


def test_minn_0_is_minn_1(text, tmp_path):
    """fastText's n-grams start at one character: -minn 0 trains -minn 1's model, byte for byte."""
    for name, minn in (("zero", "0"), ("one", "1")):
        assert main(["fasttext", "skipgram", "-input", str(text), "-output", str(tmp_path / name), "-dim", "8",
                     "-epoch", "1", "-thread", "1", "-bucket", "300", "-minn", minn, "-maxn", "3",
                     "-verbose", "0"]) == 0
    assert (tmp_path / "zero.bin").read_bytes() == (tmp_path / "one.bin").read_bytes()


def test_word_ngrams_have_no_effect_on_word_vectors(text, tmp_path):
    """fastText's skipgram reads -wordNgrams and trains no word n-gram
    (Dictionary::getLine of its unsupervised models adds none): the same
    .bin byte for byte as without it."""
    for name, extra in (("plain", []), ("ngrams", ["-wordNgrams", "3"])):
        assert main(["fasttext", "skipgram", "-input", str(text), "-output", str(tmp_path / name), "-dim", "8",
                     "-epoch", "1", "-thread", "1", "-bucket", "300", "-verbose", "0", *extra]) == 0
    assert (tmp_path / "plain.bin").read_bytes() == (tmp_path / "ngrams.bin").read_bytes()


def test_pretrained_vectors_add_the_words_only_the_file_holds(text, tmp_path, capsys):
    """As fastText's getInputMatrixFromFile: every word of the file is
    counted once more (dict.add), those the text lacks join the vocabulary,
    and each of the file's words starts from its row (an epoch at a tiny
    rate leaves the rows there)."""
    text_counts = {}
    for word in text.read_text().split():
        text_counts[word] = text_counts.get(word, 0) + 1
    rng = np.random.default_rng(1)
    file_words = ["walking", "zzzextra", "sings"]
    rows = rng.normal(size=(3, 8)).astype(np.float32)
    (tmp_path / "pre.vec").write_text("3 8\n" + "".join(w + " " + " ".join(f"{x:.6f}" for x in r) + "\n"
                                                        for w, r in zip(file_words, rows)))
    assert main(["fasttext", "skipgram", "-input", str(text), "-output", str(tmp_path / "m"), "-dim", "8",
                 "-epoch", "1", "-bucket", "500", "-maxn", "0", "-lr", "1e-7", "-verbose", "0",
                 "-pretrainedVectors", str(tmp_path / "pre.vec")]) == 0
    model = FastText.load_fasttext(tmp_path / "m.bin")
    counts = dict(zip(model.vocab.words, model.vocab.counts.tolist()))
    assert len(counts) == 33 and counts["zzzextra"] == 1
    assert counts["walking"] == text_counts["walking"] + 1 and counts["walks"] == text_counts["walks"]
    for word, row in zip(file_words, rows):
        np.testing.assert_allclose(model.word_rows[model.vocab.index[word]], row, atol=1e-4)
    assert main(["word2vec", str(text), "-o", str(tmp_path / "x.bin"), "--add-pretrained-words"]) != 0
    assert "--add-pretrained-words needs --pretrained-vectors" in capsys.readouterr().err


def test_pretrained_vectors_of_another_dim_refused_before_training(text, tmp_path, capsys):
    vec = tmp_path / "other.vec"
    vec.write_text("1 3\nwalk 0.1 0.2 0.3 \n")
    assert main(["fasttext", "skipgram", "-input", str(text), "-output", str(tmp_path / "m"), "-dim", "8",
                 "-pretrainedVectors", str(vec)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "dimension 3, and -dim is 8" in err, err
    assert not (tmp_path / "m.bin").exists()


def test_queries_agree_with_most_similar(trained, capsys, monkeypatch):
    """nn and analogies give Vectors.most_similar's words and cosines
    (fastText's A - B + C: A and C positive, B negative), across lines."""
    subword = FastText.load_fasttext(trained / "fil9.bin").vectors
    # the vocabulary's words as plain Vectors: every query here is in it (and SubwordVectors'
    # most_similar of a word of its vocabulary fails: its _units takes words, Vectors' indices)
    vectors = Vectors(list(subword.words), subword.vectors)
    model = str(trained / "fil9.bin")
    monkeypatch.setattr(sys, "stdin", io.StringIO("jumps\nwalked\n"))
    assert main(["fasttext", "nn", model, "4"]) == 0
    answers = capsys.readouterr().out.split("Query word? ")
    assert answers[0] == "" and answers[-1] == "" and len(answers) == 4
    for word, answer in zip(("jumps", "walked"), answers[1:]):
        shown = [line.split(" ") for line in answer.splitlines()]
        expected = vectors.most_similar(word, topn=4)
        assert [w for w, _ in shown] == [w for w, _ in expected]
        np.testing.assert_allclose([float(s) for _, s in shown], [s for _, s in expected], atol=2e-6)

    monkeypatch.setattr(sys, "stdin", io.StringIO("walked walk\ntalk sings\nsing  "))  # the last triplet unfinished
    assert main(["fasttext", "analogies", model, "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Loading model {model}\n") and out.endswith("Query triplet (A - B + C)? ")
    answers = out.split("Query triplet (A - B + C)? ")[1:-1]
    assert len(answers) == 1
    shown = [line.split(" ") for line in answers[0].splitlines()]
    expected = vectors.most_similar(positive=["walked", "talk"], negative=["walk"], topn=3)
    assert [w for w, _ in shown] == [w for w, _ in expected]
    np.testing.assert_allclose([float(s) for _, s in shown], [s for _, s in expected], atol=2e-6)


def test_analogies_answer_each_triplet_as_it_is_typed(trained):
    """Interactive: the prompt shows before stdin is read, and a triplet is
    answered while stdin stays open (not at its end)."""
    run = subprocess.Popen([sys.executable, "-m", "wv_engine.cli", "fasttext", "analogies", str(trained / "fil9.bin"),
                            "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=trained)  # not the checkout: `-m` would import its unbuilt sources
    prompt = b"Query triplet (A - B + C)? "

    def read_until(prompts: int) -> bytes:
        out, deadline = b"", time.monotonic() + 30
        while out.count(prompt) < prompts and time.monotonic() < deadline:
            if select.select([run.stdout], [], [], 1)[0]:
                chunk = os.read(run.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
        return out

    try:
        assert read_until(1).endswith(prompt)
        run.stdin.write(b"walked walk talk\n")
        run.stdin.flush()
        answer = read_until(1)
        assert answer.endswith(prompt) and answer.count(b"\n") == 2, answer
    finally:
        run.stdin.close()
        assert run.wait(timeout=60) == 0


def test_empty_stdin_and_bytes_that_are_not_utf8(trained, capsys, monkeypatch):
    """No words: print-word-vectors prints nothing, nn its prompt; a word
    that is not UTF-8 passes as bytes (fastText's words are bytes) even
    where the locale's stdin is strict."""
    model = str(trained / "fil9.bin")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["fasttext", "print-word-vectors", model]) == 0
    assert capsys.readouterr().out == ""
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n  \n"))
    assert main(["fasttext", "nn", model]) == 0
    assert capsys.readouterr().out == "Query word? "

    stdout = io.BytesIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"walk\xffing\n"), "utf-8", "strict"))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(stdout, "utf-8", "strict", write_through=True))
    assert main(["fasttext", "print-word-vectors", model]) == 0
    line = stdout.getvalue()
    vector = FastText.load_fasttext(model).vectors["walk\udcffing"]
    assert line.startswith(b"walk\xffing ") and line.endswith(b" \n")
    np.testing.assert_allclose([float(x) for x in line.split()[1:]], vector, rtol=1e-4, atol=1e-6)
