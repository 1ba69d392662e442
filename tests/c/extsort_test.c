/* The external sort (csrc/extsort.c) driven directly, under ASan/UBSan with
 * leak detection (tests/test_c_core.py). Random records go through three
 * sorters with a tiny buffer and memory cap, so that most runs spill and
 * both the per-sorter compaction and the reduction to the fan-in run; the
 * runs are merged in three key ranges (the middle one with an extra
 * source) and the output must equal a reference sorted and summed here.
 * The spill directory must be empty throughout: spilled runs are unlinked
 * files. A sorter whose directory does not exist must fail with WV_ERR_IO
 * and free everything. argv[1]: a directory for the spilled runs. */
#define _POSIX_C_SOURCE 200809L /* opendir */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extsort.h"

/* Values in [0, PACKED_MAX] are held packed, the others (negative or
 * larger) in 16 bytes: each buffer sorted holds both kinds. */
enum { N_RECORDS = 120000, KEY_LIMIT = 3000, N_SORTERS = 3, BUF_RECORDS = 500, N_EXTRA = 2000, PACKED_MAX = 700 };

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t next_random(void) { /* xorshift64 */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int compare_keys(const void *pa, const void *pb) {
    const wv_xrec *a = pa, *b = pb;
    return (a->key > b->key) - (a->key < b->key);
}

/* Sorts in place and sums equal keys; returns the number left. */
static int64_t sort_and_sum(wv_xrec *r, int64_t n) {
    qsort(r, (size_t)n, sizeof *r, compare_keys);
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (m && r[m - 1].key == r[i].key) r[m - 1].value += r[i].value;
        else r[m++] = r[i];
    }
    return m;
}

static int dir_is_empty(const char *path) {
    DIR *d = opendir(path);
    if (!d) return 0;
    int empty = 1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
    closedir(d);
    return empty;
}

typedef struct {
    wv_xrec *out;
    int64_t n, cap;
} collect;

static wv_status emit(void *ctx, const wv_xrec *r) {
    collect *c = ctx;
    if (c->n == c->cap) return WV_ERR_NOMEM;
    c->out[c->n++] = *r;
    return WV_OK;
}

typedef struct {
    const wv_xrec *recs;
    int64_t n, pos;
} array_source;

static int array_next(void *ctx, wv_xrec *out) {
    array_source *a = ctx;
    if (a->pos == a->n) return 0;
    *out = a->recs[a->pos++];
    return 1;
}

static uint64_t random_key(void) {
    uint64_t x = next_random();
    int32_t hi = (int32_t)((x >> 8) % (x % 3 ? 40 : KEY_LIMIT)); /* frequent rows, so keys repeat */
    int32_t lo = (int32_t)((x >> 32) % KEY_LIMIT);
    return wv_xkey(hi, lo);
}

/* The missing directory: a spill fails with WV_ERR_IO, and freeing after
 * the failure leaves nothing behind. */
static int check_io_error(void) {
    wv_xsort s;
    if (wv_xsort_init(&s, 16, 0, KEY_LIMIT, 0, "/nonexistent/wv_extsort_test")) return 1;
    wv_status rc = WV_OK;
    for (int i = 0; i < 16 && rc == WV_OK; i++) rc = wv_xsort_add(&s, random_key(), 1);
    wv_xsort_free(&s);
    if (rc != WV_ERR_IO) {
        printf("a spill to a missing directory gave status %d, not WV_ERR_IO\n", (int)rc);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    const int64_t n_ref = N_RECORDS + N_EXTRA;
    wv_xrec *ref = malloc((size_t)n_ref * sizeof *ref);
    wv_xrec *extra = malloc(N_EXTRA * sizeof *extra);
    collect got = {malloc((size_t)n_ref * sizeof(wv_xrec)), 0, n_ref};
    if (!ref || !extra || !got.out) return 2;
    const uint64_t mid_lo = wv_xkey(KEY_LIMIT / 3, 0), mid_hi = wv_xkey(2 * KEY_LIMIT / 3, 0);
    for (int i = 0; i < N_EXTRA; i++) { /* keys in the middle range only */
        uint64_t k;
        do k = random_key();
        while (k < mid_lo || k >= mid_hi);
        extra[i] = (wv_xrec){k, (int64_t)(next_random() % 1000) - 500};
    }
    int64_t n_extra = sort_and_sum(extra, N_EXTRA);

    wv_xsort sorters[N_SORTERS];
    int failed = 0;
    int64_t spilled = 0, merges = 0, added_below = 0;
    for (int t = 0; t < N_SORTERS; t++)
        if (wv_xsort_init(&sorters[t], BUF_RECORDS, 3 * BUF_RECORDS * sizeof(wv_xrec), KEY_LIMIT, PACKED_MAX, dir)) return 2;
    for (int64_t i = 0; i < N_RECORDS && !failed; i++) {
        wv_xrec r = {random_key(), (int64_t)(next_random() % 2001) - 1000};
        ref[i] = r;
        added_below += r.key < mid_lo;
        if (wv_xsort_add(&sorters[i % N_SORTERS], r.key, r.value)) failed = 1;
    }
    for (int t = 0; t < N_SORTERS && !failed; t++)
        if (wv_xsort_flush(&sorters[t])) failed = 1;
    if (!dir_is_empty(dir)) {
        printf("the spill directory holds files while runs are open\n");
        failed = 1;
    }
    wv_xruns all = {NULL, 0, 0};
    for (int t = 0; t < N_SORTERS; t++) {
        spilled += sorters[t].spilled;
        merges += sorters[t].merges;
        if (!failed && wv_xruns_take(&all, &sorters[t].runs)) failed = 1;
        wv_xsort_free(&sorters[t]);
    }
    int runs_before = all.n;
    int64_t reduce_merges = 0;
    if (!failed && wv_xruns_reduce(&all, dir, &reduce_merges, NULL)) failed = 1;
    if (!failed && all.n > WV_XSORT_FAN_IN) failed = 1;
    int64_t below_mid = -1;
    if (!failed && wv_xruns_count_below(&all, mid_lo, &below_mid)) failed = 1;
    array_source extra_src = {extra, n_extra, 0};
    wv_xsource extra_source = {array_next, &extra_src};
    const uint64_t bounds[4] = {0, mid_lo, mid_hi, UINT64_MAX};
    for (int part = 0; part < 3 && !failed; part++)
        if (wv_xruns_merge_range(&all, bounds[part], bounds[part + 1], part == 1 ? &extra_source : NULL, emit, &got))
            failed = 1;
    wv_xruns_free(&all);
    printf("%d records, %lld spilled runs, %lld sorter merges, %d runs reduced by %lld merges, %lld out\n",
           N_RECORDS, (long long)spilled, (long long)merges, runs_before, (long long)reduce_merges,
           (long long)got.n);
    if (!failed && (spilled < WV_XSORT_FAN_IN || merges < 1 || reduce_merges < 1)) {
        printf("the caps did not force spills, compactions and a reduction\n");
        failed = 1;
    }

    memcpy(ref + N_RECORDS, extra, (size_t)n_extra * sizeof *ref);
    int64_t n_sum = sort_and_sum(ref, N_RECORDS + n_extra);
    if (!failed && (got.n != n_sum || memcmp(got.out, ref, (size_t)n_sum * sizeof *ref))) {
        printf("the merged output differs from the reference (%lld against %lld records)\n", (long long)got.n,
               (long long)n_sum);
        failed = 1;
    }
    /* Runs of different sorters may share keys: records below mid_lo in the
     * runs lie between the distinct keys and the records added there. */
    int64_t distinct_below = 0;
    while (distinct_below < n_sum && ref[distinct_below].key < mid_lo) distinct_below++;
    if (!failed && (below_mid < distinct_below || below_mid > added_below)) {
        printf("count_below gave %lld, not in [%lld, %lld]\n", (long long)below_mid, (long long)distinct_below,
               (long long)added_below);
        failed = 1;
    }
    if (!dir_is_empty(dir)) {
        printf("the spill directory is not empty at the end\n");
        failed = 1;
    }
    failed |= check_io_error();
    free(ref);
    free(extra);
    free(got.out);
    if (!failed) printf("ok\n");
    return failed;
}
