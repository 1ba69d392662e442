"""Stanford GloVe's counting programs: vocab_count and cooccur read the
text on stdin, shuffle the records; each writes to stdout what GloVe's
writes (glove_c.py holds their flags and what they share with glove)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile

import numpy as np

from ...settings import default_threads
from .flags import UsageError
from .glove_c import (
    COOCCUR,
    GB,
    RECORD_BYTES,
    SHUFFLE,
    UNK,
    UNK_HELP,
    VOCAB_COUNT,
    _binary_stdout,
    _folder,
    _helped,
    _one_of,
    _parse,
    _positive,
    _regular_file,
    _say,
    _seed,
    _stdin,
    _stdin_chunks,
    _vocabulary,
)


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
