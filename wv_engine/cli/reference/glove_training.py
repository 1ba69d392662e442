"""Stanford GloVe's glove: trained on the records by wv-engine's trainer,
the parameters written as glove.c writes them (glove_c.py holds the flags)."""

from __future__ import annotations

import os
import time

import numpy as np

from ...settings import default_threads
from .flags import UsageError
from .glove_c import (
    GLOVE,
    RECORD_BYTES,
    _folder,
    _helped,
    _one_of,
    _parse,
    _say,
    _seed,
    _vocabulary,
)


def run_glove(argv: list[str]) -> int:
    """`wv-engine glove -input-file RECORDS -vocab-file VOCAB -save-file SAVE
    [flags]`: GloVe trained on the records by wv-engine's trainer, its
    parameters written as glove.c writes them."""
    from ...cooccur import read_records
    from ...files import read_as
    from ...glove import GloVe

    if _helped("glove", GLOVE, argv, bare=True):
        return 0
    v = _parse("glove", GLOVE, argv)
    _one_of(v, ("binary", (0, 1, 2)), ("model", (0, 1, 2, 3)), ("write-header", (0, 1)), ("save-gradsq", (0, 1)),
            ("use-unk-vec", (0, 1)), ("load-init-param", (0, 1)), ("save-init-param", (0, 1)),
            ("load-init-gradsq", (0, 1)))
    if v["grad-clip"] != 100.0:
        raise UsageError(f"-grad-clip {v['grad-clip']:g}: wv-engine's trainer clips at glove.c's default, 100, only")
    if v["gradsq-file"] is not None:  # as glove.c: naming the file asks for it
        v["save-gradsq"] = 1
    elif v["save-gradsq"]:
        v["gradsq-file"] = "gradsq"
    for flag in ("save-file", "gradsq-file"):  # before the training, not after it
        if v[flag] is not None:
            _folder(f"-{flag}", v[flag])
    verbose = v["verbose"]
    vocab = _vocabulary("-vocab-file", v["vocab-file"])
    V = len(vocab)
    _say(verbose, 1, "TRAINING MODEL")
    matrix = read_as("-input-file", v["input-file"], lambda p: read_records(p, V))
    lines = os.path.getsize(v["input-file"]) // RECORD_BYTES
    if lines == 0:
        raise ValueError(f"-input-file {v['input-file']}: no records in it")
    _say(verbose, 1, f"Read {lines} lines.")
    seed = _seed(v["seed"])
    _say(verbose, 1, f"Using random seed {seed}")
    model = GloVe(dim=v["vector-size"], x_max=v["x-max"], alpha=v["alpha"], eta=v["eta"], epochs=max(1, v["iter"]),
                  threads=min(v["threads"], default_threads()), seed=seed, min_count=1)
    model.build_vocab(vocab=vocab)
    params = _Parameters(model, v)
    if v["load-init-param"]:
        params.load("-init-param-file", v["init-param-file"], gradsq=False)
    if v["load-init-gradsq"]:
        params.load("-init-gradsq-file", v["init-gradsq-file"], gradsq=True)
    if v["save-init-param"]:
        params.save(0)
    _say(verbose, 1, f"vector size: {v['vector-size']}\nvocab size: {V}\nx_max: {v['x-max']:f}\n"
                     f"alpha: {v['alpha']:f}")
    every = v["checkpoint-every"]

    def after(trained, epoch) -> None:
        n = trained.epochs_trained
        _say(verbose, 1, f"{time.strftime('%x - %I:%M.%S%p')}, iter: {n:03d}, cost: {epoch.cost:f}")
        if every > 0 and n % every == 0:
            _say(verbose, 1, f"    saving intermediate parameters for iter {n:03d}...", end="")
            params.save(n)
            _say(verbose, 1, "done.")

    if v["iter"]:
        model.train(matrix, epochs=v["iter"], progress=False, callbacks=[after])
    params.save(None)
    return 0


class _Parameters:
    """glove.c's parameter files: SAVE.bin holds the word side's rows (vector
    then bias, float64), then the context side's; SAVE.txt one line a word
    in the -model's columns, <unk> last; GRADSQ.* the AdaGrad sums likewise
    (the text all of them, as -model 0, without <unk>)."""

    def __init__(self, model, v: dict):
        self.model, self.v = model, v

    def _rows(self, side: str, gradsq: bool) -> np.ndarray:
        """One side's V x (D + 1) block (float32): vectors, then bias."""
        p = self.model.params
        suffix = "_gradsq" if gradsq else ""
        return np.hstack([p[f"{side}{suffix}"], p[f"{side}_bias{suffix}"][:, None]])

    def load(self, flag: str, file: str, gradsq: bool) -> None:
        from ...files import check_input, read_as

        V, D = len(self.model.vocab), self.model.dim
        expected = 2 * V * (D + 1) * 8

        def read(where: str) -> np.ndarray:
            size = os.path.getsize(check_input(where, "parameter file"))
            if size != expected:
                raise ValueError(f"{size} bytes, but {V} words x {D} dimensions take {expected} "
                                 "(2 x V x (D + 1) float64: a SAVE.bin of this vocabulary and -vector-size)")
            rows = np.fromfile(where, dtype="<f8").reshape(2 * V, D + 1)
            if not np.all(np.isfinite(rows)) or (gradsq and rows.min() <= 0):
                raise ValueError("holds values that are not finite" + (" and > 0" if gradsq else ""))
            return rows

        rows = read_as(flag, file, read)
        suffix = "_gradsq" if gradsq else ""
        p = self.model.params
        for side, block in (("word", rows[:V]), ("context", rows[V:])):
            p[f"{side}{suffix}"][...] = block[:, :D]
            p[f"{side}_bias{suffix}"][...] = block[:, D]

    def save(self, epoch: int | None) -> None:
        """SAVE.bin / SAVE.txt (epoch None), or SAVE.NNN.* (a checkpoint; 0:
        the starting parameters, always with a .bin, as glove.c)."""
        v = self.v
        tag = "" if epoch is None else f".{epoch:03d}"
        files = [(v["save-file"], False)] + ([(v["gradsq-file"], True)] if v["save-gradsq"] else [])
        for base, gradsq in files:
            if v["binary"] > 0 or epoch == 0:
                self._write_binary(base + tag + ".bin", gradsq)
        if v["binary"] != 1:
            for base, gradsq in files:
                self._write_text(base + tag + ".txt", gradsq)

    def _write_binary(self, file: str, gradsq: bool) -> None:
        from ...files import atomic_write

        with atomic_write(file, "wb") as f:
            for side in ("word", "context"):
                rows = self._rows(side, gradsq)
                for start in range(0, len(rows), 1 << 16):
                    f.write(rows[start:start + (1 << 16)].astype("<f8").tobytes())

    def _write_text(self, file: str, gradsq: bool) -> None:
        """glove.c's text: "word v1 ... vN\\n", each value "%f" of the double
        glove.c would print (a float32 parameter, the sum of two, or <unk>'s
        mean), so that glove.c reading SAVE.bin writes the same bytes."""
        from ...files import atomic_write
        from ...word_index import Words

        V, D = len(self.model.vocab), self.model.dim
        model = 0 if gradsq else self.v["model"]
        word, context = self._rows("word", gradsq), self._rows("context", gradsq)

        def columns(w: np.ndarray, c: np.ndarray) -> np.ndarray:
            if model == 0:
                return np.hstack([w, c])
            if model == 1:
                return w[:, :D]
            if model == 2:
                return w[:, :D].astype(np.float64) + c[:, :D]  # exact in float64, as glove.c adds them
            return np.hstack([w[:, :D], c[:, :D]])

        words = list(self.model.vocab.words)
        unk = self.v["use-unk-vec"] and not gradsq
        if unk:
            words.append("<unk>")
        names = Words(words, plain=True)
        step = max(1, (1 << 18) // (2 * D + 2))
        with atomic_write(file, "wb") as f:
            if self.v["write-header"] and not gradsq:
                f.write(b"%d %d\n" % (V, D))  # glove.c's: the vocabulary's words (<unk> not counted), the dimension
            for start in range(0, V, step):
                f.write(_text_rows(names, columns(word[start:start + step], context[start:start + step]), start))
            if unk:  # the mean of the rarest 100 words' rows (all of them below 100), each side, as glove.c sums it
                rare = min(V, 100)
                means = [np.zeros(D + 1), np.zeros(D + 1)]
                for a in range(V - rare, V):
                    means[0] += word[a].astype(np.float64) / rare
                    means[1] += context[a].astype(np.float64) / rare
                f.write(b"<unk>" + b"".join(b" %f" % x for x in columns(means[0][None], means[1][None])[0]) + b"\n")


def _text_rows(names, values: np.ndarray, start: int) -> bytes:
    """Rows start.. of glove.c's text ("word v1 ... vN\\n", "%f" values) in
    one compiled loop (_formats.text_rows, which prints a float32 as C
    prints it promoted to double). float64 values (sums) go through the
    float32 nearest their 6-decimal rounding, which prints that rounding
    where |x| < 8 (a float32 there is within 2.4e-7 of it); a row with a
    larger value is printed by Python, whose "%f" is C's."""
    from ... import _formats

    if values.dtype == np.float32:
        return _formats.text_rows(names.blob, names.offsets, np.ascontiguousarray(values), start, False)
    snapped = (np.rint(values * 1e6) / 1e6).astype(np.float32)
    text = _formats.text_rows(names.blob, names.offsets, snapped, start, False)
    wide = np.flatnonzero((np.abs(values) >= 8).any(axis=1))
    if not len(wide):
        return text
    lines = text.split(b"\n")
    for i in wide.tolist():
        word = names.blob[names.offsets[start + i]:names.offsets[start + i + 1]].tobytes()
        lines[i] = word + b"".join(b" %f" % x for x in values[i].tolist())
    return b"\n".join(lines)
