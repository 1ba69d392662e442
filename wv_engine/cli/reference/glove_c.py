"""Stanford GloVe's four programs as demo.sh runs them: vocab_count and
cooccur read the text on stdin and write to stdout, shuffle records from
stdin to stdout, glove trains on the records with the vocabulary file.
Counting is wv-engine's (the C counter and co-occurrence count of
`wv-engine glove`), training its GloVe trainer; the files are GloVe's:
'word count' lines in vocab_count's order, CREC records (int32 word1,
int32 word2, float64 value; ids are 1-based lines of the vocabulary file),
SAVE.txt and SAVE.bin as glove.c lays them out.

This module holds the four programs' flags and what they share (the
vocabulary file, stdin and stdout); glove_counting.py runs vocab_count,
cooccur and shuffle, glove_training.py runs glove.

Where GloVe's programs would read a flag silently in some other way (an
unknown or repeated flag, a value that is not a number, a -model or
-binary outside those documented), the command line is refused in one line
naming it. docs/coming-from-tools.md lists what differs."""

from __future__ import annotations

import difflib
import os
import sys
import time
from typing import Iterator

import numpy as np

from ...settings import RANGES, Range
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


# ---- the vocabulary file --------------------------------------------------------------------------

def _vocabulary(flag: str, file: str):
    """The words of a vocab_count file in the file's order (a word's id is
    its line, as cooccur and glove number them), as a Vocabulary. Counts
    out of order are kept in order (each made at most the one above it:
    they only matter for the trainer's scheduling)."""
    from ...files import read_as
    from ...vocab import Vocabulary, read_word_counts

    def read(where: str):
        words, counts = [], []
        for n, word, count in read_word_counts(where):
            if word == UNK:
                raise ValueError(f"line {n}: <unk>; {UNK_HELP}")
            words.append(word)
            counts.append(min(count, 2**62))
        if not words:
            raise ValueError("no words in it")
        counts = np.minimum.accumulate(np.maximum(np.asarray(counts, dtype=np.int64), 1))
        if len(set(words)) != len(words):
            seen: set[bytes] = set()
            twice = next(w for w in words if w in seen or seen.add(w))
            raise ValueError(f"the word {twice.decode('utf-8', 'replace')!r} is on two lines")
        return Vocabulary([w.decode("utf-8", "surrogateescape") for w in words], counts, words_distinct=True)

    return read_as(flag, file, read)
