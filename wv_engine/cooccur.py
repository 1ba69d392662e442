"""The GloVe co-occurrence matrix: counted in C over the encoded corpus
(memory-bounded, multithreaded), handed to users as scipy.sparse, saved as
.npz, and read or written in Stanford GloVe's binary record format."""

from __future__ import annotations

import os
import tempfile
import threading
from typing import BinaryIO, Callable

import numpy as np
import scipy.sparse as sp

from . import _glove, scaleout
from .corpus import CorpusSource, EncodedCorpus, encode, ids_belong_on_disk
from .errors import FormatError
from .files import atomic_write, check_input
from .file_checks import checked_number
from .memory import check_fits, parse_size, total_memory
from .progress import Progress
from .settings import C_INT_MAX, threads_for
from .vocab import Vocabulary

# Stanford's CREC: int32 word1, int32 word2, float64 value; ids are 1-based ranks.
RECORD_FORMAT = np.dtype([("word1", "<i4"), ("word2", "<i4"), ("value", "<f8")])
MAX_DEFAULT_MEMORY = 1 << 30


def default_memory_limit() -> int:
    """A quarter of the machine's memory, at most 1 GiB: the counts spill to
    disk past it, so a small cap costs speed, never correctness."""
    ram = total_memory()
    return min(MAX_DEFAULT_MEMORY, ram // 4) if ram else MAX_DEFAULT_MEMORY


def memory_budget(memory_limit: int | str | None) -> int:
    """The counting buffers' cap in bytes: memory_limit (bytes or '512M'),
    or default_memory_limit() when none is given."""
    return parse_size(memory_limit) if memory_limit is not None else default_memory_limit()


def count(corpus: CorpusSource | EncodedCorpus, vocab: Vocabulary, window: int = 10,
          distance_weighting: bool = True, threads: int = 1, memory_limit: int | str | None = None,
          tmp_dir: str | None = None, progress: bool | None = None, *, client=None) -> sp.csr_matrix:
    """The symmetric co-occurrence matrix X (CSR, float32) of a corpus over
    vocab's words: X[i, j] sums 1/distance (or 1) over every time j is within
    `window` words of i in a sentence, as Stanford's cooccur.c counts
    (out-of-vocabulary words removed first; self-pairs counted on both sides).

    memory_limit (bytes or '512M') caps the counting buffers; past it sorted
    runs spill to temporary files in tmp_dir (removed in every case). The
    corpus's ids go to a temporary file there too when they are large
    (corpus.ids_belong_on_disk, or over an eighth of memory_limit) and are
    read in chunks. Ctrl-C stops the count and raises KeyboardInterrupt.

    With a dask.distributed client, the workers count shards of the file(s)
    (a path or a list of paths) with `threads` threads and memory_limit
    each, and the exact integer sums are merged: the same matrix, bit for
    bit (wv_engine.cluster.cooccur)."""
    if client is not None:
        limit = _check_count(window, threads, memory_limit)
        return scaleout.count_cooccurrence(client, corpus, vocab, window, distance_weighting, threads, limit,
                                           tmp_dir, progress)
    job = _run_count(corpus, vocab, window, distance_weighting, threads, memory_limit, tmp_dir, progress)
    return _matrix(job, len(vocab))


def count_records(corpus: CorpusSource | EncodedCorpus, vocab: Vocabulary, window: int, distance_weighting: bool,
                  threads: int, memory_limit: int | str | None, tmp_dir: str | None, progress: bool | None,
                  *, x_max: float, alpha: float, seed: int, out_of_core: bool | None = None,
                  records_limit: int | None = None, bands: int = 0,
                  band_weights: np.ndarray | None = None) -> sp.csr_matrix | _glove.RecordBlocks:
    """Counts for training: the matrix, as count() gives it, when it and
    its training records (28 bytes a non-zero together) fit in
    memory_limit; else the training records themselves, written by the last
    merge straight to shuffled block files in tmp_dir (RecordBlocks; the
    matrix is never built). out_of_core=True/False forces one or the other;
    records_limit (bytes) replaces memory_limit in that choice and in the
    size of the blocks. bands > 0: the blocks are written by about that many
    bands of a grid, dealt by band_weights (each id's estimated records), so
    that an epoch's blocks make one grid (glove_blocks.h)."""
    force = 0 if out_of_core is None else 1 if out_of_core else -1
    job = _run_count(corpus, vocab, window, distance_weighting, threads, memory_limit, tmp_dir, progress,
                     blocks=(x_max, alpha, seed, force, records_limit or 0, bands, band_weights))
    if job.streamed:
        return job.take_blocks()
    return _matrix(job, len(vocab))


def _check_count(window: int, threads: int, memory_limit: int | str | None) -> int:
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    limit = memory_budget(memory_limit)
    check_fits(f"counting with memory_limit={limit:,}", limit, "lower memory_limit (counts spill to disk past it)")
    return limit


def _run_count(corpus, vocab: Vocabulary, window: int, distance_weighting: bool, threads: int,
               memory_limit, tmp_dir: str | None, progress: bool | None, blocks=None) -> _glove.CooccurrenceCount:
    limit = _check_count(window, threads, memory_limit)
    directory = tmp_dir or tempfile.gettempdir()
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"tmp_dir is not a directory: {directory}")
    if isinstance(corpus, EncodedCorpus):
        encoded = corpus
    else:
        on_disk = ids_belong_on_disk(vocab.train_words, limit)  # the count stays within the limit
        encoded = encode(corpus, vocab.words_joined(), threads=threads, on_disk=on_disk, tmp_dir=directory)
    if encoded.words == 0:
        raise ValueError("the corpus has no words in the vocabulary")
    n_ids = len(encoded.ids)
    count_threads = threads_for(threads, n_ids)
    if encoded.file is not None:  # read in chunks by the C threads: its pages never pile up in memory
        job = _glove.CooccurrenceCount(None, len(vocab), window, distance_weighting, count_threads, limit, directory,
                                       ids_fd=encoded.file.fileno(), n_ids=n_ids)
    else:
        job = _glove.CooccurrenceCount(np.ascontiguousarray(encoded.ids, dtype=np.int32), len(vocab),
                                       window, distance_weighting, count_threads, limit, directory)
    if blocks is not None:
        job.stream_records(*blocks)
    # The count runs on its own thread, and this one waits on an Event the
    # worker sets when the C count has returned: Thread.join interrupted by
    # Ctrl-C can mark a running thread as finished (Python 3.11), and the
    # count would then go on (its spill files with it) after the exception.
    finished = threading.Event()

    def run() -> None:
        try:
            job.run()
        finally:
            finished.set()

    worker = threading.Thread(target=run, name="wv-cooccur", daemon=True)
    bar = Progress(n_ids, "co-occurrences", progress)
    started = False
    try:
        worker.start()  # inside the try: Ctrl-C may land while it starts the thread
        started = True
        while not finished.wait(0.1):
            bar.update(job.positions_done)
        bar.update(job.positions_done)
    except BaseException:
        job.request_stop()  # a run not yet begun sees it first and does nothing
        if started or worker.ident is not None:
            finished.wait()
        raise
    finally:
        bar.close()
    try:
        job.check()
    except _glove.CooccurrenceStopped:
        raise KeyboardInterrupt from None
    return job


def _matrix(job: _glove.CooccurrenceCount, V: int) -> sp.csr_matrix:
    indptr, indices, data = job.to_csr()
    return sp.csr_matrix((data, indices, indptr), shape=(V, V))


def save_npz(matrix: sp.spmatrix, path: str | os.PathLike) -> None:
    """scipy's .npz (no pickle), written atomically."""
    with atomic_write(path, "wb") as f:
        sp.save_npz(f, sp.csr_matrix(matrix), compressed=False)


def load_npz(path: str | os.PathLike) -> sp.csr_matrix:
    """A matrix saved by save_npz (or scipy.sparse.save_npz), as CSR,
    checked as read_records checks its records: square, with int32 ids
    within its shape and numeric values finite and > 0. Raises FormatError
    naming the file and the problem."""
    path = check_input(path, "co-occurrence matrix")
    try:
        matrix = sp.load_npz(path).tocsr()
        matrix.check_format(full_check=True)  # indices within the shape, indptr in order
    except FileNotFoundError:
        raise
    except (ValueError, TypeError, KeyError, OverflowError, OSError, EOFError) as exc:
        raise FormatError(path, f"not a sparse matrix saved by save_npz: {exc}") from None
    rows, cols = matrix.shape
    checked_number(path, "the matrix's number of rows", rows, 0, C_INT_MAX)  # ids are int32 in the C code
    if rows != cols:
        raise FormatError(path, f"the matrix is {rows} x {cols}; a co-occurrence matrix is square")
    if matrix.dtype.kind not in "fiu":
        raise FormatError(path, f"the matrix holds {matrix.dtype} values, not real numbers")

    def where(k: int) -> str:
        return f"row {int(np.searchsorted(matrix.indptr, k, side='right')) - 1}, column {matrix.indices[k]}"

    _require_positive(path, matrix.data, where, "co-occurrence values must be finite and > 0")
    return matrix


def write_records(matrix: sp.spmatrix, path: str | os.PathLike) -> None:
    """Stanford GloVe's binary co-occurrence file (CREC records, 1-based ids,
    float64 values, every non-zero in row-major order), atomically: their
    shuffle and glove programs read it."""
    with atomic_write(path, "wb") as f:
        write_records_to(matrix, f)


def write_records_to(matrix: sp.spmatrix, stream: BinaryIO) -> None:
    """write_records' records to an open binary stream (stdout, as cooccur
    writes them), a million at a time."""
    coo = sp.csr_matrix(matrix).tocoo()
    step = 1 << 20
    for start in range(0, coo.nnz, step):
        block = np.empty(min(step, coo.nnz - start), dtype=RECORD_FORMAT)
        block["word1"] = coo.row[start:start + step] + 1
        block["word2"] = coo.col[start:start + step] + 1
        block["value"] = coo.data[start:start + step]
        stream.write(block.tobytes())


def _require_positive(path: str, values: np.ndarray, where: Callable[[int], str], problem: str,
                      shown: np.ndarray | None = None) -> None:
    """FormatError naming the first of `values` that is not finite and > 0
    (`where` names its place, `shown` holds what the file said if `values`
    is a conversion); a single pass when all are."""
    if len(values) and (not np.all(np.isfinite(values)) or values.min() <= 0):
        k = int(np.argmin(np.isfinite(values) & (values > 0)))
        raise FormatError(path, f"{where(k)}: value {(values if shown is None else shown)[k]}; {problem}")


def read_records(path: str | os.PathLike, vocab_size: int, dtype=np.float32) -> sp.csr_matrix:
    """A matrix from a CREC file (Stanford's cooccur or shuffle output, or
    write_records). Duplicate pairs are summed. Raises FormatError for a size
    that is not whole records or ids outside 1..vocab_size."""
    path = check_input(path, "co-occurrence records")
    size = os.path.getsize(path)
    if size % RECORD_FORMAT.itemsize:
        raise FormatError(path, f"size {size} is not a whole number of 16-byte records (truncated?)")
    records = np.memmap(path, dtype=RECORD_FORMAT, mode="r") if size else np.zeros(0, RECORD_FORMAT)
    w1, w2, values = records["word1"], records["word2"], records["value"]
    if len(records):
        lo = min(int(w1.min()), int(w2.min()))
        hi = max(int(w1.max()), int(w2.max()))
        if lo < 1 or hi > vocab_size:
            k = int(np.argmax((w1 < 1) | (w1 > vocab_size) | (w2 < 1) | (w2 > vocab_size)))
            raise FormatError(path, f"record {k}: word ids {w1[k]} and {w2[k]} (the file's range over "
                                    f"{lo}..{hi}), outside 1..{vocab_size} (wrong vocabulary?)")
        _require_positive(path, values, lambda k: f"record {k}", "co-occurrence values must be finite and > 0")
    with np.errstate(over="ignore", under="ignore"):  # checked just below
        converted = np.asarray(values, dtype=dtype)
    _require_positive(path, converted, lambda k: f"record {k}",
                      f"co-occurrence values outside the range of {np.dtype(dtype).name}",
                      shown=values)
    matrix = sp.coo_matrix((converted, (np.asarray(w1) - 1, np.asarray(w2) - 1)),
                           shape=(vocab_size, vocab_size)).tocsr()
    matrix.sum_duplicates()
    if matrix.nnz and not np.all(np.isfinite(matrix.data)):
        raise FormatError(path, f"summed co-occurrence values overflow {np.dtype(dtype).name}")
    return matrix
