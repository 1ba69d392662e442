#include "vecfile.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"

#define WV_VF_MAX_THREADS 256

static inline int is_space(uint8_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == 0x0c;
}

static inline int is_field_space(uint8_t c) { /* whitespace within a line */
    return c == ' ' || c == '\t' || c == '\r' || c == 0x0b || c == 0x0c;
}

static float row_norm(const float *row, int64_t dim) {
    /* eight float sums side by side (one vector register; the copy this
     * rides on is memory-bound) and, where a huge value overflows them,
     * again in double, which no float row's squares can overflow */
    float lane[8] = {0};
    int64_t k = 0;
    for (; k + 8 <= dim; k += 8)
        for (int l = 0; l < 8; l++) lane[l] += row[k + l] * row[k + l];
    float f = 0.0f;
    for (int l = 0; l < 8; l++) f += lane[l];
    for (; k < dim; k++) f += row[k] * row[k];
    if (isfinite(f)) return sqrtf(f);
    double s = 0.0;
    for (k = 0; k < dim; k++) s += (double)row[k] * (double)row[k];
    return (float)sqrt(s);
}

/* Splits [0, n) into `threads` ranges: the i-th. */
static void share(int64_t n, int threads, int i, int64_t *lo, int64_t *hi) {
    *lo = n * i / threads;
    *hi = n * (i + 1) / threads;
}

static int clamp_threads(int threads, int64_t work) {
    if (threads > WV_VF_MAX_THREADS) threads = WV_VF_MAX_THREADS;
    if ((int64_t)threads > work) threads = (int)work;
    return threads < 1 ? 1 : threads;
}

/* ------------------------------------------------------------------ binary */

int64_t wv_vf_nul_entries(const uint8_t *buf, int64_t len, int64_t pos, int64_t n, int64_t *word_at,
                          int64_t *word_len, int64_t *count, int8_t *type) {
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *nul = pos < len ? memchr(buf + pos, 0, (size_t)(len - pos)) : NULL;
        if (!nul) return i;
        int64_t wl = (int64_t)(nul - (buf + pos));
        if (len - (pos + wl + 1) < 9) return i;
        word_at[i] = pos;
        word_len[i] = wl;
        uint64_t c = 0;
        for (int b = 7; b >= 0; b--) c = c << 8 | buf[pos + wl + 1 + b]; /* little-endian, at any alignment */
        count[i] = (int64_t)c;
        type[i] = (int8_t)buf[pos + wl + 9];
        pos += wl + 10;
    }
    return n;
}

int64_t wv_vf_binary_scan(const uint8_t *buf, int64_t len, int64_t pos, int64_t n, int64_t dim,
                          int64_t max_word, int64_t *word_at, int64_t *word_len, wv_vf_error *err) {
    const int64_t stride = 4 * dim;
    err->problem = WV_VF_OK;
    for (int64_t i = 0; i < n; i++) {
        while (pos < len && buf[pos] == '\n') pos++;
        int64_t look = len - pos < max_word + 1 ? len - pos : max_word + 1;
        const uint8_t *sp = look > 0 ? memchr(buf + pos, ' ', (size_t)look) : NULL;
        if (!sp) {
            *err = (wv_vf_error){look > max_word ? WV_VF_NO_SPACE : WV_VF_TRUNCATED, i, pos, 0};
            return i;
        }
        int64_t wl = (int64_t)(sp - (buf + pos));
        if (wl == 0) {
            *err = (wv_vf_error){WV_VF_EMPTY_WORD, i, pos, 0};
            return i;
        }
        if (memchr(buf + pos, 0, (size_t)wl)) {
            *err = (wv_vf_error){WV_VF_NUL_WORD, i, pos, 0};
            return i;
        }
        if (len - (pos + wl + 1) < stride) {
            *err = (wv_vf_error){WV_VF_TRUNCATED, i, pos, 0};
            return i;
        }
        word_at[i] = pos;
        word_len[i] = wl;
        pos += wl + 1 + stride;
        /* Each entry's word is a cache miss that the next one's place waits on: ask
         * for where the entries a few ahead should begin (words differ in length
         * by a few bytes, so a line and the next cover it) while this one is read. */
        int64_t ahead = pos + 8 * (wl + 1 + stride);
        if (ahead + 64 < len) {
            __builtin_prefetch(buf + ahead);
            __builtin_prefetch(buf + ahead + 64);
        }
    }
    return n;
}

typedef struct {
    const uint8_t *buf;
    const int64_t *word_at, *word_len;
    int64_t lo, hi, dim;
    float *out, *norms;
    int64_t bad;
} binary_job;

static void *binary_rows_part(void *p) {
    binary_job *j = p;
    j->bad = -1;
    for (int64_t i = j->lo; i < j->hi; i++) {
        float *row = j->out + i * j->dim;
        memcpy(row, j->buf + j->word_at[i] + j->word_len[i] + 1, (size_t)(4 * j->dim));
        float norm = row_norm(row, j->dim);
        j->norms[i] = norm;
        if (!isfinite(norm) && j->bad < 0) j->bad = i; /* any inf or nan reaches the sum */
    }
    return NULL;
}

int64_t wv_vf_binary_rows(const uint8_t *buf, const int64_t *word_at, const int64_t *word_len, int64_t n,
                          int64_t dim, float *out, float *norms, int threads) {
    threads = clamp_threads(threads, n);
    binary_job jobs[WV_VF_MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        jobs[t] = (binary_job){buf, word_at, word_len, 0, 0, dim, out, norms, -1};
        share(n, threads, t, &jobs[t].lo, &jobs[t].hi);
    }
    wv_threads_run(threads, binary_rows_part, jobs, sizeof jobs[0]);
    for (int t = 0; t < threads; t++)
        if (jobs[t].bad >= 0) return jobs[t].bad;
    return -1;
}

/* ------------------------------------------------------------------ text: pieces */

static inline int64_t line_end(const uint8_t *buf, int64_t p, int64_t end) {
    const uint8_t *nl = p < end ? memchr(buf + p, '\n', (size_t)(end - p)) : NULL;
    return nl ? (int64_t)(nl - buf) : end;
}

static inline int blank(const uint8_t *buf, int64_t p, int64_t e) {
    while (p < e && is_space(buf[p])) p++;
    return p == e;
}

typedef struct {
    const uint8_t *buf;
    wv_vf_piece *pieces;
    int n;
    _Atomic int next;
} count_work;

static void *count_pieces(void *p) {
    count_work *w = *(count_work **)p;
    for (int i; (i = atomic_fetch_add(&w->next, 1)) < w->n;) {
        wv_vf_piece *pc = &w->pieces[i];
        int64_t rows = 0, lines = 0;
        for (int64_t q = pc->begin; q < pc->end;) {
            int64_t e = line_end(w->buf, q, pc->end);
            rows += !blank(w->buf, q, e);
            lines++;
            q = e + 1;
        }
        pc->rows = rows;
        pc->lines = lines;
    }
    return NULL;
}

static void count_all(const uint8_t *buf, wv_vf_piece *pieces, int n, int threads) {
    count_work w = {buf, pieces, n, 0};
    count_work *ws[WV_VF_MAX_THREADS];
    threads = clamp_threads(threads, n);
    for (int t = 0; t < threads; t++) ws[t] = &w;
    wv_threads_run(threads, count_pieces, ws, sizeof ws[0]);
}

int wv_vf_text_pieces(const uint8_t *buf, int64_t begin, int64_t end, wv_vf_piece *pieces, int max_pieces,
                      int threads) {
    if (max_pieces < 1 || begin >= end) return 0;
    int n = 0;
    int64_t at = begin;
    for (int i = 1; i <= max_pieces && at < end; i++) {
        int64_t cut = i == max_pieces ? end : begin + (int64_t)((double)(end - begin) * i / max_pieces);
        if (cut <= at) continue;
        cut = cut >= end ? end : line_end(buf, cut - 1, end);
        if (cut < end) cut++; /* just after the newline */
        pieces[n++] = (wv_vf_piece){at, cut, 0, 0};
        at = cut;
    }
    count_all(buf, pieces, n, threads);
    return n;
}

int64_t wv_vf_text_rows_end(const uint8_t *buf, int64_t begin, int64_t end, int64_t rows) {
    int64_t q = begin;
    while (rows > 0 && q < end) {
        int64_t e = line_end(buf, q, end);
        rows -= !blank(buf, q, e);
        q = e < end ? e + 1 : end;
    }
    return q;
}

/* ------------------------------------------------------------------ text: values */

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int lower_is(const uint8_t *p, int64_t n, const char *word) {
    if ((int64_t)strlen(word) != n) return 0;
    for (int64_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != (uint8_t)word[i]) return 0;
    return 1;
}

/* The token p..e (no whitespace in it) as a double; 0 when it is not a number. */
static int parse_value(const uint8_t *p, const uint8_t *e, double *out) {
    const uint8_t *start = p;
    int neg = 0;
    if (p < e && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (p < e && ((*p | 0x20) == 'i' || (*p | 0x20) == 'n')) {
        int64_t n = e - p;
        if (lower_is(p, n, "inf") || lower_is(p, n, "infinity")) *out = neg ? -INFINITY : INFINITY;
        else if (lower_is(p, n, "nan")) *out = NAN;
        else return 0;
        return 1;
    }
    uint64_t mant = 0;
    int digits = 0, exact = 1, any = 0;
    int64_t exp10 = 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++, any = 1) {
        if (digits < 19) {
            mant = mant * 10 + (uint64_t)(*p - '0');
            digits += mant != 0;
        } else {
            exp10++;
            exact &= *p == '0';
        }
    }
    if (p < e && *p == '.') {
        for (p++; p < e && *p >= '0' && *p <= '9'; p++, any = 1) {
            if (digits < 19) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                digits += mant != 0;
                exp10--;
            } else {
                exact &= *p == '0';
            }
        }
    }
    if (!any) return 0;
    if (p < e && (*p | 0x20) == 'e') {
        p++;
        int eneg = 0;
        if (p < e && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        if (p == e) return 0;
        int64_t x = 0;
        for (; p < e && *p >= '0' && *p <= '9'; p++)
            if (x < 100000) x = x * 10 + (*p - '0');
        exp10 += eneg ? -x : x;
    }
    if (p != e) return 0;
    if (exact && mant <= (1ULL << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)mant; /* exact, and so is 10^|exp10|: one rounding, the right one */
        v = exp10 >= 0 ? v * POW10[exp10] : v / POW10[-exp10];
        *out = neg ? -v : v;
        return 1;
    }
    /* Many digits or a far exponent: the C library's correctly rounded reading. */
    size_t n = (size_t)(e - start);
    char local[128];
    char *tmp = n < sizeof local ? local : malloc(n + 1);
    if (!tmp) return 0;
    memcpy(tmp, start, n);
    tmp[n] = 0;
    char *stop;
    *out = strtod(tmp, &stop);
    int ok = stop == tmp + n;
    if (tmp != local) free(tmp);
    return ok;
}

typedef struct {
    const uint8_t *buf;
    const wv_vf_piece *pieces;
    int n;
    const int64_t *first_row, *first_line;
    int64_t dim;
    float *out, *norms;
    int64_t *word_at, *word_len;
    wv_vf_error *errors;
    _Atomic int next;
} parse_work;

static void parse_piece(const parse_work *w, int i) {
    const uint8_t *buf = w->buf;
    const wv_vf_piece *pc = &w->pieces[i];
    wv_vf_error *err = &w->errors[i];
    int64_t row = w->first_row[i], line = w->first_line[i], dim = w->dim;
    *err = (wv_vf_error){WV_VF_OK, 0, 0, 0};
    for (int64_t q = pc->begin; q < pc->end; line++) {
        int64_t e = line_end(buf, q, pc->end), p = q;
        q = e + 1;
        while (p < e && is_field_space(buf[p])) p++;
        if (p == e) continue; /* a blank line */
        int64_t w0 = p;
        while (p < e && !is_field_space(buf[p])) p++;
        if (memchr(buf + w0, 0, (size_t)(p - w0))) {
            *err = (wv_vf_error){WV_VF_NUL_WORD, line, w0, 0};
            return;
        }
        w->word_at[row] = w0;
        w->word_len[row] = p - w0;
        float *dst = w->out + row * dim;
        int64_t k = 0;
        for (;; k++) {
            while (p < e && is_field_space(buf[p])) p++;
            if (p == e) break;
            int64_t t0 = p;
            while (p < e && !is_field_space(buf[p])) p++;
            if (k >= dim) continue; /* counted for the message */
            double v;
            if (!parse_value(buf + t0, buf + p, &v)) {
                *err = (wv_vf_error){WV_VF_NOT_NUMBER, line, t0, 0};
                return;
            }
            dst[k] = (float)v;
        }
        if (k != dim) {
            *err = (wv_vf_error){WV_VF_COUNT, line, w0, k};
            return;
        }
        float norm = row_norm(dst, dim);
        w->norms[row] = norm;
        if (!isfinite(norm)) {
            *err = (wv_vf_error){WV_VF_NOT_FINITE, line, w0, 0};
            return;
        }
        row++;
    }
}

static void *parse_pieces(void *p) {
    parse_work *w = *(parse_work **)p;
    for (int i; (i = atomic_fetch_add(&w->next, 1)) < w->n;) parse_piece(w, i);
    return NULL;
}

void wv_vf_text_parse(const uint8_t *buf, const wv_vf_piece *pieces, int n_pieces, const int64_t *first_row,
                      const int64_t *first_line, int64_t dim, float *out, float *norms, int64_t *word_at,
                      int64_t *word_len, wv_vf_error *errors, int threads) {
    parse_work w = {buf, pieces, n_pieces, first_row, first_line, dim, out, norms, word_at, word_len, errors, 0};
    parse_work *ws[WV_VF_MAX_THREADS];
    threads = clamp_threads(threads, n_pieces);
    for (int t = 0; t < threads; t++) ws[t] = &w;
    wv_threads_run(threads, parse_pieces, ws, sizeof ws[0]);
}

/* ------------------------------------------------------------------ words, norms */

typedef struct {
    const uint8_t *buf;
    const int64_t *word_at, *offsets;
    uint8_t *blob;
    const float *m;
    float *norms;
    int64_t lo, hi, dim;
} rows_job;

static void *gather_part(void *p) {
    rows_job *j = p;
    for (int64_t i = j->lo; i < j->hi; i++)
        memcpy(j->blob + j->offsets[i], j->buf + j->word_at[i], (size_t)(j->offsets[i + 1] - j->offsets[i]));
    return NULL;
}

static void *norms_part(void *p) {
    rows_job *j = p;
    for (int64_t i = j->lo; i < j->hi; i++) j->norms[i] = row_norm(j->m + i * j->dim, j->dim);
    return NULL;
}

static void run_rows(rows_job proto, int64_t n, int threads, void *(*fn)(void *)) {
    rows_job jobs[WV_VF_MAX_THREADS];
    threads = clamp_threads(threads, n);
    for (int t = 0; t < threads; t++) {
        jobs[t] = proto;
        share(n, threads, t, &jobs[t].lo, &jobs[t].hi);
    }
    wv_threads_run(threads, fn, jobs, sizeof jobs[0]);
}

void wv_vf_gather_words(const uint8_t *buf, const int64_t *word_at, const int64_t *offsets, int64_t n,
                        uint8_t *blob, int threads) {
    run_rows((rows_job){buf, word_at, offsets, blob, NULL, NULL, 0, 0, 0}, n, threads, gather_part);
}

void wv_vf_row_norms(const float *m, int64_t n, int64_t dim, float *norms, int threads) {
    run_rows((rows_job){NULL, NULL, NULL, NULL, m, norms, 0, 0, dim}, n, threads, norms_part);
}
