"""File formats: byte-exact word2vec.c output, round trips, gensim interop, hostile files."""

from __future__ import annotations

import gzip
import json
import os
import struct
import time

import numpy as np
import pytest

from wv_engine import formats, io
from wv_engine.io import FormatError, atomic_write, detect_format, load_vectors
from wv_engine.vectors import Vectors


def sample(n: int = 30, dim: int = 5, seed: int = 0, counts: bool = True) -> Vectors:
    rng = np.random.default_rng(seed)
    words = ["</s>", "the", "caf\u00e9", "\u4e2d\u6587"] + [f"w{i}" for i in range(n - 4)]
    c = np.arange(n, 0, -1) * 10 if counts else None
    return Vectors(words, rng.standard_normal((n, dim)).astype(np.float32), counts=c)


# ---------------------------------------------------------------------------- exact bytes


VALUES = [[0.5, -1.25, 3.0], [1e-7, -0.0078125, 100.0]]


def test_word2vec_text_is_byte_identical_to_word2vec_c(tmp_path):
    v = Vectors(["foo", "b\u00e4r"], np.array(VALUES))
    path = tmp_path / "v.txt"
    io.save_word2vec(v, path, binary=False)
    # word2vec.c: fprintf("%lld %lld\n"), then "%s " and "%lf " per dimension, then "\n".
    expected = (b"2 3\n"
                b"foo 0.500000 -1.250000 3.000000 \n"
                b"b\xc3\xa4r 0.000000 -0.007812 100.000000 \n")
    assert path.read_bytes() == expected


def test_word2vec_binary_is_byte_identical_to_word2vec_c(tmp_path):
    v = Vectors(["foo", "b\u00e4r"], np.array(VALUES))
    path = tmp_path / "v.bin"
    io.save_word2vec(v, path, binary=True)
    rows = [struct.pack("<3f", *r) for r in VALUES]
    expected = b"2 3\n" + b"foo " + rows[0] + b"\n" + b"b\xc3\xa4r " + rows[1] + b"\n"
    assert path.read_bytes() == expected


def test_glove_text_layout(tmp_path):
    v = Vectors(["foo", "bar"], np.array(VALUES))
    io.save_glove_text(v, tmp_path / "g.txt")
    assert (tmp_path / "g.txt").read_bytes() == (
        b"foo 0.500000 -1.250000 3.000000\nbar 0.000000 -0.007812 100.000000\n")
    io.save_glove_text(v, tmp_path / "h.txt", header=True)
    assert (tmp_path / "h.txt").read_bytes().startswith(b"2 3\nfoo 0.500000 ")


def test_hand_written_files_load(tmp_path):
    """Files written byte by byte as word2vec.c (and gensim, and GloVe) write them."""
    rows = np.array(VALUES, dtype=np.float32)
    packed = [r.astype("<f4").tobytes() for r in rows]
    files = {
        # word2vec.c binary: newline after each vector.
        "c.bin": b"2 3\nfoo " + packed[0] + b"\nbar " + packed[1] + b"\n",
        # gensim binary: no newline after vectors.
        "g.bin": b"2 3\nfoo " + packed[0] + b"bar " + packed[1],
        # word2vec.c text: trailing space on each row; CRLF variant too.
        "c.txt": b"2 3\nfoo 0.5 -1.25 3.0 \nbar 1e-07 -0.0078125 100 \n",
        "crlf.txt": b"2 3\r\nfoo 0.5 -1.25 3.0 \r\nbar 1e-07 -0.0078125 100\r\n",
        # GloVe: no header, no trailing space, no final newline.
        "glove.txt": b"foo 0.5 -1.25 3.0\nbar 1e-07 -0.0078125 100",
    }
    kinds = {"c.bin": "word2vec-bin", "g.bin": "word2vec-bin", "c.txt": "word2vec-txt",
             "crlf.txt": "word2vec-txt", "glove.txt": "glove-txt"}
    for name, data in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        assert detect_format(path) == kinds[name], name
        v = load_vectors(path)
        assert v.words == ["foo", "bar"], name
        np.testing.assert_array_equal(v.vectors, rows, err_msg=name)
        assert v.counts is None and v.metadata == {}


# ---------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("fmt,suffix,exact", [
    ("native", ".wv", True),
    ("word2vec-bin", ".bin", True),
    ("word2vec-txt", ".txt", False),
    ("glove-txt", ".glove", False),
    ("word2vec-bin", ".bin.gz", True),
    ("word2vec-txt", ".txt.bz2", False),
    ("glove-txt", ".glove.xz", False),
])
def test_round_trip(tmp_path, fmt, suffix, exact):
    v = sample()
    path = tmp_path / f"v{suffix}"
    v.save(path, format=fmt)
    w = Vectors.load(path)
    assert detect_format(path) == fmt
    assert w.words == v.words
    if exact:
        np.testing.assert_array_equal(w.vectors, v.vectors)
    else:
        np.testing.assert_allclose(w.vectors, v.vectors, rtol=0, atol=1e-6)
    if fmt == "native":
        np.testing.assert_array_equal(w.counts, v.counts)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    # limit reads only the first N rows, in every format.
    part = load_vectors(path, limit=7)
    assert part.words == v.words[:7] and part.vectors.shape == (7, 5)


def test_native_metadata_mmap_and_layout(tmp_path):
    v = sample()
    v.metadata = {"model": "sgns", "window": 5, "alpha": 0.025, "nested": {"a": [1, 2]}}
    path = tmp_path / "v.wv"
    v.save(path)
    w = load_vectors(path, mmap=True)
    assert isinstance(w.vectors, np.memmap) and not w.vectors.flags.writeable
    np.testing.assert_array_equal(w.vectors, v.vectors)
    assert w.metadata == v.metadata and w.counts.tolist() == v.counts.tolist()
    # The matrix sits at a 64-byte aligned offset that the JSON header describes.
    raw = path.read_bytes()
    magic, version, hlen = struct.unpack("<8sII", raw[:16])
    assert magic == io.NATIVE_MAGIC and version == 1
    head = json.loads(raw[16:16 + hlen])
    sec = head["sections"]["vectors"]
    assert sec["offset"] % 64 == 0 and sec["shape"] == [30, 5]
    direct = np.frombuffer(raw, "<f4", count=150, offset=sec["offset"]).reshape(30, 5)
    np.testing.assert_array_equal(direct, v.vectors)
    # An explicit metadata argument wins; non-JSON metadata is refused before writing.
    io.save_native(v, path, metadata={"x": 1})
    assert load_vectors(path).metadata == {"x": 1}
    with pytest.raises(ValueError, match="JSON"):
        io.save_native(v, path, metadata={"x": object()})
    assert load_vectors(path).metadata == {"x": 1}
    v.save(tmp_path / "v.bin", format="word2vec-bin")
    with pytest.raises(ValueError, match="mmap=True needs the native format"):
        load_vectors(tmp_path / "v.bin", mmap=True)


def test_native_keeps_words_with_whitespace_and_empty_vocab(tmp_path):
    v = Vectors(["new york", "tab\there", ""], np.eye(3))
    v.save(tmp_path / "v.wv")
    assert load_vectors(tmp_path / "v.wv").words == v.words
    lines = Vectors(["two\nlines", "", "\n", "x"], np.eye(4))  # newlines: the per-word path
    lines.save(tmp_path / "l.wv")
    assert load_vectors(tmp_path / "l.wv").words == lines.words
    with pytest.raises(ValueError, match="whitespace"):
        v.save(tmp_path / "v.bin", format="word2vec-bin")
    assert not (tmp_path / "v.bin").exists()
    empty = Vectors([], np.zeros((0, 4)))
    empty.save(tmp_path / "e.wv")
    for mm in (False, True):
        e = load_vectors(tmp_path / "e.wv", mmap=mm)
        assert len(e) == 0 and e.dim == 4


# ---------------------------------------------------------------------------- encodings


def test_non_utf8_words_round_trip_losslessly(tmp_path):
    raw_words = [b"\xff\xfeab", b"caf\xe9", b"ok", b"\xe4\xb8"]  # latin-1, truncated UTF-8
    words = [w.decode("utf-8", "surrogateescape") for w in raw_words]
    v = Vectors(words, np.arange(8, dtype=np.float32).reshape(4, 2))
    for fmt in ("word2vec-bin", "native", "word2vec-txt"):
        path = tmp_path / f"v.{fmt}"
        v.save(path, format=fmt)
        w = load_vectors(path)
        assert w.words == words
        assert [x.encode("utf-8", "surrogateescape") for x in w.words] == raw_words
    # The file holds the original bytes, as word2vec.c would have written them.
    assert (tmp_path / "v.word2vec-bin").read_bytes().startswith(b"4 2\n\xff\xfeab ")
    path = tmp_path / "v.word2vec-bin"
    with pytest.raises(FormatError, match="not valid UTF-8"):
        load_vectors(path, unicode_errors="strict")
    assert load_vectors(path, unicode_errors="latin-1").words[1] == "caf\u00e9"
    assert load_vectors(path, unicode_errors="latin-1").words[2] == "ok"
    assert load_vectors(path, unicode_errors="replace").words[1] == "caf\ufffd"
    assert load_vectors(path, unicode_errors="ignore").words[0] == "ab"


def test_lossy_decoding_duplicates_keep_first_row(tmp_path):
    path = tmp_path / "d.txt"
    path.write_bytes(b"2 1\na\xff 1.0\na\xfe 2.0\n")
    with pytest.warns(UserWarning, match="duplicate"):
        v = load_vectors(path, unicode_errors="ignore")
    assert v.words == ["a"] and v.vectors.tolist() == [[1.0]]


# ---------------------------------------------------------------------------- gensim interop


def test_gensim_files_load_in_ours_and_ours_in_gensim(tmp_path):
    pytest.importorskip("gensim")
    from gensim.models import KeyedVectors

    v = sample(n=50, dim=8)
    kv = v.to_gensim()
    # gensim -> ours
    kv.save_word2vec_format(str(tmp_path / "g.bin"), binary=True)
    kv.save_word2vec_format(str(tmp_path / "g.txt"), binary=False)
    for name in ("g.bin", "g.txt"):
        w = load_vectors(tmp_path / name)
        assert w.words == v.words, name
        np.testing.assert_array_equal(w.vectors, v.vectors, err_msg=name)
    # ours -> gensim
    v.save(tmp_path / "o.bin", format="word2vec-bin")
    v.save(tmp_path / "o.txt", format="word2vec-txt")
    v.save(tmp_path / "o.glove", format="glove-txt")
    g = KeyedVectors.load_word2vec_format(str(tmp_path / "o.bin"), binary=True)
    assert g.index_to_key == v.words
    np.testing.assert_array_equal(g.vectors, v.vectors)
    ours_txt = load_vectors(tmp_path / "o.txt")
    for name, kw in (("o.txt", {}), ("o.glove", {"no_header": True})):
        g = KeyedVectors.load_word2vec_format(str(tmp_path / name), binary=False, **kw)
        assert g.index_to_key == v.words
        np.testing.assert_allclose(g.vectors, v.vectors, atol=1e-6)
        np.testing.assert_array_equal(g.vectors, ours_txt.vectors)


# ---------------------------------------------------------------------------- damaged files


def check_error(path, *phrases, **kwargs):
    with pytest.raises(FormatError) as info:
        load_vectors(path, **kwargs)
    message = str(info.value)
    assert str(path) in message
    for phrase in phrases:
        assert phrase in message, message
    return message


def test_lying_headers_fail_before_allocating(tmp_path):
    tiny = struct.pack("<3f", 1, 2, 3)
    cases = {
        "words.bin": b"1000000000000 100\nfoo " + tiny,
        "dims.bin": b"2 1000000000000\nfoo " + tiny,
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        start = time.perf_counter()
        check_error(tmp_path / name, "header claims", format="word2vec-bin")
        check_error(tmp_path / name, "header claims")  # auto-detected too
        assert time.perf_counter() - start < 1.0
    # Compressed: the size cannot be checked up front, and nothing is preallocated instead.
    with gzip.open(tmp_path / "dims.bin.gz", "wb") as fh:
        fh.write(b"2 1000000000000\nfoo " + tiny)
    check_error(tmp_path / "dims.bin.gz", "truncated")
    with gzip.open(tmp_path / "words.bin.gz", "wb") as fh:
        fh.write(b"1000000000000 3\nfoo " + tiny + b"\n")
    check_error(tmp_path / "words.bin.gz", "truncated", "found 1 complete")
    (tmp_path / "words.txt").write_bytes(b"1000000000000 3\nfoo 1 2 3\n")
    check_error(tmp_path / "words.txt", "truncated", "holds 1")


def test_truncated_binary(tmp_path):
    v = sample()
    v.save(tmp_path / "v.bin", format="word2vec-bin")
    data = (tmp_path / "v.bin").read_bytes()
    (tmp_path / "mid_vector.bin").write_bytes(data[:-10])
    check_error(tmp_path / "mid_vector.bin", "truncated", "inside the vector of entry 29")
    cut = data.rindex(b"w25 ") + 2  # inside a word
    (tmp_path / "mid_word.bin").write_bytes(data[:cut])
    check_error(tmp_path / "mid_word.bin", "truncated", format="word2vec-bin")


def test_damaged_text_files(tmp_path):
    cases = {
        "ragged.txt": (b"2 3\nfoo 1 2 3\nbar 1 2\n", ["line 3", "2 values where 3"]),
        "ragged_glove.txt": (b"foo 1 2 3\nbar 1 2 3 4\n", ["line 2", "4 values where 3"]),
        "nan_word.txt": (b"2 3\nfoo 1 2 3\nbar 1 x2 3\n", ["line 3", "not a number"]),
        "dims.txt": (b"2 4\nfoo 1 2 3\nbar 1 2 3\n", ["line 2", "3 values where 4"]),
        "nul.txt": (b"2 3\nfoo 1 2 3\nb\x00r 1 2 3\n", ["NUL"]),
        "zero.txt": (b"0 3\n", ["positive"]),
        "negative.txt": (b"-5 3\nfoo 1 2 3\n", ["positive"]),
        "empty.txt": (b"", ["empty"]),
        "garbage.txt": (b"hello world\nthis is prose\n", ["unrecognised format"]),
        "noline.txt": (b"2 3\n", ["truncated"]),
    }
    for name, (data, phrases) in cases.items():
        (tmp_path / name).write_bytes(data)
        check_error(tmp_path / name, *phrases)
    nul_bin = b"1 2\nb\x00r " + struct.pack("<2f", 1, 2) + b"\n"
    (tmp_path / "nul.bin").write_bytes(nul_bin)
    check_error(tmp_path / "nul.bin", "NUL", format="word2vec-bin")


def test_damaged_native_files(tmp_path):
    v = sample()
    v.save(tmp_path / "v.wv")
    data = (tmp_path / "v.wv").read_bytes()
    (tmp_path / "version.wv").write_bytes(data[:8] + struct.pack("<I", 99) + data[12:])
    check_error(tmp_path / "version.wv", "version 99 is not supported")
    (tmp_path / "short.wv").write_bytes(data[:len(data) // 2])
    check_error(tmp_path / "short.wv", "truncated")
    (tmp_path / "hlen.wv").write_bytes(data[:12] + struct.pack("<I", 2**31) + data[16:])
    check_error(tmp_path / "hlen.wv", "header length")
    (tmp_path / "json.wv").write_bytes(data[:16] + b"x" + data[17:])
    check_error(tmp_path / "json.wv", "damaged JSON header")
    (tmp_path / "magic.wv").write_bytes(b"X" + data[1:])
    check_error(tmp_path / "magic.wv", "bad magic", format="native")


# ---------------------------------------------------------------------------- atomic writes


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_atomic_write_keeps_old_file_on_failure(tmp_path, exc):
    target = tmp_path / "model.bin"
    target.write_bytes(b"old contents")
    with pytest.raises(exc):
        with atomic_write(target, "wb") as fh:
            fh.write(b"new partial data" * 1000)
            raise exc("interrupted midway")
    assert target.read_bytes() == b"old contents"
    assert os.listdir(tmp_path) == ["model.bin"]
    with atomic_write(target, "wb") as fh:
        fh.write(b"new")
    assert target.read_bytes() == b"new" and os.listdir(tmp_path) == ["model.bin"]
    # A new file gets the ordinary umask permissions, not mkstemp's private 0600.
    fresh = tmp_path / "fresh.bin"
    with atomic_write(fresh, "wb") as fh:
        fh.write(b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(fresh).st_mode & 0o777 == 0o666 & ~umask


def test_failing_writer_leaves_target_intact(tmp_path, monkeypatch):
    v = sample()
    path = tmp_path / "v.txt"
    v.save(path, format="word2vec-txt")
    before = path.read_bytes()

    def boom(*args, **kwargs):
        yield b"2 5\nthe 1 2 3 4 5 \n"
        raise MemoryError("simulated failure halfway through")

    monkeypatch.setattr(formats, "_text_rows", boom)
    with pytest.raises(MemoryError):
        v.save(path, format="word2vec-txt")
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["v.txt"]


def test_text_writers_print_exactly_what_printf_prints(tmp_path):
    """The compiled "%f" against Python's (C's) own: signs, -0.0, values
    that round at the sixth decimal, every magnitude, and huge values
    (formatted one by one)."""
    rng = np.random.default_rng(3)
    mags = 10.0 ** rng.uniform(-9, 9, size=(300, 7))
    vals = (mags * rng.choice([-1, 1], size=mags.shape)).astype(np.float32)
    vals[0] = [0.0, -0.0, 5e-7, -5e-7, 0.0000015, 2.5e-6, -999999.9999995]
    vals[1] = [1.0, -1.0, 0.5, 123456.789, -0.0000004, 9.9999995, 1e9]
    words = [f"w{i}" for i in range(len(vals))]
    v = Vectors(words, vals)
    for fmt, path, row in (("word2vec-txt", tmp_path / "a.txt", lambda r: " ".join("%f" % x for x in r) + " "),
                           ("glove-txt", tmp_path / "b.txt", lambda r: " ".join("%f" % x for x in r))):
        v.save(path, format=fmt)
        lines = path.read_text().splitlines()[1 if fmt == "word2vec-txt" else 0:]
        assert lines == [f"{w} {row(r)}" for w, r in zip(words, vals.astype(np.float64).tolist())]
    huge = Vectors(["a", "b"], np.array([[3e38, -1.0], [np.inf, np.nan]], np.float32))
    huge.save(tmp_path / "h.txt", format="glove-txt")
    assert (tmp_path / "h.txt").read_text().split("\n")[:2] == ["a " + "%f %f" % (np.float32(3e38), -1.0),
                                                               "b inf nan"]


def test_binary_rows_match_a_python_join():
    from wv_engine import _formats

    words = [b"a", b"", b"caf\xc3\xa9", b"longer-word"]
    blob = np.frombuffer(b"".join(words), np.uint8)
    offsets = np.cumsum([0] + [len(w) for w in words]).astype(np.int64)
    floats = np.arange(4 * 8, dtype=np.uint8).reshape(4, 8)
    for start, count in ((0, 4), (1, 2), (3, 1), (2, 0)):
        rows = floats[start:start + count]
        expected = b"".join(w + b" " + r.tobytes() + b"\n" for w, r in zip(words[start:start + count], rows))
        assert _formats.binary_rows(blob, offsets, np.ascontiguousarray(rows), start) == expected
    with pytest.raises(ValueError, match="past the end"):
        _formats.binary_rows(blob, offsets, floats, 1)


def test_word2vec_text_with_significant_digits_is_cs_g_format(tmp_path):
    """save_word2vec(significant=5): each value as C's "%.5g" of the float
    promoted to double (Python's format is C's), extremes included."""
    from wv_engine.formats import save_word2vec

    values = np.array([[0.1234567, -1e-7, 3.4e38, 0.0], [-0.0, 1.0, 123456.7, 1.17549435e-38]], np.float32)
    path = tmp_path / "v.txt"
    save_word2vec(Vectors(["a", "bé"], values), path, binary=False, significant=5)
    expected = "2 4\n" + "".join(w + " " + "".join(f"{float(x):.5g} " for x in row) + "\n"
                                 for w, row in zip(["a", "bé"], values))
    assert path.read_text(encoding="utf-8") == expected
    np.testing.assert_allclose(load_vectors(path).vectors, values, rtol=1e-4)
