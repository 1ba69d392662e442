"""Stanford GloVe's command lines (issue #59): demo.sh's pipeline with only
the program names replaced, and each program's files checked against what
this file computes itself: the CREC layout read with numpy, co-occurrences
counted by brute force over a small text, vocab_count's order rules,
glove.c's vectors text and binary layouts. Bad command lines and inputs
are refused in one line. No reference binary is needed."""

import contextlib
import os
import re
import subprocess
import sys
import threading

import numpy as np
import pytest

from wv_engine.cli import main

WV = f"{sys.executable} -m wv_engine.cli"
CREC = np.dtype([("word1", "<i4"), ("word2", "<i4"), ("value", "<f8")])  # GloVe's common.h, independently
TOPICS = [[f"a{i}" for i in range(10)], [f"b{i}" for i in range(10)]]


@pytest.fixture
def text(tmp_path):
    """Lines each drawn from one of two topics (plus a few shared words): a
    pair of words of two topics meets only through the shared words."""
    rng = np.random.default_rng(0)
    shared = ["the", "of", "and"]
    lines = []
    for k in range(600):
        topic = TOPICS[k % 2]
        n = int(rng.integers(4, 20))
        lines.append(" ".join(rng.choice(topic + shared, size=n, p=[0.09] * 10 + [0.1 / 3] * 3)))
    path = tmp_path / "text8"
    path.write_text("\n".join(lines) + "\n")
    return path


def _brute_force(lines, vocab, window, symmetric=True, weighted=True):
    """cooccur's counts written out: out-of-vocabulary words removed, then
    each word with each word up to `window` before it in its line: X[left,
    right] += 1/d (or 1), and X[right, left] too when symmetric."""
    rank = {w: i + 1 for i, w in enumerate(vocab)}
    counts = {}
    for line in lines:
        ids = [rank[w] for w in line.split() if w in rank]
        for j, right in enumerate(ids):
            for k in range(max(0, j - window), j):
                add = 1.0 / (j - k) if weighted else 1.0
                for pair in ((ids[k], right), (right, ids[k])) if symmetric else ((ids[k], right),):
                    counts[pair] = counts.get(pair, 0.0) + add
    return counts


def _records(data: bytes) -> np.ndarray:
    assert len(data) % 16 == 0
    return np.frombuffer(data, dtype=CREC)


def _as_dict(records):
    return {(int(a), int(b)): float(v) for a, b, v in records}


@contextlib.contextmanager
def _stdin(monkeypatch, path=None, data=None):
    """sys.stdin as a program gets it: a regular file (`< FILE`), or a pipe
    fed `data` by a thread (`cat FILE |`)."""
    if path is not None:
        with open(path) as f:
            monkeypatch.setattr(sys, "stdin", f)
            yield
        return
    r, w = os.pipe()

    def feed():
        with os.fdopen(w, "wb") as out:
            out.write(data)
    feeder = threading.Thread(target=feed)
    feeder.start()
    with os.fdopen(r, "r") as f:
        monkeypatch.setattr(sys, "stdin", f)
        yield
    feeder.join()


def _run(cwd, script: str) -> subprocess.CompletedProcess:
    # outside the checkout: python -m wv_engine.cli imports the installed package
    return subprocess.run(["bash", "-c", "set -e\n" + script], cwd=cwd, capture_output=True, timeout=300,
                          stdin=subprocess.DEVNULL, check=False)


def _text_rows(path, header=False):
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""  # every line ends in a newline
    lines = lines[:-1]
    head = lines.pop(0).decode() if header else None
    words = [line.split(b" ")[0].decode() for line in lines]
    for line in lines:
        assert re.fullmatch(rb"\S+( -?\d+\.\d{6})+", line), line[:80]  # "%f" values, one space, none trailing
    values = np.array([[float(x) for x in line.split(b" ")[1:]] for line in lines])
    return head, words, values


def test_demo_pipeline(tmp_path, text):
    """demo.sh's four commands, $BUILDDIR/ replaced by the program, its
    python evaluation replaced by reading the files here."""
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

echo "$ $BUILDDIR vocab_count -min-count $VOCAB_MIN_COUNT -verbose $VERBOSE < $CORPUS > $VOCAB_FILE"
$BUILDDIR vocab_count -min-count $VOCAB_MIN_COUNT -verbose $VERBOSE < $CORPUS > $VOCAB_FILE
echo "$ $BUILDDIR cooccur -memory $MEMORY -vocab-file $VOCAB_FILE -verbose $VERBOSE -window-size $WINDOW_SIZE < $CORPUS > $COOCCURRENCE_FILE"
$BUILDDIR cooccur -memory $MEMORY -vocab-file $VOCAB_FILE -verbose $VERBOSE -window-size $WINDOW_SIZE < $CORPUS > $COOCCURRENCE_FILE
echo "$ $BUILDDIR shuffle -memory $MEMORY -verbose $VERBOSE < $COOCCURRENCE_FILE > $COOCCURRENCE_SHUF_FILE"
$BUILDDIR shuffle -memory $MEMORY -verbose $VERBOSE < $COOCCURRENCE_FILE > $COOCCURRENCE_SHUF_FILE
echo "$ $BUILDDIR glove -save-file $SAVE_FILE -threads $NUM_THREADS -input-file $COOCCURRENCE_SHUF_FILE -x-max $X_MAX -iter $MAX_ITER -vector-size $VECTOR_SIZE -binary $BINARY -vocab-file $VOCAB_FILE -verbose $VERBOSE"
$BUILDDIR glove -save-file $SAVE_FILE -threads $NUM_THREADS -input-file $COOCCURRENCE_SHUF_FILE -x-max $X_MAX -iter $MAX_ITER -vector-size $VECTOR_SIZE -binary $BINARY -vocab-file $VOCAB_FILE -verbose $VERBOSE
echo finished
""")
    assert run.returncode == 0, run.stderr.decode()
    assert run.stdout.decode().splitlines()[-1] == "finished"
    err = run.stderr.decode()
    assert "Using vocabulary of size 23." in err and "iter: 015, cost: " in err

    vocab = [line.split(" ") for line in (tmp_path / "vocab.txt").read_text().splitlines()]
    words = [w for w, _ in vocab]
    counts = [int(c) for _, c in vocab]
    V = len(vocab)
    assert V == 23 and counts == sorted(counts, reverse=True)
    truth = {}
    for line in text.read_text().splitlines():
        for w in line.split():
            truth[w] = truth.get(w, 0) + 1
    assert dict(zip(words, counts)) == truth

    records = _records((tmp_path / "cooccurrence.bin").read_bytes())
    pairs = list(zip(records["word1"].tolist(), records["word2"].tolist()))
    assert pairs == sorted(pairs)  # cooccur's merge order
    expected = _brute_force(text.read_text().splitlines(), words, window=15)
    got = _as_dict(records)
    assert got.keys() == expected.keys()
    np.testing.assert_allclose([got[k] for k in expected], list(expected.values()), rtol=1e-6)

    shuffled = _records((tmp_path / "cooccurrence.shuf.bin").read_bytes())
    assert np.array_equal(np.sort(shuffled, order=["word1", "word2"]), records)
    assert not np.array_equal(shuffled, records)

    _, names, rows = _text_rows(tmp_path / "vectors.txt")
    assert names == words + ["<unk>"] and rows.shape == (V + 1, 50)
    params = np.fromfile(tmp_path / "vectors.bin", dtype="<f8")
    assert params.size == 2 * V * 51
    params = params.reshape(2 * V, 51)  # the words' vector and bias, then the contexts'
    lines = (tmp_path / "vectors.txt").read_text().splitlines()
    for i in (0, 7, V - 1):  # -model 2: W + W~ of the .bin, each printed as C's "%f"
        assert lines[i] == " ".join([words[i]] + [f"{x:f}" for x in params[i, :50] + params[V + i, :50]])
    unk = params[:V, :50].mean(axis=0) + params[V:, :50].mean(axis=0)  # the rarest 100: all 23 here
    np.testing.assert_allclose(rows[V], unk, atol=1.5e-6)

    costs = [float(c) for c in re.findall(r"iter: \d{3}, cost: (\S+)", err)]
    assert len(costs) == 15 and costs[-1] < costs[0] / 2  # trained


def test_cooccur_by_hand(tmp_path, monkeypatch, capsysbinary):
    """A text small enough to count on paper: "a b a" and "b c", window 2
    (vocabulary a, b, c: ids 1, 2, 3)."""
    (tmp_path / "t.txt").write_text("a b a\nb c\n")
    (tmp_path / "v.txt").write_text("a 2\nb 2\nc 1\n")
    cases = {("1", "1"): {(1, 1): 1.0, (1, 2): 2.0, (2, 1): 2.0, (2, 3): 1.0, (3, 2): 1.0},
             ("0", "1"): {(1, 1): 0.5, (1, 2): 1.0, (2, 1): 1.0, (2, 3): 1.0},  # (left, right) only
             ("1", "0"): {(1, 1): 2.0, (1, 2): 2.0, (2, 1): 2.0, (2, 3): 1.0, (3, 2): 1.0},
             ("0", "0"): {(1, 1): 1.0, (1, 2): 1.0, (2, 1): 1.0, (2, 3): 1.0}}
    for (symmetric, weighting), expected in cases.items():
        with _stdin(monkeypatch, tmp_path / "t.txt"):
            assert main(["cooccur", "-vocab-file", str(tmp_path / "v.txt"), "-window-size", "2", "-verbose", "0",
                         "-symmetric", symmetric, "-distance-weighting", weighting]) == 0
        records = _records(capsysbinary.readouterr().out)
        assert [((a, b), v) for a, b, v in records.tolist()] == sorted(expected.items()), (symmetric, weighting)


@pytest.mark.parametrize("symmetric,weighting,window,piped", [
    ("1", "1", 15, False), ("1", "1", 3, True), ("0", "1", 5, False), ("0", "0", 2, True), ("1", "0", 1, False)])
def test_cooccur_matches_a_brute_force_count(tmp_path, text, monkeypatch, capsysbinary,
                                             symmetric, weighting, window, piped):
    """Every flag of the count against the count written out here, the text
    from a file or through a pipe (its ids past a tiny memory going to a
    temporary file); a vocabulary leaving words out (they are removed
    before the window is taken)."""
    import wv_engine.corpus

    if piped:
        monkeypatch.setattr(wv_engine.corpus, "ids_memory_room", lambda limit=None: 4096)
    words = TOPICS[0] + TOPICS[1][::2] + ["the"]  # a vocab file's order is its ids, counts aside
    (tmp_path / "v.txt").write_text("".join(f"{w} {100 - i}\n" for i, w in enumerate(words)))
    argv = ["cooccur", "-vocab-file", str(tmp_path / "v.txt"), "-window-size", str(window), "-verbose", "0",
            "-symmetric", symmetric, "-distance-weighting", weighting, "-overflow-file", str(tmp_path / "over")]
    with _stdin(monkeypatch, None if piped else text, text.read_bytes() if piped else None):
        assert main(argv) == 0
    records = _records(capsysbinary.readouterr().out)
    pairs = list(zip(records["word1"].tolist(), records["word2"].tolist()))
    assert pairs == sorted(pairs)
    expected = _brute_force(text.read_text().splitlines(), words, window, symmetric == "1", weighting == "1")
    got = _as_dict(records)
    assert got.keys() == expected.keys()
    np.testing.assert_allclose([got[k] for k in expected], list(expected.values()), rtol=1e-6)
    assert not [n for n in os.listdir(tmp_path) if n.startswith(("over", "wv-engine"))]  # no temporary file left


def test_vocab_count_order_and_limits(tmp_path, monkeypatch, capsysbinary):
    """Count descending; ties by the words' bytes as C's signed chars (a
    byte over 127 first, a word before its extensions); -min-count;
    -max-vocab keeping every word above the cut and drawing among the ties
    at it, the same draw every run; a pipe read as a file is."""
    path = tmp_path / "t.txt"
    path.write_text("b a c é b a c é d ab\nd e ab zz zz zz\n")

    def vocab(*argv, piped=False):
        with _stdin(monkeypatch, None if piped else path, path.read_bytes() if piped else None):
            assert main(["vocab_count", "-verbose", "0", *argv]) == 0
        return capsysbinary.readouterr().out.decode()

    assert vocab("-min-count", "2") == "zz 3\né 2\na 2\nab 2\nb 2\nc 2\nd 2\n"
    assert vocab() == vocab(piped=True) == "zz 3\né 2\na 2\nab 2\nb 2\nc 2\nd 2\ne 1\n"
    kept = vocab("-max-vocab", "4")
    lines = kept.splitlines()
    assert lines[0] == "zz 3" and len(lines) == 4 and all(line.endswith(" 2") for line in lines[1:])
    assert lines[1:] == sorted(lines[1:], key=lambda s: s.encode().translate(bytes(b ^ 0x80 for b in range(256))))
    assert vocab("-max-vocab", "4") == kept
    assert vocab("-max-vocab", "4", "-min-count", "3") == "zz 3\n"


def test_glove_output_files(tmp_path, text, monkeypatch, capsysbinary):
    """-model 0 / 1 / 2 / 3 columns, -write-header's 'V dim' (the vocabulary's
    words, <unk> not counted), -use-unk-vec 0, -binary 1 without text,
    checkpoints and starting parameters as SAVE.NNN.*, -gradsq-file asking
    for the AdaGrad sums, -iter 0 writing the starting parameters."""
    with _stdin(monkeypatch, text):
        assert main(["vocab_count", "-verbose", "0"]) == 0
    (tmp_path / "vocab.txt").write_bytes(capsysbinary.readouterr().out)
    with _stdin(monkeypatch, text):
        assert main(["cooccur", "-vocab-file", str(tmp_path / "vocab.txt"), "-verbose", "0", "-window-size", "5"]) == 0
    (tmp_path / "rec.bin").write_bytes(capsysbinary.readouterr().out)
    V, D = 23, 6
    common = ["-input-file", str(tmp_path / "rec.bin"), "-vocab-file", str(tmp_path / "vocab.txt"),
              "-vector-size", str(D), "-verbose", "0", "-seed", "1", "-threads", "1"]
    monkeypatch.chdir(tmp_path)
    for model, width in ((0, 2 * D + 2), (1, D), (2, D), (3, 2 * D)):
        assert main(["glove", *common, "-save-file", f"m{model}", "-model", str(model), "-iter", "2",
                     "-write-header", "1", "-binary", "2"]) == 0
        head, names, rows = _text_rows(tmp_path / f"m{model}.txt", header=True)
        assert head == f"{V} {D}" and rows.shape == (V + 1, width) and names[-1] == "<unk>"
        params = np.fromfile(tmp_path / f"m{model}.bin", dtype="<f8").reshape(2 * V, D + 1)
        W, C = params[:V], params[V:]
        columns = {0: np.hstack([W, C]), 1: W[:, :D], 2: W[:, :D] + C[:, :D], 3: np.hstack([W[:, :D], C[:, :D]])}
        np.testing.assert_allclose(rows[:V], columns[model], atol=5.1e-7)
    assert main(["glove", *common, "-save-file", "plain", "-iter", "1", "-use-unk-vec", "0"]) == 0
    _, names, rows = _text_rows(tmp_path / "plain.txt")
    assert "<unk>" not in names and rows.shape == (V, D) and not (tmp_path / "plain.bin").exists()

    assert main(["glove", *common, "-save-file", "b", "-binary", "1", "-iter", "4", "-checkpoint-every", "2",
                 "-save-init-param", "1", "-gradsq-file", "g"]) == 0
    made = sorted(n for n in os.listdir(tmp_path) if n.startswith(("b.", "g.")))
    assert made == ["b.000.bin", "b.002.bin", "b.004.bin", "b.bin", "g.000.bin", "g.002.bin", "g.004.bin", "g.bin"]
    assert all(os.path.getsize(tmp_path / n) == 2 * V * (D + 1) * 8 for n in made)
    assert np.array_equal(np.fromfile(tmp_path / "b.004.bin"), np.fromfile(tmp_path / "b.bin"))
    assert np.all(np.fromfile(tmp_path / "g.000.bin") == 1.0)  # AdaGrad starts at 1
    assert np.all(np.fromfile(tmp_path / "g.bin") > 1.0)
    init = np.fromfile(tmp_path / "b.000.bin")
    assert np.abs(init).max() <= 0.5 / D  # glove.c's start: uniform in [-0.5 / dim, 0.5 / dim)

    assert main(["glove", *common, "-save-file", "t", "-iter", "1", "-save-gradsq", "1"]) == 0  # to gradsq.*
    _, names, rows = _text_rows(tmp_path / "gradsq.txt")
    assert rows.shape == (V, 2 * D + 2) and "<unk>" not in names and np.all(rows >= 1.0)

    assert main(["glove", *common, "-save-file", "zero", "-iter", "0", "-binary", "1"]) == 0
    assert np.array_equal(np.fromfile(tmp_path / "zero.bin"), init)  # the same seed: the same start


def test_glove_starts_from_saved_parameters(tmp_path, text, monkeypatch, capsysbinary):
    """-load-init-param takes a SAVE.bin (and -load-init-gradsq its
    gradsq): one more pass at a tiny eta leaves the vectors next to those
    loaded. A file of another size is refused naming the flag."""
    with _stdin(monkeypatch, text):
        assert main(["vocab_count", "-verbose", "0"]) == 0
    (tmp_path / "vocab.txt").write_bytes(capsysbinary.readouterr().out)
    with _stdin(monkeypatch, text):
        assert main(["cooccur", "-vocab-file", str(tmp_path / "vocab.txt"), "-verbose", "0"]) == 0
    (tmp_path / "rec.bin").write_bytes(capsysbinary.readouterr().out)
    monkeypatch.chdir(tmp_path)
    common = ["-input-file", "rec.bin", "-vocab-file", "vocab.txt", "-binary", "1", "-vector-size", "4",
              "-verbose", "0", "-threads", "1"]
    assert main(["glove", *common, "-save-file", "a", "-iter", "3", "-seed", "5", "-save-gradsq", "1",
                 "-save-init-param", "1"]) == 0
    assert main(["glove", *common, "-save-file", "b", "-iter", "1", "-eta", "0.000001", "-load-init-param", "1",
                 "-init-param-file", "a.bin", "-load-init-gradsq", "1", "-init-gradsq-file", "gradsq.bin"]) == 0
    a, b = (np.fromfile(tmp_path / f"{n}.bin").reshape(-1, 5) for n in "ab")
    np.testing.assert_allclose(a[:, :4], b[:, :4], atol=1e-5)
    start = np.fromfile(tmp_path / "a.000.bin").reshape(-1, 5)
    assert np.abs(a[:, :4] - start[:, :4]).max() > 0.05  # trained, far from the start
    capsysbinary.readouterr()
    (tmp_path / "short.bin").write_bytes(a.tobytes()[:-8])
    assert main(["glove", *common, "-load-init-param", "1", "-init-param-file", "short.bin"]) == 1
    err = capsysbinary.readouterr().err.decode()
    assert err.count("\n") == 1 and "-init-param-file short.bin:" in err and "bytes" in err


def test_shuffle_is_a_permutation_within_and_past_its_memory(tmp_path, monkeypatch, capsysbinary):
    records = np.zeros(1000, dtype=CREC)
    records["word1"] = np.arange(1000) // 30 + 1
    records["word2"] = np.arange(1000) % 30 + 1
    records["value"] = np.arange(1000) + 0.5
    path = tmp_path / "r.bin"
    records.tofile(path)
    for size in ("64", "5000"):  # 16 shuffled temporary files merged; all in memory
        with _stdin(monkeypatch, path):
            assert main(["shuffle", "-array-size", size, "-seed", "4", "-verbose", "0",
                         "-temp-file", str(tmp_path / "tmp")]) == 0
        out = _records(capsysbinary.readouterr().out)
        assert np.array_equal(np.sort(out, order=["value"]), records)
        assert np.abs(np.argsort(out["value"]) - np.arange(1000)).mean() > 150  # moved far, not within blocks
    assert os.listdir(tmp_path) == ["r.bin"]
    with _stdin(monkeypatch, None, records.tobytes()):  # a pipe
        assert main(["shuffle", "-seed", "4", "-verbose", "0", "-array-size", "5000"]) == 0
    assert capsysbinary.readouterr().out == out.tobytes()  # the same seed, the same order
    with _stdin(monkeypatch, None, b""):
        assert main(["shuffle", "-verbose", "0"]) == 0  # no records: none written
    assert capsysbinary.readouterr().out == b""


@pytest.mark.parametrize("argv,message", [
    (["cooccur", "-vocab-file", "v.txt", "-windowsize", "5"], "unknown flag -windowsize; did you mean -window-size?"),
    (["glove", "-input-file", "r.bin", "-vector-sise", "5"], "unknown flag -vector-sise; did you mean -vector-size?"),
    (["vocab_count", "-minCount", "5"], "unknown flag -minCount; did you mean -min-count?"),
    (["shuffle", "-size", "5"], "unknown flag -size (shuffle's flags: -verbose -memory"),
    (["cooccur", "-vocab-file", "v.txt", "-symmetric", "2"], "-symmetric 2: must be 0 or 1"),
    (["glove", "-input-file", "r.bin", "-model", "5"], "-model 5: must be 0, 1, 2 or 3"),
    (["glove", "-input-file", "r.bin", "-binary", "3"], "-binary 3: must be 0, 1 or 2"),
    (["glove", "-input-file", "r.bin", "-grad-clip", "10"], "-grad-clip 10: wv-engine's trainer clips at"),
    (["glove", "-input-file", "r.bin", "-vector-size", "0"], "-vector-size '0': must be an integer in [1,"),
    (["glove", "-input-file", "r.bin", "-iter", "2", "-iter", "3"], "-iter is given twice"),
    (["vocab_count", "-min-count"], "-min-count needs a value"),
    (["vocab_count", "-min-count", "-1"], "-min-count and -max-vocab must be >= 0"),
    (["vocab_count", "text8"], "unexpected argument 'text8'"),
    (["shuffle", "-memory", "lots"], "-memory 'lots': not a number"),
    (["shuffle", "-array-size", "0"], "-array-size 0: must be >= 1"),
    (["cooccur", "-window-size", "0"], "-window-size '0': must be an integer in [1,"),
])
def test_bad_command_lines_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"wv-engine {argv[0]}: error: ") and message in err, err


def test_no_flags_and_a_terminal(monkeypatch, capsys):
    """cooccur and glove print their flags when given none, as theirs do;
    a program reading stdin refuses a terminal rather than wait for typing."""
    assert main(["cooccur"]) == 0
    assert "-window-size" in capsys.readouterr().out
    for program in ("vocab_count", "shuffle"):
        assert main([program, "-help"]) == 0
        assert "-verbose" in capsys.readouterr().out
    leader, follower = os.openpty()
    try:
        with os.fdopen(follower, "r", closefd=False) as tty:
            monkeypatch.setattr(sys, "stdin", tty)
            for program in ("vocab_count", "cooccur", "shuffle"):
                assert main([program, "-verbose", "0"]) == 2
                err = capsys.readouterr().err
                assert err.count("\n") == 1 and "on stdin, which is a terminal" in err, err
    finally:
        os.close(leader)
        os.close(follower)


def _one_error(capsys_like) -> str:
    err = capsys_like.readouterr().err
    err = err.decode() if isinstance(err, bytes) else err
    assert err.count("\n") == 1 and err.startswith("wv-engine: error: "), err
    return err


def test_bad_inputs_are_one_line(tmp_path, text, monkeypatch, capsysbinary):
    """Empty stdin, text of no vocabulary word, a vocabulary file that is not
    one (or holds <unk>, or a word twice), records that do not fit the
    vocabulary or end in a partial record: exit 1, one line naming it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vocab.txt").write_text("a0 10\na1 5\n")
    np.zeros(3, dtype=CREC).tofile(tmp_path / "zero.bin")  # ids 0: outside 1..V
    big = np.ones(2, dtype=CREC)
    big["word2"] = 7
    big.tofile(tmp_path / "big.bin")  # id 7 of a 2-word vocabulary: the records of another vocabulary
    (tmp_path / "cut.bin").write_bytes(np.ones(2, dtype=CREC).tobytes()[:-4])
    (tmp_path / "empty.bin").write_bytes(b"")
    (tmp_path / "unk.txt").write_text("a0 10\n<unk> 5\n")
    (tmp_path / "twice.txt").write_text("a0 10\na1 5\na0 2\n")
    (tmp_path / "notvocab.txt").write_text("a0 ten\n")
    glove = ["glove", "-vocab-file", "vocab.txt", "-verbose", "0", "-input-file"]
    for argv, message in [
        (glove + ["zero.bin"], "record 0: word ids 0 and 0"),
        (glove + ["big.bin"], "outside 1..2 (wrong vocabulary?)"),
        (glove + ["cut.bin"], "not a whole number of 16-byte records (truncated?)"),
        (glove + ["empty.bin"], "-input-file empty.bin: no records in it"),
        (glove + ["missing.bin"], "missing.bin"),
        (["glove", "-vocab-file", "unk.txt", "-input-file", "zero.bin"], "-vocab-file unk.txt: line 2: <unk>"),
        (["glove", "-vocab-file", "twice.txt", "-input-file", "zero.bin"], "'a0' is on two lines"),
        (["glove", "-vocab-file", "notvocab.txt", "-input-file", "zero.bin"], "line 1: expected 'word count'"),
        (glove + ["zero.bin", "-save-file", "nowhere/v"], "-save-file nowhere/v: cannot write in"),
        (["cooccur", "-vocab-file", "vocab.txt", "-overflow-file", "nowhere/o"], "-overflow-file nowhere/o: cannot"),
        (["shuffle", "-temp-file", "nowhere/t"], "-temp-file nowhere/t: cannot write in"),
    ]:
        assert main(argv) == 1, argv
        assert message in _one_error(capsysbinary), (argv, message)

    with _stdin(monkeypatch, None, (tmp_path / "cut.bin").read_bytes()):
        assert main(["shuffle", "-verbose", "0"]) == 1
    assert "end in a partial record" in _one_error(capsysbinary)
    with _stdin(monkeypatch, None, b""):
        assert main(["vocab_count", "-verbose", "0"]) == 1
    assert "stdin holds no words" in _one_error(capsysbinary)
    with _stdin(monkeypatch, None, b"a <unk> b\n"):
        assert main(["vocab_count", "-verbose", "0", "-min-count", "5"]) == 1  # refused even below -min-count
    assert "<unk> is a word of the text" in _one_error(capsysbinary)
    (tmp_path / "other.txt").write_text("zzz 10\n")  # none of the text's words
    for stdin in ({"path": text}, {"data": text.read_bytes()}, {"data": b""}):
        with _stdin(monkeypatch, **stdin):
            assert main(["cooccur", "-vocab-file", "other.txt", "-verbose", "0"]) == 1
        assert "the text on stdin has no words of -vocab-file other.txt" in _one_error(capsysbinary)
    with _stdin(monkeypatch, text):
        assert main(["cooccur", "-vocab-file", "missing.txt", "-verbose", "0"]) == 1
    assert "-vocab-file missing.txt" in _one_error(capsysbinary)
