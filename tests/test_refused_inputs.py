"""Every file a command or a trainer will read is opened, parsed and refused
before the first word is counted (issue #55): each file-taking flag of each
command, and each file-taking parameter of the public trainers, given a
missing file, a directory, a FIFO, random bytes and a file of the wrong
kind, is refused in one line naming the flag, and no counting starts."""

import contextlib
import io
import os

import numpy as np
import pytest

from wv_engine import Doc2Vec, EpochScores, FastText, GloVe, Phrases, Word2Vec
from wv_engine import vocab as vocab_module
from wv_engine.cli import main
from wv_engine.doc2vec import Documents
from wv_engine.maps import EpochMaps
from wv_engine.training_text import TrainingText


class Counted(BaseException):
    """Raised where counting would start: no handler of the CLI catches it."""


@pytest.fixture
def no_counting(monkeypatch):
    """Any count of words (word2vec, GloVe, SVD) or of phrases fails the test."""
    def counted(*args, **kwargs):
        raise Counted
    monkeypatch.setattr(vocab_module.Vocabulary, "build", classmethod(counted))
    monkeypatch.setattr(TrainingText, "count", counted)
    monkeypatch.setattr(Phrases, "_learn", counted)
    monkeypatch.setattr(Documents, "count", counted)
    monkeypatch.setattr(Documents, "encode", counted)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A corpus and what it trains: vectors, a Word2Vec, a FastText and a
    GloVe checkpoint, a phrase model, test sets, random bytes, a FIFO."""
    root = tmp_path_factory.mktemp("inputs")
    rng = np.random.default_rng(0)
    corpus = root / "corpus.txt"
    corpus.write_text("".join(" ".join(f"t{t}w{w}" for w in rng.integers(8, size=12)) + "\n"
                              for t in rng.integers(4, size=300)))
    f = {"corpus": str(corpus), "dir": str(root), "missing": str(root / "missing.txt"),
         "random": str(root / "random.bin"), "fifo": str(root / "fifo")}
    (root / "random.bin").write_bytes(rng.bytes(4096))
    os.mkfifo(f["fifo"])
    small = dict(dim=8, min_count=1, epochs=1, threads=1)
    model = Word2Vec(**small).fit(f["corpus"])
    f["word2vec"], f["vectors"], f["text_vectors"] = (str(root / n) for n in ("w2v.wv", "v.bin", "v.txt"))
    model.save(f["word2vec"])
    model.vectors.save(f["vectors"], format="word2vec-bin")
    model.vectors.save(f["text_vectors"], format="word2vec-txt")
    f["fasttext"] = str(root / "ft.wv")
    FastText(**small, bucket=100, maxn=4).fit(f["corpus"]).save(f["fasttext"])
    f["glove"] = str(root / "glove.npz")
    glove = GloVe(**small)
    glove.fit(f["corpus"])
    glove.save_checkpoint(f["glove"])
    f["doc2vec"] = str(root / "m.d2v")
    Doc2Vec(**small).fit(f["corpus"]).save(f["doc2vec"])
    f["phrases"] = str(root / "m.phrases")
    Phrases(f["corpus"], min_count=1, threshold=1.0).save(f["phrases"])
    f["pairs"], f["analogies"] = str(root / "pairs.txt"), str(root / "questions.txt")
    (root / "pairs.txt").write_text("t0w0\tt0w1\t9.0\nt0w0\tt1w0\t1.0\nt1w1\tt1w2\t8.5\n")
    (root / "questions.txt").write_text(": topics\nt0w0 t0w1 t1w0 t1w1\n")
    f["stats"] = str(root / "stats.json")
    assert main(["word2vec", f["corpus"], "-o", str(root / "s.bin"), "--stats-json", f["stats"], "--dim", "8",
                 "--epochs", "1", "--min-count", "1", "--threads", "1", "--quiet"]) == 0
    return f


def _run(unblocked, argv: list[str], fifo: str) -> tuple[int, str]:
    """main(argv)'s exit code and stderr, failing the test if it blocks on the FIFO."""
    def run():
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                return main(argv), err.getvalue()
            except SystemExit as exc:
                return exc.code, err.getvalue()
    return unblocked(run, fifo)


# The file-taking flags of every command: (command line with {} where the
# flag's file goes, the flag, the key of a file of the wrong kind). The
# other inputs of each line are good ones.
W2V = "--dim 8 --epochs 1 --min-count 1 --threads 1 --quiet"
FILE_FLAGS = [
    ("word2vec {} -o OUT " + W2V, "INPUT", "vectors"),
    ("word2vec CORPUS -o OUT --phrases {} " + W2V, "--phrases", "vectors"),
    ("word2vec CORPUS -o OUT --resume {} --quiet", "--resume", "text_vectors"),
    ("word2vec CORPUS -o OUT --eval-every 1 --eval-analogies {} " + W2V, "--eval-analogies", "pairs"),
    ("word2vec CORPUS -o OUT --eval-every 1 --eval-pairs {} " + W2V, "--eval-pairs", "analogies"),
    ("fasttext {} -o OUT " + W2V, "INPUT", "random"),
    ("fasttext CORPUS -o OUT --resume {} --quiet", "--resume", "word2vec"),
    ("fasttext CORPUS -o OUT --eval-every 1 --eval-pairs {} " + W2V, "--eval-pairs", "corpus"),
    ("glove {} -o OUT " + W2V, "INPUT", "phrases"),
    ("glove CORPUS -o OUT --phrases {} " + W2V, "--phrases", "word2vec"),
    ("glove CORPUS -o OUT --resume {} --quiet", "--resume", "word2vec"),
    ("glove CORPUS -o OUT --eval-every 1 --eval-analogies {} " + W2V, "--eval-analogies", "corpus"),
    ("glove CORPUS -o OUT --eval-every 1 --eval-pairs {} " + W2V, "--eval-pairs", "vectors"),
    ("doc2vec {} -o OUT " + W2V, "INPUT", "vectors"),
    ("doc2vec CORPUS -o OUT --resume {} --quiet", "--resume", "word2vec"),
    ("infer {} CORPUS -o OUT --quiet", "MODEL", "word2vec"),
    ("infer DOC2VEC {} -o OUT --quiet", "INPUT", "glove"),
    ("svd {} -o OUT --dim 4 --min-count 1 --quiet", "INPUT", "glove"),
    ("svd CORPUS -o OUT --phrases {} --dim 4 --quiet", "--phrases", "pairs"),
    ("phrases {} --save-model OUT --quiet", "INPUT", "word2vec"),
    ("phrases CORPUS --model {} -o OUT --quiet", "--model", "vectors"),
    ("phrases CORPUS --connector-words {} --save-model OUT --quiet", "--connector-words", "pairs"),
    ("eval {}", "VECTORS", "phrases"),
    ("eval VECTORS --analogies {}", "--analogies", "pairs"),
    ("eval VECTORS --pairs {}", "--pairs", "analogies"),
    ("similar {} t0w0", "VECTORS", "corpus"),
    ("analogy {} t0w0 t0w1 t1w0", "VECTORS", "pairs"),
    ("map {} --projector OUT", "VECTORS", "stats"),
    ("convert {} -o OUT", "INPUT", "vectors"),
    ("report {} -o OUT.png", "STATS", "vectors"),
]
# Flags that name a directory: a missing one, a FIFO, random bytes, a text file.
DIR_FLAGS = [
    ("word2vec CORPUS -o OUT --tmp-dir {} " + W2V, "--tmp-dir"),
    ("fasttext CORPUS -o OUT --snapshots {} " + W2V, "--snapshots"),
    ("glove CORPUS -o OUT --tmp-dir {} " + W2V, "--tmp-dir"),
    ("svd CORPUS -o OUT --tmp-dir {} --dim 4 --quiet", "--tmp-dir"),
    ("phrases CORPUS -o OUT --tmp-dir {} --quiet", "--tmp-dir"),
]


def _argv(line: str, path: str, files: dict, tmp_path) -> list[str]:
    named = {"CORPUS": files["corpus"], "VECTORS": files["vectors"], "DOC2VEC": files["doc2vec"],
             "OUT": str(tmp_path / "out")}
    return [named.get(word, word.replace("OUT", str(tmp_path / "out"))) if word != "{}" else path
            for word in line.split()]


def _refused(unblocked, argv: list[str], flag: str, path: str, files: dict, tmp_path) -> str:
    code, err = _run(unblocked, argv, files["fifo"])
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 1, (argv, code, err)
    assert len(lines) == 1 and lines[0].startswith(f"wv-engine: error: {flag} {path}: "), (argv, err)
    assert not os.path.exists(tmp_path / "out"), argv  # nothing written
    return lines[0]


@pytest.mark.parametrize("line, flag, wrong", FILE_FLAGS,
                         ids=[f"{line.split()[0]} {flag}" for line, flag, _ in FILE_FLAGS])
@pytest.mark.parametrize("kind", ["missing", "dir", "fifo", "random", "wrong kind"])
def test_each_file_flag_refuses_a_bad_file_before_any_counting(files, no_counting, unblocked, tmp_path, line, flag,
                                                                wrong, kind):
    path = files[wrong if kind == "wrong kind" else kind]
    _refused(unblocked, _argv(line, path, files, tmp_path), flag, path, files, tmp_path)


@pytest.mark.parametrize("line, flag", DIR_FLAGS, ids=[f"{line.split()[0]} {flag}" for line, flag in DIR_FLAGS])
@pytest.mark.parametrize("kind", ["fifo", "random", "corpus", "missing"])
def test_each_directory_flag_refuses_what_is_not_a_directory_before_any_counting(files, no_counting, unblocked,
                                                                                  tmp_path, line, flag, kind):
    if kind == "missing" and flag == "--snapshots":
        pytest.skip("--snapshots makes its directory")
    path = files[kind]
    message = _refused(unblocked, _argv(line, path, files, tmp_path), flag, path, files, tmp_path)
    assert "directory" in message


def test_good_files_on_every_flag_train(files, unblocked, tmp_path):
    """The lines above run to the end with good files (so what refused them was the file)."""
    out = str(tmp_path / "out")
    good = {"INPUT": files["corpus"], "--phrases": files["phrases"], "--eval-analogies": files["analogies"],
            "--eval-pairs": files["pairs"], "--model": files["phrases"], "--connector-words": files["pairs"],
            "--analogies": files["analogies"], "--pairs": files["pairs"], "VECTORS": files["vectors"],
            "STATS": files["stats"], "MODEL": files["doc2vec"]}
    resume = {"word2vec": files["word2vec"], "fasttext": files["fasttext"], "glove": files["glove"],
              "doc2vec": files["doc2vec"]}
    for line, flag, _ in FILE_FLAGS:
        command = line.split()[0]
        if flag == "--connector-words":
            path = str(tmp_path / "connectors.txt")
            open(path, "w").write("of\nthe\n")
        elif flag == "--resume":
            path = resume[command]
        elif command == "convert":
            continue  # needs a file gensim saved: tests/test_gensim_files.py
        elif command == "report":
            continue  # needs matplotlib: tests/test_watch.py
        else:
            path = good[flag]
        argv = _argv(line, path, files, tmp_path)
        code, err = _run(unblocked, argv, files["fifo"])
        assert code == 0, (argv, err)
        if os.path.isdir(out):
            import shutil

            shutil.rmtree(out)
        elif os.path.exists(out):
            os.unlink(out)


# ---------------------------------------------------------------- the library


def _bad(files, kind, wrong):
    return files[wrong if kind == "wrong kind" else kind]


KINDS = ["missing", "dir", "fifo", "random", "wrong kind"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_trainers_refuse_a_bad_file_before_any_counting(files, no_counting, unblocked, kind):
    """fit's corpus, load's model, load_checkpoint's, Phrases.load's and a
    corpus read through a phrase model: refused at once, naming the file."""
    from wv_engine import Corpus

    calls = [
        (lambda p: Word2Vec(dim=8, min_count=1).fit(p), "vectors"),
        (lambda p: FastText(dim=8, min_count=1, bucket=100).fit(p), "glove"),
        (lambda p: GloVe(dim=8, min_count=1).fit(p), "phrases"),
        (lambda p: Phrases(p, min_count=1), "word2vec"),
        (lambda p: Word2Vec.load(p), "vectors"),
        (lambda p: FastText.load(p), "word2vec"),
        (lambda p: FastText.load_fasttext(p), "corpus"),
        (lambda p: GloVe.load_checkpoint(p), "word2vec"),
        (lambda p: Phrases.load(p), "glove"),
        (lambda p: Corpus(files["corpus"], phrases=Phrases.load(p)), "pairs"),
    ]
    for call, wrong in calls:
        path = _bad(files, kind, wrong)
        with pytest.raises((ValueError, OSError)) as info:
            unblocked(lambda: call(path), files["fifo"])
        assert os.path.basename(path) in str(info.value), (wrong, kind, info.value)


@pytest.mark.parametrize("kind", KINDS)
def test_a_callback_with_a_bad_file_fails_when_made_naming_its_parameter(files, unblocked, kind):
    for name, wrong in (("analogies", "pairs"), ("pairs", "analogies")):
        path = _bad(files, kind, wrong)
        kwargs = {name: path if name == "analogies" else [path]}
        with pytest.raises((ValueError, OSError), match=f"^{name} {path}: "):
            unblocked(lambda: EpochScores(**kwargs), files["fifo"])


@pytest.mark.parametrize("kind", ["fifo", "random", "missing"])
def test_tmp_dir_and_snapshots_are_checked_before_any_counting(files, no_counting, kind):
    path = files[kind]
    for trainer in (lambda: Word2Vec(dim=8, min_count=1, tmp_dir=path).fit(files["corpus"]),
                    lambda: FastText(dim=8, min_count=1, bucket=100, tmp_dir=path).fit(files["corpus"]),
                    lambda: GloVe(dim=8, min_count=1, tmp_dir=path).fit(files["corpus"])):
        with pytest.raises(OSError, match=f"^tmp_dir {path}: "):
            trainer()
    if kind != "missing":
        with pytest.raises(NotADirectoryError):
            EpochMaps(path)


