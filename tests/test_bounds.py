"""Every number bounded before it reaches C (issue #55): each numeric flag of
every command, found in the parser itself, and each numeric parameter of
the public trainers, given 0, -1, 2**31, 2**63, 10**400, nan and inf, ends
in a run (the value is in range) or in one line that names the flag and the
range (exit 2 from the parser, 1 from the library), never in a traceback,
a wrap-around or a hang."""

import contextlib
import io
import math

import numpy as np
import pytest

from wv_engine import Doc2Vec, FastText, GloVe, Phrases, Word2Vec
from wv_engine.cli import main
from wv_engine.cli.args import build_parser, memory_size
from wv_engine.epoch_scores import EpochScores
from wv_engine.gensim import FastText as GensimFastText
from wv_engine.gensim import Word2Vec as GensimWord2Vec
from wv_engine.ppmi import ppmi_svd
from wv_engine.settings import RANGES, Range, bounded

VALUES = ["0", "-1", str(2**31), str(2**63), "1e400", "nan", "inf"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small corpus and vectors trained on it, for the commands that read them."""
    root = tmp_path_factory.mktemp("bounds")
    rng = np.random.default_rng(0)
    corpus = root / "corpus.txt"
    corpus.write_text("".join(" ".join(f"t{t}w{w}" for w in rng.integers(8, size=12)) + "\n"
                              for t in rng.integers(4, size=300)))
    vectors = root / "v.bin"
    Word2Vec(dim=8, min_count=1, epochs=1, threads=1).fit(str(corpus)).vectors.save(vectors, format="word2vec-bin")
    Doc2Vec(dim=8, min_count=1, epochs=1, threads=1).fit(str(corpus)).save(root / "model.d2v")
    return root, str(corpus), str(vectors)


def _base(command: str, root, corpus: str, vectors: str) -> list[str]:
    """A command line that runs in a moment; the flag under test is appended (the last value wins)."""
    out = str(root / f"out_{command}")
    small = ["--dim", "8", "--min-count", "1", "--threads", "1", "--quiet"]
    return {
        "word2vec": ["word2vec", corpus, "-o", out, "--epochs", "1", *small],
        "fasttext": ["fasttext", corpus, "-o", out, "--epochs", "1", "--bucket", "1000", "--maxn", "4", *small],
        "glove": ["glove", corpus, "-o", out, "--epochs", "1", *small],
        "svd": ["svd", corpus, "-o", out, *small],
        "phrases": ["phrases", corpus, "--save-model", out, "--threads", "1", "--quiet"],
        "doc2vec": ["doc2vec", corpus, "-o", out, "--epochs", "1", *small],
        "infer": ["infer", str(root / "model.d2v"), corpus, "-o", out, "--epochs", "1", "--threads", "1", "--quiet"],
        "eval": ["eval", vectors],
        "similar": ["similar", vectors, "t0w0"],
        "index": ["index", vectors, "-o", str(root / "vectors.hnsw"), "--threads", "1"],
        "analogy": ["analogy", vectors, "t0w0", "t0w1", "t1w0"],
        "map": ["map", vectors, "--projector", str(root / "projector")],
        "demo": ["demo", "--out", str(root / "demo"), "--quiet"],
    }[command]


def _numeric_flags():
    """(command, option, action) for every flag whose type takes a number."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    found = []
    for command, p in sub.choices.items():
        for action in p._actions:
            if action.option_strings and getattr(action.type, "__name__", "") in ("integer", "number") \
                    or action.type is memory_size:
                found.append((command, action.option_strings[-1], action))
    return found


FLAGS = _numeric_flags()


def test_the_sweep_finds_every_numeric_flag():
    names = {(c, f) for c, f, _ in FLAGS}
    for expected in [("word2vec", "--dim"), ("word2vec", "--seed"), ("word2vec", "--lr-scale"),
                     ("fasttext", "--bucket"), ("glove", "--memory-limit"), ("glove", "--grid-rounds"), ("svd", "--eig"),
                     ("phrases", "--passes"), ("phrases", "--threshold"), ("eval", "--restrict-vocab"),
                     ("similar", "-n"), ("similar", "--restrict-vocab"), ("index", "--ef-construction"), ("map", "--per-word"), ("demo", "--threads")]:
        assert expected in names
    # no other numeric type: every flag that parses a value is one of the sweep's or takes text
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    for command, p in sub.choices.items():
        for action in p._actions:
            if action.type is not None and (command, (action.option_strings or [""])[-1]) not in names:
                assert action.type.__name__ == "phrase_delimiter", (command, action.option_strings)


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:  # the parser's refusal
            code = exc.code
    return code, err.getvalue()


@pytest.mark.parametrize("command, flag, action", FLAGS, ids=[f"{c} {f}" for c, f, _ in FLAGS])
def test_every_numeric_flag_takes_or_refuses_each_extreme_in_one_line(files, command, flag, action):
    root, corpus, vectors = files
    names = [flag, action.dest, action.dest.replace("_", "-"), flag.lstrip("-").replace("-", "_")]
    for value in VALUES:
        code, err = _run([*_base(command, root, corpus, vectors), flag, value])
        lines = [line for line in err.splitlines() if line.strip()]
        assert "Traceback" not in err, (flag, value, err)
        assert code in (0, 1, 2), (flag, value, code, err)
        if code:
            assert len(lines) == 1, (flag, value, err)
            assert any(n in lines[0] for n in names), (flag, value, err)
        if code == 2:  # the parser's: it says what the flag takes
            assert " in [" in lines[0] or " in (" in lines[0], (flag, value, err)


def test_values_outside_a_range_are_refused_by_the_parser_and_inside_it_reach_the_library(files):
    root, corpus, vectors = files
    base = _base("word2vec", root, corpus, vectors)
    assert _run([*base, "--dim", "10000001"])[0] == 2
    assert _run([*base, "--dim", "12"])[0] == 0
    assert _run([*base, "--seed", str(2**64)])[0] == 2
    assert _run([*base, "--seed", str(2**64 - 1)])[0] == 0
    code, err = _run([*base, "--negative", "0"])  # in the flag's range, not with negative sampling
    assert code == 1 and "negative" in err
    code, err = _run(["glove", corpus, "-o", str(root / "g"), "--memory-limit", "2P"])
    assert code == 2 and "--memory-limit" in err and "1P" in err


def test_the_parsers_error_is_one_line_with_where_the_flags_are():
    code, err = _run(["word2vec", "corpus.txt", "-o", "v.bin", "--window", "x"])
    assert code == 2
    assert err.splitlines() == ["wv-engine word2vec: error: argument --window: must be an integer in [1, 1,000,000], "
                                "got 'x' (see wv-engine word2vec --help)"]


# ---------------------------------------------------------------- the library

NUMBERS = [0, -1, 2**31, 2**63, 10**400, math.nan, math.inf, -math.inf, np.int64(2**62), True]

TRAINERS = {
    Word2Vec: ["dim", "window", "negative", "min_count", "sample", "epochs", "alpha", "min_alpha", "threads", "seed",
               "max_vocab_size", "max_final_vocab", "ns_exponent", "max_sentence_length", "hot_rows", "init_range",
               "regions"],
    FastText: ["dim", "window", "negative", "min_count", "sample", "epochs", "alpha", "threads", "minn", "maxn",
               "bucket", "max_sentence_length"],
    Doc2Vec: ["dim", "window", "negative", "min_count", "sample", "epochs", "alpha", "min_alpha", "threads", "seed",
              "max_vocab_size", "max_final_vocab", "ns_exponent", "dm_tag_count", "max_sentence_length"],
    GloVe: ["dim", "window", "x_max", "alpha", "epochs", "eta", "min_count", "threads", "seed", "max_vocab_size",
            "grid", "grid_rounds", "memory_limit"],
    Phrases: ["min_count", "threshold", "max_vocab_size", "memory_limit", "threads"],
    # the gensim layer: refused by the engine, named as gensim names them
    GensimWord2Vec: ["vector_size", "alpha", "window", "min_count", "max_vocab_size", "sample", "seed", "workers",
                     "min_alpha", "negative", "ns_exponent", "epochs", "max_final_vocab"],
    GensimFastText: ["vector_size", "window", "min_count", "workers", "epochs", "min_n", "max_n", "bucket"],
}


def _admitted(cls, name, value) -> bool:
    try:
        cls(**{name: value})
    except (ValueError, TypeError) as exc:
        assert name in str(exc), (cls.__name__, name, value, exc)
        return False
    return True


@pytest.mark.parametrize("cls", list(TRAINERS), ids=lambda c: c.__name__)
def test_every_numeric_parameter_of_the_trainers_is_bounded_when_constructed(cls):
    """Constructed with each extreme, a trainer takes it (then it is within
    the range the C core can hold) or refuses it naming the parameter;
    nothing else escapes (OverflowError, SystemError)."""
    for name in TRAINERS[cls]:
        for value in NUMBERS:
            if _admitted(cls, name, value):
                assert isinstance(value, (int, np.integer)) and not isinstance(value, bool)
                assert abs(int(value)) < 2**64, (cls.__name__, name, value)


def test_a_huge_number_given_to_train_or_a_callback_is_refused_naming_it(text_file):
    corpus = text_file(["a b c d e f"] * 20)
    model = Word2Vec(dim=4, min_count=1, threads=1).fit(corpus, epochs=1)
    for value in (0, 2**63, math.inf):
        with pytest.raises(ValueError, match="epochs"):
            model.train(corpus, epochs=value)
        with pytest.raises(ValueError, match="every"):
            EpochScores(every=value)
    with pytest.raises(ValueError, match="cds"):
        ppmi_svd(corpus, dim=2, min_count=1, cds=math.nan)
    with pytest.raises(ValueError, match="passes"):
        Phrases().fit(corpus, passes=2**63)


@pytest.mark.parametrize("admitted", [RANGES["dim"], RANGES["sample"], RANGES["alpha"], RANGES["seed"],
                                      Range(-3, 3, integer=False)])
def test_a_range_admits_exactly_its_values(admitted):
    inside = [admitted.low if not admitted.low_open else admitted.low + (1 if admitted.integer else 1e-9),
              admitted.high if not admitted.high_open else admitted.high - (1 if admitted.integer else 1e-9)]
    for v in inside:
        v = int(v) if admitted.integer else v
        assert admitted.admits(v) and bounded("x", v, admitted) == v
    outside = [admitted.low - 1, admitted.high + 1, math.nan, math.inf, True, "3"]
    outside += [admitted.low] if admitted.low_open else []
    outside += [admitted.high] if admitted.high_open else []
    for v in outside:
        v = int(v) if admitted.integer and isinstance(v, float) and math.isfinite(v) else v
        assert not admitted.admits(v)
        with pytest.raises(ValueError, match=r"^x must be (an integer|a number) in"):
            bounded("x", v, admitted)
