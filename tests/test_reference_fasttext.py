"""fastText's command lines (issue #59): its word vector example with only
the program name replaced, the .bin and .vec read by gensim's readers, the
query commands against the model's own vectors, and a flag fastText's
unsupervised commands do not take refused in one line."""

import io
import subprocess
import sys

import numpy as np
import pytest

from wv_engine.cli import main
from wv_engine.fasttext import FastText

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
                 "--epochs", "1", "--threads", "1", "--bucket", "1000", "--seed", "3", "--quiet"]) == 0
    assert (tmp_path / "m.bin").read_bytes() == (tmp_path / "own.bin").read_bytes()
    assert (tmp_path / "m.vec").read_text().startswith("32 8\n")


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
    (["fasttext", "skipgram", "-input", "t", "-output", "m", "-wordNgrams", "2"], "-wordNgrams 2: fastText uses"),
    (["fasttext", "skipgram", "-input", "t"], "-output is required"),
    (["fasttext", "nn", "m.bin", "0"], "k needs to be 1 or higher"),
    (["fasttext", "dump", "m.bin", "everything"], "usage: wv-engine fasttext dump MODEL.bin"),
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
