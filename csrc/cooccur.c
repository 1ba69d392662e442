#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, pread */

#include "cooccur.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parallel.h"

#define PROGRESS_STEP 65536
#define FILE_BUFFER_RECORDS 8192

/* One (row <= col) cell and its sum in units; key = row << 32 | col sorts
 * records in row-major order. */
typedef struct {
    uint64_t key;
    int64_t units;
} rec_t;
_Static_assert(WV_COOC_MIN_THREAD_MEMORY == 4 * WV_COOC_MIN_BUFFER_RECORDS * sizeof(rec_t),
               "a thread's record buffer is a quarter of its memory");

static inline uint64_t make_key(int32_t row, int32_t col) {
    return ((uint64_t)(uint32_t)row << 32) | (uint32_t)col;
}

typedef struct {
    rec_t *mem;   /* in-memory run, or NULL */
    FILE *file;   /* spilled run (already unlinked), or NULL */
    int64_t n;
} run_t;

typedef struct {
    run_t *items;
    int n, cap;
} run_list;

static int runs_push(run_list *l, run_t r) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        run_t *p = realloc(l->items, (size_t)cap * sizeof *p);
        if (!p) return -1;
        l->items = p;
        l->cap = cap;
    }
    l->items[l->n++] = r;
    return 0;
}

static void run_free(run_t *r) {
    free(r->mem);
    if (r->file) fclose(r->file); /* unlinked at creation: closing deletes it */
    r->mem = NULL;
    r->file = NULL;
}

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

/* ---- sources for the k-way merge ------------------------------------------ */
/* Reads records [first, first + n) of a spilled run; pread keeps no shared
 * file position, so threads can read one file at different places. */
static int read_records(FILE *f, rec_t *buf, int64_t n, int64_t first) {
    char *p = (char *)buf;
    size_t left = (size_t)n * sizeof(rec_t);
    off_t at = (off_t)first * (off_t)sizeof(rec_t);
    while (left) {
        ssize_t got = pread(fileno(f), p, left, at);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            return -1;
        }
        p += got;
        left -= (size_t)got;
        at += got;
    }
    return 0;
}

static int run_key_at(const run_t *r, int64_t i, uint64_t *key) {
    if (r->mem || !r->file) {
        *key = r->mem[i].key;
        return 0;
    }
    rec_t rec;
    if (read_records(r->file, &rec, 1, i)) return -1;
    *key = rec.key;
    return 0;
}

/* Index of the first record of the run with key >= key (binary search). */
static int run_lower_bound(const run_t *r, uint64_t key, int64_t *at) {
    int64_t lo = 0, hi = r->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        if (run_key_at(r, mid, &k)) return -1;
        if (k < key) lo = mid + 1;
        else hi = mid;
    }
    *at = lo;
    return 0;
}

typedef struct {
    int kind; /* 0: memory run, 1: file run, 2: dense table */
    const rec_t *mem;
    int64_t n, pos;
    FILE *file;
    rec_t *fbuf;
    int64_t fbuf_len, fbuf_pos, next, remaining;
    const int64_t *dense;
    const dense_layout *layout;
    int32_t row, row_end;
    int64_t idx;
    rec_t cur;
} source_t;

/* Loads the next record into s->cur: 1, 0 when exhausted, -1 on a read error. */
static int source_next(source_t *s) {
    switch (s->kind) {
    case 0:
        if (s->pos >= s->n) return 0;
        s->cur = s->mem[s->pos++];
        return 1;
    case 1:
        if (s->fbuf_pos == s->fbuf_len) {
            if (s->remaining == 0) return 0;
            int64_t want = s->remaining < FILE_BUFFER_RECORDS ? s->remaining : FILE_BUFFER_RECORDS;
            if (read_records(s->file, s->fbuf, want, s->next)) return -1;
            s->next += want;
            s->remaining -= want;
            s->fbuf_len = want;
            s->fbuf_pos = 0;
        }
        s->cur = s->fbuf[s->fbuf_pos++];
        return 1;
    default: /* dense: skip empty cells, row by row */
        while (s->row < s->row_end) {
            int64_t end = s->layout->row_start[s->row + 1];
            while (s->idx < end) {
                int64_t k = s->idx++;
                if (s->dense[k]) {
                    int32_t col = s->row + (int32_t)(k - s->layout->row_start[s->row]);
                    s->cur.key = make_key(s->row, col);
                    s->cur.units = s->dense[k];
                    return 1;
                }
            }
            s->row++;
        }
        return 0;
    }
}

typedef struct {
    int (*emit)(void *ctx, const rec_t *r);
    void *ctx;
} sink_t;

static void heap_sift_down(source_t **h, int n, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l]->cur.key < h[m]->cur.key) m = l;
        if (r < n && h[r]->cur.key < h[m]->cur.key) m = r;
        if (m == i) return;
        source_t *t = h[i]; h[i] = h[m]; h[m] = t;
        i = m;
    }
}

/* Merges the sources, summing equal keys, into the sink. */
static int merge_sources(source_t *src, int n_src, sink_t *sink) {
    source_t **heap = malloc((size_t)(n_src ? n_src : 1) * sizeof *heap);
    if (!heap) return WV_ERR_NOMEM;
    int n = 0, rc = WV_OK;
    for (int i = 0; i < n_src; i++) {
        int got = source_next(&src[i]);
        if (got < 0) { free(heap); return WV_ERR_IO; }
        if (got) heap[n++] = &src[i];
    }
    for (int i = n / 2 - 1; i >= 0; i--) heap_sift_down(heap, n, i);
    int have = 0;
    rec_t acc = {0, 0};
    while (n > 0) {
        source_t *top = heap[0];
        if (have && top->cur.key == acc.key) {
            acc.units += top->cur.units;
        } else {
            if (have && sink->emit(sink->ctx, &acc)) { rc = WV_ERR_IO; break; }
            acc = top->cur;
            have = 1;
        }
        int got = source_next(top);
        if (got < 0) { rc = WV_ERR_IO; break; }
        if (!got) heap[0] = heap[--n];
        heap_sift_down(heap, n, 0);
    }
    if (rc == WV_OK && have && sink->emit(sink->ctx, &acc)) rc = WV_ERR_IO;
    free(heap);
    return rc;
}

/* A source over records [lo, hi) of a run. */
static int init_run_source(source_t *s, const run_t *run, int64_t lo, int64_t hi) {
    memset(s, 0, sizeof *s);
    if (run->mem || !run->file) {
        s->kind = 0;
        s->mem = run->mem;
        s->pos = lo;
        s->n = hi;
        return 0;
    }
    s->kind = 1;
    s->file = run->file;
    s->next = lo;
    s->remaining = hi - lo;
    s->fbuf = malloc(FILE_BUFFER_RECORDS * sizeof(rec_t));
    return s->fbuf ? 0 : -1;
}

/* A source over the dense table's non-zero cells in rows [row, row_end). */
static void init_dense_source(source_t *s, const int64_t *dense, const dense_layout *layout, int32_t row,
                              int32_t row_end) {
    memset(s, 0, sizeof *s);
    s->kind = 2;
    s->dense = dense;
    s->layout = layout;
    if (row_end > layout->rows) row_end = layout->rows;
    s->row = row < row_end ? row : row_end;
    s->row_end = row_end;
    s->idx = layout->row_start[s->row];
}

static int init_sources(source_t *src, run_t *runs, int n) {
    for (int i = 0; i < n; i++)
        if (init_run_source(&src[i], &runs[i], 0, runs[i].n)) return -1;
    return 0;
}

static void free_sources(source_t *src, int n) {
    for (int i = 0; i < n; i++) free(src[i].fbuf);
}

/* ---- temporary files -------------------------------------------------------- */
static FILE *open_spill(const char *dir) {
    char path[4096];
    int len = snprintf(path, sizeof path, "%s/wv_cooccur_XXXXXX", dir ? dir : "/tmp");
    if (len < 0 || (size_t)len >= sizeof path) return NULL;
    int fd = mkstemp(path);
    if (fd < 0) return NULL;
    unlink(path); /* nothing can outlive the process, even a kill */
    FILE *f = fdopen(fd, "w+b");
    if (!f) close(fd);
    return f;
}

typedef struct {
    FILE *f;
    int64_t n;
} file_sink_ctx;

static int emit_file(void *ctx, const rec_t *r) {
    file_sink_ctx *c = ctx;
    if (fwrite(r, sizeof *r, 1, c->f) != 1) return -1;
    c->n++;
    return 0;
}

/* Merges runs[0..n) into one spilled run that replaces them. */
static int merge_to_file(run_t *runs, int n, const char *dir, run_t *out) {
    source_t *src = calloc((size_t)n, sizeof *src);
    if (!src) return WV_ERR_NOMEM;
    int rc = WV_OK;
    FILE *f = NULL;
    if (init_sources(src, runs, n)) rc = WV_ERR_NOMEM;
    if (rc == WV_OK && !(f = open_spill(dir))) rc = WV_ERR_IO;
    file_sink_ctx ctx = {f, 0};
    sink_t sink = {emit_file, &ctx};
    if (rc == WV_OK) rc = merge_sources(src, n, &sink);
    if (rc == WV_OK && fflush(f)) rc = WV_ERR_IO;
    free_sources(src, n);
    free(src);
    if (rc != WV_OK) {
        if (f) fclose(f);
        return rc;
    }
    for (int i = 0; i < n; i++) run_free(&runs[i]);
    out->mem = NULL;
    out->file = f;
    out->n = ctx.n;
    return WV_OK;
}

/* ---- per-thread counting ---------------------------------------------------- */
typedef struct {
    const wv_cooc_config *cfg;
    const int32_t *ids;
    int64_t begin, end;
    const dense_layout *layout;
    int64_t *dense;
    rec_t *buf;
    int64_t buf_len, buf_cap;
    run_list runs;
    size_t mem_runs_bytes, mem_runs_cap;
    int n_file_runs;
    int64_t spilled, merges;
    int error;
    wv_cooc_result *res;
    wv_flag *stop;
} counter_t;

/* ---- sorting a buffer: in-place MSD radix sort (American flag sort) -------- */
/* Keys are sorted as row << bits | col with bits = bits of the largest id,
 * which orders them as the full keys do, in 8-bit digits from the top. No
 * extra memory: qsort may take a copy of the buffer, which the memory
 * limit does not allow for. */
#define SORT_SMALL 24

static inline unsigned key_digit(uint64_t key, int bits, int shift) {
    uint64_t packed = (key >> 32) << bits | (key & 0xFFFFFFFFu);
    return (unsigned)(packed >> shift) & 0xFFu;
}

static void insertion_sort(rec_t *a, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        rec_t v = a[i];
        int64_t j = i;
        while (j > 0 && a[j - 1].key > v.key) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

static void flag_sort(rec_t *a, int64_t n, int bits, int shift) {
    if (n <= SORT_SMALL) {
        insertion_sort(a, n);
        return;
    }
    int64_t count[256] = {0}, head[256], end[256];
    for (int64_t i = 0; i < n; i++) count[key_digit(a[i].key, bits, shift)]++;
    int64_t at = 0;
    for (int d = 0; d < 256; d++) {
        head[d] = at;
        at += count[d];
        end[d] = at;
    }
    /* Each record displaced goes straight to the next free slot of its bucket. */
    for (int d = 0; d < 256; d++) {
        while (head[d] < end[d]) {
            rec_t v = a[head[d]];
            unsigned vd = key_digit(v.key, bits, shift);
            while (vd != (unsigned)d) {
                rec_t t = a[head[vd]];
                a[head[vd]++] = v;
                v = t;
                vd = key_digit(v.key, bits, shift);
            }
            a[head[d]++] = v;
        }
    }
    if (shift == 0) return;
    for (int d = 0; d < 256; d++)
        if (count[d] > 1) flag_sort(a + end[d] - count[d], count[d], bits, shift - 8);
}

/* Sorts records by key; every row and col is below vocab_size. */
static void sort_records(rec_t *a, int64_t n, int32_t vocab_size) {
    int bits = 1;
    while (bits < 31 && ((int64_t)1 << bits) < vocab_size) bits++;
    int top = (2 * bits - 1) / 8 * 8; /* shift of the digit holding the top bit */
    flag_sort(a, n, bits, top);
}

/* Spilled runs of this thread merged into one when there are too many. */
static int compact_file_runs(counter_t *c) {
    run_t *tmp = malloc((size_t)c->n_file_runs * sizeof *tmp);
    if (!tmp) return WV_ERR_NOMEM;
    int k = 0, j = 0;
    for (int i = 0; i < c->runs.n; i++) {
        if (c->runs.items[i].file) tmp[k++] = c->runs.items[i];
        else c->runs.items[j++] = c->runs.items[i];
    }
    run_t merged;
    int rc = merge_to_file(tmp, k, c->cfg->tmp_dir, &merged);
    if (rc != WV_OK) { /* put them back so they are freed */
        for (int i = 0; i < k; i++) c->runs.items[j++] = tmp[i];
        free(tmp);
        return rc;
    }
    free(tmp);
    c->runs.n = j;
    c->runs.items[c->runs.n++] = merged;
    c->n_file_runs = 1;
    c->merges++;
    return WV_OK;
}

/* Sorts the buffer, sums duplicates, and keeps it as a run (in memory while
 * the cap allows, else spilled). */
static int flush_buffer(counter_t *c) {
    if (c->buf_len == 0) return WV_OK;
    sort_records(c->buf, c->buf_len, c->cfg->vocab_size);
    int64_t m = 0;
    for (int64_t i = 0; i < c->buf_len; i++) {
        if (m && c->buf[m - 1].key == c->buf[i].key) c->buf[m - 1].units += c->buf[i].units;
        else c->buf[m++] = c->buf[i];
    }
    c->buf_len = 0;
    size_t bytes = (size_t)m * sizeof(rec_t);
    run_t run = {NULL, NULL, m};
    if (c->mem_runs_bytes + bytes <= c->mem_runs_cap) {
        run.mem = malloc(bytes);
        if (!run.mem) return WV_ERR_NOMEM;
        memcpy(run.mem, c->buf, bytes);
        c->mem_runs_bytes += bytes;
    } else {
        run.file = open_spill(c->cfg->tmp_dir);
        if (!run.file) return WV_ERR_IO;
        if (fwrite(c->buf, sizeof(rec_t), (size_t)m, run.file) != (size_t)m || fflush(run.file)) {
            fclose(run.file);
            return WV_ERR_IO;
        }
        c->spilled++;
        c->n_file_runs++;
    }
    if (runs_push(&c->runs, run)) {
        run_free(&run);
        return WV_ERR_NOMEM;
    }
    if (c->n_file_runs >= WV_COOC_FAN_IN) return compact_file_runs(c);
    return WV_OK;
}

static inline int add_pair(counter_t *c, int32_t a, int32_t b, int64_t units) {
    int32_t lo = a < b ? a : b, hi = a < b ? b : a;
    const dense_layout *d = c->layout;
    if (lo < d->rows) {
        int64_t off = hi - lo;
        if (off < d->row_start[lo + 1] - d->row_start[lo]) {
            c->dense[d->row_start[lo] + off] += units;
            return WV_OK;
        }
    }
    c->buf[c->buf_len].key = make_key(lo, hi);
    c->buf[c->buf_len].units = units;
    if (++c->buf_len == c->buf_cap) return flush_buffer(c);
    return WV_OK;
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

static void *count_shard(void *arg) {
    counter_t *c = arg;
    const int32_t *ids = c->ids;
    const int window = c->cfg->window;
    const int64_t unit = c->res->unit;
    const int dw = c->cfg->distance_weighting;
    int64_t units[64 + 1];
    for (int d = 1; d <= window && d <= 64; d++) units[d] = units_at(unit, d, dw);
    int64_t since = 0;
    for (int64_t j = c->begin; j < c->end && !c->error; j++) {
        if (++since == PROGRESS_STEP) {
            atomic_fetch_add_explicit(&c->res->positions_done, since, memory_order_relaxed);
            since = 0;
            if (c->stop && atomic_load_explicit(c->stop, memory_order_relaxed)) {
                c->error = WV_ERR_STOPPED;
                break;
            }
        }
        int32_t w2 = ids[j];
        if (w2 < 0) continue;
        /* left context only, never across a sentence end (cooccur.c) */
        for (int d = 1; d <= window; d++) {
            int64_t k = j - d;
            if (k < 0 || ids[k] < 0) break;
            int rc = add_pair(c, ids[k], w2, d <= 64 ? units[d] : units_at(unit, d, dw));
            if (rc) { c->error = rc; break; }
        }
    }
    atomic_fetch_add_explicit(&c->res->positions_done, since, memory_order_relaxed);
    if (!c->error) c->error = flush_buffer(c);
    return NULL;
}

/* ---- output: the last merge, split by rows over the threads ------------------ */
static int emit_part(void *ctx, const rec_t *rec) {
    wv_cooc_part *p = ctx;
    if (p->n == p->cap) {
        int64_t cap = p->cap ? p->cap + p->cap / 2 : 1 << 16;
        int32_t *rows = realloc(p->rows, (size_t)cap * sizeof *rows);
        if (rows) p->rows = rows;
        int32_t *cols = realloc(p->cols, (size_t)cap * sizeof *cols);
        if (cols) p->cols = cols;
        int64_t *units = realloc(p->units, (size_t)cap * sizeof *units);
        if (units) p->units = units;
        if (!rows || !cols || !units) return -1;
        p->cap = cap;
    }
    p->rows[p->n] = (int32_t)(rec->key >> 32);
    p->cols[p->n] = (int32_t)(rec->key & 0xFFFFFFFFu);
    p->units[p->n] = rec->units;
    p->n++;
    return 0;
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

typedef struct {
    run_t *runs;
    int n_runs;
    const int64_t *dense;
    const dense_layout *layout;
    int32_t row_begin, row_end;
    wv_cooc_part *part;
    int rc;
} part_merge;

/* Merges rows [row_begin, row_end) of every run and of the dense table. */
static void *merge_part(void *arg) {
    part_merge *m = arg;
    source_t *src = calloc((size_t)m->n_runs + 1, sizeof *src);
    if (!src) {
        m->rc = WV_ERR_NOMEM;
        return NULL;
    }
    int rc = WV_OK;
    int64_t most = 0; /* records the part can have: what its sources hold */
    for (int i = 0; i < m->n_runs && rc == WV_OK; i++) {
        int64_t lo, hi;
        if (run_lower_bound(&m->runs[i], make_key(m->row_begin, 0), &lo) ||
            run_lower_bound(&m->runs[i], make_key(m->row_end, 0), &hi))
            rc = WV_ERR_IO;
        else if (init_run_source(&src[i], &m->runs[i], lo, hi))
            rc = WV_ERR_NOMEM;
        else
            most += hi - lo;
    }
    if (rc == WV_OK) {
        init_dense_source(&src[m->n_runs], m->dense, m->layout, m->row_begin, m->row_end);
        most += m->layout->row_start[src[m->n_runs].row_end] - m->layout->row_start[src[m->n_runs].row];
        part_reserve(m->part, most);
        sink_t sink = {emit_part, m->part};
        rc = merge_sources(src, m->n_runs + 1, &sink);
        if (rc == WV_ERR_IO && m->part->cap == m->part->n) rc = WV_ERR_NOMEM; /* the sink failed to grow */
    }
    free_sources(src, m->n_runs);
    free(src);
    m->rc = rc;
    return NULL;
}

/* Records before row `row` in the runs and cells before it in the dense
 * table: an upper bound on the merged output before that row. */
static int input_before(const run_t *runs, int n_runs, const dense_layout *layout, int32_t row, int64_t *count) {
    int64_t total = layout->row_start[row < layout->rows ? row : layout->rows];
    for (int i = 0; i < n_runs; i++) {
        int64_t at;
        if (run_lower_bound(&runs[i], make_key(row, 0), &at)) return -1;
        total += at;
    }
    *count = total;
    return 0;
}

/* Row bounds[t] .. bounds[t + 1] for part t, so that parts get equal input. */
static int split_rows(const run_t *runs, int n_runs, const dense_layout *layout, int32_t V, int T,
                      int32_t *bounds) {
    int64_t total;
    if (input_before(runs, n_runs, layout, V, &total)) return -1;
    bounds[0] = 0;
    bounds[T] = V;
    for (int t = 1; t < T; t++) {
        int64_t target = total / T * t + total % T * t / T;
        int32_t lo = bounds[t - 1], hi = V; /* first row whose input before it reaches target */
        while (lo < hi) {
            int32_t mid = lo + (hi - lo) / 2;
            int64_t c;
            if (input_before(runs, n_runs, layout, mid, &c)) return -1;
            if (c < target) lo = mid + 1;
            else hi = mid;
        }
        bounds[t] = lo;
    }
    return 0;
}

/* The last merge: T parts merged at once, each on its own thread. */
static int merge_parts(run_t *runs, int n_runs, const int64_t *dense, const dense_layout *layout, int32_t V,
                       int T, wv_cooc_result *out) {
    out->parts = calloc((size_t)T, sizeof *out->parts);
    part_merge *jobs = calloc((size_t)T, sizeof *jobs);
    int32_t *bounds = malloc((size_t)(T + 1) * sizeof *bounds);
    int rc = out->parts && jobs && bounds ? WV_OK : WV_ERR_NOMEM;
    if (out->parts) out->n_parts = T;
    if (rc == WV_OK && split_rows(runs, n_runs, layout, V, T, bounds)) rc = WV_ERR_IO;
    if (rc == WV_OK) {
        for (int t = 0; t < T; t++)
            jobs[t] = (part_merge){runs, n_runs, dense, layout, bounds[t], bounds[t + 1], &out->parts[t], 0};
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
    out->unit = unit_for(cfg->window, cfg->distance_weighting);
    atomic_store(&out->positions_done, 0);
    /* Asked to stop before starting (Ctrl-C while the caller's thread was
     * being started): touch nothing, so that nothing is left behind. */
    if (stop && atomic_load(stop)) return WV_ERR_STOPPED;
    int T = cfg->threads > 0 ? cfg->threads : 1;
    if (n_ids < (int64_t)T * 1024) T = 1;
    /* Budget per thread: half dense table, a quarter record buffer, a
     * quarter runs kept in memory; past that, runs spill to disk. */
    size_t per_thread = cfg->memory_limit / (size_t)T;
    int64_t buf_cap = (int64_t)(per_thread / 4 / sizeof(rec_t));
    if (buf_cap < WV_COOC_MIN_BUFFER_RECORDS) return WV_ERR_MEMORY_LIMIT;
    int64_t max_cells = (int64_t)(per_thread / 2 / sizeof(int64_t));

    dense_layout layout;
    if (dense_layout_make(&layout, cfg->vocab_size, max_cells)) return WV_ERR_NOMEM;
    out->dense_cells = layout.cells;

    counter_t *cs = calloc((size_t)T, sizeof *cs);
    if (!cs) { free(layout.row_start); return WV_ERR_NOMEM; }
    int rc = WV_OK;
    for (int t = 0; t < T && rc == WV_OK; t++) {
        counter_t *c = &cs[t];
        c->cfg = cfg;
        c->ids = ids;
        c->begin = n_ids * t / T;
        c->end = n_ids * (t + 1) / T;
        c->layout = &layout;
        c->dense = calloc((size_t)(layout.cells ? layout.cells : 1), sizeof *c->dense);
        c->buf_cap = buf_cap;
        c->buf = malloc((size_t)buf_cap * sizeof *c->buf);
        c->mem_runs_cap = per_thread / 4;
        c->res = out;
        c->stop = stop;
        if (!c->dense || !c->buf) rc = WV_ERR_NOMEM;
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
    /* Buffers are no longer needed; sum the dense tables into the first. */
    for (int t = 0; t < T; t++) {
        free(cs[t].buf);
        cs[t].buf = NULL;
        out->spilled_runs += cs[t].spilled;
        out->merge_passes += cs[t].merges;
        if (t > 0 && cs[t].dense) {
            if (rc == WV_OK)
                for (int64_t k = 0; k < layout.cells; k++) cs[0].dense[k] += cs[t].dense[k];
            free(cs[t].dense);
            cs[t].dense = NULL;
        }
    }
    run_list all = {NULL, 0, 0};
    for (int t = 0; t < T; t++) {
        for (int i = 0; i < cs[t].runs.n; i++) {
            if (rc == WV_OK && runs_push(&all, cs[t].runs.items[i])) rc = WV_ERR_NOMEM;
            if (rc != WV_OK) run_free(&cs[t].runs.items[i]);
        }
        free(cs[t].runs.items);
    }
    /* Bounded fan-in: merge groups until one final merge can take them all. */
    while (rc == WV_OK && all.n > WV_COOC_FAN_IN) {
        run_t merged;
        rc = merge_to_file(all.items, WV_COOC_FAN_IN, cfg->tmp_dir, &merged);
        if (rc != WV_OK) break;
        memmove(all.items, all.items + WV_COOC_FAN_IN, (size_t)(all.n - WV_COOC_FAN_IN) * sizeof *all.items);
        all.n -= WV_COOC_FAN_IN;
        all.items[all.n++] = merged;
        out->merge_passes++;
        if (stop && atomic_load(stop)) rc = WV_ERR_STOPPED;
    }
    if (rc == WV_OK) rc = merge_parts(all.items, all.n, cs[0].dense, &layout, cfg->vocab_size, T, out);
    for (int i = 0; i < all.n; i++) run_free(&all.items[i]);
    free(all.items);
    if (T > 0) free(cs[0].dense);
    free(cs);
    free(layout.row_start);
    if (rc != WV_OK) wv_cooc_free(out);
    return rc;
}
