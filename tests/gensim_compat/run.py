"""Runs gensim's own published tests for KeyedVectors and Word2Vec against
wv_engine.gensim and prints their pass/fail counts.

gensim is LGPL-2.1, so neither its tests nor its test data are in this
repository: this script copies test_keyedvectors.py, test_phrases.py and test_word2vec.py from
the installed gensim (4.4) into a temporary directory at run time, changes
only their import lines so that what they test comes from wv_engine.gensim
(gensim's test helpers -- datapath, get_tmpfile, common_texts, LeeCorpus,
gensim.utils -- stay gensim's, and the test data is read where gensim
installed it), runs pytest on the copies and prints the counts.

    pip install gensim testfixtures     # what gensim's tests import
    python tests/gensim_compat/run.py [-k EXPR] [-x]

It tests the repository's wv_engine when it is built in place (pip install -e
., or setup.py build_ext --inplace), else the installed one, and says which.

Deselected: TestWord2VecScripts (it runs gensim's own command-line script, not
code under test)."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# The import lines to change, per file: (exact original line, its replacement).
REWRITES = {
    "test_keyedvectors.py": [
        ("from gensim.models.keyedvectors import KeyedVectors, REAL, pseudorandom_weak_vector",
         "from wv_engine.gensim.keyedvectors import KeyedVectors, REAL, pseudorandom_weak_vector"),
        ("import gensim.models.keyedvectors", "from _gensim_shim import gensim"),
    ],
    "test_phrases.py": [
        ("from gensim.models.phrases import Phrases, FrozenPhrases, _PhrasesTransformation",
         "from wv_engine.gensim.models.phrases import Phrases, FrozenPhrases, _PhrasesTransformation"),
        ("from gensim.models.phrases import original_scorer", "from wv_engine.gensim.models.phrases import original_scorer"),
    ],
    "test_word2vec.py": [
        ("from gensim.models import word2vec, keyedvectors", "from wv_engine.gensim import word2vec, keyedvectors"),
        ("        from gensim.models import word2vec_corpusfile",
         "        from wv_engine.gensim import word2vec_corpusfile"),
    ],
    "test_doc2vec.py": [
        ("from gensim.models import doc2vec, keyedvectors", "from wv_engine.gensim import doc2vec, keyedvectors"),
    ],
    "test_fasttext.py": [
        ("from gensim.models.word2vec import LineSentence", "from wv_engine.gensim.word2vec import LineSentence"),
        ("from gensim.models.fasttext import FastText as FT_gensim, FastTextKeyedVectors, _unpack",
         "from wv_engine.gensim.fasttext import FastText as FT_gensim, FastTextKeyedVectors, _unpack"),
        ("from gensim.models.keyedvectors import KeyedVectors", "from wv_engine.gensim.keyedvectors import KeyedVectors"),
        ("import gensim.models._fasttext_bin", "from _gensim_shim import gensim_ft as gensim"),
        ("from gensim.models.fasttext_inner import compute_ngrams, compute_ngrams_bytes, ft_hash_bytes",
         "from wv_engine.gensim.fasttext import compute_ngrams, compute_ngrams_bytes, ft_hash_bytes"),
        ("import gensim.models.fasttext", ""),
    ],
}
DESELECT = ["test_word2vec.py::TestWord2VecScripts"]

# `gensim` as the rewritten tests see it: its models are wv_engine.gensim's, its test helpers
# and utils are the installed gensim's.
SHIM = '''
import types
import gensim.test.utils
import gensim.utils
import wv_engine.gensim

gensim = types.SimpleNamespace(models=wv_engine.gensim, test=gensim.test, utils=gensim.utils)
# test_fasttext's `gensim.models.fasttext` is ours; its `_fasttext_bin` (the reader it checks files with) gensim's
import gensim.models._fasttext_bin
gensim_ft = types.SimpleNamespace(models=types.SimpleNamespace(fasttext=wv_engine.gensim.fasttext,
                                                               _fasttext_bin=gensim.models._fasttext_bin),
                                  test=gensim.test, utils=gensim.utils)
'''


def prepare(tmp: str) -> list[str]:
    import gensim.test

    src_dir = os.path.dirname(gensim.test.__file__)
    out = []
    for name, rewrites in REWRITES.items():
        with open(os.path.join(src_dir, name), encoding="utf-8") as f:
            text = f.read()
        for old, new in rewrites:
            pattern = re.compile("^" + re.escape(old) + "$", re.M)
            if not pattern.search(text):
                raise SystemExit(f"{name}: import line not found (another gensim version?): {old!r}")
            text = pattern.sub(new, text)
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        out.append(path)
    with open(os.path.join(tmp, "_gensim_shim.py"), "w") as f:
        f.write(SHIM)
    return out


def _engine_path() -> str | None:
    """The folder to put first on the tests' path: the repository when its
    compiled modules are built in place, else None (the installed package).
    Exits, saying what to install, when gensim's tests cannot run."""
    import importlib.util

    missing = [m for m in ("gensim", "testfixtures", "pytest") if importlib.util.find_spec(m) is None]
    if missing:
        raise SystemExit(f"gensim's tests need {', '.join(missing)}: pip install {' '.join(missing)}")
    package = os.path.join(REPO, "wv_engine")
    built = all(any(n.startswith(f"{m}.") and n.endswith((".so", ".pyd")) for n in os.listdir(package))
                for m in ("_tokenize", "_word2vec", "_glove", "_formats", "_evaluate"))
    return REPO if built else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", help="pytest -k expression")
    ap.add_argument("-x", action="store_true", help="stop at the first failure")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gensim_compat_") as tmp:
        files = prepare(tmp)
        report = os.path.join(tmp, "report.xml")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", tmp,
               f"--junitxml={report}", "-W", "ignore::DeprecationWarning", *files]
        cmd += [f"--deselect={os.path.join(tmp, d)}" for d in DESELECT]
        if args.k:
            cmd += ["-k", args.k]
        if args.x:
            cmd.append("-x")
        first = _engine_path()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([p for p in (first, tmp, os.environ.get("PYTHONPATH"))
                                                           if p]))
        probe = subprocess.run([sys.executable, "-c", "import wv_engine; print(wv_engine.__file__)"], cwd=tmp,
                               env=env, capture_output=True, text=True)
        if probe.returncode != 0:
            raise SystemExit("wv_engine cannot be imported: build it in place (pip install -e .) or install it "
                             "(pip install .):\n" + probe.stderr.strip().splitlines()[-1])
        print(f"testing {os.path.dirname(probe.stdout.strip())}")
        subprocess.run(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        print_counts(report)
    return 0


def print_counts(report: str) -> None:
    per_file: dict[str, dict[str, list[str]]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")[0] or case.get("name", "") + " (collecting)"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
                why = (child.get("message") or "").splitlines()[0][:110] if child.get("message") else ""
                if why == "collection failure":  # the error itself is the element's text
                    why = ((child.text or "").strip().splitlines() or [why])[-1][:200]
                name = f"{case.get('classname').split('.')[-1]}.{case.get('name')}: {why}"
                break
            if child.tag == "skipped":
                outcome = "skipped"
        else:
            name = f"{case.get('classname').split('.')[-1]}.{case.get('name')}"
        per_file.setdefault(module, {"passed": [], "failed": [], "skipped": []})[outcome].append(name)
    for module, r in sorted(per_file.items()):
        run = len(r["passed"]) + len(r["failed"])
        rate = 100.0 * len(r["passed"]) / run if run else 0.0
        print(f"{module}: {len(r['passed'])} passed, {len(r['failed'])} failed, {len(r['skipped'])} skipped "
              f"-> {rate:.1f}% of those run pass")
        for name in r["failed"]:
            print(f"  FAIL {name}")


if __name__ == "__main__":
    sys.exit(main())
