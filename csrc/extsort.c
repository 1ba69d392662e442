#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, pread */

#include "extsort.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "memory.h"

#define FILE_BUFFER_RECORDS 8192 /* records read from a spilled run at once */

/* ---- runs ------------------------------------------------------------------ */
static wv_status runs_push(wv_xruns *l, wv_xrun r) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        wv_xrun *p = realloc(l->items, (size_t)cap * sizeof *p);
        if (!p) return WV_ERR_NOMEM;
        l->items = p;
        l->cap = cap;
    }
    l->items[l->n++] = r;
    return WV_OK;
}

static void run_free(wv_xrun *r) {
    free(r->mem);
    if (r->file) fclose(r->file); /* unlinked at creation: closing deletes it */
    r->mem = NULL;
    r->file = NULL;
}

void wv_xruns_free(wv_xruns *runs) {
    for (int i = 0; i < runs->n; i++) run_free(&runs->items[i]);
    free(runs->items);
    runs->items = NULL;
    runs->n = runs->cap = 0;
}

wv_status wv_xruns_take(wv_xruns *into, wv_xruns *from) {
    wv_status rc = WV_OK;
    for (int i = 0; i < from->n; i++) {
        if (rc == WV_OK) rc = runs_push(into, from->items[i]);
        if (rc != WV_OK) run_free(&from->items[i]);
    }
    free(from->items);
    from->items = NULL;
    from->n = from->cap = 0;
    return rc;
}

/* Reads records [first, first + n) of a spilled run; pread keeps no shared
 * file position, so threads can read one file at different places. */
static wv_status read_records(FILE *f, wv_xrec *buf, int64_t n, int64_t first) {
    int err = wv_pread_all(fileno(f), buf, (size_t)n * sizeof(wv_xrec), (off_t)first * (off_t)sizeof(wv_xrec));
    return err ? WV_ERR_IO : WV_OK;
}

static wv_status run_key_at(const wv_xrun *r, int64_t i, uint64_t *key) {
    if (!r->file) {
        *key = r->mem[i].key;
        return WV_OK;
    }
    wv_xrec rec;
    wv_status rc = read_records(r->file, &rec, 1, i);
    *key = rec.key;
    return rc;
}

/* Index of the first record of the run with key >= key (binary search). */
static wv_status run_lower_bound(const wv_xrun *r, uint64_t key, int64_t *at) {
    int64_t lo = 0, hi = r->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        if (run_key_at(r, mid, &k)) return WV_ERR_IO;
        if (k < key) lo = mid + 1;
        else hi = mid;
    }
    *at = lo;
    return WV_OK;
}

wv_status wv_xruns_count_below(const wv_xruns *runs, uint64_t key, int64_t *count) {
    int64_t total = 0;
    for (int i = 0; i < runs->n; i++) {
        int64_t at;
        if (run_lower_bound(&runs->items[i], key, &at)) return WV_ERR_IO;
        total += at;
    }
    *count = total;
    return WV_OK;
}

static FILE *open_spill(const char *dir) {
    char path[4096];
    int len = snprintf(path, sizeof path, "%s/wv_extsort_XXXXXX", dir ? dir : "/tmp");
    if (len < 0 || (size_t)len >= sizeof path) return NULL;
    int fd = mkstemp(path);
    if (fd < 0) return NULL;
    unlink(path); /* nothing can outlive the process, even a kill */
    FILE *f = fdopen(fd, "w+b");
    if (!f) close(fd);
    return f;
}

/* ---- the k-way merge ---------------------------------------------------------- */
typedef struct {
    const wv_xrun *run;        /* NULL: the extra source */
    const wv_xsource *extra;
    int64_t pos, end;          /* records [pos, end) of the run still to read */
    wv_xrec *fbuf;             /* a spilled run's read buffer */
    int64_t fbuf_len, fbuf_pos;
    wv_xrec cur;
} source_t;

/* Loads the next record into s->cur: 1, 0 when exhausted, -1 on a read error. */
static int source_next(source_t *s) {
    if (!s->run) return s->extra->next(s->extra->ctx, &s->cur);
    if (!s->run->file) {
        if (s->pos >= s->end) return 0;
        s->cur = s->run->mem[s->pos++];
        return 1;
    }
    if (s->fbuf_pos == s->fbuf_len) {
        if (s->pos >= s->end) return 0;
        int64_t want = s->end - s->pos < FILE_BUFFER_RECORDS ? s->end - s->pos : FILE_BUFFER_RECORDS;
        if (read_records(s->run->file, s->fbuf, want, s->pos)) return -1;
        s->pos += want;
        s->fbuf_len = want;
        s->fbuf_pos = 0;
    }
    s->cur = s->fbuf[s->fbuf_pos++];
    return 1;
}

/* A source over records [lo, hi) of a run. */
static wv_status init_run_source(source_t *s, const wv_xrun *run, int64_t lo, int64_t hi) {
    memset(s, 0, sizeof *s);
    s->run = run;
    s->pos = lo;
    s->end = hi;
    if (!run->file) return WV_OK;
    s->fbuf = malloc(FILE_BUFFER_RECORDS * sizeof(wv_xrec));
    return s->fbuf ? WV_OK : WV_ERR_NOMEM;
}

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

/* Merges the sources, summing equal keys, into emit. */
static wv_status merge_sources(source_t *src, int n_src, wv_xemit emit, void *ctx) {
    source_t **heap = malloc((size_t)(n_src ? n_src : 1) * sizeof *heap);
    if (!heap) return WV_ERR_NOMEM;
    int n = 0;
    wv_status rc = WV_OK;
    for (int i = 0; i < n_src; i++) {
        int got = source_next(&src[i]);
        if (got < 0) { free(heap); return WV_ERR_IO; }
        if (got) heap[n++] = &src[i];
    }
    for (int i = n / 2 - 1; i >= 0; i--) heap_sift_down(heap, n, i);
    int have = 0;
    wv_xrec acc = {0, 0};
    while (n > 0) {
        source_t *top = heap[0];
        if (have && top->cur.key == acc.key) {
            acc.value += top->cur.value;
        } else {
            if (have && (rc = emit(ctx, &acc)) != WV_OK) break;
            acc = top->cur;
            have = 1;
        }
        int got = source_next(top);
        if (got < 0) { rc = WV_ERR_IO; break; }
        if (!got) heap[0] = heap[--n];
        heap_sift_down(heap, n, 0);
    }
    if (rc == WV_OK && have) rc = emit(ctx, &acc);
    free(heap);
    return rc;
}

static void free_sources(source_t *src, int n) {
    for (int i = 0; i < n; i++) free(src[i].fbuf);
}

wv_status wv_xruns_merge_range(const wv_xruns *runs, uint64_t lo, uint64_t hi, const wv_xsource *extra,
                               wv_xemit emit, void *ctx) {
    source_t *src = calloc((size_t)runs->n + 1, sizeof *src);
    if (!src) return WV_ERR_NOMEM;
    wv_status rc = WV_OK;
    int n = 0;
    for (; n < runs->n && rc == WV_OK; n++) {
        int64_t from = 0, to = 0;
        rc = run_lower_bound(&runs->items[n], lo, &from);
        if (rc == WV_OK) rc = run_lower_bound(&runs->items[n], hi, &to);
        if (rc == WV_OK) rc = init_run_source(&src[n], &runs->items[n], from, to);
    }
    if (rc == WV_OK && extra) src[n++] = (source_t){.extra = extra};
    if (rc == WV_OK) rc = merge_sources(src, n, emit, ctx);
    free_sources(src, n);
    free(src);
    return rc;
}

/* ---- merging runs into a spilled run ----------------------------------------- */
typedef struct {
    FILE *f;
    int64_t n;
} file_sink;

static wv_status emit_file(void *ctx, const wv_xrec *r) {
    file_sink *c = ctx;
    if (fwrite(r, sizeof *r, 1, c->f) != 1) return WV_ERR_IO;
    c->n++;
    return WV_OK;
}

/* Merges runs[0..n) into one spilled run that replaces them (they are
 * freed; on failure they are left as they were). */
static wv_status merge_to_file(wv_xrun *runs, int n, const char *dir, wv_xrun *out) {
    wv_xruns list = {runs, n, n};
    file_sink sink = {open_spill(dir), 0};
    if (!sink.f) return WV_ERR_IO;
    wv_status rc = wv_xruns_merge_range(&list, 0, UINT64_MAX, NULL, emit_file, &sink);
    if (rc == WV_OK && fflush(sink.f)) rc = WV_ERR_IO;
    if (rc != WV_OK) {
        fclose(sink.f);
        return rc;
    }
    for (int i = 0; i < n; i++) run_free(&runs[i]);
    *out = (wv_xrun){NULL, sink.f, sink.n};
    return WV_OK;
}

wv_status wv_xruns_reduce(wv_xruns *runs, const char *tmp_dir, int64_t *merges, _Atomic int *stop) {
    while (runs->n > WV_XSORT_FAN_IN) {
        wv_xrun merged;
        wv_status rc = merge_to_file(runs->items, WV_XSORT_FAN_IN, tmp_dir, &merged);
        if (rc != WV_OK) return rc;
        memmove(runs->items, runs->items + WV_XSORT_FAN_IN, (size_t)(runs->n - WV_XSORT_FAN_IN) * sizeof *runs->items);
        runs->n -= WV_XSORT_FAN_IN;
        runs->items[runs->n++] = merged;
        (*merges)++;
        if (stop && atomic_load(stop)) return WV_ERR_STOPPED;
    }
    return WV_OK;
}

/* ---- sorting a buffer: in-place MSD radix sort (American flag sort) -------- */
/* Keys are sorted as hi << bits | lo with bits = bits of the largest half,
 * which orders them as the full keys do, in 8-bit digits from the top. No
 * extra memory: qsort may take a copy of the buffer, which the memory cap
 * does not allow for. */
#define SORT_SMALL 24

static inline unsigned key_digit(uint64_t key, int bits, int shift) {
    uint64_t packed = (key >> 32) << bits | (key & 0xFFFFFFFFu);
    return (unsigned)(packed >> shift) & 0xFFu;
}

static void insertion_sort(wv_xrec *a, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        wv_xrec v = a[i];
        int64_t j = i;
        while (j > 0 && a[j - 1].key > v.key) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

static void flag_sort(wv_xrec *a, int64_t n, int bits, int shift) {
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
            wv_xrec v = a[head[d]];
            unsigned vd = key_digit(v.key, bits, shift);
            while (vd != (unsigned)d) {
                wv_xrec t = a[head[vd]];
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

/* Sorts records by key; both halves of every key are below 2^bits. */
static void sort_records(wv_xrec *a, int64_t n, int bits) {
    int top = (2 * bits - 1) / 8 * 8; /* shift of the digit holding the top bit */
    flag_sort(a, n, bits, top);
}

/* Packed records sorted by their bits [low, top) in digits from the top, as
 * flag_sort does, wider digits while many records are left. Each level's
 * bucket counts are in `scratch` (PACKED_SCRATCH per level), not on the
 * stack, which may be small on a thread the caller started. */
#define PACKED_WIDE_MIN (1 << 16)
#define PACKED_WIDE_BITS 10
#define PACKED_SCRATCH (3 << PACKED_WIDE_BITS)

static void insertion_sort_packed(uint64_t *a, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        uint64_t v = a[i];
        int64_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

static void packed_sort(uint64_t *a, int64_t n, int top, int low, int64_t *scratch) {
    if (n <= SORT_SMALL) {
        insertion_sort_packed(a, n);
        return;
    }
    int width = n >= PACKED_WIDE_MIN ? PACKED_WIDE_BITS : 8;
    int shift = top - width > 0 ? top - width : 0;
    unsigned mask = (1u << width) - 1, buckets = mask + 1;
    int64_t *count = scratch, *head = count + buckets, *end = head + buckets;
    memset(count, 0, buckets * sizeof *count);
    for (int64_t i = 0; i < n; i++) count[(a[i] >> shift) & mask]++;
    int64_t at = 0;
    for (unsigned d = 0; d < buckets; d++) {
        head[d] = at;
        at += count[d];
        end[d] = at;
    }
    for (unsigned d = 0; d < buckets; d++) {
        while (head[d] < end[d]) {
            uint64_t v = a[head[d]];
            unsigned vd = (unsigned)(v >> shift) & mask;
            while (vd != d) {
                uint64_t t = a[head[vd]];
                a[head[vd]++] = v;
                v = t;
                vd = (unsigned)(v >> shift) & mask;
            }
            a[head[d]++] = v;
        }
    }
    if (shift <= low) return;
    for (unsigned d = 0; d < buckets; d++)
        if (count[d] > 1) packed_sort(a + end[d] - count[d], count[d], shift, low, scratch + PACKED_SCRATCH);
}

/* Sorts packed records by key: bits [value_bits, 2 key_bits + value_bits). */
static wv_status sort_packed(const wv_xsort *s) {
    int top = 2 * s->key_bits + s->value_bits, levels = (top - s->value_bits + 7) / 8 + 1;
    int64_t *scratch = malloc((size_t)levels * PACKED_SCRATCH * sizeof *scratch);
    if (!scratch) return WV_ERR_NOMEM;
    packed_sort(s->packed, s->packed_len, top, s->value_bits, scratch);
    free(scratch);
    return WV_OK;
}

/* ---- a sorter ----------------------------------------------------------------- */
/* Records packed into 8 bytes when 2 key halves and the value fit, a
 * 64th of the memory then kept for those that do not. */
#define UNPACKED_SHARE 64

wv_status wv_xsort_init(wv_xsort *s, int64_t buf_records, size_t mem_cap, int32_t key_limit, int64_t max_value,
                        const char *tmp_dir) {
    memset(s, 0, sizeof *s);
    s->mem_cap = mem_cap;
    s->tmp_dir = tmp_dir;
    s->packed_max = -1;
    if (buf_records < 1) buf_records = 1;
    int bits = 1, vbits = 1;
    while (bits < 31 && ((int64_t)1 << bits) < key_limit) bits++;
    while (vbits < 62 && ((int64_t)1 << vbits) <= max_value) vbits++;
    s->key_bits = bits;
    s->value_bits = vbits;
    if (max_value > 0 && 2 * bits + vbits <= 64 && buf_records >= 2 * UNPACKED_SHARE) {
        s->cap = buf_records / UNPACKED_SHARE;
        s->packed_cap = 2 * (buf_records - s->cap);
        s->packed = malloc((size_t)s->packed_cap * sizeof *s->packed);
        if (!s->packed) return WV_ERR_NOMEM;
        wv_advise_huge(s->packed, (size_t)s->packed_cap * sizeof *s->packed);
        s->packed_max = max_value;
    } else {
        s->cap = buf_records;
    }
    s->buf = malloc((size_t)s->cap * sizeof *s->buf);
    return s->buf ? WV_OK : WV_ERR_NOMEM;
}

void wv_xsort_free_buffer(wv_xsort *s) {
    free(s->buf);
    free(s->packed);
    s->buf = NULL;
    s->packed = NULL;
    s->len = s->cap = 0;
    s->packed_len = s->packed_cap = 0;
    s->packed_max = -1;
}

void wv_xsort_free(wv_xsort *s) {
    wv_xsort_free_buffer(s);
    wv_xruns_free(&s->runs);
}

/* This sorter's spilled runs merged into one. */
static wv_status compact_file_runs(wv_xsort *s) {
    wv_xrun *tmp = malloc((size_t)s->n_file_runs * sizeof *tmp);
    if (!tmp) return WV_ERR_NOMEM;
    int k = 0, j = 0;
    for (int i = 0; i < s->runs.n; i++) {
        if (s->runs.items[i].file) tmp[k++] = s->runs.items[i];
        else s->runs.items[j++] = s->runs.items[i];
    }
    wv_xrun merged;
    wv_status rc = merge_to_file(tmp, k, s->tmp_dir, &merged);
    if (rc != WV_OK) { /* put them back so they are freed */
        for (int i = 0; i < k; i++) s->runs.items[j++] = tmp[i];
        free(tmp);
        return rc;
    }
    free(tmp);
    s->runs.n = j;
    s->runs.items[s->runs.n++] = merged;
    s->n_file_runs = 1;
    s->merges++;
    return WV_OK;
}

/* The records of the sorted buffers in key order, equal keys summed. */
typedef struct {
    const wv_xsort *s;
    int64_t i, j;     /* next packed record, next unpacked one */
    int64_t n_packed; /* the packed records walked: all, or none */
} buffer_walk;

static inline uint64_t packed_key(const wv_xsort *s, uint64_t p) {
    uint64_t k = p >> s->value_bits;
    return (k >> s->key_bits) << 32 | (k & (((uint64_t)1 << s->key_bits) - 1));
}

/* Stores the next record in *out: 1, or 0 at the end. */
static int walk_next(buffer_walk *w, wv_xrec *out) {
    const wv_xsort *s = w->s;
    const uint64_t value_mask = ((uint64_t)1 << s->value_bits) - 1;
    int have = 0;
    for (;;) {
        int packed;
        uint64_t key;
        if (w->i < w->n_packed) {
            key = packed_key(s, s->packed[w->i]);
            packed = w->j >= s->len || key <= s->buf[w->j].key;
            if (!packed) key = s->buf[w->j].key;
        } else if (w->j < s->len) {
            key = s->buf[w->j].key;
            packed = 0;
        } else {
            return have;
        }
        if (have && key != out->key) return 1;
        int64_t value = packed ? (int64_t)(s->packed[w->i++] & value_mask) : s->buf[w->j++].value;
        if (have) {
            out->value += value;
        } else {
            out->key = key;
            out->value = value;
            have = 1;
        }
    }
}

/* At most the records the walk makes: the distinct keys of each buffer. */
static int64_t walk_bound(const wv_xsort *s, int64_t n_packed) {
    int64_t m = 0;
    for (int64_t i = 0; i < n_packed; i++)
        m += i == 0 || s->packed[i] >> s->value_bits != s->packed[i - 1] >> s->value_bits;
    for (int64_t j = 0; j < s->len; j++) m += j == 0 || s->buf[j].key != s->buf[j - 1].key;
    return m;
}

/* The walk into a new spilled run. */
static wv_status spill_walk(wv_xsort *s, buffer_walk *w, wv_xrun *run) {
    run->file = open_spill(s->tmp_dir);
    if (!run->file) return WV_ERR_IO;
    wv_xrec chunk[512];
    size_t k = 0;
    int more = 1;
    while (more) {
        more = walk_next(w, &chunk[k]);
        k += (size_t)more;
        if (k == sizeof chunk / sizeof *chunk || (!more && k)) {
            if (fwrite(chunk, sizeof *chunk, k, run->file) != k) return WV_ERR_IO;
            run->n += (int64_t)k;
            k = 0;
        }
    }
    if (fflush(run->file)) return WV_ERR_IO;
    s->spilled++;
    s->n_file_runs++;
    return WV_OK;
}

/* Sorts the 16-byte buffer, and the packed one too with `packed`, into a run. */
static wv_status flush_buffers(wv_xsort *s, int packed) {
    int64_t n_packed = packed ? s->packed_len : 0;
    if (s->len == 0 && n_packed == 0) return WV_OK;
    if (n_packed && sort_packed(s) != WV_OK) return WV_ERR_NOMEM;
    if (s->len) sort_records(s->buf, s->len, s->key_bits);
    int64_t most = walk_bound(s, n_packed);
    buffer_walk w = {s, 0, 0, n_packed};
    wv_xrun run = {NULL, NULL, 0};
    wv_status rc = WV_OK;
    if (s->mem_bytes + (size_t)most * sizeof(wv_xrec) <= s->mem_cap) {
        run.mem = malloc((size_t)most * sizeof *run.mem);
        if (!run.mem) return WV_ERR_NOMEM;
        wv_advise_huge(run.mem, (size_t)most * sizeof *run.mem);
        while (walk_next(&w, &run.mem[run.n])) run.n++;
        s->mem_bytes += (size_t)run.n * sizeof(wv_xrec);
    } else {
        rc = spill_walk(s, &w, &run);
    }
    s->len = 0;
    if (packed) s->packed_len = 0;
    if (rc != WV_OK) {
        run_free(&run);
        return rc;
    }
    if (runs_push(&s->runs, run)) {
        run_free(&run);
        return WV_ERR_NOMEM;
    }
    if (s->n_file_runs >= WV_XSORT_FAN_IN) return compact_file_runs(s);
    return WV_OK;
}

wv_status wv_xsort_flush(wv_xsort *s) { return flush_buffers(s, 1); }

/* The 16-byte buffer alone is full (records that do not pack are few, but
 * may come in bursts): it becomes a run of its own, and the packed buffer
 * goes on filling. */
wv_status wv_xsort_flush_unpacked(wv_xsort *s) { return flush_buffers(s, s->packed_max < 0); }
