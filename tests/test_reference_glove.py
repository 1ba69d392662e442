"""Stanford GloVe's command lines (issue #59): demo.sh's pipeline with only
the program names replaced, its files checked against a brute-force count
of a small text and GloVe's documented layouts (CREC records, 'word count'
lines in vocab_count's order, vectors text and binary), and bad command
lines and inputs refused in one line."""

import os
import subprocess
import sys

import numpy as np
import pytest

from wv_engine.cli import main

WV = f"{sys.executable} -m wv_engine.cli"
CREC = np.dtype([("word1", "<i4"), ("word2", "<i4"), ("value", "<f8")])


@pytest.fixture
def text(tmp_path):
    """A text of planted lines (words repeated at known distances)."""
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)]
    lines = [" ".join(rng.choice(words, size=rng.integers(5, 30), p=_zipf(40))) for _ in range(400)]
    path = tmp_path / "text8"
    path.write_text("\n".join(lines) + "\n")
    return path


def _zipf(n):
    p = 1 / np.arange(1, n + 1)
    return p / p.sum()


def _run(cwd, script: str, stdin=None) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", "set -e\n" + script], cwd=cwd, capture_output=True, timeout=300,
                          stdin=stdin, check=False)


def test_demo_pipeline(tmp_path, text):
    """demo.sh's four commands, $BUILDDIR/ replaced by wv-engine."""
    run = _run(tmp_path, f"""
CORPUS=text8
VOCAB_FILE=vocab.txt
COOCCURRENCE_FILE=cooccurrence.bin
COOCCURRENCE_SHUF_FILE=cooccurrence.shuf.bin
BUILDDIR="{WV}"
SAVE_FILE=vectors
VERBOSE=2
MEMORY=4.0
VOCAB_MIN_COUNT=5
VECTOR_SIZE=50
MAX_ITER=15
WINDOW_SIZE=15
BINARY=2
NUM_THREADS=8
X_MAX=10
$BUILDDIR vocab_count -min-count $VOCAB_MIN_COUNT -verbose $VERBOSE < $CORPUS > $VOCAB_FILE
$BUILDDIR cooccur -memory $MEMORY -vocab-file $VOCAB_FILE -verbose $VERBOSE -window-size $WINDOW_SIZE < $CORPUS > $COOCCURRENCE_FILE
$BUILDDIR shuffle -memory $MEMORY -verbose $VERBOSE < $COOCCURRENCE_FILE > $COOCCURRENCE_SHUF_FILE
$BUILDDIR glove -save-file $SAVE_FILE -threads $NUM_THREADS -input-file $COOCCURRENCE_SHUF_FILE -x-max $X_MAX -iter $MAX_ITER -vector-size $VECTOR_SIZE -binary $BINARY -vocab-file $VOCAB_FILE -verbose $VERBOSE
""")
    assert run.returncode == 0, run.stderr.decode()
    vocab = [line.split() for line in (tmp_path / "vocab.txt").read_text().splitlines()]
    V = len(vocab)
    assert V == 40
    records = np.fromfile(tmp_path / "cooccurrence.bin", dtype=CREC)
    expected = _brute_force(text.read_text(), [w for w, _ in vocab], window=15)
    assert {(int(a), int(b)) for a, b, _ in records} == set(expected)
    np.testing.assert_allclose([v for *_, v in records], [expected[(int(a), int(b))] for a, b, _ in records],
                               rtol=1e-6)
    shuffled = np.fromfile(tmp_path / "cooccurrence.shuf.bin", dtype=CREC)
    assert np.array_equal(np.sort(shuffled, order=["word1", "word2"]), records)
    assert not np.array_equal(shuffled, records)
    lines = (tmp_path / "vectors.txt").read_text().splitlines()
    assert [line.split(" ")[0] for line in lines] == [w for w, _ in vocab] + ["<unk>"]
    assert all(len(line.split(" ")) == 51 for line in lines)
    params = np.fromfile(tmp_path / "vectors.bin", dtype=np.float64).reshape(2 * V, 51)
    text_rows = np.array([[float(x) for x in line.split(" ")[1:]] for line in lines[:V]])
    np.testing.assert_allclose(text_rows, params[:V, :50] + params[V:, :50], atol=2e-6)  # -model 2: W + W~
    unk = params[V - 40:V, :50].mean(axis=0) + params[2 * V - 40:, :50].mean(axis=0)  # the rarest (all 40 here)
    np.testing.assert_allclose([float(x) for x in lines[V].split(" ")[1:]], unk, atol=2e-6)


def _brute_force(text: str, vocab: list[str], window: int) -> dict[tuple[int, int], float]:
    """cooccur's counts written out: each word and the words to its left in
    the line (unknown words removed first), 1/d both ways."""
    rank = {w: i + 1 for i, w in enumerate(vocab)}
    counts: dict[tuple[int, int], float] = {}
    for line in text.splitlines():
        ids = [rank[w] for w in line.split() if w in rank]
        for j, w2 in enumerate(ids):
            for k in range(max(0, j - window), j):
                w1 = ids[k]
                for pair in ((w1, w2), (w2, w1)):
                    counts[pair] = counts.get(pair, 0.0) + 1.0 / (j - k)
    return counts


def test_vocab_count_order_and_limits(tmp_path, capsysbinary, monkeypatch):
    """Count descending, ties by the words' bytes (as C's signed chars: a
    byte over 127 sorts first), -min-count and -max-vocab."""
    path = tmp_path / "t.txt"
    path.write_text("b a c é b a c é d\nd e\n")
    with open(path) as f:
        monkeypatch.setattr(sys, "stdin", f)
        assert main(["vocab_count", "-min-count", "2", "-verbose", "0"]) == 0
    assert capsysbinary.readouterr().out.decode() == "é 2\na 2\nb 2\nc 2\nd 2\n"
    with open(path) as f:
        monkeypatch.setattr(sys, "stdin", f)
        assert main(["vocab_count", "-max-vocab", "2", "-verbose", "0"]) == 0
    assert capsysbinary.readouterr().out.decode() == "é 2\na 2\n"


def test_glove_models_and_header(tmp_path, text):
    """-model 0 / 1 / 3 columns, -write-header's count (the vocabulary's, as
    glove.c writes it), -binary 1 without text, checkpoints every N passes."""
    run = _run(tmp_path, f"""
{WV} vocab_count -verbose 0 < text8 > vocab.txt
{WV} cooccur -vocab-file vocab.txt -verbose 0 -window-size 5 < text8 | {WV} shuffle -verbose 0 -seed 2 > rec.bin
for m in 0 1 3; do {WV} glove -input-file rec.bin -vocab-file vocab.txt -save-file m$m -model $m -vector-size 6 -iter 2 -verbose 0 -seed 1 -write-header 1; done
{WV} glove -input-file rec.bin -vocab-file vocab.txt -save-file b -binary 1 -vector-size 6 -iter 4 -verbose 0 -checkpoint-every 2 -save-gradsq 1 -seed 1
""")
    assert run.returncode == 0, run.stderr.decode()
    widths = {0: 14, 1: 6, 3: 12}
    for m, width in widths.items():
        lines = (tmp_path / f"m{m}.txt").read_text().splitlines()
        assert lines[0] == "40 6" and len(lines) == 42
        assert {len(line.split(" ")) - 1 for line in lines[1:]} == {width}
    assert not (tmp_path / "b.txt").exists()
    for name in ("b.bin", "b.002.bin", "b.004.bin", "gradsq.bin"):
        assert os.path.getsize(tmp_path / name) == 2 * 40 * 7 * 8, name
    m0 = np.array([[float(x) for x in line.split(" ")[1:]] for line in (tmp_path / "m0.txt").read_text().splitlines()[1:41]])
    m1 = np.array([[float(x) for x in line.split(" ")[1:]] for line in (tmp_path / "m1.txt").read_text().splitlines()[1:41]])
    np.testing.assert_allclose(m0[:, :6], m1, atol=1e-6)  # the same seed: model 0 holds model 1's columns first


def test_glove_starts_from_saved_parameters(tmp_path, text):
    """-load-init-param takes a SAVE.bin: one more pass at a tiny eta leaves
    the vectors next to those loaded (the biases step without eta, as
    glove.c's)."""
    run = _run(tmp_path, f"""
{WV} vocab_count -verbose 0 < text8 > vocab.txt
{WV} cooccur -vocab-file vocab.txt -verbose 0 < text8 > rec.bin
{WV} glove -input-file rec.bin -vocab-file vocab.txt -save-file a -binary 1 -vector-size 4 -iter 3 -verbose 0 -seed 5
{WV} glove -input-file rec.bin -vocab-file vocab.txt -save-file b -binary 1 -vector-size 4 -iter 1 -eta 0.000001 -verbose 0 -load-init-param 1 -init-param-file a.bin
""")
    assert run.returncode == 0, run.stderr.decode()
    a, b = (np.fromfile(tmp_path / f"{n}.bin", dtype=np.float64).reshape(-1, 5) for n in "ab")
    np.testing.assert_allclose(a[:, :4], b[:, :4], atol=1e-4)
    assert np.abs(a[:, :4]).max() > 0.05  # trained, not the starting values


def test_shuffle_past_its_memory_is_a_permutation(tmp_path, monkeypatch, capsysbinary):
    records = np.zeros(1000, dtype=CREC)
    records["word1"] = np.arange(1000) // 30 + 1
    records["word2"] = np.arange(1000) % 30 + 1
    records["value"] = np.arange(1000) + 0.5
    path = tmp_path / "r.bin"
    records.tofile(path)
    with open(path, "rb") as f:
        monkeypatch.setattr(sys, "stdin", type("S", (), {"buffer": f})())
        assert main(["shuffle", "-array-size", "64", "-seed", "4", "-verbose", "0",
                     "-temp-file", str(tmp_path / "tmp")]) == 0
    out = np.frombuffer(capsysbinary.readouterr().out, dtype=CREC)
    assert np.array_equal(np.sort(out, order=["value"]), records)
    assert np.abs(np.argsort(out["value"]) - np.arange(1000)).mean() > 100  # moved far, not within blocks


@pytest.mark.parametrize("argv,message", [
    (["cooccur", "-vocab-file", "v.txt", "-windowsize", "5"], "unknown flag -windowsize (cooccur's flags:"),
    (["cooccur", "-vocab-file", "v.txt", "-symmetric", "0"], "-symmetric 0: wv-engine counts contexts on both"),
    (["glove", "-input-file", "r.bin", "-model", "5"], "-model 5: must be one of 0, 1, 2, 3"),
    (["glove", "-input-file", "r.bin", "-grad-clip", "10"], "-grad-clip 10: wv-engine's trainer clips at"),
    (["vocab_count", "-min-count"], "-min-count needs a value"),
    (["shuffle", "-memory", "lots"], "-memory 'lots': not a number"),
])
def test_bad_command_lines_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_bad_inputs_are_one_line(tmp_path, text):
    (tmp_path / "vocab.txt").write_text("w0 10\nw1 5\n")
    np.zeros(3, dtype=CREC).tofile(tmp_path / "zero.bin")  # ids 0: outside 1..V
    (tmp_path / "cut.bin").write_bytes(b"\0" * 20)
    run = _run(tmp_path, f"""
{WV} glove -input-file zero.bin -vocab-file vocab.txt -verbose 0 || echo "rc=$?"
{WV} glove -input-file cut.bin -vocab-file vocab.txt -verbose 0 || echo "rc=$?"
head -c 20 cut.bin | {WV} shuffle -verbose 0 > /dev/null || echo "rc=$?"
echo "a <unk> b" | {WV} vocab_count -verbose 0 || echo "rc=$?"
{WV} cooccur -vocab-file missing.txt < text8 || echo "rc=$?"
""")
    out, err = run.stdout.decode(), run.stderr.decode().splitlines()
    assert out.count("rc=1") == 5, (out, err)
    assert len(err) == 5 and all(line.startswith("wv-engine: error: ") for line in err), err
    assert "outside 1..2" in err[0] and "whole number of 16-byte records" in err[1] and "partial record" in err[2]
    assert "<unk>" in err[3] and "missing.txt" in err[4]
