"""Nothing breaks for users when modules move into family folders (issue
#56): every name of the API reference and every documented module path
imports from the installed package, the paths from before the move still
import (warning, for one release), and models, a checkpoint, a phrase model
and pickles written by the commit before the move (53a1f40,
tests/data/before_families/make_before.py) load and give what that commit
saved."""

import importlib
import os
import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import wv_engine
from wv_engine import FastText, GloVe, Phrases, Word2Vec, load_vectors
from wv_engine._old_paths import OLD_PATHS

REPO = Path(__file__).resolve().parent.parent
API = REPO / "docs" / "api"
BEFORE = Path(__file__).resolve().parent / "data" / "before_families"


def _documented_names() -> list[str]:
    """Every dotted name the API reference's directives document."""
    names = []
    for page in sorted(API.glob("*.rst")):
        text = page.read_text()
        names += re.findall(r"^\.\. auto(?:module|class|function|data|exception|method)::\s+(\S+)", text, re.M)
        for name, module in re.findall(r"^\.\. py:data::\s+(\S+)\n\s+:module:\s+(\S+)", text, re.M):
            names.append(f"{module}.{name}")
    return names


@pytest.mark.skipif(not API.is_dir(), reason="the docs are not beside the tests")
def test_every_name_of_the_api_reference_imports(resolve):
    names = _documented_names()
    assert len(names) > 60 and "wv_engine.fasttext.SubwordVectors" in names and "wv_engine.cli" in names
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # none through an old path
        for name in names:
            assert resolve(name) is not None, name


def test_the_families_faces_export_their_documented_names():
    from wv_engine import cli, fasttext, glove, phrases, word2vec

    for face in (cli, fasttext, glove, phrases, word2vec):
        assert face.__all__ and all(hasattr(face, n) for n in face.__all__), face.__name__
    assert word2vec.Word2Vec is wv_engine.Word2Vec and fasttext.FastText is wv_engine.FastText
    assert glove.GloVe is wv_engine.GloVe and phrases.Phrases is wv_engine.Phrases
    assert callable(cli.main) and callable(cli.build_parser)


@pytest.mark.parametrize("old, new", sorted(OLD_PATHS.items()))
def test_a_path_from_before_the_move_imports_with_a_warning(old, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=re.escape(new)):
        module = importlib.import_module(old)
    current = importlib.import_module(new)
    public = [n for n in vars(current) if not n.startswith("_")]
    assert public and all(getattr(module, n) is getattr(current, n) for n in public)


def test_no_module_file_stands_at_a_moved_path():
    package = Path(wv_engine.__file__).parent
    flat = [p.name for p in package.glob("*.py")]
    assert not [n for n in flat if n.startswith(("cli_", "word2vec_", "fasttext_", "phrase", "subword_"))], flat
    for old in OLD_PATHS:
        assert not (package / (old.split(".")[-1] + ".py")).exists()


def test_the_command_line_and_the_compiled_modules_keep_their_names(tmp_path):
    for name in ("_tokenize", "_word2vec", "_subwords", "_glove", "_formats", "_evaluate"):
        assert importlib.util.find_spec(f"wv_engine.{name}") is not None, name
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(wv_engine.__file__))}
    run = subprocess.run([sys.executable, "-m", "wv_engine.cli", "--version"], capture_output=True, text=True,
                         env=env, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.startswith("wv-engine "), run.stderr
    from importlib.metadata import entry_points

    script = [e for e in entry_points(group="console_scripts") if e.name == "wv-engine"]
    assert script and script[0].value == "wv_engine.cli:main" and script[0].load() is wv_engine.cli.main


# ---------------------------------------------------------------- files written before the move


def _saved(name: str):
    return load_vectors(BEFORE / name, format="word2vec-txt")


def _same_vectors(vectors, saved) -> None:
    assert list(vectors.words) == list(saved.words)
    # word2vec text keeps 6 decimals
    np.testing.assert_allclose(vectors.vectors, saved.vectors, atol=1e-6)


def test_a_word2vec_and_a_fasttext_model_saved_before_the_move_load_and_train_on():
    for cls, name in ((Word2Vec, "word2vec"), (FastText, "fasttext")):
        model = cls.load(BEFORE / f"{name}.wv")
        assert type(model) is cls and model.epochs_trained == 1
        _same_vectors(model.vectors, _saved(f"{name}.txt"))
        model.train([list(model.vocab.words)] * 20, epochs=1)
        assert model.epochs_trained == 2


def test_a_glove_checkpoint_written_before_the_move_resumes():
    model = GloVe.load_checkpoint(BEFORE / "glove.npz")
    assert model.epochs_trained == 1
    _same_vectors(model.vectors, _saved("glove.txt"))


def test_a_phrase_model_saved_before_the_move_loads():
    saved = dict(line.rstrip("\n").split("\t") for line in open(BEFORE / "phrases.txt"))
    phrases = Phrases.load(BEFORE / "model.phrases")
    assert {k: repr(v) for k, v in phrases.phrases().items()} == saved


def test_pickles_written_before_the_move_load():
    expected = {"word2vec": (Word2Vec, "word2vec.txt"), "fasttext": (FastText, "fasttext.txt"),
                "glove": (GloVe, "glove.txt")}
    for name, (cls, vectors) in expected.items():
        with open(BEFORE / f"{name}.pickle", "rb") as f:
            model = pickle.load(f)
        assert type(model) is cls
        _same_vectors(model.vectors, _saved(vectors))
    with open(BEFORE / "phrases.pickle", "rb") as f:
        phrases = pickle.load(f)
    assert type(phrases) is Phrases
    assert phrases.phrases() == Phrases.load(BEFORE / "model.phrases").phrases()
