"""The mapped, threaded readers (wv_engine.mapped_files, csrc/vecfile.c)
and the native file's stored norms and word table, checked against files
written byte by byte here (struct, Python's float formatting) and values
computed by Python itself (float(), numpy's norms), with windows and
pieces made tiny so that every boundary case is crossed."""

import mmap
import os
import struct

import numpy as np
import pytest

from wv_engine import FormatError, Vectors, load_vectors, mapped_files
from wv_engine.formats import read_loaded
from wv_engine.word_index import DamagedTable, table_of

DATA = os.path.join(os.path.dirname(__file__), "data", "before_families")


def _words(n, rng):
    letters = "abcdefghij\u00e9\u4e2d"
    return [("".join(rng.choice(list(letters), size=int(rng.integers(1, 9)))) + str(i)) for i in range(n)]


def _binary(path, words, mat, newline=True):
    with open(path, "wb") as fh:
        fh.write(f"{len(words)} {mat.shape[1]}\n".encode())
        for w, row in zip(words, mat):
            fh.write(w.encode() + b" " + struct.pack(f"<{len(row)}f", *row) + (b"\n" if newline else b""))


@pytest.fixture
def tiny_windows(monkeypatch):
    """Windows of 4 KiB and pieces of 512 bytes: a few hundred rows cross many."""
    monkeypatch.setattr(mapped_files, "WINDOW_BYTES", 4096)
    monkeypatch.setattr(mapped_files, "PIECE_BYTES", 512)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("newline", [True, False])
def test_binary_rows_words_and_norms_are_the_bytes_written(tmp_path, tiny_windows, threads, newline):
    rng = np.random.default_rng(threads)
    words = _words(700, rng)
    mat = rng.standard_normal((700, 7)).astype(np.float32)
    path = tmp_path / "v.bin"
    _binary(path, words, mat, newline)
    got = read_loaded(path, threads=threads)
    assert got.table.words() == words
    np.testing.assert_array_equal(got.vectors, mat)
    np.testing.assert_allclose(got.norms, np.linalg.norm(mat.astype(np.float64), axis=1), rtol=1e-6)
    assert [got.table.index(w) for w in words] == list(range(700)) and got.table.index("absent") == -1
    part = read_loaded(path, limit=333, threads=threads)
    assert part.table.words() == words[:333] and part.vectors.shape == (333, 7)


def test_binary_limit_reads_only_what_it_keeps(tmp_path):
    rng = np.random.default_rng(0)
    words, mat = _words(50, rng), rng.standard_normal((50, 4)).astype(np.float32)
    path = tmp_path / "v.bin"
    _binary(path, words, mat)
    raw = bytearray(path.read_bytes())
    cut = raw.index(words[20].encode() + b" ")
    raw[cut + len(words[20]) + 1:] = b"\xff" * (len(raw) - cut - len(words[20]) - 1)  # rows 20.. are damage
    path.write_bytes(bytes(raw))
    np.testing.assert_array_equal(read_loaded(path, limit=20).vectors, mat[:20])
    with pytest.raises(FormatError):
        read_loaded(path)


def _tokens(rng, n):
    """Numbers as people and programs write them, with their float32 values by Python."""
    forms = [
        lambda: f"{rng.standard_normal():.6f}",
        lambda: repr(float(np.float32(rng.standard_normal()))),
        lambda: f"{rng.standard_normal() * 10.0 ** rng.integers(-45, 39):.9e}",
        lambda: f"{rng.standard_normal():.30f}",                      # past 19 digits
        lambda: str(int(rng.integers(-10**6, 10**6))),
        lambda: "".join(rng.choice(list("0123456789"), size=25)) + "e-20",
        lambda: rng.choice(["-0", "+1.5", ".5", "5.", "1E3", "1e+02", "-2.5E-3", "0.0000001"]),
        lambda: f"{rng.uniform(-1, 1):.17g}",
    ]
    toks = [forms[int(rng.integers(len(forms)))]() for _ in range(n)]
    return toks, np.array([np.float32(float(t)) for t in toks], dtype=np.float32)


@pytest.mark.parametrize("threads", [1, 2])
def test_text_values_are_pythons_reading_of_each_token(tmp_path, tiny_windows, threads):
    rng = np.random.default_rng(7)
    n, dim = 400, 9
    toks, values = _tokens(rng, n * dim)
    words = _words(n, rng)
    lines = []
    for i, w in enumerate(words):
        sep = [" ", "  ", "\t"][i % 3]
        lines.append(w + " " + sep.join(toks[i * dim:(i + 1) * dim]) + ("\r" if i % 5 == 0 else "") + "\n")
        if i % 37 == 0:
            lines.append("\n")  # blank lines are skipped
    path = tmp_path / "v.txt"
    path.write_text(f"{n} {dim}\n" + "".join(lines), encoding="utf-8")
    got = read_loaded(path, threads=threads)
    assert got.table.words() == words
    np.testing.assert_array_equal(got.vectors, values.reshape(n, dim))
    (tmp_path / "g.txt").write_text("".join(lines), encoding="utf-8")  # GloVe: no header, rows counted
    glove = read_loaded(tmp_path / "g.txt", format="glove-txt", threads=threads)
    np.testing.assert_array_equal(glove.vectors, values.reshape(n, dim))
    part = read_loaded(path, limit=123, threads=threads)
    np.testing.assert_array_equal(part.vectors, values.reshape(n, dim)[:123])


@pytest.mark.parametrize("value, problem", [
    ("3.5e38", "not a finite number"), ("nan", "not a finite number"), ("-inf", "not a finite number"),
    ("0x10", "is not a number"), ("1e", "is not a number"), ("1.2.3", "is not a number"),
    ("", "values where 3 were expected"),
])
def test_text_refuses_each_bad_value_naming_its_line(tmp_path, tiny_windows, value, problem):
    rows = [f"w{i} 0.1 0.2 0.3\n" for i in range(300)]
    rows[211] = f"w211 0.1 0.2 {value}\n"
    path = tmp_path / "v.txt"
    path.write_text("300 3\n" + "".join(rows))
    with pytest.raises(FormatError, match=f"line 213.*{problem}|line 213: .*{problem}"):
        read_loaded(path, threads=2)


def test_a_lying_header_is_refused_without_allocating_its_rows(tmp_path):
    (tmp_path / "t.txt").write_text("1000000000000 300\nw 1 2\n")
    with pytest.raises(FormatError):
        read_loaded(tmp_path / "t.txt")
    (tmp_path / "b.bin").write_bytes(b"1000000000000 300\nw " + b"\0" * 1200)
    with pytest.raises(FormatError):
        read_loaded(tmp_path / "b.bin")


def test_every_truncation_and_byte_flip_of_a_file_is_an_error_or_a_load(tmp_path):
    rng = np.random.default_rng(3)
    words, mat = _words(6, rng), rng.standard_normal((6, 3)).astype(np.float32)
    path = tmp_path / "v.bin"
    _binary(path, words, mat)
    whole = path.read_bytes()
    for cut in range(1, len(whole)):
        path.write_bytes(whole[:cut])
        try:
            got = read_loaded(path, format="word2vec-bin")
        except FormatError:
            continue
        assert len(got.vectors) <= 6
    for _ in range(200):
        raw = bytearray(whole)
        raw[int(rng.integers(len(raw)))] = int(rng.integers(256))
        path.write_bytes(bytes(raw))
        try:
            read_loaded(path, format="word2vec-bin")
        except (FormatError, UnicodeDecodeError):
            pass


def test_native_files_store_norms_and_a_word_table_that_opening_maps(tmp_path):
    rng = np.random.default_rng(5)
    words, mat = _words(300, rng), rng.standard_normal((300, 6)).astype(np.float32)
    mat[17] = 0.0
    Vectors(words, mat).save(tmp_path / "v.wve", format="native")
    v = load_vectors(tmp_path / "v.wve", mmap=True)
    assert isinstance(v.vectors, np.memmap) and v._words is None  # no list of words made to open it
    np.testing.assert_allclose(v.norms, np.linalg.norm(mat, axis=1), rtol=1e-6)
    assert all(v.get_index(w) == i for i, w in enumerate(words)) and "nope" not in v
    assert v.most_similar(words[3], topn=3) == Vectors(words, mat).most_similar(words[3], topn=3)
    assert v.word(17) == words[17] and v.words == words


def test_a_native_file_written_before_the_word_table_still_opens_mapped():
    v = load_vectors(os.path.join(DATA, "word2vec.wv"), mmap=True)
    plain = Vectors(list(v.words), np.array(v.vectors))
    w = v.words[1]
    assert v.get_index(w) == 1
    assert v.most_similar(w, topn=5) == plain.most_similar(w, topn=5)


def test_a_damaged_stored_word_table_is_an_error_not_a_crash(tmp_path):
    words = [f"w{i}" for i in range(40)]
    Vectors(words, np.eye(40, 5, dtype=np.float32)).save(tmp_path / "v.wve", format="native")
    raw = bytearray((tmp_path / "v.wve").read_bytes())
    v = load_vectors(tmp_path / "v.wve", mmap=True)
    slots = v._table.arrays[2]
    start = raw.index(slots.tobytes())
    for value in (0xFFFFFFFF, 41, 1000):
        bad = bytearray(raw)
        bad[start:start + 4 * len(slots)] = struct.pack(f"<{len(slots)}I", *([value] * len(slots)))
        (tmp_path / "bad.wve").write_bytes(bytes(bad))
        with pytest.raises((FormatError, DamagedTable)):
            got = load_vectors(tmp_path / "bad.wve", mmap=True)
            [got.get_index(w) for w in words]


def test_a_word_table_over_bytes_finds_each_first_word():
    words = [b"a", b"bb", b"a", b"", b"\xff\xfe", b"ccc"]
    blob = np.frombuffer(b"".join(words), np.uint8)
    offsets = np.concatenate([[0], np.cumsum([len(w) for w in words])]).astype(np.int64)
    table, dup = table_of(blob, offsets)
    assert dup.tolist() == [False, False, True, False, False, False]
    assert [table.index_bytes(w) for w in words] == [0, 1, 0, 3, 4, 5]
    assert table.index_bytes(b"zz") == -1
    assert table.word(4) == b"\xff\xfe".decode("utf-8", "surrogateescape")
    assert len(table.with_visible(2)) == 2 and table.with_visible(2).index("ccc") == -1


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_subword_means_and_norms_are_numpys(threads):
    from wv_engine import _subwords

    rng = np.random.default_rng(threads)
    matrix = rng.standard_normal((5000, 13)).astype(np.float32)
    lengths = rng.integers(0, 9, size=3000)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    rows = rng.integers(0, 5000, size=int(offsets[-1])).astype(np.int32)
    out, norms = np.empty((3000, 13), np.float32), np.empty(3000, np.float32)
    _subwords.mean_rows(matrix, offsets, rows, out, threads, norms)
    want = np.array([matrix[rows[a:b]].astype(np.float64).mean(axis=0) if b > a else np.zeros(13)
                     for a, b in zip(offsets[:-1], offsets[1:])])
    np.testing.assert_allclose(out, want, atol=1e-5)
    np.testing.assert_allclose(norms, np.linalg.norm(out, axis=1), rtol=1e-6)
    with pytest.raises(ValueError):
        _subwords.mean_rows(matrix, offsets, np.full_like(rows, 5000), out, threads)


def test_a_fasttext_dictionary_cut_anywhere_is_an_error_naming_it(tmp_path):
    from wv_engine.fasttext.bin_file import read_fasttext_bin, write_fasttext_bin

    words = ["a", "bb", "\u00e9t\u00e9", "dddd"]
    rng = np.random.default_rng(0)
    inp, out = rng.standard_normal((4 + 10, 3)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
    write_fasttext_bin(tmp_path / "m.bin", words=words, counts=np.array([9, 7, 5, 3]), input_matrix=inp,
                       output_matrix=out, arch="skipgram", window=5, epochs=1, min_count=1, negative=5, minn=1,
                       maxn=2, bucket=10, sample=1e-3, ntokens=24)
    whole = read_fasttext_bin(tmp_path / "m.bin")
    assert whole["words"] == words and whole["counts"].tolist() == [9, 7, 5, 3]
    np.testing.assert_array_equal(whole["input_matrix"], inp)
    np.testing.assert_array_equal(whole["output_matrix"], out)
    assert read_fasttext_bin(tmp_path / "m.bin", output=False)["output_matrix"] is None
    raw = (tmp_path / "m.bin").read_bytes()
    start = raw.index(b"a\0")
    for cut in range(start, len(raw)):
        (tmp_path / "cut.bin").write_bytes(raw[:cut])
        with pytest.raises(FormatError):
            read_fasttext_bin(tmp_path / "cut.bin", output=cut % 2 == 0)


def test_gensims_own_file_is_mapped_by_the_gensim_layer(tmp_path):
    gensim_models = pytest.importorskip("gensim.models")
    from wv_engine.gensim import KeyedVectors

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(2000)]
    matrix = rng.standard_normal((2000, 30)).astype(np.float32)
    theirs = gensim_models.KeyedVectors(30)
    theirs.add_vectors(words, matrix)
    theirs.save(str(tmp_path / "g.kv"), separately=["vectors"])  # as gensim stores a matrix past 10M values
    assert (tmp_path / "g.kv.vectors.npy").exists()
    ours = KeyedVectors.load(str(tmp_path / "g.kv"), mmap="r")
    bases, arr = [], ours.vectors
    while arr is not None:
        bases.append(arr)
        arr = getattr(arr, "base", None)
    assert any(isinstance(b, (np.memmap, mmap.mmap)) for b in bases)  # the file's pages, not a copy
    assert not ours.vectors.flags.writeable
    np.testing.assert_allclose([s for _, s in ours.most_similar("w7", topn=5)],
                               [s for _, s in theirs.most_similar("w7", topn=5)], rtol=1e-5)
    assert [w for w, _ in ours.most_similar("w7", topn=5)] == [w for w, _ in theirs.most_similar("w7", topn=5)]
