"""Whole classes of input that used to hang, waste a finished run or crash
(issue #35): FIFOs and devices wherever a path is read or written, names at
the file system's limit for every atomic writer, flags typed on --resume
that equal their default, and the memory the model's threads take."""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import wv_engine
from wv_engine import FormatError, GloVe, InputFileError, Vectors, Vocabulary, Word2Vec, load_vectors
from wv_engine.cli import main
from wv_engine.cli.glove import GLOVE_FIXED
from wv_engine.cli.word2vec import WORD2VEC_FIXED
from wv_engine.word2vec import settings as word2vec_settings
from wv_engine.errors import CorpusError

ENV = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(wv_engine.__file__))}
SANITIZED = "asan" in os.environ.get("LD_PRELOAD", "")


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """wv-engine in a child process: a hang fails by the timeout instead of
    stopping the suite, and its peak memory is its own. It runs outside the
    repository, so that `-m` imports the package the tests import, not an
    unbuilt source tree in the working directory."""
    return subprocess.run([sys.executable, "-m", "wv_engine.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=ENV, cwd=tempfile.gettempdir())


@pytest.fixture
def corpus(topics_corpus, text_file):
    _, sentences = topics_corpus
    return text_file([" ".join(s) for s in sentences[:400]])


W2V = ["--dim", "8", "--epochs", "1", "--min-count", "1", "--threads", "1", "--quiet"]
GLV = ["--dim", "8", "--epochs", "1", "--min-count", "1", "--threads", "1", "--quiet"]


# ---------------------------------------------------------------- 1. FIFOs


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return str(path)


def _trained_paths(corpus, tmp_path):
    w2v = tmp_path / "w2v.wv"
    assert main(["word2vec", corpus, "-o", str(tmp_path / "v.bin"), "--checkpoint", str(w2v), *W2V]) == 0
    return str(tmp_path / "v.bin"), str(w2v)


CLI_INPUTS = {
    "word2vec corpus": lambda f, c, v: ["word2vec", f, "-o", "{out}", *W2V],
    "glove corpus": lambda f, c, v: ["glove", f, "-o", "{out}", *GLV],
    "svd corpus": lambda f, c, v: ["svd", f, "-o", "{out}", "--dim", "4", "--min-count", "1", "--quiet"],
    "word2vec --resume": lambda f, c, v: ["word2vec", c, "-o", "{out}", "--resume", f, "--quiet"],
    "glove --resume": lambda f, c, v: ["glove", c, "-o", "{out}", "--resume", f, "--quiet"],
    "eval vectors": lambda f, c, v: ["eval", f],
    "eval --analogies": lambda f, c, v: ["eval", v, "--analogies", f],
    "eval --pairs": lambda f, c, v: ["eval", v, "--pairs", f],
    "similar vectors": lambda f, c, v: ["similar", f, "w"],
    "analogy vectors": lambda f, c, v: ["analogy", f, "a", "b", "c"],
}


@pytest.mark.parametrize("kind", list(CLI_INPUTS))
def test_every_input_path_of_the_cli_refuses_a_fifo_at_once(kind, fifo, corpus, tmp_path):
    vectors, _ = _trained_paths(corpus, tmp_path)
    args = [a.replace("{out}", str(tmp_path / "out.bin")) for a in CLI_INPUTS[kind](fifo, corpus, vectors)]
    run = _cli(*args, timeout=20)
    assert run.returncode == 1, run.stderr
    assert "FIFO" in run.stderr and fifo in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert not (tmp_path / "out.bin").exists()


@pytest.mark.parametrize("flag", ["-o", "--save-vocab", "--stats-json", "--checkpoint"])
def test_an_output_that_is_a_fifo_is_refused_before_training_and_left_alone(flag, fifo, corpus, tmp_path):
    args = ["word2vec", corpus, "-o", str(tmp_path / "v.bin"), *W2V]
    if flag == "-o":
        args[3] = fifo
    else:
        args += [flag, fifo]
    run = _cli(*args, timeout=20)
    assert run.returncode == 1 and "FIFO" in run.stderr, run.stderr
    assert os.path.exists(fifo) and not os.path.isfile(fifo)  # not replaced by a file
    assert not (tmp_path / "v.bin").exists()  # nothing trained


def test_every_input_path_of_the_library_refuses_a_fifo_at_once(fifo, corpus, tmp_path, unblocked):
    from wv_engine import cooccur
    from wv_engine.evaluate import evaluate_analogies, evaluate_word_pairs
    from wv_engine.gensim import KeyedVectors
    from wv_engine.gensim import Word2Vec as GensimWord2Vec

    vectors = Vectors(["a", "b", "c"], np.eye(3, dtype=np.float32))
    calls = {
        "Word2Vec.fit": lambda: Word2Vec(min_count=1).fit(fifo),
        "GloVe.fit": lambda: GloVe(min_count=1).fit(fifo),
        "Vocabulary.build": lambda: Vocabulary.build(fifo),
        "Vocabulary.load": lambda: Vocabulary.load(fifo),
        "load_vectors": lambda: load_vectors(fifo),
        "Word2Vec.load": lambda: Word2Vec.load(fifo),
        "Word2Vec.saved_config": lambda: Word2Vec.saved_config(fifo),
        "GloVe.load_checkpoint": lambda: GloVe.load_checkpoint(fifo),
        "cooccur.read_records": lambda: cooccur.read_records(fifo, 3),
        "cooccur.load_npz": lambda: cooccur.load_npz(fifo),
        "evaluate_analogies": lambda: evaluate_analogies(vectors, fifo),
        "evaluate_word_pairs": lambda: evaluate_word_pairs(vectors, fifo),
        "gensim Word2Vec(corpus_file=)": lambda: GensimWord2Vec(corpus_file=fifo, min_count=1),
        "gensim KeyedVectors.load_word2vec_format": lambda: KeyedVectors.load_word2vec_format(fifo),
        "gensim KeyedVectors.load": lambda: KeyedVectors.load(fifo),
    }
    for name, call in calls.items():
        with pytest.raises(Exception) as info:  # a FIFO accepted fails here
            unblocked(call, fifo, 20)
        exc = info.value
        assert isinstance(exc, (InputFileError, CorpusError, FormatError)), (name, repr(exc))
        assert "FIFO" in str(exc) and fifo in str(exc), (name, str(exc))


# ---------------------------------------------------------------- 2. names at NAME_MAX


def _longest_name(directory, suffix: str = "") -> str:
    return "n" * (os.pathconf(directory, "PC_NAME_MAX") - len(suffix)) + suffix


def _writers(tmp_path):
    """Every atomic writer of the package, each as (name suffix, write(path))."""
    from wv_engine import cooccur
    from wv_engine.files import write_json
    from wv_engine.gensim import KeyedVectors
    from wv_engine.io import save_vectors

    words = [f"w{i % 9}" for i in range(600)]
    model = Word2Vec(dim=4, min_count=1, epochs=1, threads=1).fit([words[i:i + 20] for i in range(0, 600, 20)])
    glove = GloVe(dim=4, min_count=1, epochs=1, threads=1, window=3)
    glove.fit([words[i:i + 20] for i in range(0, 600, 20)], keep_cooccurrence=True)
    vectors = model.vectors
    kv = KeyedVectors(4)
    kv.add_vectors(vectors.words, vectors.vectors)
    kv.set_vecattr(vectors.words[0], "count", 3)
    out = {f"save_vectors {fmt}{ext}": (ext, lambda p, fmt=fmt: save_vectors(vectors, p, fmt))
           for fmt in ("word2vec-bin", "word2vec-txt", "glove-txt", "native") for ext in ("", ".gz")}
    out.update({
        "Word2Vec.save": ("", model.save),
        "GloVe.save_checkpoint": ("", glove.save_checkpoint),
        "Vocabulary.save": ("", model.vocab.save),
        "cooccur.save_npz": ("", lambda p: cooccur.save_npz(glove.cooccurrence, p)),
        "cooccur.write_records": ("", lambda p: cooccur.write_records(glove.cooccurrence, p)),
        "stats JSON": ("", lambda p: write_json(p, {"a": 1})),
        "KeyedVectors.save": ("", kv.save),
        "KeyedVectors.save_word2vec_format": ("", lambda p: kv.save_word2vec_format(p, fvocab=p[:-1] + "v")),
    })
    return out


def test_every_atomic_writer_writes_a_name_of_the_longest_length(tmp_path):
    for what, (suffix, write) in _writers(tmp_path).items():
        directory = tmp_path / what.replace(" ", "_")
        directory.mkdir()
        target = directory / _longest_name(directory, suffix)
        write(str(target))
        assert target.is_file() and target.stat().st_size > 0, what
        assert [p.name for p in directory.iterdir() if p.name.endswith(".tmp")] == [], what


def test_a_name_past_the_limit_is_refused_before_work_and_a_long_one_trains(corpus, tmp_path):
    too_long = tmp_path / ("n" * (os.pathconf(tmp_path, "PC_NAME_MAX") + 1))
    run = _cli("word2vec", corpus, "-o", str(too_long), *W2V[:-1])
    assert run.returncode == 1 and "longer than" in run.stderr, run.stderr
    assert "vocabulary" not in run.stderr  # refused before counting
    for flag in ("-o", "--stats-json", "--checkpoint", "--save-vocab"):
        longest = tmp_path / _longest_name(tmp_path)
        args = ["word2vec", corpus, "-o", str(tmp_path / "v.bin"), *W2V]
        if flag == "-o":
            args[3] = str(longest)
        else:
            args += [flag, str(longest)]
        assert main(args) == 0, flag
        assert longest.is_file()
        longest.unlink()


def test_an_interrupted_run_at_the_longest_name_keeps_its_partial_vectors(corpus, tmp_path, monkeypatch):
    longest = tmp_path / _longest_name(tmp_path)

    def ctrl_c(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Word2Vec, "record_epoch", ctrl_c)
    assert main(["word2vec", corpus, "-o", str(longest), *W2V]) == 130
    partial = [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    assert len(partial) == 1 and len(partial[0].name) == len(longest.name)
    assert load_vectors(partial[0]).dim == 8


def test_leftovers_of_a_killed_write_of_a_long_name_are_cleaned_by_the_next(tmp_path):
    from wv_engine.files import _temp_prefix, atomic_write

    target = tmp_path / _longest_name(tmp_path)
    dead = _temp_prefix(str(tmp_path), str(target)).replace(f".{os.getpid()}.", ".999999999.") + "abcdefgh.tmp"
    (tmp_path / dead).write_bytes(b"half")
    with atomic_write(target) as fh:
        fh.write(b"whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


# ---------------------------------------------------------------- 3. flags typed on --resume

# flag -> (the checkpoint's value, the flag's default typed on --resume)
W2V_FLAGS = {
    "arch": ("cbow", "skipgram"), "loss": ("hs", "ns"), "dim": ("6", "100"), "window": ("3", "5"),
    "negative": ("3", "5"), "min_count": ("2", "5"), "sample": ("0", "1e-3"), "epochs": ("2", "5"),
    "alpha": ("0.03", "0.025"), "min_alpha": ("0.001", "0.0001"), "schedule": ("word2vec", "epochs"),
    "seed": ("2", "1"), "max_vocab_size": ("5000", "10000"), "max_final_vocab": ("40", "30"),
    "ns_exponent": ("0.5", "0.75"), "max_sentence_length": ("50", "1000"), "init_range": ("0.5", "1.0"),
}
GLOVE_FLAGS = {
    "dim": ("6", "100"), "window": ("3", "10"), "x_max": ("10", "100"), "alpha": ("0.5", "0.75"),
    "eta": ("0.02", "0.05"), "min_count": ("2", "5"), "seed": ("2", "1"), "max_vocab_size": ("5000", "10000"),
}


def test_the_tables_cover_every_setting_a_checkpoint_fixes():
    assert set(W2V_FLAGS) | {"shared_negatives"} == set(WORD2VEC_FIXED)
    assert set(GLOVE_FLAGS) == set(GLOVE_FIXED)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _base(args: list[str], name: str) -> list[str]:
    """W2V/GLV without the flag under test (a checkpoint's settings)."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == _flag(name):
            skip = True
        else:
            out.append(a)
    return out


@pytest.mark.parametrize("trainer, name", [("word2vec", n) for n in W2V_FLAGS]
                         + [("word2vec", "shared_negatives")] + [("glove", n) for n in GLOVE_FLAGS])
def test_a_flag_typed_at_its_default_on_resume_must_agree_with_the_checkpoint(trainer, name, corpus, tmp_path,
                                                                               capsys):
    base = _base(W2V if trainer == "word2vec" else GLV, name)
    if name == "shared_negatives":  # a checkpoint with word2vec.c's negatives, resumed with the default's
        saved, typed, shown = ["--exact-negatives"], ["--shared-negatives"], ("False", "True")
    else:
        table = W2V_FLAGS if trainer == "word2vec" else GLOVE_FLAGS
        value, default = table[name]
        saved, typed, shown = [_flag(name), value], [_flag(name), default], (value, default)
    ck = tmp_path / "ck"
    out = str(tmp_path / "v.txt")
    assert main([trainer, corpus, "-o", out, *base, *saved, "--checkpoint", str(ck)]) == 0
    capsys.readouterr()
    assert main([trainer, corpus, "-o", out, "--resume", str(ck), "--quiet", *typed]) == 1
    err = capsys.readouterr().err
    assert _flag(name) in err and "checkpoint was trained with" in err, err
    assert all(_shown(v) in err for v in shown), err


def _shown(value: str) -> str:
    """How the message shows a value typed as `value` (repr of the parsed number)."""
    try:
        return repr(int(value))
    except ValueError:
        pass
    try:
        return repr(float(value))
    except ValueError:
        return value


@pytest.mark.parametrize("trainer", ["word2vec", "glove"])
def test_a_flag_typed_equal_to_the_checkpoint_is_accepted(trainer, corpus, tmp_path):
    base = W2V if trainer == "word2vec" else GLV
    ck = tmp_path / "ck"
    out = str(tmp_path / "v.txt")
    assert main([trainer, corpus, "-o", out, *base, "--checkpoint", str(ck)]) == 0
    assert main([trainer, corpus, "-o", out, "--resume", str(ck), "--dim", "8", "--quiet"]) == 0


# ---------------------------------------------------------------- 5. memory that grows with dim x threads


def _peak_and_estimate(*args: str) -> tuple[int, int]:
    stats = os.path.join(args[args.index("-o") + 1] + ".json")
    run = _cli(*args, "--stats-json", stats, "--quiet")
    assert run.returncode == 0, run.stderr
    with open(stats) as f:
        data = json.load(f)
    assert data["threads"] == 2
    return data["peak_rss_bytes"], data["memory_estimate_bytes"]


@pytest.mark.skipif(SANITIZED, reason="ASan's shadow memory and quarantine are not the program's")
@pytest.mark.parametrize("command, flags", [
    ("word2vec", ["--arch", "skipgram", "--loss", "ns"]),
    ("word2vec", ["--arch", "cbow", "--loss", "hs"]),
    ("word2vec", ["--arch", "skipgram", "--loss", "ns", "--exact-negatives", "--format", "txt"]),
    ("glove", ["--format", "txt"]),
    ("glove", ["--format", "bin", "--output-vectors", "concat"]),
])
def test_the_estimate_bounds_the_peak_of_a_wide_model_on_two_threads(command, flags, text_file, tmp_path):
    rng = np.random.default_rng(0)
    corpus = text_file([" ".join(f"w{i}" for i in rng.integers(8, size=20)) for _ in range(150)])
    common = [command, corpus, "--min-count", "1", "--epochs", "1", "--threads", "2", *flags]
    base_peak, _ = _peak_and_estimate(*common, "-o", str(tmp_path / "small"), "--dim", "8")
    peak, estimate = _peak_and_estimate(*common, "-o", str(tmp_path / "wide"), "--dim", "1000000")
    grown = peak - base_peak  # what the model, its threads and its output added to the interpreter
    slack = 32 << 20
    assert grown <= 1.1 * estimate + slack, (grown >> 20, estimate >> 20)
    assert estimate <= 1.1 * grown + slack, (grown >> 20, estimate >> 20)


@pytest.mark.skipif(SANITIZED, reason="ASan reserves more address space than the limit this test sets")
@pytest.mark.parametrize("command", ["word2vec", "glove"])
def test_a_dimension_that_cannot_fit_is_refused_before_allocating(command, text_file, tmp_path):
    corpus = text_file([" ".join(f"w{i % 100}" for i in range(j, j + 20)) for j in range(150)])
    code = ("import resource, sys; from wv_engine.cli import main; "
            "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, resource.RLIM_INFINITY)); "
            f"sys.exit(main([{command!r}, {corpus!r}, '-o', 'v.bin', '--dim', '10000000', '--min-count', '1', "
            "'--threads', '2', '--quiet']))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path, env=ENV)
    assert run.returncode == 1, run.stderr
    assert "needs about" in run.stderr and "GiB" in run.stderr and "dim" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "v.bin").exists()


def test_a_resume_on_more_threads_checks_their_buffers(corpus, tmp_path, monkeypatch):
    from wv_engine import memory

    model = Word2Vec(dim=8, min_count=1, epochs=1, threads=1).fit(corpus)
    model.save(tmp_path / "m.wv")
    loaded = Word2Vec.load(tmp_path / "m.wv", threads=2)
    need = word2vec_settings.thread_bytes(loaded, len(loaded.vocab), 2)
    monkeypatch.setattr(memory, "available_memory", lambda: need - 1)
    with pytest.raises(MemoryError, match="training thread"):
        loaded.train(corpus, epochs=1)
    monkeypatch.setattr(memory, "available_memory", lambda: need + 1)
    loaded.train(corpus, epochs=1)


def test_the_thread_estimate_is_what_the_core_allocates():
    """A planted case by hand: skip-gram NS with shared negatives, 2
    threads, 8 words (all hot), dim 1000: per thread two dim vectors, the
    (negative + 1) x dim scratch and two copies of the 8 hot rows."""
    model = Word2Vec(dim=1000, negative=5, threads=2, min_count=1)
    floats = 2 * 1000 + 6 * 1000 + 2 * 8 * 1000
    got = word2vec_settings.thread_bytes(model, 8, 2)
    buffers = 1000 * 4 + 2 * 16384 * 4  # a sentence's ids, two chunks of the corpus's
    assert 2 * (floats * 4 + buffers) <= got <= 2 * (floats * 4 + buffers) + 2 * 2048
    assert word2vec_settings.thread_bytes(model, 8, 1) < got / 2  # one thread keeps no private rows
