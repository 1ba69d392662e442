"""Every number read from a file we load is checked as a finite number in
its range before use (issue #35): for each loader, a valid file with one
number replaced by infinity (JSON's 1e400), NaN, a fraction, a negative, a
huge integer, a string or null gives the loader's error class naming the
field, never an OverflowError, TypeError, MemoryError, IndexError or KeyError."""

import io
import json
import struct

import numpy as np
import pytest
import scipy.sparse as sp

from wv_engine import FormatError, GloVe, Vectors, Vocabulary, Word2Vec, cooccur, load_vectors
from wv_engine.cli import main
from wv_engine.evaluate import evaluate_word_pairs
from wv_engine.gensim import KeyedVectors
from wv_engine.gensim import Word2Vec as GensimWord2Vec

# JSON text put in place of an integer field, and of a float field: each is damage.
BAD_INTS = ["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "1.5", "3.0", "-1", str(2**70), '"5"', "null",
            "true"]
BAD_FLOATS = ["1e400", "-1e400", "NaN", "Infinity", "-1", str(2**70), '"0.5"', "null", "true"]
MANY_DIGITS = "9" * 5000  # past what int() converts (4,300 digits)
DIGITS_5000 = pytest.param(MANY_DIGITS, id="5000-digits")


def _sentences(n=300, length=10, vocab=40, seed=0):
    rng = np.random.default_rng(seed)
    return [[f"w{i}" for i in rng.zipf(1.5, size=length) % vocab] for _ in range(n)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Small valid files made by the project's own writers, as bytes."""
    d = tmp_path_factory.mktemp("valid")
    corpus = _sentences()
    made = {}
    rng = np.random.default_rng(1)
    Vectors([f"w{i}" for i in range(5)], rng.standard_normal((5, 3)).astype(np.float32),
            counts=np.arange(50, 0, -10)).save(d / "v.wv")
    made["native"] = (d / "v.wv").read_bytes()
    Word2Vec(dim=4, epochs=1, threads=1, min_count=1, seed=1).fit(corpus).save(d / "m.wv")
    made["word2vec"] = (d / "m.wv").read_bytes()
    GloVe(dim=4, epochs=1, threads=1, min_count=1, window=2).fit(corpus).save_checkpoint(d / "g.npz")
    made["glove"] = (d / "g.npz").read_bytes()
    GensimWord2Vec(corpus, vector_size=4, min_count=1, workers=1, epochs=1).save(str(d / "gensim.wv"))
    made["gensim"] = (d / "gensim.wv").read_bytes()
    return made


def _with_number(data: bytes, keys: tuple, raw: str) -> bytes:
    """A native file with the JSON header's number at `keys` (a path into
    the header) written as the JSON text `raw`; the data stays in place."""
    head_len = struct.unpack("<I", data[12:16])[0]
    doc = json.loads(data[16:16 + head_len])
    start = min(s["offset"] for s in doc["sections"].values())
    node = doc
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = "@NUMBER@"
    head = json.dumps(doc, separators=(",", ":")).replace('"@NUMBER@"', raw).encode()
    assert 16 + len(head) <= start
    return data[:12] + struct.pack("<I", len(head)) + head + b"\0" * (start - 16 - len(head)) + data[start:]


def _refused(call, *named, error=FormatError):
    """The error `call` raises: of class `error`, naming every one of `named`."""
    with pytest.raises(Exception) as info:
        call()
    assert isinstance(info.value, error), f"{type(info.value).__name__}: {info.value}"
    message = str(info.value)
    assert all(n in message for n in named), message
    return message


def _field_named(raw: str, field: str) -> tuple:
    """What the error must name: the field, or the literal JSON refuses before any field is read."""
    return (raw.lstrip("-"),) if raw.lstrip("-") in ("NaN", "Infinity") else (field,)


# ---------------------------------------------------------------------------- native vectors


@pytest.mark.parametrize("raw", BAD_INTS)
@pytest.mark.parametrize("field", ["count", "dim"])
def test_native_header_numbers(tmp_path, files, field, raw):
    path = tmp_path / "bad.wv"
    path.write_bytes(_with_number(files["native"], (field,), raw))
    _refused(lambda: load_vectors(path), *_field_named(raw, f"'{field}'"))


@pytest.mark.parametrize("raw", BAD_INTS)
@pytest.mark.parametrize("section", ["vectors", "word_offsets", "word_blob", "counts"])
@pytest.mark.parametrize("field", ["offset", "nbytes", "shape"])
def test_native_section_numbers(tmp_path, files, section, field, raw):
    path = tmp_path / "bad.wv"
    keys = ("sections", section, field) + ((0,) if field == "shape" else ())
    path.write_bytes(_with_number(files["native"], keys, raw))
    _refused(lambda: load_vectors(path), *_field_named(raw, f"section {section!r}"))


@pytest.mark.parametrize("command", [["similar", "{}", "w1"], ["eval", "{}"]])
def test_the_cli_reports_an_infinite_count_in_one_line(tmp_path, files, capsys, command):
    path = tmp_path / "bad.wv"
    path.write_bytes(_with_number(files["native"], ("count",), "1e400"))
    assert main([arg.format(path) for arg in command]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wv-engine: error:") and "'count'" in err, err
    assert "Traceback" not in err


# ---------------------------------------------------------------------------- word2vec checkpoints

# name: its lowest valid value; the C cores take some as C ints
W2V_CONFIG_INTS = {"dim": 1, "window": 1, "negative": 0, "epochs": 1, "min_count": 1, "threads": 1, "seed": 0,
                   "max_sentence_length": 1, "hot_rows": 0, "max_vocab_size": 1, "regions": 1}
C_INT_FIELDS = {"dim", "window", "negative", "epochs", "threads", "max_sentence_length", "hot_rows"}
W2V_NULLABLE = {"max_vocab_size", "regions"}


def _bad_values(table, nullable):
    return [raw for raw in table if not (nullable and raw == "null")]


@pytest.mark.parametrize("field", W2V_CONFIG_INTS)
def test_word2vec_config_integers(tmp_path, files, field):
    path = tmp_path / "bad.wv"
    past = ([str(W2V_CONFIG_INTS[field] - 1)] if W2V_CONFIG_INTS[field] else []) + (
        [str(2**31)] if field in C_INT_FIELDS else [])
    for raw in _bad_values(BAD_INTS, field in W2V_NULLABLE) + past:
        path.write_bytes(_with_number(files["word2vec"], ("metadata", "word2vec_state", "config", field), raw))
        named = _field_named(raw, f"config field {field!r}")
        _refused(lambda: Word2Vec.load(path), *named)
        _refused(lambda: Word2Vec.saved_config(path), *named)


@pytest.mark.parametrize("field", ["alpha", "min_alpha", "sample", "init_range", "ns_exponent"])
def test_word2vec_config_floats(tmp_path, files, field):
    path = tmp_path / "bad.wv"
    for raw in BAD_FLOATS:
        if (field == "ns_exponent" and raw == "-1") or (field in ("ns_exponent", "init_range") and raw == str(2**70)):
            continue  # valid: neither has an upper bound, and the exponent may be negative
        path.write_bytes(_with_number(files["word2vec"], ("metadata", "word2vec_state", "config", field), raw))
        _refused(lambda: Word2Vec.load(path), *_field_named(raw, f"config field {field!r}"))


@pytest.mark.parametrize("keys,ints", [
    (("epochs_trained",), True), (("total_tokens",), True), (("distinct_words",), True),
    (("history", 0, "epoch"), True), (("history", 0, "examples"), True), (("history", 0, "words"), True),
    (("history", 0, "loss"), False), (("history", 0, "seconds"), False),
    (("schedule", "epochs"), True), (("schedule", "epochs_done"), True), (("schedule", "corpus_words"), True),
    (("schedule", "claim"), True), (("schedule", "words_done"), True), (("schedule", "alpha"), False),
    (("schedule", "loss_sum"), False),
])
def test_word2vec_state_numbers(tmp_path, files, keys, ints):
    path = tmp_path / "bad.wv"
    for raw in BAD_INTS if ints else BAD_FLOATS:
        if not ints and raw == str(2**70) and keys[-1] != "alpha":
            continue  # a large loss or time is finite
        path.write_bytes(_with_number(files["word2vec"], ("metadata", "word2vec_state") + keys, raw))
        _refused(lambda: Word2Vec.load(path), *_field_named(raw, repr(keys[-1])))


def test_word2vec_output_section_numbers(tmp_path, files):
    path = tmp_path / "bad.wv"
    for field in ("offset", "nbytes", "shape"):
        for raw in BAD_INTS:
            keys = ("sections", "output_vectors", field) + ((0,) if field == "shape" else ())
            path.write_bytes(_with_number(files["word2vec"], keys, raw))
            _refused(lambda: Word2Vec.load(path), *_field_named(raw, "section 'output_vectors'"))


@pytest.mark.parametrize("field", ["train_count", "corpus_total_words", "min_count", "running_training_loss"])
def test_gensim_model_state_numbers(tmp_path, files, field):
    path = tmp_path / "bad.wv"
    for raw in BAD_FLOATS if field == "running_training_loss" else BAD_INTS:
        if raw in ("null", str(2**70)) and field in ("corpus_total_words", "running_training_loss"):
            continue  # None: not counted yet; a large loss is finite
        path.write_bytes(_with_number(files["gensim"], ("metadata", "extra", "gensim", field), raw))
        _refused(lambda: GensimWord2Vec.load(str(path)), *_field_named(raw, repr(field)))


# ---------------------------------------------------------------------------- GloVe checkpoints


def _glove_with_number(data: bytes, keys: tuple, raw: str, path) -> None:
    with np.load(io.BytesIO(data)) as z:
        arrays = dict(z)
    meta = json.loads(arrays["meta"].tobytes())
    node = meta
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = "@NUMBER@"
    text = json.dumps(meta).replace('"@NUMBER@"', raw).encode()
    arrays["meta"] = np.frombuffer(text, dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


@pytest.mark.parametrize("keys,ints", [
    (("config", "dim"), True), (("config", "window"), True), (("config", "epochs"), True),
    (("config", "min_count"), True), (("config", "threads"), True), (("config", "seed"), True),
    (("config", "memory_limit"), True), (("config", "grid"), True), (("config", "grid_rounds"), True),
    (("config", "max_vocab_size"), True),
    (("config", "x_max"), False), (("config", "eta"), False), (("config", "alpha"), False),
    (("epochs_trained",), True), (("history", 0, "epoch"), True), (("history", 0, "records"), True),
    (("history", 0, "cost"), False), (("history", 0, "seconds"), False),
])
def test_glove_checkpoint_numbers(tmp_path, files, keys, ints):
    path = tmp_path / "bad.npz"
    nullable = keys[-1] in ("memory_limit", "max_vocab_size", "grid", "grid_rounds")
    for raw in _bad_values(BAD_INTS if ints else BAD_FLOATS, nullable):
        if not ints and raw == str(2**70):
            continue  # finite, and x_max, eta and alpha have no upper bound
        _glove_with_number(files["glove"], keys, raw, path)
        _refused(lambda: GloVe.load_checkpoint(path), *_field_named(raw, repr(keys[-1])))


# ---------------------------------------------------------------------------- word2vec and GloVe text, binary

ROW = struct.pack("<3f", 1, 2, 3)


@pytest.mark.parametrize("fmt", ["word2vec-txt", "word2vec-bin", "glove-txt", "auto"])
@pytest.mark.parametrize("v,d,named", [
    (str(2**70), "3", "word count"), ("2", str(2**70), "dimension"),
    pytest.param(MANY_DIGITS, "3", "word count", id="5000-digit-V"),
    pytest.param("2", MANY_DIGITS, "dimension", id="5000-digit-D"), ("-1", "3", "positive"), ("2", "0", "positive"),
    ("1e400", "3", ""), ("2", "1.5", ""), ("inf", "3", ""), ("2", "nan", ""),
])
def test_word2vec_headers(tmp_path, fmt, v, d, named):
    """A "V D" line of digits is a header, checked; anything else is no header
    (word2vec formats: refused as missing; GloVe: read as a row, refused as ragged)."""
    path = tmp_path / "bad"
    body = (b"a " + ROW + b"\nb " + ROW + b"\n") if fmt == "word2vec-bin" else b"a 1 2 3\nb 4 5 6\n"
    path.write_bytes(f"{v} {d}\n".encode() + body)
    if not named:  # a GloVe row "2 nan" is refused itself, as not finite; the others as ragged at line 2
        named = "missing 'V D' header" if fmt.startswith("word2vec") else "line 1" if d == "nan" else "line 2"
    _refused(lambda: load_vectors(path, format=fmt), named)


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "NaN", "1e400", "1e39", "-Infinity"])
@pytest.mark.parametrize("fmt,header", [("word2vec-txt", b"2 3\n"), ("glove-txt", b"")])
def test_text_vector_components(tmp_path, fmt, header, value):
    path = tmp_path / "bad.txt"
    path.write_bytes(header + b"a 1 2 3\nb 4 " + value.encode() + b" 6\n")
    _refused(lambda: load_vectors(path, format=fmt), f"line {3 if header else 2}", "not a finite number")


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_binary_vector_components(tmp_path, value):
    path = tmp_path / "bad.bin"
    path.write_bytes(b"2 3\na " + ROW + b"\nb " + struct.pack("<3f", 1, value, 3) + b"\n")
    _refused(lambda: load_vectors(path), "entry 1", "not a finite number")


# ---------------------------------------------------------------------------- Stanford records, .npz


@pytest.mark.parametrize("w1,w2,value,named", [
    (0, 1, 1.0, "word ids"), (1, -1, 1.0, "word ids"), (4, 1, 1.0, "word ids"), (2**31 - 1, 1, 1.0, "word ids"),
    (-2**31, 1, 1.0, "word ids"), (1, 2, np.inf, "finite"), (1, 2, -np.inf, "finite"), (1, 2, np.nan, "finite"),
    (1, 2, 0.0, "finite"), (1, 2, -1.0, "finite"), (1, 2, 1e300, "float32"), (1, 2, 5e-324, "float32"),
])
def test_stanford_records(tmp_path, w1, w2, value, named):
    path = tmp_path / "c.bin"
    path.write_bytes(struct.pack("<iid", 1, 1, 2.0) + struct.pack("<iid", w1, w2, value))
    _refused(lambda: cooccur.read_records(path, 3), "record 1", named)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # scipy casting the infinite shape
@pytest.mark.parametrize("change,named", [
    (dict(data=np.array([np.nan, 1], np.float32)), "row 0, column 1"),
    (dict(data=np.array([1, np.inf], np.float32)), "row 1, column 0"),
    (dict(data=np.array([0, 1], np.float32)), "row 0, column 1"),
    (dict(indices=np.array([1, 7], np.int32)), "indices"),
    (dict(indices=np.array([1, -1], np.int32)), "indices"),
    (dict(shape=np.array([np.inf, np.inf])), "not a sparse matrix"),
    (dict(shape=np.array([2**40, 2**40])), "not a sparse matrix"),
    (dict(shape=np.array([2, 3])), "square"),
])
def test_cooccurrence_npz(tmp_path, change, named):
    cooccur.save_npz(sp.csr_matrix(np.array([[0, 1], [2, 0]], np.float32)), tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as z:
        arrays = {**z, **change}
    np.savez(tmp_path / "bad.npz", **arrays)
    _refused(lambda: cooccur.load_npz(tmp_path / "bad.npz"), named)


# ---------------------------------------------------------------------------- vocabulary and count files


@pytest.mark.parametrize("count", ["1e400", "-1", "1.5", "0", str(2**70), "abc", "inf", "nan", DIGITS_5000])
def test_vocabulary_file_counts(tmp_path, count):
    path = tmp_path / "vocab.txt"
    path.write_text(f"a 5\nb {count}\n")
    _refused(lambda: Vocabulary.load(path), "count", error=ValueError)


@pytest.mark.parametrize("count", ["1e400", "-1", "1.5", str(2**70), "abc", "inf", "nan", DIGITS_5000])
def test_gensim_fvocab_counts(tmp_path, count):
    Vectors(["a", "b"], np.ones((2, 3), np.float32)).save(tmp_path / "v.txt", format="word2vec-txt")
    (tmp_path / "fvocab.txt").write_text(f"a 5\nb {count}\n")
    _refused(lambda: KeyedVectors.load_word2vec_format(tmp_path / "v.txt", fvocab=str(tmp_path / "fvocab.txt")),
             "line 2", "count")


@pytest.mark.parametrize("score", ["inf", "-inf", "nan", "1e400", "x"])
def test_word_pair_scores(tmp_path, score):
    path = tmp_path / "pairs.txt"
    path.write_text(f"a b 1.0\nb c {score}\n")
    vectors = Vectors(["a", "b", "c"], np.eye(3, dtype=np.float32))
    _refused(lambda: evaluate_word_pairs(vectors, path), "line 2", "score", error=ValueError)
