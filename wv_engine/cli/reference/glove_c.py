"""Stanford GloVe's four programs as demo.sh runs them: vocab_count and
cooccur read the text on stdin and write to stdout, shuffle records from
stdin to stdout, glove trains on the shuffled records with the vocabulary
file. Counting is wv-engine's (the C counter of `wv-engine glove`), training
its GloVe trainer; the files are GloVe's: 'word count' lines, CREC records
(int32, int32, float64, ids 1-based), vectors text and binary."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
from typing import Iterator

import numpy as np

from ...settings import RANGES, default_threads
from .flags import Flag, UsageError, integer, parse, real, usage
from .word2vec_c import path, setting

VOCAB_COUNT = {
    "-verbose": Flag(integer, 2, "0, 1 or 2: how much is said on stderr"),
    "-max-vocab": Flag(integer, 0, "keep at most this many of the most frequent words (0: all)"),
    "-min-count": Flag(integer, 1, "words seen fewer times are left out"),
}
COOCCUR = {
    "-verbose": Flag(integer, 2, "0, 1 or 2"),
    "-symmetric": Flag(integer, 1, "1: contexts on both sides (0, the left side only, is refused)"),
    "-window-size": Flag(setting("window"), 15, "contexts this many words to each side"),
    "-vocab-file": Flag(path, "vocab.txt", "vocab_count's output"),
    "-memory": Flag(real, 4.0, "GB the counting buffers may take before spilling to disk"),
    "-max-product": Flag(integer, None, "accepted, no effect: wv-engine's counter sizes itself by -memory"),
    "-overflow-length": Flag(integer, None, "accepted, no effect (as -max-product)"),
    "-overflow-file": Flag(path, "overflow", "spilled counts go beside this name (its folder)"),
    "-distance-weighting": Flag(integer, 1, "1: a pair at distance d counts 1/d; 0: 1"),
}
SHUFFLE = {
    "-verbose": Flag(integer, 2, "0, 1 or 2"),
    "-memory": Flag(real, 2.0, "GB of records shuffled in memory at a time; more go to temporary files"),
    "-array-size": Flag(integer, None, "records shuffled at a time (default: from -memory)"),
    "-temp-file": Flag(path, "temp_shuffle", "the temporary files go beside this name (its folder)"),
    "-seed": Flag(integer, 0, "random seed (0: from the clock)"),
}
GLOVE = {
    "-verbose": Flag(integer, 2, "0: quiet"),
    "-write-header": Flag(integer, 0, "1: 'V dim' first in the text file"),
    "-vector-size": Flag(setting("dim"), 50, "dimension of the vectors"),
    "-threads": Flag(setting("threads"), 8, "threads (at most the usable cores are used)"),
    "-iter": Flag(setting("epochs"), 25, "passes over the records"),
    "-eta": Flag(setting("eta"), 0.05, "AdaGrad's initial learning rate"),
    "-alpha": Flag(setting("alpha", RANGES["glove_alpha"]), 0.75, "weighting exponent"),
    "-x-max": Flag(setting("x_max"), 100.0, "weighting cutoff"),
    "-grad-clip": Flag(real, 100.0, "gradient components clipped at +-this (only 100, glove.c's default)"),
    "-binary": Flag(integer, 0, "0: text, 1: binary (all parameters, float64), 2: both"),
    "-model": Flag(integer, 2, "text columns: 0 all parameters, 1 word vectors, 2 word + context, 3 both"),
    "-input-file": Flag(path, "cooccurrence.shuf.bin", "the (shuffled) records"),
    "-vocab-file": Flag(path, "vocab.txt", "vocab_count's output"),
    "-save-file": Flag(path, "vectors", "SAVE.txt and/or SAVE.bin are written"),
    "-gradsq-file": Flag(path, "gradsq", "with -save-gradsq 1: the AdaGrad sums go to GRADSQ.txt / .bin"),
    "-save-gradsq": Flag(integer, 0, "1: write the AdaGrad sums too"),
    "-checkpoint-every": Flag(integer, 0, "write SAVE.NNN.* every N passes (0: never)"),
    "-use-unk-vec": Flag(integer, 1, "1: a last text row <unk>, the mean of the 100 rarest words"),
    "-seed": Flag(integer, 0, "random seed (0: from the clock)"),
    "-init-param-file": Flag(path, "init_param.bin", "with -load-init-param 1: parameters to start from"),
    "-load-init-param": Flag(integer, 0, "1: start from -init-param-file (a SAVE.bin)"),
    "-save-init-param": Flag(integer, 0, "1: write the starting parameters as SAVE.000.bin"),
    "-init-gradsq-file": Flag(path, "gradsq.000.bin", "with -load-init-gradsq 1: AdaGrad sums to start from"),
    "-load-init-gradsq": Flag(integer, 0, "1: start from -init-gradsq-file"),
}
GB = 1 << 30


def _say(verbose: int, level: int, message: str) -> None:
    if verbose >= level:
        print(message, file=sys.stderr)


def _helped(argv: list[str], table: dict, synopsis: str) -> bool:
    if argv in (["-h"], ["-help"], ["--help"]):
        print(usage(table, synopsis))
        return True
    return False


@contextlib.contextmanager
def _stdin_as_file(folder: str | None) -> Iterator[str]:
    """The path of what stdin holds: the file itself when it is one (`< text8`),
    else a copy of the stream in a temporary file (the counter reads twice)."""
    if sys.stdin is not None and os.path.isfile(f"/proc/self/fd/{sys.stdin.fileno()}") \
            and os.lseek(sys.stdin.fileno(), 0, os.SEEK_CUR) == 0:
        yield f"/proc/self/fd/{sys.stdin.fileno()}"
        return
    with tempfile.NamedTemporaryFile(prefix="wv-engine-stdin-", dir=folder) as copy:
        shutil.copyfileobj(sys.stdin.buffer, copy, 1 << 20)
        copy.flush()
        yield copy.name


def _refuse_unk(vocab) -> None:
    if "<unk>" in vocab:
        raise ValueError("<unk> is a word of the text; GloVe keeps that name for its unknown-word vector: replace it "
                         "first (e.g. sed -e 's/<unk>/<raw_unk>/g')")


def _glove_order(words: list[str], counts: np.ndarray) -> np.ndarray:
    """vocab_count's order: count descending, ties by the words' bytes
    compared as C's signed chars."""
    signed = bytes((b ^ 0x80) for b in range(256))
    keys = [w.encode("utf-8", "surrogateescape").translate(signed) + b"\x80" for w in words]
    order = sorted(range(len(words)), key=lambda i: (-int(counts[i]), keys[i]))
    return np.asarray(order, dtype=np.int64)


def run_vocab_count(argv: list[str]) -> int:
    """`wv-engine vocab_count [-min-count N] [-max-vocab N] < TEXT > vocab.txt`."""
    from ...corpus import Corpus
    from ...vocab import Vocabulary

    if _helped(argv, VOCAB_COUNT, "wv-engine vocab_count [flags] < TEXT > VOCAB (GloVe's vocab_count flags)"):
        return 0
    v, _ = parse("vocab_count", VOCAB_COUNT, argv)
    if v["min-count"] < 0 or v["max-vocab"] < 0:
        raise UsageError("-min-count and -max-vocab must be >= 0")
    _say(v["verbose"], 1, "BUILDING VOCABULARY")
    with _stdin_as_file(None) as text:
        vocab = Vocabulary.build(Corpus(text), max(1, v["min-count"]), threads=default_threads())
    _refuse_unk(vocab)
    _say(v["verbose"], 2, f"Processed {vocab.total_tokens} tokens.\nCounted {vocab.distinct_words} unique words.")
    order = _glove_order(vocab.words, vocab.counts)
    if v["max-vocab"] and v["max-vocab"] < len(order):
        order = order[:v["max-vocab"]]
        _say(v["verbose"], 1, f"Truncating vocabulary at size {v['max-vocab']}.")
    out = sys.stdout.buffer
    counts = vocab.counts.tolist()
    out.write(b"".join(vocab.words[i].encode("utf-8", "surrogateescape") + b" %d\n" % counts[i] for i in order))
    out.flush()
    _say(v["verbose"], 0, f"Using vocabulary of size {len(order)}.\n")
    return 0


def _vocabulary(path_: str):
    from ...files import read_as
    from ...vocab import Vocabulary

    vocab = read_as("-vocab-file", path_, Vocabulary.load)
    _refuse_unk(vocab)
    return vocab


def run_cooccur(argv: list[str]) -> int:
    """`wv-engine cooccur -vocab-file vocab.txt [flags] < TEXT > cooccurrence.bin`:
    every non-zero as a CREC record, in (word, context) order."""
    from ... import cooccur
    from ...corpus import Corpus

    if _helped(argv, COOCCUR, "wv-engine cooccur -vocab-file VOCAB [flags] < TEXT > RECORDS (GloVe's cooccur flags)"):
        return 0
    v, _ = parse("cooccur", COOCCUR, argv)
    if v["symmetric"] != 1:
        raise UsageError(f"-symmetric {v['symmetric']}: wv-engine counts contexts on both sides only (GloVe's "
                         "default, 1); a left-context-only count is not offered")
    if v["distance-weighting"] not in (0, 1):
        raise UsageError("-distance-weighting must be 0 or 1")
    if not v["memory"] > 0:
        raise UsageError("-memory must be > 0 (GB)")
    vocab = _vocabulary(v["vocab-file"])
    _say(v["verbose"], 1, f"COUNTING COOCCURRENCES\nwindow size: {v['window-size']}\ncontext: symmetric")
    folder = os.path.dirname(os.path.abspath(v["overflow-file"]))
    with _stdin_as_file(folder) as text:
        matrix = cooccur.count(Corpus(text), vocab, v["window-size"], bool(v["distance-weighting"]),
                               threads=default_threads(), memory_limit=int(v["memory"] * GB), tmp_dir=folder,
                               progress=False if v["verbose"] < 2 else None)
    cooccur.write_records_to(matrix, sys.stdout.buffer)
    sys.stdout.buffer.flush()
    _say(v["verbose"], 1, f"Merging cooccurrence files: processed {matrix.nnz} lines.")
    return 0


def _read_records(stream, limit: int) -> np.ndarray:
    """Up to `limit` whole records from a binary stream."""
    from ...cooccur import RECORD_FORMAT

    data = stream.read(limit * RECORD_FORMAT.itemsize)
    if len(data) % RECORD_FORMAT.itemsize:
        raise ValueError(f"the records on stdin end in a partial record ({len(data) % RECORD_FORMAT.itemsize} "
                         "bytes of 16): truncated?")
    return np.frombuffer(data, dtype=RECORD_FORMAT)


def run_shuffle(argv: list[str]) -> int:
    """`wv-engine shuffle [-memory GB] [-seed N] < RECORDS > SHUFFLED`: the
    records in a random order, -memory's worth at a time in memory; more
    than that go shuffled to temporary files, merged by drawing from each at
    random (shuffle.c's two passes)."""
    from ...cooccur import RECORD_FORMAT

    if _helped(argv, SHUFFLE, "wv-engine shuffle [flags] < RECORDS > SHUFFLED (GloVe's shuffle flags)"):
        return 0
    v, _ = parse("shuffle", SHUFFLE, argv)
    if not v["memory"] > 0:
        raise UsageError("-memory must be > 0 (GB)")
    # a record held (16 bytes) and its place in the permutation (8)
    size = v["array-size"] or max(1, int(v["memory"] * GB * 0.95 / (RECORD_FORMAT.itemsize + 8)))
    if size < 1:
        raise UsageError("-array-size must be >= 1")
    seed = v["seed"] or int(time.time())
    _say(v["verbose"], 1, f"SHUFFLING COOCCURRENCES\narray size: {size}\nUsing random seed {seed}")
    rng = np.random.default_rng(seed)
    out = sys.stdout.buffer
    first = _read_records(sys.stdin.buffer, size)
    if len(first) < size:  # all of it in memory
        _write_permuted(first, rng, out)
        out.flush()
        _say(v["verbose"], 1, f"Wrote {len(first)} lines.")
        return 0
    folder = os.path.dirname(os.path.abspath(v["temp-file"]))
    with tempfile.TemporaryDirectory(prefix="wv-engine-shuffle-", dir=folder) as tmp:
        chunks, block = [], first
        while len(block):
            name = os.path.join(tmp, f"{len(chunks):04d}.bin")
            block[rng.permutation(len(block))].tofile(name)
            chunks.append(name)
            block = _read_records(sys.stdin.buffer, size)
        total = _merge_shuffled(chunks, size, rng, out)
    out.flush()
    _say(v["verbose"], 1, f"Wrote {total} lines.")
    return 0


def _write_permuted(records: np.ndarray, rng: np.random.Generator, out, step: int = 1 << 20) -> None:
    """The records in a random order, a million at a time (no second copy of them all)."""
    order = rng.permutation(len(records))
    for start in range(0, len(order), step):
        out.write(records[order[start:start + step]].tobytes())


def _merge_shuffled(chunks: list[str], size: int, rng: np.random.Generator, out) -> int:
    """Shuffled chunk files into one stream: each round takes from every file
    its share of `size` records, shuffles them together and writes them."""
    from ...cooccur import RECORD_FORMAT

    left = [os.path.getsize(name) // RECORD_FORMAT.itemsize for name in chunks]
    share, total = max(1, size // len(chunks)), 0
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open(name, "rb")) for name in chunks]
        while any(left):
            parts = []
            for i, f in enumerate(files):
                take = min(share, left[i])
                parts.append(_read_records(f, take))
                left[i] -= take
            block = np.concatenate(parts)
            _write_permuted(block, rng, out)
            total += len(block)
    return total


def run_glove(argv: list[str]) -> int:
    """`wv-engine glove -input-file RECORDS -vocab-file VOCAB -save-file SAVE
    [flags]`: GloVe trained on the records by wv-engine's trainer, its
    parameters written as glove.c writes them."""
    from ...cooccur import read_records
    from ...files import read_as
    from ...glove import GloVe

    if _helped(argv, GLOVE, "wv-engine glove -input-file RECORDS -vocab-file VOCAB -save-file SAVE [flags] "
                            "(glove.c's flags)"):
        return 0
    v, _ = parse("glove", GLOVE, argv)
    for name, allowed in (("binary", (0, 1, 2)), ("model", (0, 1, 2, 3)), ("write-header", (0, 1)),
                          ("save-gradsq", (0, 1)), ("use-unk-vec", (0, 1)), ("load-init-param", (0, 1)),
                          ("save-init-param", (0, 1)), ("load-init-gradsq", (0, 1))):
        if v[name] not in allowed:
            raise UsageError(f"-{name} {v[name]}: must be one of {', '.join(map(str, allowed))}")
    if v["grad-clip"] != 100.0:
        raise UsageError(f"-grad-clip {v['grad-clip']:g}: wv-engine's trainer clips at glove.c's default, 100")
    if v["checkpoint-every"] < 0:
        raise UsageError("-checkpoint-every must be >= 0")
    verbose = v["verbose"]
    vocab = _vocabulary(v["vocab-file"])
    _say(verbose, 1, "TRAINING MODEL")
    matrix = read_as("-input-file", v["input-file"], lambda p: read_records(p, len(vocab)))
    _say(verbose, 1, f"Read {matrix.nnz} lines.")
    seed = v["seed"] or int(time.time())
    _say(verbose, 1, f"Using random seed {seed}")
    model = GloVe(dim=v["vector-size"], x_max=v["x-max"], alpha=v["alpha"], eta=v["eta"], epochs=v["iter"],
                  threads=min(v["threads"], default_threads()), seed=seed, min_count=1)
    model.build_vocab(vocab=vocab)
    params = _Parameters(model, v)
    if v["load-init-param"]:
        params.load(v["init-param-file"], gradsq=False)
    if v["load-init-gradsq"]:
        params.load(v["init-gradsq-file"], gradsq=True)
    if v["save-init-param"]:
        params.save(0)
    every = v["checkpoint-every"]

    def checkpoint(trained, epoch) -> None:
        _say(verbose, 1, f"iter: {trained.epochs_trained:03d}, cost: {epoch.cost:f}")
        if every and trained.epochs_trained % every == 0:
            params.save(trained.epochs_trained)
    model.train(matrix, progress=False if verbose < 2 else None, callbacks=[checkpoint])
    params.save(None)
    return 0


class _Parameters:
    """glove.c's parameter files: SAVE.bin holds the word side's rows (vector
    and bias, float64) then the context side's; SAVE.txt one line a word in
    the -model's columns, <unk> last; GRADSQ.* the AdaGrad sums likewise."""

    def __init__(self, model, v: dict):
        self.model, self.v = model, v

    def _sides(self, gradsq: bool) -> np.ndarray:
        p = self.model.params
        suffix = "_gradsq" if gradsq else ""
        word = np.hstack([p[f"word{suffix}"], p[f"word_bias{suffix}"][:, None]])
        context = np.hstack([p[f"context{suffix}"], p[f"context_bias{suffix}"][:, None]])
        return np.vstack([word, context]).astype(np.float64)

    def load(self, file: str, gradsq: bool) -> None:
        V, D = len(self.model.vocab), self.model.dim
        expected = 2 * V * (D + 1) * 8
        if not os.path.isfile(file):
            raise FileNotFoundError(2, "No such file", file)
        if os.path.getsize(file) != expected:
            raise ValueError(f"{file}: {os.path.getsize(file)} bytes, but {V} words x {D} dimensions need "
                             f"{expected} (2 x V x (D + 1) float64)")
        rows = np.fromfile(file, dtype=np.float64).reshape(2 * V, D + 1)
        suffix = "_gradsq" if gradsq else ""
        p = self.model.params
        for side, block in (("word", rows[:V]), ("context", rows[V:])):
            p[f"{side}{suffix}"][...] = block[:, :D]
            p[f"{side}_bias{suffix}"][...] = block[:, D]

    def save(self, epoch: int | None) -> None:
        v = self.v
        tag = "" if epoch is None else f".{epoch:03d}"
        for gradsq in (False, True) if v["save-gradsq"] else (False,):
            base = (v["gradsq-file"] if gradsq else v["save-file"]) + tag
            if v["binary"] > 0 or epoch == 0:
                self._write_binary(base + ".bin", gradsq)
            if v["binary"] != 1 and epoch != 0:
                self._write_text(base + ".txt", gradsq)

    def _write_binary(self, file: str, gradsq: bool) -> None:
        from ...files import atomic_write

        with atomic_write(file, "wb") as f:
            self._sides(gradsq).tofile(f)

    def _write_text(self, file: str, gradsq: bool) -> None:
        from ...files import atomic_write
        from ...io import save_vectors
        from ...vectors import Vectors

        V, D = len(self.model.vocab), self.model.dim
        rows = self._sides(gradsq)
        word, context = rows[:V], rows[V:]
        model = 0 if gradsq else self.v["model"]
        columns = {0: lambda w, c: np.hstack([w, c]), 1: lambda w, c: w[:, :D],
                   2: lambda w, c: w[:, :D] + c[:, :D], 3: lambda w, c: np.hstack([w[:, :D], c[:, :D]])}[model]
        table, words = columns(word, context), list(self.model.vocab.words)
        if self.v["use-unk-vec"] and not gradsq:
            rare = min(V, 100)
            table = np.vstack([table, columns(word[V - rare:].mean(axis=0, keepdims=True),
                                              context[V - rare:].mean(axis=0, keepdims=True))])
            words.append("<unk>")
        with atomic_write(file, "wb") as f, tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(file))) as tmp:
            body = os.path.join(tmp, "body.txt")
            save_vectors(Vectors(words, table.astype(np.float32)), body, "glove-txt")
            if self.v["write-header"] and not gradsq:
                f.write(b"%d %d\n" % (V, D))  # glove.c's: the words of the vocabulary, <unk> not counted
            with open(body, "rb") as src:
                shutil.copyfileobj(src, f, 1 << 20)
