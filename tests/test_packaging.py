"""Importing wv_engine from a source tree: an unbuilt tree says so plainly."""

import os
import shutil
import subprocess
import sys

import wv_engine

COMPILED = ("*.so", "*.pyd")


def _copy_package(dest, with_compiled):
    src = os.path.dirname(wv_engine.__file__)
    ignore = shutil.ignore_patterns("__pycache__", *(() if with_compiled else COMPILED))
    shutil.copytree(src, dest / "wv_engine", ignore=ignore)


# An editable install (pip install -e) adds a finder that would supply the compiled modules from
# the developer's own checkout; the child drops it so that it sees only the copied tree.
_IMPORT_ONLY_THE_TREE = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path "
    "if not str(getattr(f, '__module__', '')).startswith('__editable__')]; "
    "import wv_engine; print(wv_engine.__file__)")


def _import_in(cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", _IMPORT_ONLY_THE_TREE],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_unbuilt_source_tree_names_the_missing_modules(tmp_path):
    _copy_package(tmp_path, with_compiled=False)
    run = _import_in(tmp_path)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: wv_engine's compiled modules (_tokenize, _word2vec, _glove, _formats, _evaluate)")
    assert str(tmp_path / "wv_engine") in last
    assert "pip install -e ." in last and "another directory" in last
    assert "circular import" not in run.stderr


def test_built_source_tree_imports(tmp_path):
    _copy_package(tmp_path, with_compiled=True)
    run = _import_in(tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(tmp_path / "wv_engine" / "__init__.py")
