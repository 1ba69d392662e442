"""The documentation: the Sphinx site in docs/ builds with warnings as
errors; every public name of wv_engine and wv_engine.gensim (their
__all__), and of the public modules users import from, is in its API
reference; the quick start's Python and command-line examples run as
written on the shipped demo corpus, and so does README's first run; the
stats file has the fields the docs list.

The site's tests skip when Sphinx is not installed (pip install ".[docs]";
CI installs it). The examples' tests need only the package."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import warnings
import zlib
from pathlib import Path

import pytest

from wv_engine import cli

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
QUICKSTART = DOCS / "quickstart.md"

# Modules whose public names must each be documented, under their own name or
# (a re-export) as the same object under another documented name.
PUBLIC_MODULES = ["wv_engine.evaluate", "wv_engine.io", "wv_engine.formats", "wv_engine.file_checks", "wv_engine.vocab",
                  "wv_engine.vectors", "wv_engine.corpus", "wv_engine.word2vec", "wv_engine.fasttext",
                  "wv_engine.phrases", "wv_engine.glove", "wv_engine.doc2vec", "wv_engine.cli", "wv_engine.cooccur", "wv_engine.svd",
                  "wv_engine.ppmi", "wv_engine.cluster", "wv_engine.demo", "wv_engine.gensim.keyedvectors",
                  "wv_engine.gensim.word2vec"]


def fenced_blocks(path: Path, language: str) -> list[str]:
    """The bodies of the ```language blocks of a Markdown file, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def shell_lines(block: str) -> list[str]:
    """The commands of a sh block: continuations joined, blank and comment lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def read_inventory(path: Path) -> dict[str, str]:
    """{name: domain:role} of a Sphinx objects.inv (version 2: four header lines, then zlib)."""
    data = path.read_bytes()
    lines = data.split(b"\n", 4)
    assert lines[0].startswith(b"# Sphinx inventory version 2"), lines[0]
    names = {}
    for line in zlib.decompress(lines[4]).decode("utf-8").splitlines():
        match = re.match(r"(.+?)\s+(\S+:\S+)\s+-?\d+\s", line)
        if match:
            names[match.group(1)] = match.group(2)
    return names


# ---- the site ---------------------------------------------------------------
@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built with warnings as errors, as CI builds it."""
    build = pytest.importorskip("sphinx.cmd.build", reason='Sphinx is not installed: pip install ".[docs]"')
    pytest.importorskip("myst_parser", reason='myst-parser is not installed: pip install ".[docs]"')
    pytest.importorskip("furo", reason='furo is not installed: pip install ".[docs]"')
    out = tmp_path_factory.mktemp("site")
    messages = io.StringIO()
    with contextlib.redirect_stdout(messages), contextlib.redirect_stderr(messages), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the extensions' use of Sphinx's API: not ours
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        status = build.build_main(["-W", "--keep-going", "-q", "-b", "html", "-d", str(out / ".doctrees"),
                                   str(DOCS), str(out / "html")])
    assert status == 0, f"sphinx-build -W failed:\n{messages.getvalue()}"
    return out / "html"


@pytest.fixture(scope="module")
def documented(site: Path) -> dict[str, str]:
    return read_inventory(site / "objects.inv")


@pytest.mark.parametrize("package", ["wv_engine", "wv_engine.gensim"])
def test_every_name_of_all_is_in_the_api_reference(documented, package):
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if f"{package}.{name}" not in documented]
    assert not missing, f"{package}.__all__ names missing from docs/api: {missing}"


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_public_modules_are_documented(documented, module_name, resolve):
    assert documented.get(module_name) == "py:module", f"{module_name} has no page in docs/api"
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:  # no __all__: the public functions and classes defined in the module
        names = [n for n, obj in vars(module).items() if not n.startswith("_") and callable(obj)
                 and getattr(obj, "__module__", None) == module_name]
    documented_objects = set()
    for n, role in documented.items():
        # an attribute (a dataclass's field) may exist only on instances: nothing to resolve
        if role.startswith("py:") and role not in ("py:module", "py:attribute"):
            documented_objects.add(id(resolve(n)))
    missing = [n for n in names if f"{module_name}.{n}" not in documented
               and id(getattr(module, n)) not in documented_objects]
    assert not missing, f"{module_name}: public names missing from docs/api: {missing}"


def test_cli_reference_lists_every_command_and_flag(site, documented):
    import argparse

    page = (site / "cli.html").read_text(encoding="utf-8")
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in subparsers.choices.items():
        assert f'id="wv-engine-{name}"' in page, f"wv-engine {name} has no section in docs/cli.md"
        for action in sub._actions:
            for flag in action.option_strings:
                assert f"wv-engine {name}.{flag}" in documented, f"wv-engine {name} {flag} not in docs/cli.md"


# ---- the examples -------------------------------------------------------------
@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_quickstart_python_examples_run(workdir):
    blocks = fenced_blocks(QUICKSTART, "python")
    assert len(blocks) >= 2
    namespace: dict = {"__name__": "quickstart"}
    for n, block in enumerate(blocks):
        exec(compile(block, f"{QUICKSTART.name}, python block {n + 1}", "exec"), namespace)
    assert (workdir / "vectors.bin").exists() and (workdir / "model.wv").exists()


def test_quickstart_command_line_examples_run(workdir, capsys):
    """Each command of the page's sh blocks, in order: wv-engine through
    cli.main (exit status 0), anything else through bash with this test's
    Python as `python`; installation commands (pip) are not run."""
    bin_dir = workdir / ".bin"
    bin_dir.mkdir()
    python = bin_dir / "python"  # a wrapper, not a link: a venv's python finds its venv by its own path
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    ran = 0
    for block in fenced_blocks(QUICKSTART, "sh"):
        for line in shell_lines(block):
            if line.startswith("pip "):
                continue
            if line.startswith("wv-engine "):
                status = cli.main(shlex.split(line, comments=True)[1:])
                assert status == 0, f"{line!r} exited {status}: {capsys.readouterr().err}"
            else:
                done = subprocess.run(["bash", "-c", line], cwd=workdir, env=env, capture_output=True, text=True)
                assert done.returncode == 0, f"{line!r} failed: {done.stderr}"
            ran += 1
    assert ran >= 5
    assert (workdir / "vectors.bin").exists() and (workdir / "demo" / "demo_vectors.bin").exists()


def test_readme_first_run(workdir):
    blocks = fenced_blocks(REPO / "README.md", "python")
    assert blocks, "README.md has no python block"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})


def test_stats_file_has_the_documented_fields(workdir):
    page = (DOCS / "large-corpora.md").read_text(encoding="utf-8")
    table = page.split("<!-- stats-fields", 1)[1].split("<!-- end stats-fields -->", 1)[0]
    fields = re.findall(r"^\| `(\w+)` \|", table, re.M)
    assert len(fields) >= 10
    from wv_engine.demo import corpus_path

    assert cli.main(["word2vec", corpus_path(), "-o", "v.bin", "--epochs", "1", "--dim", "20", "--threads", "2",
                     "--quiet", "--stats-json", "stats.json"]) == 0
    stats = json.loads((workdir / "stats.json").read_text())
    missing = [f for f in fields if f not in stats]
    assert not missing, f"docs/large-corpora.md lists stats fields a run does not write: {missing}"
