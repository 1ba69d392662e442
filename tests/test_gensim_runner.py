"""tests/gensim_compat/run.py, gensim's own tests against wv_engine.gensim:
it says what to install when they cannot run, and from the repository it
runs them against the build in place (not the unbuilt source tree)."""

import importlib.util
import os
import subprocess
import sys
import tempfile

import pytest

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gensim_compat", "run.py")


def _runner_module():
    spec = importlib.util.spec_from_file_location("gensim_compat_run", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_runner_names_what_to_install(monkeypatch):
    run = _runner_module()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "testfixtures" else real(name))
    with pytest.raises(SystemExit, match="pip install testfixtures"):
        run._engine_path()


@pytest.mark.skipif(importlib.util.find_spec("gensim") is None or importlib.util.find_spec("testfixtures") is None,
                    reason="gensim's tests need gensim and testfixtures installed")
def test_the_runner_runs_gensims_tests_against_wv_engine():
    out = subprocess.run([sys.executable, RUNNER, "-k", "test_total_word_count or test_scoring"],
                         cwd=tempfile.gettempdir(), capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "testing " in out.stdout and "wv_engine" in out.stdout.split("testing ", 1)[1].splitlines()[0]
    assert "test_word2vec: 2 passed, 0 failed" in out.stdout, out.stdout
