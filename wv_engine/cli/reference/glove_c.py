"""Stanford GloVe's four programs as demo.sh runs them: vocab_count and
cooccur read the text on stdin and write to stdout, shuffle records from
stdin to stdout, glove trains on the records with the vocabulary file.
Counting is wv-engine's (the C counter and co-occurrence count of
`wv-engine glove`), training its GloVe trainer; the files are GloVe's:
'word count' lines in vocab_count's order, CREC records (int32 word1,
int32 word2, float64 value; ids are 1-based lines of the vocabulary file),
SAVE.txt and SAVE.bin as glove.c lays them out.

Where GloVe's programs would read a flag silently in some other way (an
unknown or repeated flag, a value that is not a number, a -model or
-binary outside those documented), the command line is refused in one line
naming it. docs/coming-from-tools.md lists what differs."""

from __future__ import annotations

import contextlib
import difflib
import os
import sys
import tempfile
import time
from typing import Iterator

import numpy as np

from ...settings import RANGES, Range, default_threads
from .flags import Flag, UsageError, integer, parse, real, usage
from .word2vec_c import path, setting

VOCAB_COUNT = {
    "-verbose": Flag(integer, 2, "0, 1 or 2: how much is said on stderr (0: nothing)"),
    "-max-vocab": Flag(integer, 0, "keep at most this many of the most frequent words, those of the last "
                                   "count kept drawn at random (0: no limit)"),
    "-min-count": Flag(integer, 1, "words seen fewer times are left out"),
}
COOCCUR = {
    "-verbose": Flag(integer, 2, "0, 1, 2 or 3"),
    "-symmetric": Flag(integer, 1, "1: contexts on both sides; 0: the left side only"),
    "-window-size": Flag(setting("window"), 15, "contexts this many words to the left (and right)"),
    "-vocab-file": Flag(path, "vocab.txt", "vocab_count's output: a word's id is its line"),
    "-memory": Flag(real, 4.0, "GB the counting buffers take before they spill to disk"),
    "-max-product": Flag(integer, None, "accepted, no effect: wv-engine's count sizes itself by -memory"),
    "-overflow-length": Flag(integer, None, "accepted, no effect (as -max-product)"),
    "-overflow-file": Flag(path, "overflow", "temporary files go in this name's folder"),
    "-distance-weighting": Flag(integer, 1, "1: a pair d words apart counts 1/d; 0: 1"),
}
SHUFFLE = {
    "-verbose": Flag(integer, 2, "0, 1 or 2"),
    "-memory": Flag(real, 2.0, "GB of records shuffled in memory at a time; more go to temporary files"),
    "-array-size": Flag(integer, None, "records shuffled in memory at a time (default: from -memory)"),
    "-temp-file": Flag(path, "temp_shuffle", "temporary files go in this name's folder"),
    "-seed": Flag(integer, 0, "random seed (0: from the clock)"),
}
GLOVE = {
    "-verbose": Flag(integer, 2, "0: nothing on stderr"),
    "-write-header": Flag(integer, 0, "1: 'V dim' first in SAVE.txt"),
    "-vector-size": Flag(setting("dim"), 50, "dimension of the vectors"),
    "-threads": Flag(setting("threads"), 8, "threads (at most the usable cores are used)"),
    "-iter": Flag(setting("epochs", Range(0, RANGES["epochs"].high)), 25,
                  "passes over the records (0: the starting parameters are written)"),
    "-eta": Flag(setting("eta"), 0.05, "AdaGrad's initial learning rate"),
    "-alpha": Flag(setting("alpha", RANGES["glove_alpha"]), 0.75, "exponent of the weighting"),
    "-x-max": Flag(setting("x_max"), 100.0, "cutoff of the weighting"),
    "-grad-clip": Flag(real, 100.0, "gradient components clipped at +-this (100 only: the trainer's)"),
    "-binary": Flag(integer, 0, "0: SAVE.txt, 1: SAVE.bin (every parameter, float64), 2: both"),
    "-model": Flag(integer, 2, "SAVE.txt's columns: 0 every parameter, 1 word vectors, 2 word + context, "
                               "3 word then context"),
    "-input-file": Flag(path, "cooccurrence.shuf.bin", "the records"),
    "-vocab-file": Flag(path, "vocab.txt", "vocab_count's output"),
    "-save-file": Flag(path, "vectors", "SAVE.txt and/or SAVE.bin are written"),
    "-gradsq-file": Flag(path, None, "the AdaGrad sums go to GRADSQ.txt / .bin (default gradsq; giving it "
                                     "sets -save-gradsq 1)"),
    "-save-gradsq": Flag(integer, 0, "1: write the AdaGrad sums too, to gradsq.* unless -gradsq-file"),
    "-checkpoint-every": Flag(integer, 0, "write SAVE.NNN.* every N passes (0 or less: never)"),
    "-use-unk-vec": Flag(integer, 1, "1: a last SAVE.txt row <unk>, the mean of the 100 rarest words"),
    "-seed": Flag(integer, 0, "random seed (0: from the clock)"),
    "-init-param-file": Flag(path, "vectors.000.bin", "with -load-init-param 1: a SAVE.bin to start from"),
    "-load-init-param": Flag(integer, 0, "1: start from -init-param-file"),
    "-save-init-param": Flag(integer, 0, "1: write the starting parameters as SAVE.000.*"),
    "-init-gradsq-file": Flag(path, "gradsq.000.bin", "with -load-init-gradsq 1: AdaGrad sums to start from"),
    "-load-init-gradsq": Flag(integer, 0, "1: start from -init-gradsq-file"),
}
SYNOPSIS = {
    "vocab_count": "wv-engine vocab_count [flags] < TEXT > VOCAB (GloVe's vocab_count)",
    "cooccur": "wv-engine cooccur -vocab-file VOCAB [flags] < TEXT > RECORDS (GloVe's cooccur)",
    "shuffle": "wv-engine shuffle [flags] < RECORDS > SHUFFLED (GloVe's shuffle)",
    "glove": "wv-engine glove -input-file RECORDS -vocab-file VOCAB -save-file SAVE [flags] (GloVe's glove)",
}
GB = 1 << 30
RECORD_BYTES = 16
UNK = b"<unk>"
UNK_HELP = "GloVe keeps that name for its unknown-word vector: replace it first (e.g. sed -e 's/<unk>/<raw_unk>/g')"


# ---- shared ---------------------------------------------------------------------------------------

def _say(verbose: int, level: int, message: str, end: str = "\n") -> None:
    if verbose >= level:
        print(message, file=sys.stderr, end=end, flush=True)


def _helped(program: str, table: dict, argv: list[str], bare: bool) -> bool:
    """-h, -help or --help alone (and, for cooccur and glove, no flags at
    all, as theirs answer) print the program's flags."""
    if argv in (["-h"], ["-help"], ["--help"]) or (bare and not argv):
        print(usage(table, SYNOPSIS[program]))
        return True
    return False


def _parse(program: str, table: dict, argv: list[str]) -> dict:
    """The flags read against the program's table; a mistyped flag is named
    with the one it likely meant."""
    try:
        values, _ = parse(program, table, argv)
    except UsageError as exc:
        message = str(exc)
        if message.startswith("unknown flag "):
            token = message.split()[2]
            close = difflib.get_close_matches(token, list(table), n=1, cutoff=0.7)
            if close:
                raise UsageError(message.replace(token, f"{token}; did you mean {close[0]}?", 1)) from None
        raise
    return values


def _one_of(v: dict, *names_allowed: tuple[str, tuple[int, ...]]) -> None:
    for name, allowed in names_allowed:
        if v[name] not in allowed:
            raise UsageError(f"-{name} {v[name]}: must be {', '.join(map(str, allowed[:-1]))} or {allowed[-1]}")


def _positive(v: dict, *names: str) -> None:
    for name in names:
        if v[name] is not None and not v[name] > 0:
            raise UsageError(f"-{name} {v[name]:g}: must be > 0")


def _folder(flag: str, name: str) -> str:
    """The folder of a flag's file name, checked before any work: one that
    exists and this process may write in."""
    folder = os.path.dirname(os.path.abspath(name))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK | os.X_OK):
        raise OSError(f"{flag} {name}: cannot write in {folder} (no such folder, or not writable)")
    return folder


def _fd(stream) -> int | None:
    """The stream's file descriptor, None where it has none (a test's stand-in)."""
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def _stdin(program: str, what: str) -> int | None:
    """stdin's descriptor (None: a stream without one), refused when it is
    a terminal (nothing was redirected to it: the program would wait for
    typing)."""
    if sys.stdin is None:
        raise UsageError(f"{program} reads {what} on stdin, and there is none")
    fd = _fd(sys.stdin)
    if fd is not None and os.isatty(fd):
        raise UsageError(f"{program} reads {what} on stdin, which is a terminal: {SYNOPSIS[program].split(' (')[0]}")
    return fd


def _binary_stdout(program: str):
    """sys.stdout's bytes, refused on a terminal (records are binary)."""
    fd = _fd(sys.stdout)
    if fd is not None and os.isatty(fd):
        raise UsageError(f"{program} writes binary records on stdout, which is a terminal: redirect it (> FILE)")
    sys.stdout.flush()
    return sys.stdout.buffer


def _regular_file(fd: int | None) -> str | None:
    """A path that reads what stdin holds from its start, when stdin is a
    regular file not yet read (`< text8`: the counters then read it on
    several threads); None for a pipe."""
    if fd is None:
        return None
    where = f"/proc/self/fd/{fd}"
    try:
        if os.path.isfile(where) and os.lseek(fd, 0, os.SEEK_CUR) == 0:
            return where
    except OSError:
        pass
    return None


def _stdin_chunks() -> Iterator[bytes]:
    from ...files import CHUNK_BYTES

    stream = sys.stdin.buffer
    while True:
        chunk = stream.read(CHUNK_BYTES)
        if not chunk:
            return
        yield chunk


def _seed(value: int) -> int:
    """0: from the clock, as GloVe's; else the value as srand takes it (unsigned)."""
    return value & 0xFFFFFFFF or int(time.time()) & 0xFFFFFFFF or 1


# ---- vocab_count ----------------------------------------------------------------------------------

def run_vocab_count(argv: list[str]) -> int:
    """`wv-engine vocab_count [-min-count N] [-max-vocab N] < TEXT > VOCAB`:
    'word count' lines, count descending, ties in the order of the words'
    bytes as C's signed chars compare them (vocab_count's CompareVocabTie)."""
    from ...corpus import Corpus
    from ...wordcount import count_chunks, count_corpus

    if _helped("vocab_count", VOCAB_COUNT, argv, bare=False):
        return 0
    v = _parse("vocab_count", VOCAB_COUNT, argv)
    if v["min-count"] < 0 or v["max-vocab"] < 0:
        raise UsageError("-min-count and -max-vocab must be >= 0")
    fd = _stdin("vocab_count", "the text")
    verbose = v["verbose"]
    _say(verbose, 1, "BUILDING VOCABULARY")
    text = _regular_file(fd)
    if text is not None:
        counter = count_corpus(Corpus(text), None, default_threads(), progress=False)
    else:
        counter = count_chunks(_stdin_chunks())
    blob, counts = counter.sorted_blob(1)  # every word, as one bytes object
    if blob == UNK or blob.startswith(UNK + b"\n") or blob.endswith(b"\n" + UNK) or b"\n" + UNK + b"\n" in blob:
        raise ValueError(f"<unk> is a word of the text; {UNK_HELP}")
    n = int(np.count_nonzero(counts >= max(1, v["min-count"])))  # a prefix: by count, descending
    words = blob.split(b"\n", n)[:n] if n else []
    _say(verbose, 2, f"Processed {counter.tokens} tokens.\nCounted {counter.distinct} unique words.")
    keep = _vocab_count_kept(counts, v["max-vocab"], v["min-count"])
    if not len(keep):
        raise ValueError("stdin holds no words" if not len(counts) else
                         f"-min-count {v['min-count']} leaves no words: the most frequent is seen {counts[0]} times")
    if len(keep) < len(counts):
        if v["max-vocab"] and len(keep) == v["max-vocab"]:
            _say(verbose, 1, f"Truncating vocabulary at size {v['max-vocab']}.")
        else:
            _say(verbose, 1, f"Truncating vocabulary at min count {v['min-count']}.")
    kept = [words[i] for i in keep]
    kept_counts = counts[keep].tolist()
    order = _tie_order(kept, counts[keep])
    out = sys.stdout.buffer
    sys.stdout.flush()
    step = 1 << 16
    for start in range(0, len(order), step):
        out.write(b"".join(b"%s %d\n" % (kept[i], kept_counts[i]) for i in order[start:start + step]))
    out.flush()
    _say(verbose, 1, f"Using vocabulary of size {len(order)}.\n")
    return 0


def _vocab_count_kept(counts: np.ndarray, max_vocab: int, min_count: int) -> np.ndarray:
    """Which words (positions in count order) vocab_count keeps: at most
    max_vocab of the most frequent, the words of the count where it cuts
    drawn at random among their equals (its usage: 'randomly sampled so as
    to obtain an even distribution over the alphabet'; seeded, so that a
    text gives one vocabulary), then those seen min_count times or more."""
    n = len(counts)
    keep = np.arange(n)
    if max_vocab and max_vocab < n:
        edge = counts[max_vocab - 1]
        above = int(np.count_nonzero(counts > edge))
        ties = np.flatnonzero(counts == edge)
        drawn = np.random.default_rng(0).choice(ties, size=max_vocab - above, replace=False)
        keep = np.concatenate([keep[:above], np.sort(drawn)])
    return keep[counts[keep] >= min_count]


def _tie_order(words: list[bytes], counts: np.ndarray) -> list[int]:
    """Positions of words (sorted by count, descending) in vocab_count's
    order: each run of equal counts by the words' bytes as signed chars
    (a byte over 127 before any ASCII one, a word before its extensions)."""
    signed = bytes(b ^ 0x80 for b in range(256))
    order = list(range(len(words)))
    cuts = np.flatnonzero(np.diff(counts)) + 1
    for lo, hi in zip(np.concatenate([[0], cuts]).tolist(), np.concatenate([cuts, [len(words)]]).tolist()):
        if hi - lo > 1:
            order[lo:hi] = sorted(order[lo:hi], key=lambda i: words[i].translate(signed) + b"\x80")
    return order


# ---- the vocabulary file --------------------------------------------------------------------------

def _vocabulary(flag: str, file: str):
    """The words of a vocab_count file in the file's order (a word's id is
    its line, as cooccur and glove number them), as a Vocabulary. Counts
    out of order are kept in order (each made at most the one above it:
    they only matter for the trainer's scheduling)."""
    from ...files import check_input, read_as
    from ...vocab import Vocabulary

    def read(where: str):
        words, counts = [], []
        with open(check_input(where, "vocabulary file"), "rb") as f:
            for n, line in enumerate(f, 1):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) != 2 or not parts[1].isdigit():
                    raise ValueError(f"line {n}: expected 'word count', got {line[:80]!r}")
                if parts[0] == UNK:
                    raise ValueError(f"line {n}: <unk>; {UNK_HELP}")
                words.append(parts[0])
                counts.append(min(int(parts[1][:19]), 2**62))
        if not words:
            raise ValueError("no words in it")
        counts = np.minimum.accumulate(np.maximum(np.asarray(counts, dtype=np.int64), 1))
        if len(set(words)) != len(words):
            seen: set[bytes] = set()
            twice = next(w for w in words if w in seen or seen.add(w))
            raise ValueError(f"the word {twice.decode('utf-8', 'replace')!r} is on two lines")
        return Vocabulary([w.decode("utf-8", "surrogateescape") for w in words], counts, words_distinct=True)

    return read_as(flag, file, read)


# ---- cooccur --------------------------------------------------------------------------------------

def run_cooccur(argv: list[str]) -> int:
    """`wv-engine cooccur -vocab-file VOCAB [flags] < TEXT > RECORDS`: every
    non-zero of the co-occurrence matrix as a CREC record, sorted by
    (word1, word2) as cooccur's merge writes them. -symmetric 1 (its
    default) is wv-engine's C count; -symmetric 0 counts each word's left
    contexts only, X[left, right], in numpy."""
    from ... import cooccur

    if _helped("cooccur", COOCCUR, argv, bare=True):
        return 0
    v = _parse("cooccur", COOCCUR, argv)
    _one_of(v, ("symmetric", (0, 1)), ("distance-weighting", (0, 1)))
    _positive(v, "memory", "max-product", "overflow-length")
    fd = _stdin("cooccur", "the text")
    out = _binary_stdout("cooccur")
    verbose = v["verbose"]
    vocab = _vocabulary("-vocab-file", v["vocab-file"])
    folder = _folder("-overflow-file", v["overflow-file"])
    limit = max(int(v["memory"] * GB), 1 << 24)
    symmetric, weighted = v["symmetric"] == 1, v["distance-weighting"] == 1
    _say(verbose, 1, f"COUNTING COOCCURRENCES\nwindow size: {v['window-size']}\n"
                     f"context: {'symmetric' if symmetric else 'asymmetric'}")
    _say(verbose, 2, f"Reading vocab from file \"{v['vocab-file']}\"...loaded {len(vocab)} words.")
    text = _regular_file(fd)
    with contextlib.ExitStack() as stack:
        if text is not None and symmetric:  # read on several threads, as `wv-engine glove` reads a file
            from ...corpus import Corpus
            corpus = Corpus(text)
        else:
            corpus = _encoded_stdin(vocab, folder, limit, text, stack)
            _say(verbose, 2, f"Processed {corpus.tokens} tokens.")
        none = f"the text on stdin has no words of -vocab-file {v['vocab-file']}"
        if getattr(corpus, "words", None) == 0:
            raise ValueError(none)
        if symmetric:
            try:
                matrix = cooccur.count(corpus, vocab, v["window-size"], weighted, threads=default_threads(),
                                       memory_limit=limit, tmp_dir=folder, progress=False if verbose < 2 else None)
            except ValueError as exc:
                raise ValueError(none) if "has no words in the vocabulary" in str(exc) else exc from None
        else:
            matrix = _count_left(corpus, len(vocab), v["window-size"], weighted, limit)
    cooccur.write_records_to(matrix, out)
    out.flush()
    _say(verbose, 1, f"Merging cooccurrence files: processed {matrix.nnz} lines.\n")
    return 0


def _encoded_stdin(vocab, folder: str, limit: int, text: str | None, stack: contextlib.ExitStack):
    """The text on stdin as ids of the vocabulary (EncodedCorpus), read
    once: in memory while they fit an eighth of the limit (and the memory
    available), past it in an unlinked temporary file in `folder`, so that
    a text piped in is never spooled as text."""
    from ... import _tokenize
    from ...corpus import Corpus, EncodedCorpus, encode, ids_memory_room, iter_encoded

    if text is not None:
        return encode(Corpus(text), vocab.words_joined(), threads=default_threads(),
                      on_disk=4 * vocab.train_words > ids_memory_room(limit), tmp_dir=folder)
    encoder = _tokenize.Encoder(vocab.words_joined())
    room = ids_memory_room(limit)
    pieces: list[np.ndarray] = []
    held = eos = 0
    spill = None
    last = -1
    for ids in iter_encoded(encoder, _stdin_chunks()):
        if not len(ids):
            continue
        eos += int(np.count_nonzero(ids == -1))
        last = int(ids[-1])
        if spill is None and held + ids.nbytes > room:
            spill = stack.enter_context(tempfile.TemporaryFile(prefix="wv-engine-ids-", dir=folder))
            for piece in pieces:
                spill.write(piece.tobytes())
            pieces = []
        if spill is not None:
            spill.write(np.ascontiguousarray(ids, dtype=np.int32).tobytes())
        else:
            pieces.append(ids)
        held += ids.nbytes
    n = held // 4
    if spill is not None:
        spill.flush()
        ids = np.memmap(spill, dtype=np.int32, mode="r", shape=(n,))
    else:
        ids = np.concatenate(pieces) if pieces else np.zeros(0, np.int32)
    return EncodedCorpus(ids=ids, tokens=int(encoder.tokens), words=n - eos, oov=int(encoder.oov),
                         sentences=eos + (0 if n == 0 or last == -1 else 1), file=spill)


def _count_left(encoded, V: int, window: int, weighted: bool, limit: int):
    """cooccur -symmetric 0: X[a, b] sums 1/d (or 1) over every time b
    stands d <= window words right of a in one line (out-of-vocabulary
    words removed first), float64 as GloVe sums. The ids are read in
    chunks whose pairs take a small share of `limit`; the running sum is
    the matrix itself, held in memory as the symmetric count's is."""
    import scipy.sparse as sp

    ids = encoded.ids
    if encoded.words == 0:
        raise ValueError("the text on stdin has no words of the vocabulary")
    step = max(1 << 16, limit // 64 // (16 * window))  # a chunk's pairs and their copies: about limit / 16
    total = sp.csr_matrix((V, V), dtype=np.float64)
    carry_ids = np.zeros(0, np.int32)
    carry_lines = np.zeros(0, np.int64)
    line = 0
    for start in range(0, len(ids), step):
        part = np.asarray(ids[start:start + step])
        ends = part == -1
        lines = line + np.cumsum(ends)
        line = int(lines[-1])
        t = np.concatenate([carry_ids, part[~ends]])
        s = np.concatenate([carry_lines, lines[~ends]])
        fresh = len(carry_ids)  # pairs whose right word is new to this chunk
        rows, cols, vals = [], [], []
        for d in range(1, min(window, len(t) - 1) + 1):
            lo = max(0, fresh - d)
            same = s[lo:len(t) - d] == s[lo + d:]
            rows.append(t[lo:len(t) - d][same])
            cols.append(t[lo + d:][same])
            vals.append(np.full(len(rows[-1]), 1.0 / d if weighted else 1.0))
        if rows:
            total = total + sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                          shape=(V, V)).tocsr()
        carry_ids, carry_lines = t[-window:], s[-window:]
    total.sum_duplicates()
    total.sort_indices()
    return total


# ---- shuffle --------------------------------------------------------------------------------------

def _read_records(stream, limit: int, name: str = "stdin") -> np.ndarray:
    """Up to `limit` whole records from a binary stream."""
    from ...cooccur import RECORD_FORMAT

    data = stream.read(limit * RECORD_BYTES)
    if len(data) % RECORD_BYTES:
        raise ValueError(f"the records on {name} end in a partial record ({len(data) % RECORD_BYTES} bytes of "
                         f"{RECORD_BYTES}): truncated?")
    return np.frombuffer(data, dtype=RECORD_FORMAT)


def run_shuffle(argv: list[str]) -> int:
    """`wv-engine shuffle [-memory GB] [-seed N] < RECORDS > SHUFFLED`: the
    records in a random order, -memory's worth at a time in memory; more
    than that go shuffled to temporary files, merged a share of each at a
    time, shuffled again (shuffle.c's two passes)."""
    if _helped("shuffle", SHUFFLE, argv, bare=False):
        return 0
    v = _parse("shuffle", SHUFFLE, argv)
    _positive(v, "memory")
    if v["array-size"] is not None and v["array-size"] < 1:
        raise UsageError(f"-array-size {v['array-size']}: must be >= 1")
    _stdin("shuffle", "records")
    out = _binary_stdout("shuffle")
    folder = _folder("-temp-file", v["temp-file"])
    # a record held (16 bytes) and its place in the permutation (8)
    size = v["array-size"] or max(1, int(v["memory"] * GB * 0.95 / (RECORD_BYTES + 8)))
    seed = _seed(v["seed"])
    verbose = v["verbose"]
    _say(verbose, 1, f"Using random seed {seed}\nSHUFFLING COOCCURRENCES\narray size: {size}")
    rng = np.random.default_rng(seed)
    first = _read_records(sys.stdin.buffer, size)
    if len(first) < size:  # all of it in memory
        _write_permuted(first, rng, out)
        out.flush()
        _say(verbose, 1, f"Wrote {len(first)} lines.\n")
        return 0
    with tempfile.TemporaryDirectory(prefix="wv-engine-shuffle-", dir=folder) as tmp:
        chunks, block = [], first
        while len(block):
            name = os.path.join(tmp, f"{len(chunks):04d}.bin")
            block[rng.permutation(len(block))].tofile(name)
            chunks.append(name)
            block = _read_records(sys.stdin.buffer, size)
        _say(verbose, 2, f"Wrote {len(chunks)} temporary file(s).")
        total = _merge_shuffled(chunks, size, rng, out)
    out.flush()
    _say(verbose, 1, f"Merging temp files: processed {total} lines.\n")
    return 0


def _write_permuted(records: np.ndarray, rng: np.random.Generator, out, step: int = 1 << 20) -> None:
    """The records in a random order, a million at a time (no second copy of them all)."""
    order = rng.permutation(len(records))
    for start in range(0, len(order), step):
        out.write(records[order[start:start + step]].tobytes())


def _merge_shuffled(chunks: list[str], size: int, rng: np.random.Generator, out) -> int:
    """Shuffled chunk files into one stream: each round takes from every file
    its share of `size` records, shuffles them together and writes them."""
    left = [os.path.getsize(name) // RECORD_BYTES for name in chunks]
    share, total = max(1, size // len(chunks)), 0
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open(name, "rb")) for name in chunks]
        while any(left):
            parts = []
            for i, f in enumerate(files):
                take = min(share, left[i])
                parts.append(_read_records(f, take, "a temporary file"))
                left[i] -= take
            block = np.concatenate(parts)
            _write_permuted(block, rng, out)
            total += len(block)
    return total


# ---- glove ----------------------------------------------------------------------------------------

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
