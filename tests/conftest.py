"""Shared fixtures: small generated corpora (the suite needs no outside data)."""

import importlib
import os
import signal
import sys
import threading
import types

import numpy as np
import pytest

import wv_engine  # noqa: F401  (the installed package, imported before the root goes on sys.path)

# The benchmark suite is the folder benchmarks/ at the repository root, not an
# installed package, and pytest runs in importlib mode, which leaves sys.path
# alone. Its package is imported here, with the root on sys.path for this
# import only: left there, every later test would import the source tree's
# wv_engine (unbuilt after a plain `pip install .`) instead of the installed
# one. A test's `from benchmarks import X` then finds X by the package's path.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_added = _ROOT not in sys.path
if _added:
    sys.path.insert(0, _ROOT)
try:
    import benchmarks  # noqa: F401,E402
finally:
    if _added:
        sys.path.remove(_ROOT)


def planted_topics_corpus(n_topics=6, words_per_topic=8, sentences=3000, length=12, seed=0):
    """Sentences that each draw words from one topic: words of a topic share
    contexts, so a good embedding puts them next to each other."""
    rng = np.random.default_rng(seed)
    topics = [[f"t{t}w{w}" for w in range(words_per_topic)] for t in range(n_topics)]
    corpus = []
    for _ in range(sentences):
        t = rng.integers(n_topics)
        corpus.append([topics[t][i] for i in rng.integers(words_per_topic, size=length)])
    return topics, corpus


@pytest.fixture
def sigint_raises():
    """Ctrl-C as an interactive user's process gets it. A job that a shell
    starts in the background begins with SIGINT ignored, and then
    _thread.interrupt_main() does nothing and the Ctrl-C tests cannot run."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def zipf_sentences(n_lines=3000, vocab=300, seed=0):
    """Sentences of 5-39 words drawn with Zipfian frequencies (word i: 1 / (i + 1))."""
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, vocab + 1)
    p /= p.sum()
    return [[f"w{i}" for i in rng.choice(vocab, size=rng.integers(5, 40), p=p)] for _ in range(n_lines)]


def records_as_set(records):
    """GloVe training records as a sorted array of their 16 bytes: a multiset."""
    raw = np.ascontiguousarray(records).view(np.uint8).reshape(-1, 16)
    return np.sort(raw.view(np.dtype((np.void, 16))).ravel())


@pytest.fixture(scope="session")
def make_zipf_sentences():
    return zipf_sentences


@pytest.fixture(scope="session")
def record_set():
    return records_as_set


def call_unblocked(call, fifo: str, seconds: float = 60):
    """call()'s result, or the exception it raised, re-raised; the test
    fails if the call blocks (as opening a FIFO for reading does until a
    writer comes): after `seconds` a writer opens `fifo` and leaves, so the
    reader gets EOF and the thread ends."""
    outcome = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome["exc"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(5)
        pytest.fail("blocked on the FIFO")
    if "exc" in outcome:
        raise outcome["exc"]
    return outcome.get("value")


@pytest.fixture(scope="session")
def unblocked():
    """call_unblocked: a call that must not block on a FIFO."""
    return call_unblocked


def resolve_name(name: str):
    """The object a dotted name (module path, then attributes) stands for."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


@pytest.fixture(scope="session")
def resolve():
    """resolve_name: the object a documented dotted name stands for."""
    return resolve_name


@pytest.fixture
def topics_corpus():
    return planted_topics_corpus()


@pytest.fixture
def text_file(tmp_path):
    """Writes lines of text to a file and returns its path."""
    def write(lines, name="corpus.txt", data=None):
        p = tmp_path / name
        p.write_bytes(data if data is not None else ("\n".join(lines) + "\n").encode())
        return str(p)
    return write


def _topic_accuracy(vectors, topics, k=5):
    hits = total = 0
    for topic in topics:
        for w in topic:
            near = [x for x, _ in vectors.most_similar(w, topn=k)]
            hits += sum(x in topic for x in near)
            total += k
    return hits / total


@pytest.fixture
def topic_accuracy():
    """Share of each planted-topic word's k nearest neighbours in its own topic."""
    return _topic_accuracy


@pytest.fixture(scope="session")
def refs():
    """The phrase tests' independent references (tests/phrase_references.py),
    loaded by path: the tests run in importlib mode, off sys.path."""
    import importlib.util
    import os

    spec = importlib.util.spec_from_file_location(
        "phrase_references", os.path.join(os.path.dirname(os.path.abspath(__file__)), "phrase_references.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# fastText's subwords, written here from their definitions (test_fasttext*.py)
def fnv1a_signed(data: bytes) -> int:
    """fastText's hash written from its definition: FNV-1a, each byte
    sign-extended as a signed char."""
    h = 2166136261
    for b in data:
        h ^= (b - 256 if b >= 128 else b) & 0xFFFFFFFF
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def ngrams_by_characters(word: str, minn: int, maxn: int) -> list[bytes]:
    """The n-grams of <word> enumerated over Python characters (code points)."""
    s = "<" + word + ">"
    out = []
    for i in range(len(s)):
        for n in range(1, maxn + 1):
            if i + n > len(s):
                break
            if n >= minn and not (n == 1 and (i == 0 or i + n == len(s))):
                out.append(s[i:i + n].encode("utf-8"))
    return out


def check_subword_step(model, rows, loglik, step, alpha, rtol):
    """Runs step(), one subword step on the mean of input rows `rows`, and
    checks it against a finite-difference gradient in float64: its loss is
    -loglik(mean), each row moved by alpha x the gradient of loglik at the
    mean, once for every time it is in `rows`, and no other row moved.
    Returns the mean."""
    before = model.input_vectors.copy()
    h = before[rows].astype(np.float64).mean(axis=0)
    eps = 1e-5
    grad = np.array([(loglik(h + eps * e) - loglik(h - eps * e)) / (2 * eps) for e in np.eye(len(h))])
    loss = step()
    assert loss == pytest.approx(-loglik(h), rel=1e-2)
    change = model.input_vectors - before
    for r in set(rows.tolist()):
        times = int(np.sum(rows == r))
        np.testing.assert_allclose(change[r], times * alpha * grad, rtol=rtol, atol=2e-4)
    untouched = np.ones(len(before), bool)
    untouched[rows] = False
    assert not change[untouched].any()
    return h


def corpus_with_morphology(seed=0, sentences=4000):
    """Two families of words that share stems and live in separate topics:
    stem + suffix, where the stems of a family only co-occur with each other."""
    rng = np.random.default_rng(seed)
    fams = {"alpha": ["lumin", "radiat", "sparkl"], "beta": ["grumbl", "mutter", "murmur"]}
    suffixes = ["ing", "ed", "er", "s"]
    lines = []
    for _ in range(sentences):
        stems = fams["alpha" if rng.random() < 0.5 else "beta"]
        lines.append([stems[rng.integers(3)] + suffixes[rng.integers(4)] for _ in range(10)])
    return fams, lines


@pytest.fixture(scope="session")
def truth():
    """fastText's hash and n-grams written from their definitions, a planted morphology, and a
    subword step checked against finite differences."""
    return types.SimpleNamespace(fnv1a=fnv1a_signed, ngrams=ngrams_by_characters, morphology=corpus_with_morphology,
                                 check_subword_step=check_subword_step)
