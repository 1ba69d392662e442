"""fastText's `.bin` model file, on plain data (FastText converts it to and
from a model: FastText.save_fasttext / load_fasttext).

The layout, as fastText (version 12) writes it, little-endian on the machines
it runs on: the magic int32 793712314 and the version int32; its arguments
(int32 dim, ws, epoch, minCount, neg, wordNgrams, loss, model, bucket, minn,
maxn, lrUpdateRate, then float64 t); the dictionary (int32 size, nwords,
nlabels; int64 ntokens, pruneidx_size; each entry its bytes, a NUL, int64
count, int8 type); a bool byte "quantized"; the input matrix (int64 rows,
int64 cols, float32 rows: the words', then the buckets'); a bool byte
"quantized output"; the output matrix likewise. Every number read is checked
before it is used, so a damaged, foreign or lying file is a FormatError
naming what is wrong, never a crash or a huge allocation."""

from __future__ import annotations

import mmap
import os
import struct
from typing import Any

import numpy as np

from .. import _vectors
from ..errors import FormatError, UnsupportedModelError
from ..files import atomic_write, check_input
from ..mapped_files import read_floats
from ..file_checks import checked_number

__all__ = ["MAGIC", "VERSION", "read_fasttext_bin", "write_fasttext_bin"]

MAGIC = 793712314
VERSION = 12
MODELS = {1: "cbow", 2: "skipgram", 3: "supervised"}
LOSSES = {1: "hs", 2: "ns", 3: "softmax", 4: "ova"}
_ARGS = struct.Struct("<12id")
_ARG_NAMES = ("dim", "ws", "epoch", "minCount", "neg", "wordNgrams", "loss", "model", "bucket", "minn", "maxn",
              "lrUpdateRate")
_OLD_ARGS = struct.Struct("<10id")  # before version 11: no magic number, the file begins with dim and ws
_DICT = struct.Struct("<3iq")
_ENTRY_TAIL = struct.Struct("<qb")
_MATRIX = struct.Struct("<2q")
_INT32 = 2**31 - 1


def write_fasttext_bin(path: str | os.PathLike, *, words: list[str], counts: np.ndarray, input_matrix: np.ndarray,
                       output_matrix: np.ndarray, arch: str, window: int, epochs: int, min_count: int,
                       negative: int, minn: int, maxn: int, bucket: int, sample: float, ntokens: int,
                       loss: str = "ns") -> None:
    """Writes a fastText .bin atomically: `input_matrix` holds len(words) +
    bucket rows (bucket 0 when maxn is 0, as fastText saves it), the
    output matrix one row a word (loss "ns"; "hs": its first rows the
    inner nodes of the tree, as fastText numbers them, the last unused)."""
    V, dim = len(words), input_matrix.shape[1]
    if input_matrix.shape[0] != V + bucket or output_matrix.shape != (V, dim):
        raise ValueError(f"a fastText .bin of {V} words and {bucket} buckets needs input rows {V + bucket} "
                         f"and output {V} x {dim}, got {input_matrix.shape} and {output_matrix.shape}")
    codes = {v: k for k, v in LOSSES.items()}
    if loss not in ("ns", "hs", "softmax"):
        raise ValueError(f"loss={loss!r}: a fastText .bin of word vectors holds 'ns', 'hs' or 'softmax'")
    encoded = [w.encode("utf-8", "surrogateescape") for w in words]
    if any(b"\0" in w for w in encoded):
        raise ValueError("a word holds a NUL byte, which fastText's .bin cannot store")
    args = (dim, window, epochs, min_count, negative, 1, codes[loss], 1 if arch == "cbow" else 2, bucket, minn, maxn, 100,
            float(sample))
    entries = b"".join(w + b"\0" + _ENTRY_TAIL.pack(int(c), 0) for w, c in zip(encoded, counts))
    with atomic_write(path, "wb", direct=True) as fh:
        fh.write(struct.pack("<2i", MAGIC, VERSION) + _ARGS.pack(*args) + _DICT.pack(V, V, 0, ntokens)
                 + struct.pack("<q", -1))  # not pruned
        fh.write(entries)
        for matrix in (input_matrix, output_matrix):
            fh.write(b"\0" + _MATRIX.pack(*matrix.shape))  # not quantized
            fh.write(memoryview(np.ascontiguousarray(matrix, dtype="<f4")).cast("B"))


def read_fasttext_bin(path: str | os.PathLike, output: bool = True) -> dict[str, Any]:
    """A fastText .bin of word vectors (skip-gram or CBOW, not quantized) as
    {"args": {name: value}, "arch", "loss", "words", "counts", "ntokens",
    "input_matrix", "output_matrix"}; files fastText wrote before version 11
    (no magic number) too. Raises FormatError for anything else: a
    supervised or quantized model, a damaged file, a header whose sizes
    disagree with the file. `output`: False leaves the output matrix
    unread (None): the vectors need only the input rows."""
    path = check_input(path, "fastText model")
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        reader = _Reader(path, fh, size)
        magic, version = struct.unpack("<2i", reader.take(8, "the magic number"))
        if magic == MAGIC:
            if version not in (11, VERSION):
                raise FormatError(path, f"fastText .bin version {version} is not supported (11 and 12 are)")
            return _read_model(path, reader, _ARGS.unpack(reader.take(_ARGS.size, "the arguments")), True, output)
        # before version 11 fastText wrote no magic number: its files begin with dim and ws
        try:
            rest = _OLD_ARGS.unpack(reader.take(_OLD_ARGS.size, "the arguments"))
            return _read_model(path, reader, (magic, version) + rest, False, output)
        except FormatError as exc:
            raise FormatError(path, f"not a fastText .bin: no magic number ({magic}; fastText's is {MAGIC}) "
                                    f"and not its older layout either ({exc.problem})") from None


def _read_model(path: str, reader: "_Reader", values: tuple, new: bool, output: bool) -> dict[str, Any]:
    """The file after its arguments (`values`); `new`: the layout of version 11 on,
    whose dictionary counts pruned entries and whose matrices say whether they are quantized."""
    size = reader.size
    args = {name: checked_number(path, f"argument {name}", v, 0, _INT32) for name, v in zip(_ARG_NAMES, values)}
    args["t"] = checked_number(path, "argument t", values[-1], 0, 1, integer=False)
    for name in ("dim", "ws", "epoch", "wordNgrams"):
        checked_number(path, f"argument {name}", args[name], 1, _INT32)
    model, loss = MODELS.get(args["model"]), LOSSES.get(args["loss"])
    if model is None or loss is None:
        raise FormatError(path, f"unknown model {args['model']} or loss {args['loss']} in its arguments")
    if model == "supervised":
        raise UnsupportedModelError(path, "a supervised (classifier) model, not word vectors")
    if args["maxn"] and not 1 <= args["minn"] <= args["maxn"]:
        raise FormatError(path, f"minn {args['minn']} and maxn {args['maxn']} make no n-grams")
    n_entries, nwords, nlabels, ntokens = _DICT.unpack(reader.take(_DICT.size, "the dictionary"))
    pruned = struct.unpack("<q", reader.take(8, "the dictionary"))[0] if new else -1
    # each entry takes at least 10 bytes: a size past what the file holds is a lie, not an allocation
    n_entries = checked_number(path, "dictionary size", n_entries, 1, min(_INT32, (size - reader.offset) // 10))
    if nwords != n_entries or nlabels != 0:
        raise FormatError(path, f"dictionary of {n_entries} entries holds {nwords} words and {nlabels} "
                                "labels: not a model of word vectors")
    checked_number(path, "dictionary ntokens", ntokens, 0, 2**63 - 1)
    if pruned > 0:
        raise FormatError(path, "a pruned (quantized) model: its n-gram rows are not fastText's hash; "
                                "use the model before quantization")
    words, counts = reader.entries(n_entries)
    dim = args["dim"]
    matrices = []
    for name, rows in (("input", n_entries + args["bucket"]), ("output", n_entries)):
        if new and reader.take(1, f"the {name} matrix") != b"\0":
            raise FormatError(path, f"the {name} matrix is quantized (.ftz): not supported")
        m, n = _MATRIX.unpack(reader.take(_MATRIX.size, f"the {name} matrix's shape"))
        if (m, n) != (rows, dim):
            raise FormatError(path, f"the {name} matrix is {m} x {n}; the header's sizes make it {rows} x {dim}")
        if name == "output" and not output:
            reader.skip(4 * m * n, "the output matrix")
            matrices.append(None)
        else:
            matrices.append(reader.floats(m * n, f"the {name} matrix").reshape(m, n))
    if not args["maxn"] and args["bucket"]:  # kept by -wordNgrams > 1, whose word n-grams only classifiers train
        matrices[0] = np.ascontiguousarray(matrices[0][:n_entries])
    if reader.offset != size:
        raise FormatError(path, f"{size - reader.offset} bytes follow the output matrix")
    return {"args": args, "arch": model, "loss": loss, "words": words, "counts": counts, "ntokens": ntokens,
            "input_matrix": matrices[0], "output_matrix": matrices[1]}


class _Reader:
    """Reads a file front to back, each read checked against its size."""

    def __init__(self, path: str, fh: Any, size: int) -> None:
        self.path, self.fh, self.size, self.offset = path, fh, size, 0

    def _room(self, nbytes: int, what: str) -> None:
        if nbytes > self.size - self.offset:
            raise FormatError(self.path, f"truncated: {what} needs {nbytes:,} bytes at offset {self.offset:,}, "
                                         f"the file has {self.size - self.offset:,} left")

    def take(self, nbytes: int, what: str) -> bytes:
        self._room(nbytes, what)
        data = self.fh.read(nbytes)
        self.offset += nbytes
        return data

    def floats(self, count: int, what: str) -> np.ndarray:
        self._room(4 * count, what)
        data = read_floats(self.fh, self.offset, count)
        self.offset += 4 * count
        self.fh.seek(self.offset)
        return data.astype(np.float32, copy=False)

    def entries(self, n: int) -> tuple[list[str], np.ndarray]:
        """n dictionary entries: NUL-ended bytes, int64 count, int8 type
        (found in C over a read-only mapping: a pretrained dictionary holds millions)."""
        with mmap.mmap(self.fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            word_at, word_len, counts, kinds = _vectors.nul_entries(mm, self.offset, n)
            bad = np.flatnonzero((counts < 0) | (kinds != 0))
            if bad.size:
                i = int(bad[0])
                raise FormatError(self.path, f"dictionary entry {i} has count {counts[i]} and type {kinds[i]}")
            if len(word_at) < n:
                raise FormatError(self.path, f"truncated: the dictionary ends after {len(word_at)} of {n} entries")
            words = _vectors.decode_words(mm, word_at, word_len)
        if n:
            self.offset = int(word_at[-1] + word_len[-1]) + 1 + _ENTRY_TAIL.size
        self.fh.seek(self.offset)
        return words, counts

    def skip(self, nbytes: int, what: str) -> None:
        self._room(nbytes, what)
        self.offset += nbytes
        self.fh.seek(self.offset)
