# cython: language_level=3, boundscheck=False, wraparound=False
"""Thin bindings to the C co-occurrence counter (csrc/cooccur.c) and the
GloVe AdaGrad trainer (csrc/glove.c). Shapes and ranges are checked here
once; the C loops trust them. Long calls release the GIL."""

import os

import numpy as np
from libc.stdint cimport int32_t, int64_t, uint64_t

include "_status.pxi"


cdef extern from "cooccur.h":
    ctypedef int wv_flag
    size_t WV_COOC_MIN_THREAD_MEMORY
    ctypedef struct wv_cooc_sink:
        pass
    ctypedef struct wv_cooc_config:
        int32_t vocab_size
        int window
        int distance_weighting
        int threads
        size_t memory_limit
        const char *tmp_dir
        const wv_cooc_sink *sink
        int ids_fd
    ctypedef struct wv_cooc_part:
        int64_t n
        int32_t *rows
        int32_t *cols
        int64_t *units
    ctypedef struct wv_cooc_result:
        int64_t n
        int n_parts
        wv_cooc_part *parts
        int64_t unit
        int64_t spilled_runs
        int64_t merge_passes
        int64_t dense_cells
        int streamed
        double merge_seconds
    wv_status wv_cooccur_count(const wv_cooc_config *cfg, const int32_t *ids, int64_t n_ids,
                               wv_cooc_result *out, wv_flag *stop) nogil
    void wv_cooc_free(wv_cooc_result *r) nogil
    void wv_cooc_to_csr(const wv_cooc_result *r, int32_t vocab_size, int64_t *indptr,
                        int32_t *indices, float *data, int threads) nogil
    int64_t wv_cooc_full_nnz(const wv_cooc_result *r) nogil


cdef extern from "glove.h":
    ctypedef struct wv_glove_record:
        int32_t row
        int32_t col
        float log_x
        float weight
    ctypedef struct wv_glove_model:
        int dim
        int32_t vocab_size
        float eta
        int exact_sqrt
        int64_t row_stride
        int64_t bias_stride
        float *word
        float *context
        float *word_bias
        float *context_bias
        float *word_gradsq
        float *context_gradsq
        float *word_bias_gradsq
        float *context_bias_gradsq
        const wv_glove_record *records
        int64_t n_records
        wv_glove_stream *stream
        wv_glove_scheduler *scheduler
    void wv_glove_model_init(wv_glove_model *m) nogil
    wv_status wv_glove_start_epoch(wv_glove_model *m, int n_threads) nogil
    size_t wv_glove_worker_bytes(int dim, int n_threads, int streamed) nogil
    wv_status wv_glove_join_epoch(wv_glove_model *m, double *cost) nogil
    double wv_glove_step(wv_glove_model *m, const wv_glove_record *r, float *scratch) nogil
    wv_status wv_glove_make_records(const int64_t *indptr, const int32_t *indices, const float *data,
                                    int32_t n_rows, double x_max, double alpha, uint64_t seed,
                                    wv_glove_record *out) nogil


cdef extern from "glove_grid.h":
    int WV_GLOVE_MAX_BANDS
    int WV_GLOVE_MAX_ROUNDS
    ctypedef struct wv_glove_grid:
        int bands
        int rounds
        const int64_t *start
    ctypedef struct wv_glove_scheduler:
        pass
    wv_status wv_glove_make_grid_records(const int64_t *indptr, const int32_t *indices, const float *data,
                                         int32_t n_rows, double x_max, double alpha, uint64_t seed, int bands,
                                         int rounds, int32_t *band_of, int64_t *start, wv_glove_record *out) nogil
    wv_status wv_glove_scheduler_init(wv_glove_scheduler *s, wv_glove_grid grid) nogil
    void wv_glove_scheduler_free(wv_glove_scheduler *s) nogil


cdef extern from "glove_blocks.h":
    int WV_GLOVE_MAX_BLOCKS
    ctypedef struct wv_glove_blocks:
        int n_blocks
        int bands
    ctypedef struct wv_glove_stream:
        int bands
        int rounds
    ctypedef struct wv_glove_block_sink:
        int streaming
        int64_t most_records
        wv_glove_blocks blocks
        wv_cooc_sink sink
    void wv_glove_blocks_close(wv_glove_blocks *b) nogil
    int64_t wv_glove_blocks_total(const wv_glove_blocks *b) nogil
    int64_t wv_glove_blocks_largest(const wv_glove_blocks *b) nogil
    wv_status wv_glove_blocks_read(wv_glove_blocks *b, int block, wv_glove_record *out) nogil
    void wv_glove_block_sink_init(wv_glove_block_sink *s, size_t memory_limit, int force, const char *tmp_dir,
                                  double x_max, double alpha, uint64_t seed) nogil
    void wv_glove_block_sink_by_bands(wv_glove_block_sink *s, int bands, const int64_t *before,
                                      int32_t n_rows) nogil
    void wv_glove_block_sink_free(wv_glove_block_sink *s) nogil
    wv_status wv_glove_stream_init(wv_glove_stream *s, wv_glove_blocks *b) nogil
    void wv_glove_stream_free(wv_glove_stream *s) nogil
    wv_status wv_glove_stream_set_grid(wv_glove_stream *s, int bands, int rounds, int32_t vocab_size) nogil


cdef extern from *:
    """
    #include <stdatomic.h>
    static inline int wv_blocks_errno(wv_glove_blocks *b) { return atomic_load(&b->error); }
    static inline int64_t wv_block_count(wv_glove_blocks *b, int k) { return atomic_load(&b->counts[k]); }
    static inline void wv_glove_begin_stream(wv_glove_model *m, uint64_t key, int threads) {
        wv_glove_stream_begin(m->stream, key, threads, &m->stop);
    }
    static inline void wv_glove_begin_cells(wv_glove_model *m, uint64_t seed, uint64_t key) {
        wv_glove_scheduler_begin(m->scheduler, seed, key, &m->stop);
    }
    static inline int64_t wv_cooc_progress(wv_cooc_result *r) { return atomic_load(&r->positions_done); }
    static inline void wv_flag_set(wv_flag *flag) { atomic_store(flag, 1); }
    static inline int64_t wv_glove_done(wv_glove_model *m) { return atomic_load(&m->records_done); }
    static inline int wv_glove_active(wv_glove_model *m) { return m->run.running ? wv_run_active(&m->run) : 0; }
    static inline int wv_glove_unjoined(wv_glove_model *m) { return m->run.running; }
    static inline int wv_glove_wait(wv_glove_model *m, double seconds) { return wv_run_wait(&m->run, seconds); }
    static inline void wv_glove_request_stop(wv_glove_model *m) { atomic_store(&m->stop, 1); }
    """
    int wv_blocks_errno(wv_glove_blocks *b) nogil
    int64_t wv_block_count(wv_glove_blocks *b, int k) nogil
    void wv_glove_begin_stream(wv_glove_model *m, uint64_t key, int threads) nogil
    void wv_glove_begin_cells(wv_glove_model *m, uint64_t seed, uint64_t key) nogil
    int64_t wv_cooc_progress(wv_cooc_result *r) nogil
    void wv_flag_set(wv_flag *flag) nogil
    int64_t wv_glove_done(wv_glove_model *m) nogil
    int wv_glove_active(wv_glove_model *m) nogil
    int wv_glove_unjoined(wv_glove_model *m) nogil
    int wv_glove_wait(wv_glove_model *m, double seconds) nogil
    void wv_glove_request_stop(wv_glove_model *m) nogil


RECORD_DTYPE = np.dtype([("row", "<i4"), ("col", "<i4"), ("log_x", "<f4"), ("weight", "<f4")])


cdef class CooccurrenceCount:
    """One count over an encoded corpus. run() blocks (GIL released), so call
    it from a thread; positions_done and request_stop() work meanwhile.
    ids: the ids in memory, or None with ids_fd (a file of n_ids int32 ids,
    read in chunks and checked as they are read)."""
    cdef wv_cooc_config cfg
    cdef wv_cooc_result res
    cdef wv_flag stop_flag
    cdef const int32_t[::1] ids
    cdef int64_t n_ids
    cdef bytes tmp_dir
    cdef public int status
    cdef bint have
    cdef wv_glove_block_sink sink
    cdef const int64_t[::1] band_before  # the bands' weights, kept while the count runs
    cdef bint sink_open
    cdef bint in_memory

    def __cinit__(self):
        self.have = False
        self.sink_open = False
        self.stop_flag = 0
        self.status = -1

    def __init__(self, const int32_t[::1] ids, int32_t vocab_size, int window,
                 bint distance_weighting, int threads, size_t memory_limit, str tmp_dir,
                 int ids_fd=-1, int64_t n_ids=0):
        if vocab_size < 1 or window < 1 or threads < 1:
            raise ValueError("vocab_size, window and threads must be >= 1")
        if ids is None:
            if ids_fd < 0 or n_ids < 0:
                raise ValueError("give ids, or ids_fd and n_ids")
            self.n_ids = n_ids
        else:
            arr = np.asarray(ids)
            if arr.size and (arr.min() < -1 or arr.max() >= vocab_size):
                raise ValueError("the encoded corpus holds ids outside the vocabulary")
            self.ids = ids
            self.n_ids = ids.shape[0]
            self.in_memory = True
        self.tmp_dir = tmp_dir.encode()
        self.cfg.vocab_size = vocab_size
        self.cfg.window = window
        self.cfg.distance_weighting = distance_weighting
        self.cfg.threads = threads
        self.cfg.memory_limit = memory_limit
        self.cfg.tmp_dir = self.tmp_dir
        self.cfg.sink = NULL
        self.cfg.ids_fd = ids_fd

    def stream_records(self, double x_max, double alpha, uint64_t seed, int force=0, size_t limit=0,
                       int bands=0, band_weights=None):
        """Before run(): when the training records and the matrix would not
        fit in `limit` bytes (0: memory_limit; force > 0: always; force < 0:
        never), the merge writes the records to shuffled blocks (take_blocks)
        instead of building the matrix; two blocks fit in the limit. bands >
        0: the blocks are written by about that many bands (glove_blocks.h),
        dealt by band_weights (each id's estimated records)."""
        wv_glove_block_sink_init(&self.sink, limit if limit else self.cfg.memory_limit, force, self.cfg.tmp_dir,
                                 x_max, alpha, seed)
        if bands:
            if not 1 <= bands <= WV_GLOVE_MAX_BANDS:
                raise ValueError(f"bands must be in [1, {WV_GLOVE_MAX_BANDS}], got {bands}")
            weights = np.asarray(band_weights, dtype=np.int64)
            if weights.shape != (self.cfg.vocab_size,) or (weights < 0).any():
                raise ValueError(f"band_weights must be {self.cfg.vocab_size} counts >= 0")
            self.band_before = np.concatenate([[0], np.cumsum(weights)])
            wv_glove_block_sink_by_bands(&self.sink, bands, &self.band_before[0], self.cfg.vocab_size)
        self.cfg.sink = &self.sink.sink

    def __dealloc__(self):
        if self.have:
            wv_cooc_free(&self.res)
        self._close_blocks()

    cdef _close_blocks(self):
        if self.cfg.sink != NULL:
            wv_glove_block_sink_free(&self.sink)
            if self.sink_open:
                wv_glove_blocks_close(&self.sink.blocks)
                self.sink_open = False

    def run(self):
        cdef wv_status rc
        cdef const int32_t *p = NULL
        if self.in_memory and self.n_ids:
            p = &self.ids[0]
        cdef int64_t n = self.n_ids
        with nogil:
            rc = wv_cooccur_count(&self.cfg, p, n, &self.res, &self.stop_flag)
        self.status = rc
        self.have = rc == WV_OK
        if self.cfg.sink != NULL:
            self.sink_open = self.sink.blocks.n_blocks > 0
            wv_glove_block_sink_free(&self.sink)  # the write buffers
            if rc != WV_OK:
                self._close_blocks()  # nothing is left behind

    @property
    def merge_seconds(self):
        """Seconds of the last merge (with blocks: writing them)."""
        return self.res.merge_seconds

    @property
    def streamed(self):
        """Whether the merge went to blocks (take_blocks) instead of a matrix."""
        return self.have and self.res.streamed != 0

    def take_blocks(self):
        """The shuffled record blocks of a streamed count (RecordBlocks)."""
        self.check()
        if not self.streamed or not self.sink_open:
            raise RuntimeError("the count made no record blocks")
        blocks = RecordBlocks()
        blocks.b = self.sink.blocks
        blocks.tmp_dir = self.tmp_dir.decode()
        blocks.write_seconds = self.res.merge_seconds
        self.sink_open = False
        wv_cooc_free(&self.res)
        self.have = False
        self.status = -2
        return blocks

    def check(self):
        """Raises the error of a finished run, if any."""
        cdef int err = 0
        directory = self.tmp_dir.decode()
        if self.status == WV_ERR_IO and self.cfg.sink != NULL:
            err = wv_blocks_errno(&self.sink.blocks)
        if err:
            raise OSError(err, f"{os.strerror(err)}: writing the shuffled GloVe training blocks in "
                               f"{directory!r} (disk full?); set tmp_dir")
        if self.status == WV_ERR_MEMORY_LIMIT and self.cfg.sink != NULL and self.sink.most_records > 0:
            least = -(-16 * self.sink.most_records * 16 // (7 * WV_GLOVE_MAX_BLOCKS))
            raise ValueError(f"memory_limit is too small to make progress: {self.cfg.memory_limit:,} bytes "
                             f"for {self.sink.most_records:,} training records (16 bytes each) would take more "
                             f"than {WV_GLOVE_MAX_BLOCKS} blocks of 7/16 of the limit; give at least "
                             f"{least:,} bytes")
        raise_for(self.status, {
            WV_ERR_STOPPED: "co-occurrence counting",
            WV_ERR_MEMORY_LIMIT: f"{self.cfg.memory_limit:,} bytes with {self.cfg.threads} thread(s); "
                                 f"give at least {self.cfg.threads * WV_COOC_MIN_THREAD_MEMORY:,} bytes",
            WV_ERR_NOMEM: "counting co-occurrences; lower memory_limit",
            WV_ERR_IO: f"spilling or reading co-occurrence counts in {directory!r} (disk full?); set tmp_dir",
            WV_ERR_INVALID: "the encoded corpus holds ids outside the vocabulary",
        }.get(self.status, "co-occurrence counting"))

    def request_stop(self):
        wv_flag_set(&self.stop_flag)

    @property
    def positions_done(self):
        return wv_cooc_progress(&self.res)

    @property
    def spilled_runs(self):
        return self.res.spilled_runs

    @property
    def merge_passes(self):
        return self.res.merge_passes

    def upper_units(self):
        """The upper triangle (row <= col) as exact integers: rows, cols
        (int32), units (int64) and the units per 1.0; the diagonal holds
        X[w][w] / 2. Integer sums of several counts are exact (cluster)."""
        self.check()
        cdef int64_t n = self.res.n
        rows = np.empty(n, dtype=np.int32)
        cols = np.empty(n, dtype=np.int32)
        units = np.empty(n, dtype=np.int64)
        cdef int32_t[::1] r = rows
        cdef int32_t[::1] c = cols
        cdef int64_t[::1] u = units
        cdef int64_t i, at = 0
        cdef int k
        cdef wv_cooc_part *p
        with nogil:
            for k in range(self.res.n_parts):
                p = &self.res.parts[k]
                for i in range(p.n):
                    r[at] = p.rows[i]
                    c[at] = p.cols[i]
                    u[at] = p.units[i]
                    at += 1
        return rows, cols, units, int(self.res.unit)

    def upper(self):
        """The upper triangle (row <= col) as rows, cols (int32) and values
        (float64); the diagonal holds X[w][w] / 2."""
        rows, cols, units, unit = self.upper_units()
        return rows, cols, units / float(unit)

    def to_csr(self):
        """(indptr int64, indices int32, data float32) of the full symmetric
        matrix; frees the C result."""
        self.check()
        cdef int64_t nnz = wv_cooc_full_nnz(&self.res)
        cdef int32_t V = self.cfg.vocab_size
        indptr = np.empty(V + 1, dtype=np.int64)
        indices = np.empty(max(nnz, 1), dtype=np.int32)[:nnz]
        data = np.empty(max(nnz, 1), dtype=np.float32)[:nnz]
        cdef int64_t[::1] ip = indptr
        cdef int32_t[::1] ix = np.empty(1, dtype=np.int32) if nnz == 0 else indices
        cdef float[::1] dt = np.empty(1, dtype=np.float32) if nnz == 0 else data
        with nogil:
            wv_cooc_to_csr(&self.res, V, &ip[0], &ix[0], &dt[0], self.cfg.threads)
            wv_cooc_free(&self.res)
        self.have = False
        self.status = -2
        return indptr, indices, data


def csr_from_upper(int32_t[::1] rows not None, int32_t[::1] cols not None, int64_t[::1] units not None,
                   int64_t unit, int32_t vocab_size, int threads=1):
    """(indptr, indices, data) of the full symmetric float32 matrix from an
    upper triangle in integer units sorted by (row, col), the same C routine
    and rounding as CooccurrenceCount.to_csr (checked here once), written
    on `threads` threads."""
    cdef int64_t n = rows.shape[0]
    if cols.shape[0] != n or units.shape[0] != n:
        raise ValueError("rows, cols and units must have the same length")
    if unit < 1 or vocab_size < 1:
        raise ValueError("unit and vocab_size must be >= 1")
    r, c = np.asarray(rows), np.asarray(cols)
    if n and (r.min() < 0 or c.max() >= vocab_size or np.any(r > c)):
        raise ValueError("entries must satisfy 0 <= row <= col < vocab_size")
    if n > 1 and np.any(np.diff(r.astype(np.int64) * vocab_size + c) <= 0):
        raise ValueError("entries must be sorted by (row, col) without repeats")
    if threads < 1:
        raise ValueError("threads must be >= 1")
    cdef wv_cooc_part part
    part.n = n
    part.rows = &rows[0] if n else NULL
    part.cols = &cols[0] if n else NULL
    part.units = &units[0] if n else NULL
    cdef wv_cooc_result res
    res.n = n
    res.n_parts = 1
    res.parts = &part
    res.unit = unit
    cdef int64_t nnz = wv_cooc_full_nnz(&res)
    indptr = np.empty(vocab_size + 1, dtype=np.int64)
    indices = np.empty(max(nnz, 1), dtype=np.int32)
    data = np.empty(max(nnz, 1), dtype=np.float32)
    cdef int64_t[::1] ip = indptr
    cdef int32_t[::1] ix = indices
    cdef float[::1] dt = data
    with nogil:
        wv_cooc_to_csr(&res, vocab_size, &ip[0], &ix[0], &dt[0], threads)
    return indptr, indices[:nnz], data[:nnz]


def _check_csr(int64_t[::1] indptr, int32_t[::1] indices, float[::1] data):
    cdef int32_t n_rows = indptr.shape[0] - 1
    cdef int64_t nnz = indices.shape[0]
    if n_rows < 1 or data.shape[0] != nnz or indptr[n_rows] != nnz or indptr[0] != 0:
        raise ValueError("inconsistent CSR arrays")
    if np.any(np.diff(np.asarray(indptr)) < 0):
        raise ValueError("indptr must be non-decreasing")
    if nnz and (np.asarray(indices).min() < 0 or np.asarray(indices).max() >= n_rows):
        raise ValueError("column ids outside the vocabulary")


def make_records(int64_t[::1] indptr not None, int32_t[::1] indices not None, float[::1] data not None,
                 double x_max, double alpha, uint64_t seed):
    """Shuffled training records (RECORD_DTYPE) of a CSR matrix."""
    _check_csr(indptr, indices, data)
    cdef int32_t n_rows = indptr.shape[0] - 1
    cdef int64_t nnz = indices.shape[0]
    records = np.empty(max(nnz, 1), dtype=RECORD_DTYPE)[:nnz]
    if nnz == 0:
        return records
    cdef unsigned char[::1] raw = records.view(np.uint8)
    cdef wv_glove_record *out = <wv_glove_record *>&raw[0]
    cdef wv_status rc
    with nogil:
        rc = wv_glove_make_records(&indptr[0], &indices[0], &data[0], n_rows, x_max, alpha, seed, out)
    raise_for(rc, "co-occurrence values must be finite and > 0")
    return records


MAX_BANDS = WV_GLOVE_MAX_BANDS
MAX_ROUNDS = WV_GLOVE_MAX_ROUNDS


def make_grid_records(int64_t[::1] indptr not None, int32_t[::1] indices not None, float[::1] data not None,
                      double x_max, double alpha, uint64_t seed, int bands, int rounds=1):
    """The records of make_records sorted into the cells of `rounds` grids
    of `bands` x `bands` (glove_grid.h), each cell shuffled: (records,
    cells), cells the rounds * B * B + 1 offsets of the cells in records."""
    _check_csr(indptr, indices, data)
    if not 1 <= bands <= WV_GLOVE_MAX_BANDS:
        raise ValueError(f"bands must be in [1, {WV_GLOVE_MAX_BANDS}], got {bands}")
    if not 1 <= rounds <= WV_GLOVE_MAX_ROUNDS:
        raise ValueError(f"rounds must be in [1, {WV_GLOVE_MAX_ROUNDS}], got {rounds}")
    cdef int32_t n_rows = indptr.shape[0] - 1
    cdef int64_t nnz = indices.shape[0]
    records = np.empty(max(nnz, 1), dtype=RECORD_DTYPE)[:nnz]
    cells = np.zeros(rounds * bands * bands + 1, dtype=np.int64)
    if nnz == 0:
        return records, cells
    band_of = np.empty(n_rows, dtype=np.int32)
    cdef unsigned char[::1] raw = records.view(np.uint8)
    cdef wv_glove_record *out = <wv_glove_record *>&raw[0]
    cdef int32_t[::1] bo = band_of
    cdef int64_t[::1] st = cells
    cdef wv_status rc
    with nogil:
        rc = wv_glove_make_grid_records(&indptr[0], &indices[0], &data[0], n_rows, x_max, alpha, seed, bands,
                                        rounds, &bo[0], &st[0], out)
    raise_for(rc, "co-occurrence values must be finite and > 0")
    return records, cells


cdef class RecordBlocks:
    """Shuffled training records out of core: block files in tmp_dir,
    unlinked at creation (glove_blocks.h). close() (or garbage collection)
    deletes them."""
    cdef wv_glove_blocks b
    cdef wv_glove_stream stream
    cdef bint have_stream
    cdef public str tmp_dir
    cdef public double write_seconds  # the merge that wrote them

    def __cinit__(self):
        self.b.n_blocks = 0
        self.have_stream = False

    def __dealloc__(self):
        self.close()

    def close(self):
        if self.have_stream:
            wv_glove_stream_free(&self.stream)
            self.have_stream = False
        if self.b.n_blocks:
            wv_glove_blocks_close(&self.b)

    def __len__(self):
        return wv_glove_blocks_total(&self.b) if self.b.n_blocks else 0

    @property
    def n_blocks(self):
        return self.b.n_blocks

    @property
    def bands(self):
        """The bands the blocks were written by (0: by a hash; glove_blocks.h)."""
        return self.b.bands if self.b.n_blocks else 0

    @property
    def largest(self):
        """Records in the largest block."""
        return wv_glove_blocks_largest(&self.b) if self.b.n_blocks else 0

    def block(self, int k):
        """The records of block k as written (RECORD_DTYPE, not shuffled)."""
        if not 0 <= k < self.b.n_blocks:
            raise IndexError(k)
        out = np.empty(max(wv_block_count(&self.b, k), 1), dtype=RECORD_DTYPE)[:wv_block_count(&self.b, k)]
        if len(out) == 0:
            return out
        cdef unsigned char[::1] raw = out.view(np.uint8)
        cdef wv_status rc
        with nogil:
            rc = wv_glove_blocks_read(&self.b, k, <wv_glove_record *>&raw[0])
        if rc:
            self._raise_io("reading")
        return out

    def _raise_io(self, what):
        err = wv_blocks_errno(&self.b) or 5
        raise OSError(err, f"{os.strerror(err)}: {what} the GloVe training blocks in {self.tmp_dir!r}")

    cdef wv_glove_stream *open_stream(self, int bands, int rounds, int32_t vocab_size) except NULL:
        """The blocks' stream; bands > 0: each block trained on `rounds`
        grids of that many bands (fixed for the stream's life)."""
        cdef wv_status rc
        if not self.b.n_blocks:
            raise ValueError("the record blocks are closed")
        if self.have_stream and (self.stream.bands != bands or (bands and self.stream.rounds != rounds)):
            raise ValueError(f"these record blocks train on a grid of {self.stream.bands} bands, not {bands}: "
                             "count the corpus again to change it")
        if not self.have_stream:
            rc = wv_glove_stream_init(&self.stream, &self.b)
            raise_for(rc, f"two blocks of {self.largest:,} training records")
            if bands:
                with nogil:
                    rc = wv_glove_stream_set_grid(&self.stream, bands, rounds, vocab_size)
                if rc:
                    wv_glove_stream_free(&self.stream)
                    if rc == WV_ERR_IO:
                        self._raise_io("reading")
                    raise_for(rc, {WV_ERR_INVALID: f"the blocks were written by {self.b.bands} bands, not {bands}"
                                                   if self.b.bands else "the blocks hold ids outside the vocabulary"})
            self.have_stream = True
        return &self.stream


def worker_bytes(int dim, int threads, bint streamed):
    """The bytes an epoch's threads allocate (GloVeCore.start_epoch), for the
    memory check made before training."""
    return wv_glove_worker_bytes(dim, threads, streamed)


cdef class GloVeCore:
    """Holds the C GloVe model: pointers into numpy arrays kept alive here."""
    cdef wv_glove_model m
    cdef object _keep
    cdef wv_glove_scheduler scheduler
    cdef object cells  # the grid's cell offsets, or None
    cdef uint64_t cells_seed

    def __cinit__(self):
        wv_glove_model_init(&self.m)
        self._keep = ()
        self.cells = None

    def __dealloc__(self):
        cdef double cost
        if wv_glove_unjoined(&self.m):
            wv_glove_request_stop(&self.m)
            with nogil:
                wv_glove_join_epoch(&self.m, &cost)
        self._drop_cells()

    cdef _drop_cells(self):
        if self.cells is not None:
            wv_glove_scheduler_free(&self.scheduler)
            self.cells = None
        self.m.scheduler = NULL

    def __init__(self, *, float eta, bint exact_sqrt=False, float[:, :] word not None, float[:, :] context not None,
                 float[:] word_bias not None, float[:] context_bias not None,
                 float[:, :] word_gradsq not None, float[:, :] context_gradsq not None,
                 float[:] word_bias_gradsq not None, float[:] context_bias_gradsq not None):
        """The four matrices may be views with rows apart (an interleaved
        table, see glove.h) if they share one row stride and are contiguous
        within a row; the four bias vectors share one stride too. exact_sqrt:
        divide by sqrt as glove.c instead of the refined reciprocal square
        root (glove.h)."""
        cdef int32_t V = word.shape[0]
        cdef int dim = word.shape[1]
        cdef Py_ssize_t rs = word.strides[0], bs = word_bias.strides[0]
        if (word.strides[1] != sizeof(float) or context.strides[1] != sizeof(float)
                or word_gradsq.strides[1] != sizeof(float) or context_gradsq.strides[1] != sizeof(float)
                or context.strides[0] != rs or word_gradsq.strides[0] != rs or context_gradsq.strides[0] != rs
                or rs % sizeof(float)):
            raise ValueError("parameter matrices must share one row stride and be contiguous within rows")
        if (context_bias.strides[0] != bs or word_bias_gradsq.strides[0] != bs
                or context_bias_gradsq.strides[0] != bs or bs % sizeof(float)):
            raise ValueError("bias vectors must share one stride")
        if V < 1 or dim < 1:
            raise ValueError("empty parameters")
        if (context.shape[0] != V or context.shape[1] != dim or word_gradsq.shape[0] != V
                or word_gradsq.shape[1] != dim or context_gradsq.shape[0] != V
                or context_gradsq.shape[1] != dim):
            raise ValueError("parameter matrices must all be (vocab_size, dim)")
        if (word_bias.shape[0] != V or context_bias.shape[0] != V or word_bias_gradsq.shape[0] != V
                or context_bias_gradsq.shape[0] != V):
            raise ValueError("bias vectors must have vocab_size entries")
        if not eta > 0:
            raise ValueError("eta must be > 0")
        self.m.dim = dim
        self.m.vocab_size = V
        self.m.eta = eta
        self.m.exact_sqrt = exact_sqrt
        self.m.row_stride = rs // <Py_ssize_t>sizeof(float)
        self.m.bias_stride = bs // <Py_ssize_t>sizeof(float)
        if self.m.row_stride < dim or self.m.bias_stride < 1:
            raise ValueError("rows or biases overlap")
        self.m.word = &word[0, 0]
        self.m.context = &context[0, 0]
        self.m.word_bias = &word_bias[0]
        self.m.context_bias = &context_bias[0]
        self.m.word_gradsq = &word_gradsq[0, 0]
        self.m.context_gradsq = &context_gradsq[0, 0]
        self.m.word_bias_gradsq = &word_bias_gradsq[0]
        self.m.context_bias_gradsq = &context_bias_gradsq[0]
        self._keep = (word, context, word_bias, context_bias, word_gradsq, context_gradsq,
                      word_bias_gradsq, context_bias_gradsq)

    def set_records(self, records, cells=None, uint64_t seed=0, int bands=0):
        """Attaches training records (RECORD_DTYPE), checked once. cells:
        the offsets make_grid_records gave with them, to train them cell by
        cell (threads never share a band), the cells' order in each epoch
        drawn from (seed, epoch_key); None: contiguous ranges, Hogwild."""
        if wv_glove_active(&self.m):
            raise RuntimeError("cannot change the records while an epoch runs")
        if records.dtype != RECORD_DTYPE or not records.flags.c_contiguous:
            raise ValueError("records must be a contiguous RECORD_DTYPE array")
        if len(records) == 0:
            raise ValueError("no co-occurrence records to train on")
        if records["row"].min() < 0 or records["row"].max() >= self.m.vocab_size \
                or records["col"].min() < 0 or records["col"].max() >= self.m.vocab_size:
            raise ValueError("records hold ids outside the vocabulary")
        cdef int rounds = 1
        if cells is not None:
            cells = np.ascontiguousarray(cells, dtype=np.int64)
            if bands == 0:  # one round
                bands = int(round((len(cells) - 1) ** 0.5))
            rounds = (len(cells) - 1) // max(bands * bands, 1)
            if (not 1 <= bands <= WV_GLOVE_MAX_BANDS or not 1 <= rounds <= WV_GLOVE_MAX_ROUNDS
                    or len(cells) != rounds * bands * bands + 1 or cells[0] != 0
                    or cells[len(cells) - 1] != len(records) or np.any(np.diff(cells) < 0)):
                raise ValueError("cells must be the rounds * B * B + 1 non-decreasing offsets of the records' cells")
        cdef unsigned char[::1] raw = records.view(np.uint8)
        self._drop_cells()
        self.m.records = <const wv_glove_record *>&raw[0]
        self.m.n_records = len(records)
        self.m.stream = NULL
        self._keep = self._keep[:8] + (records,)
        cdef int64_t[::1] st
        cdef wv_glove_grid grid
        if cells is not None:
            st = cells
            grid.bands = bands
            grid.rounds = rounds
            grid.start = &st[0]
            raise_for(wv_glove_scheduler_init(&self.scheduler, grid), "the grid's scheduler")
            self.cells, self.cells_seed = cells, seed
            self.m.scheduler = &self.scheduler

    def set_blocks(self, RecordBlocks blocks not None, int bands=0, int rounds=1):
        """Attaches record blocks (made by the counter, so their ids are
        the vocabulary's): each epoch streams them (wv_glove_stream), each
        block trained on a grid of `bands` bands (0: in T ranges)."""
        if wv_glove_active(&self.m):
            raise RuntimeError("cannot change the records while an epoch runs")
        if len(blocks) == 0:
            raise ValueError("no co-occurrence records to train on")
        self._drop_cells()
        self.m.stream = blocks.open_stream(bands, rounds, self.m.vocab_size)
        self.m.records = NULL
        self.m.n_records = len(blocks)
        self._keep = self._keep[:8] + (blocks,)

    def start_epoch(self, int threads, uint64_t epoch_key=0):
        """epoch_key: with blocks, the order of the blocks and of the records
        in each is drawn from (seed, epoch_key); with cells, their order."""
        cdef wv_status rc
        if self.m.records == NULL and self.m.stream == NULL:
            raise RuntimeError("no records attached")
        if threads < 1:
            threads = 1
        if self.m.stream != NULL:
            wv_glove_begin_stream(&self.m, epoch_key, threads)
        if self.m.scheduler != NULL:
            wv_glove_begin_cells(&self.m, self.cells_seed, epoch_key)
        with nogil:
            rc = wv_glove_start_epoch(&self.m, threads)
        raise_for(rc, {WV_ERR_NOMEM: f"the buffers of {threads} training thread(s) "
                                     f"({wv_glove_worker_bytes(self.m.dim, threads, self.m.stream != NULL):,} "
                                     "bytes); lower threads or dim"})

    def join_epoch(self):
        """Waits for the epoch; returns its summed cost (float64)."""
        cdef double cost = 0
        cdef wv_status rc
        with nogil:
            rc = wv_glove_join_epoch(&self.m, &cost)
        if rc == WV_ERR_IO and len(self._keep) > 8 and isinstance(self._keep[8], RecordBlocks):
            self._keep[8]._raise_io("reading")
        raise_for(rc)
        return cost

    def request_stop(self):
        wv_glove_request_stop(&self.m)

    def wait(self, double seconds):
        """Waits until the epoch's workers have all finished, or at most
        `seconds`; returns True when none is running (wakes at once when the
        last one finishes)."""
        cdef int left
        with nogil:
            left = wv_glove_wait(&self.m, seconds)
        return left == 0

    @property
    def running(self):
        return wv_glove_active(&self.m) > 0

    @property
    def words_done(self):
        """Records processed in the running or last epoch."""
        return wv_glove_done(&self.m)

    @property
    def n_records(self):
        return self.m.n_records

    def step(self, int32_t row, int32_t col, double x, double x_max, double alpha):
        """One record's update as the loop does it (tests); returns its cost."""
        if not (0 <= row < self.m.vocab_size and 0 <= col < self.m.vocab_size) or not x > 0:
            raise ValueError("bad record")
        cdef wv_glove_record r
        r.row = row
        r.col = col
        r.log_x = <float>np.log(x)
        r.weight = 1.0 if x > x_max else <float>((x / x_max) ** alpha)
        scratch = np.zeros(2 * self.m.dim, dtype=np.float32)
        cdef float[::1] s = scratch
        return wv_glove_step(&self.m, &r, &s[0])
