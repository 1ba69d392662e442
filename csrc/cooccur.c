#define _POSIX_C_SOURCE 200809L /* pread */

#include "cooccur.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "memory.h"
#include "parallel.h"

#define PROGRESS_STEP 65536
/* Positions between prefetching a pair's dense cell and adding to it. */
#define PREFETCH_AHEAD 4
/* Ids read from a file at once per thread (with the window before them):
 * the corpus never has to be in memory. */
#define FILE_CHUNK_IDS (1 << 20)

_Static_assert(WV_COOC_MIN_THREAD_MEMORY == 4 * WV_COOC_MIN_BUFFER_RECORDS * sizeof(wv_xrec),
               "a thread's record buffer is a quarter of its memory");

/* ---- the dense region: cells (a, c), a <= c, with (a+1)(c+1) <= P ---------- */
typedef struct {
    int64_t *row_start;  /* rows + 1 offsets */
    int32_t rows;
    int64_t cells;
} dense_layout;

static int64_t dense_cells_for(int64_t P, int32_t V) {
    int64_t cells = 0;
    for (int64_t a = 0; a < V && (a + 1) * (a + 1) <= P; a++) {
        int64_t end = P / (a + 1);
        if (end > V) end = V;
        if (end > a) cells += end - a;
    }
    return cells;
}

/* Largest region that fits max_cells; row_start is malloc'ed. */
static int dense_layout_make(dense_layout *d, int32_t V, int64_t max_cells) {
    int64_t lo = 0, hi = (int64_t)V * V;
    while (lo < hi) { /* largest P with cells(P) <= max_cells */
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (dense_cells_for(mid, V) <= max_cells) lo = mid;
        else hi = mid - 1;
    }
    int64_t P = lo;
    int32_t rows = 0;
    while (rows < V && (int64_t)(rows + 1) * (rows + 1) <= P) rows++;
    d->rows = rows;
    d->row_start = malloc((size_t)(rows + 1) * sizeof *d->row_start);
    if (!d->row_start) return -1;
    int64_t off = 0;
    for (int32_t a = 0; a < rows; a++) {
        d->row_start[a] = off;
        int64_t end = P / (a + 1);
        if (end > V) end = V;
        off += end > a ? end - a : 0;
    }
    d->row_start[rows] = off;
    d->cells = off;
    return 0;
}

/* A dense cell's sum in units: half a record's bytes, so the table covers
 * twice the pairs in the same memory; a sum about to overflow goes to the
 * sort as a record and the cell starts again from zero (sums stay exact). */
typedef uint32_t dense_sum;

/* ---- per-thread counting ---------------------------------------------------- */
/* A cell (row <= col) is a record of the external sort (extsort.h): key
 * row << 32 | col, value its sum in units. */
typedef struct {
    const wv_cooc_config *cfg;
    const int32_t *ids;
    int64_t begin, end;
    const dense_layout *layout;
    dense_sum *dense;
    wv_xsort sort;       /* the pairs outside the dense region */
    wv_status error;
    wv_cooc_result *res;
    wv_flag *stop;
} counter_t;

/* The dense table's cell of pair (lo, hi), lo <= hi, or NULL when the pair
 * lies outside the dense region. */
static inline dense_sum *dense_cell(const counter_t *c, int32_t lo, int32_t hi) {
    const dense_layout *d = c->layout;
    if (lo >= d->rows) return NULL;
    int64_t off = hi - lo;
    if (off >= d->row_start[lo + 1] - d->row_start[lo]) return NULL;
    return &c->dense[d->row_start[lo] + off];
}

/* Adds units to pair (lo, hi)'s dense cell; a sum that would pass 32 bits
 * first goes to the sort as a record and the cell starts from zero. */
static inline wv_status cell_add(counter_t *c, dense_sum *cell, int32_t lo, int32_t hi, int64_t units) {
    if ((int64_t)*cell + units > (int64_t)UINT32_MAX) {
        wv_status rc = wv_xsort_add(&c->sort, wv_xkey(lo, hi), *cell);
        *cell = 0;
        if (rc) return rc;
    }
    *cell += (dense_sum)units;
    return WV_OK;
}

static inline wv_status add_pair(counter_t *c, int32_t a, int32_t b, int64_t units) {
    int32_t lo = a < b ? a : b, hi = a < b ? b : a;
    dense_sum *cell = dense_cell(c, lo, hi);
    if (cell) return cell_add(c, cell, lo, hi, units);
    return wv_xsort_add(&c->sort, wv_xkey(lo, hi), units);
}

/* Brings the dense cells of the pairs ending at position j into cache, a
 * few positions before they are added: the table is far larger than the
 * cache, and its reads are what the count waits on. */
static inline void prefetch_pairs(const counter_t *c, const int32_t *ids, int64_t first, int64_t j) {
    int32_t w2 = ids[j - first];
    if (w2 < 0) return;
    for (int d = 1; d <= c->cfg->window; d++) {
        int64_t k = j - d;
        if (k < first || ids[k - first] < 0) return;
        int32_t w1 = ids[k - first];
        const dense_sum *cell = dense_cell(c, w1 < w2 ? w1 : w2, w1 < w2 ? w2 : w1);
        if (cell) __builtin_prefetch(cell, 1);
    }
}

/* Units per 1.0: LCM(1..min(window, 20)) makes every 1/d an integer. */
static int64_t unit_for(int window, int distance_weighting) {
    if (!distance_weighting) return 1;
    int64_t unit = 1;
    for (int64_t d = 2; d <= window && d <= WV_COOC_EXACT_WINDOW; d++) {
        int64_t a = unit, b = d;
        while (b) { int64_t t = a % b; a = b; b = t; } /* gcd */
        unit = unit / a * d;
    }
    return unit;
}

static inline int64_t units_at(int64_t unit, int d, int distance_weighting) {
    return distance_weighting ? (unit + d / 2) / d : unit;
}

/* Counts the pairs ending at positions [from, to); ids[0] is position
 * `first` (first <= from; left context before `first` is never looked at,
 * so first must be from - window or the corpus start). */
static wv_status count_positions(counter_t *c, const int32_t *ids, int64_t first, int64_t from, int64_t to,
                                 const int64_t *units, int64_t *since) {
    const int window = c->cfg->window;
    const int64_t unit = c->res->unit;
    const int dw = c->cfg->distance_weighting;
    for (int64_t j = from; j < to; j++) {
        if (++*since == PROGRESS_STEP) {
            atomic_fetch_add_explicit(&c->res->positions_done, *since, memory_order_relaxed);
            *since = 0;
            if (c->stop && atomic_load_explicit(c->stop, memory_order_relaxed)) return WV_ERR_STOPPED;
        }
        if (j + PREFETCH_AHEAD < to) prefetch_pairs(c, ids, first, j + PREFETCH_AHEAD);
        int32_t w2 = ids[j - first];
        if (w2 < 0) continue;
        /* left context only, never across a sentence end (cooccur.c) */
        for (int d = 1; d <= window; d++) {
            int64_t k = j - d;
            if (k < first || ids[k - first] < 0) break;
            wv_status rc = add_pair(c, ids[k - first], w2, d <= 64 ? units[d] : units_at(unit, d, dw));
            if (rc) return rc;
        }
    }
    return WV_OK;
}

/* The shard's ids from the file, a chunk at a time with the window before it. */
static wv_status count_from_file(counter_t *c, const int64_t *units, int64_t *since) {
    const int64_t window = c->cfg->window;
    int32_t *buf = malloc((size_t)(FILE_CHUNK_IDS + window) * sizeof *buf);
    if (!buf) return WV_ERR_NOMEM;
    wv_status rc = WV_OK;
    for (int64_t from = c->begin; from < c->end && rc == WV_OK; from += FILE_CHUNK_IDS) {
        int64_t to = from + FILE_CHUNK_IDS < c->end ? from + FILE_CHUNK_IDS : c->end;
        int64_t first = from - window > 0 ? from - window : 0;
        rc = wv_read_ids(c->cfg->ids_fd, buf, first, to, c->cfg->vocab_size);
        if (rc == WV_OK) rc = count_positions(c, buf, first, from, to, units, since);
    }
    free(buf);
    return rc;
}

static void *count_shard(void *arg) {
    counter_t *c = arg;
    const int window = c->cfg->window;
    int64_t units[64 + 1];
    for (int d = 1; d <= window && d <= 64; d++) units[d] = units_at(c->res->unit, d, c->cfg->distance_weighting);
    int64_t since = 0;
    if (c->ids) c->error = count_positions(c, c->ids, 0, c->begin, c->end, units, &since);
    else c->error = count_from_file(c, units, &since);
    atomic_fetch_add_explicit(&c->res->positions_done, since, memory_order_relaxed);
    if (!c->error) c->error = wv_xsort_flush(&c->sort);
    return NULL;
}

/* Adds another thread's table to c's, cell by cell as add_pair adds. */
static wv_status add_table(counter_t *c, const dense_sum *from, const dense_layout *d) {
    for (int32_t a = 0; a < d->rows; a++) {
        for (int64_t k = d->row_start[a]; k < d->row_start[a + 1]; k++) {
            if (!from[k]) continue;
            wv_status rc = cell_add(c, &c->dense[k], a, a + (int32_t)(k - d->row_start[a]), from[k]);
            if (rc) return rc;
        }
    }
    return WV_OK;
}

/* ---- output: the last merge, split by rows over the threads ------------------ */
static wv_status emit_part(void *ctx, const wv_xrec *rec) {
    wv_cooc_part *p = ctx;
    if (p->n == p->cap) {
        int64_t cap = p->cap ? p->cap + p->cap / 2 : 1 << 16;
        int32_t *rows = realloc(p->rows, (size_t)cap * sizeof *rows);
        if (rows) p->rows = rows;
        int32_t *cols = realloc(p->cols, (size_t)cap * sizeof *cols);
        if (cols) p->cols = cols;
        int64_t *units = realloc(p->units, (size_t)cap * sizeof *units);
        if (units) p->units = units;
        if (!rows || !cols || !units) return WV_ERR_NOMEM;
        p->cap = cap;
    }
    p->rows[p->n] = (int32_t)(rec->key >> 32);
    p->cols[p->n] = (int32_t)(rec->key & 0xFFFFFFFFu);
    p->units[p->n] = rec->value;
    p->n++;
    return WV_OK;
}

/* Sizes an empty part for `most` records at once, sparing the copies of
 * growing it (pages not written stay unmapped); on failure it stays empty
 * and grows as records come. */
static void part_reserve(wv_cooc_part *p, int64_t most) {
    if (most <= 0) return;
    p->rows = malloc((size_t)most * sizeof *p->rows);
    p->cols = malloc((size_t)most * sizeof *p->cols);
    p->units = malloc((size_t)most * sizeof *p->units);
    if (p->rows && p->cols && p->units) {
        p->cap = most;
        return;
    }
    free(p->rows);
    free(p->cols);
    free(p->units);
    p->rows = NULL;
    p->cols = NULL;
    p->units = NULL;
}

/* The dense table's non-zero cells in rows [row, row_end), as a source for
 * the merge (extsort.h). */
typedef struct {
    const dense_sum *dense;
    const dense_layout *layout;
    int32_t row, row_end;
    int64_t idx;
} dense_cursor;

static dense_cursor dense_rows(const dense_sum *dense, const dense_layout *layout, int32_t row, int32_t row_end) {
    if (row_end > layout->rows) row_end = layout->rows;
    if (row > row_end) row = row_end;
    return (dense_cursor){dense, layout, row, row_end, layout->row_start[row]};
}

static int dense_next(void *ctx, wv_xrec *out) {
    dense_cursor *s = ctx;
    while (s->row < s->row_end) {
        int64_t end = s->layout->row_start[s->row + 1];
        while (s->idx < end) {
            int64_t k = s->idx++;
            if (s->dense[k]) {
                int32_t col = s->row + (int32_t)(k - s->layout->row_start[s->row]);
                out->key = wv_xkey(s->row, col);
                out->value = s->dense[k];
                return 1;
            }
        }
        s->row++;
    }
    return 0;
}

typedef struct {
    const wv_xruns *runs;
    const dense_sum *dense;
    const dense_layout *layout;
    int32_t row_begin, row_end;
    wv_cooc_part *part;
    wv_status rc;
    const wv_cooc_sink *sink; /* not NULL: the records go there, as part `index` */
    int index;
} part_merge;

static wv_status emit_sink(void *ctx, const wv_xrec *rec) {
    part_merge *m = ctx;
    return m->sink->emit(m->sink->ctx, m->index, rec);
}

/* Records before row `row` in the runs and cells before it in the dense
 * table: an upper bound on the merged output before that row. */
static wv_status input_before(const wv_xruns *runs, const dense_layout *layout, int32_t row, int64_t *count) {
    int64_t in_runs;
    wv_status rc = wv_xruns_count_below(runs, wv_xkey(row, 0), &in_runs);
    *count = layout->row_start[row < layout->rows ? row : layout->rows] + in_runs;
    return rc;
}

/* Merges rows [row_begin, row_end) of every run and of the dense table. */
static void *merge_part(void *arg) {
    part_merge *m = arg;
    if (m->sink) {
        dense_cursor cursor = dense_rows(m->dense, m->layout, m->row_begin, m->row_end);
        wv_xsource extra = {dense_next, &cursor};
        m->rc = wv_xruns_merge_range(m->runs, wv_xkey(m->row_begin, 0), wv_xkey(m->row_end, 0), &extra, emit_sink, m);
        if (m->rc == WV_OK) m->rc = m->sink->close_part(m->sink->ctx, m->index);
        return NULL;
    }
    int64_t before, upto; /* the part gets at most what its sources hold */
    m->rc = input_before(m->runs, m->layout, m->row_begin, &before);
    if (m->rc == WV_OK) m->rc = input_before(m->runs, m->layout, m->row_end, &upto);
    if (m->rc != WV_OK) return NULL;
    part_reserve(m->part, upto - before);
    dense_cursor cursor = dense_rows(m->dense, m->layout, m->row_begin, m->row_end);
    wv_xsource extra = {dense_next, &cursor};
    m->rc = wv_xruns_merge_range(m->runs, wv_xkey(m->row_begin, 0), wv_xkey(m->row_end, 0), &extra, emit_part,
                                 m->part);
    return NULL;
}

/* Row bounds[t] .. bounds[t + 1] for part t, so that parts get equal input. */
static wv_status split_rows(const wv_xruns *runs, const dense_layout *layout, int32_t V, int T, int32_t *bounds) {
    int64_t total;
    if (input_before(runs, layout, V, &total)) return WV_ERR_IO;
    bounds[0] = 0;
    bounds[T] = V;
    for (int t = 1; t < T; t++) {
        int64_t target = total / T * t + total % T * t / T;
        int32_t lo = bounds[t - 1], hi = V; /* first row whose input before it reaches target */
        while (lo < hi) {
            int32_t mid = lo + (hi - lo) / 2;
            int64_t c;
            if (input_before(runs, layout, mid, &c)) return WV_ERR_IO;
            if (c < target) lo = mid + 1;
            else hi = mid;
        }
        bounds[t] = lo;
    }
    return WV_OK;
}

/* The last merge: T parts merged at once, each on its own thread. */
static wv_status merge_parts(const wv_xruns *runs, const dense_sum *dense, const dense_layout *layout, int32_t V,
                             int T, const wv_cooc_sink *sink, wv_cooc_result *out) {
    out->parts = calloc((size_t)T, sizeof *out->parts);
    part_merge *jobs = calloc((size_t)T, sizeof *jobs);
    int32_t *bounds = malloc((size_t)(T + 1) * sizeof *bounds);
    wv_status rc = out->parts && jobs && bounds ? WV_OK : WV_ERR_NOMEM;
    if (out->parts) out->n_parts = T;
    if (rc == WV_OK) rc = split_rows(runs, layout, V, T, bounds);
    if (rc == WV_OK) {
        for (int t = 0; t < T; t++)
            jobs[t] = (part_merge){runs, dense, layout, bounds[t], bounds[t + 1], &out->parts[t], WV_OK, sink, t};
        wv_threads_run(T, merge_part, jobs, sizeof *jobs);
        for (int t = 0; t < T; t++) {
            if (rc == WV_OK) rc = jobs[t].rc;
            out->n += out->parts[t].n;
        }
    }
    free(bounds);
    free(jobs);
    return rc;
}

void wv_cooc_free(wv_cooc_result *r) {
    for (int t = 0; t < r->n_parts; t++) {
        free(r->parts[t].rows);
        free(r->parts[t].cols);
        free(r->parts[t].units);
    }
    free(r->parts);
    r->parts = NULL;
    r->n_parts = 0;
    r->n = 0;
}

wv_status wv_cooccur_count(const wv_cooc_config *cfg, const int32_t *ids, int64_t n_ids,
                           wv_cooc_result *out, wv_flag *stop) {
    out->n = 0;
    out->n_parts = 0;
    out->parts = NULL;
    out->spilled_runs = out->merge_passes = 0;
    out->streamed = 0;
    out->merge_seconds = 0.0;
    out->unit = unit_for(cfg->window, cfg->distance_weighting);
    atomic_store(&out->positions_done, 0);
    /* Asked to stop before starting (Ctrl-C while the caller's thread was
     * being started): touch nothing, so that nothing is left behind. */
    if (stop && atomic_load(stop)) return WV_ERR_STOPPED;
    int T = cfg->threads > 0 ? cfg->threads : 1; /* the caller's policy (settings.threads_for) */
    /* Budget per thread: half dense table, a quarter record buffer, a
     * quarter runs kept in memory; past that, runs spill to disk. */
    size_t per_thread = cfg->memory_limit / (size_t)T;
    int64_t buf_cap = (int64_t)(per_thread / 4 / sizeof(wv_xrec));
    if (buf_cap < WV_COOC_MIN_BUFFER_RECORDS) return WV_ERR_MEMORY_LIMIT;
    int64_t max_cells = (int64_t)(per_thread / 2 / sizeof(dense_sum));
    /* A thread adds at most `window` pairs per id of its shard: a table
     * with more cells than that could never fill (and each thread's table
     * is written all over), so a small corpus stays small under a large limit. */
    int64_t most_pairs = (n_ids / T + 1) * (int64_t)cfg->window;
    if (max_cells > most_pairs) max_cells = most_pairs;
    /* Past a size, a larger table costs more in pages to fault and zero
     * than it saves in records to sort (docs/performance.md). */
    if (max_cells > WV_COOC_DENSE_MAX_CELLS) max_cells = WV_COOC_DENSE_MAX_CELLS;

    dense_layout layout;
    if (dense_layout_make(&layout, cfg->vocab_size, max_cells)) return WV_ERR_NOMEM;
    out->dense_cells = layout.cells;

    counter_t *cs = calloc((size_t)T, sizeof *cs);
    if (!cs) { free(layout.row_start); return WV_ERR_NOMEM; }
    wv_status rc = WV_OK;
    for (int t = 0; t < T && rc == WV_OK; t++) {
        counter_t *c = &cs[t];
        c->cfg = cfg;
        c->ids = ids;
        c->begin = n_ids * t / T;
        c->end = n_ids * (t + 1) / T;
        c->layout = &layout;
        c->dense = calloc((size_t)(layout.cells ? layout.cells : 1), sizeof *c->dense);
        if (c->dense) wv_advise_huge(c->dense, (size_t)layout.cells * sizeof *c->dense);
        c->res = out;
        c->stop = stop;
        /* a pair adds at most `unit` (distance 1); an overflowing dense cell more */
        rc = wv_xsort_init(&c->sort, buf_cap, per_thread / 4, cfg->vocab_size, out->unit, cfg->tmp_dir);
        if (!c->dense) rc = WV_ERR_NOMEM;
    }
    wv_threads threads;
    if (rc == WV_OK) {
        if (wv_threads_start(&threads, T, count_shard, cs, sizeof *cs)) {
            for (int t = threads.started; t < T; t++) cs[t].error = WV_ERR_THREAD;
            if (stop) atomic_store(stop, 1);
        }
        wv_threads_join(&threads);
        for (int t = 0; t < T && rc == WV_OK; t++) rc = cs[t].error;
    }
    /* Sum the dense tables into the first, writing only where a cell is
     * not zero: the pages of a table sized by the memory limit that no
     * pair reached are never touched. Then the buffers are no longer needed. */
    for (int t = 1; t < T; t++) {
        if (rc == WV_OK && cs[t].dense) rc = add_table(&cs[0], cs[t].dense, &layout);
        free(cs[t].dense);
        cs[t].dense = NULL;
    }
    if (rc == WV_OK && T > 0) rc = wv_xsort_flush(&cs[0].sort);
    for (int t = 0; t < T; t++) {
        wv_xsort_free_buffer(&cs[t].sort);
        out->spilled_runs += cs[t].sort.spilled;
        out->merge_passes += cs[t].sort.merges;
    }
    wv_xruns all = {NULL, 0, 0};
    for (int t = 0; t < T; t++) {
        if (rc == WV_OK) rc = wv_xruns_take(&all, &cs[t].sort.runs);
        wv_xsort_free(&cs[t].sort);
    }
    /* Bounded fan-in: merge groups until one final merge can take them all. */
    if (rc == WV_OK) rc = wv_xruns_reduce(&all, cfg->tmp_dir, &out->merge_passes, stop);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const wv_cooc_sink *sink = NULL;
    if (rc == WV_OK && cfg->sink) { /* asked with what the merge can give at most */
        int64_t most;
        rc = wv_xruns_count_below(&all, UINT64_MAX, &most);
        for (int64_t k = 0; k < layout.cells; k++) most += cs[0].dense[k] != 0;
        int use = 0;
        if (rc == WV_OK) rc = cfg->sink->open(cfg->sink->ctx, most, out->unit, T, &use);
        if (use) sink = cfg->sink;
        out->streamed = use;
    }
    if (rc == WV_OK) rc = merge_parts(&all, cs[0].dense, &layout, cfg->vocab_size, T, sink, out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->merge_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    wv_xruns_free(&all);
    if (T > 0) free(cs[0].dense);
    free(cs);
    free(layout.row_start);
    if (rc != WV_OK) wv_cooc_free(out);
    return rc;
}
