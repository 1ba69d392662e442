/* The co-occurrence counter driven from C under ASan/LSan (tests/test_c_core.py):
 * Python's own allocations hide leaks from LeakSanitizer in the pytest run,
 * so the counter's memory is checked here, alone. Counts a generated corpus
 * with 1, 3 and 5 threads, in memory and spilling, mirrors each to CSR on
 * that many threads, and exits non-zero unless every CSR is identical.
 * argv[1]: a directory for the spilled runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cooccur.h"

typedef struct {
    int64_t nnz;
    int64_t *indptr;
    int32_t *indices;
    float *data;
} csr;

static int count(const int32_t *ids, int64_t n, int32_t V, int threads, size_t limit, const char *dir, csr *out) {
    wv_cooc_config cfg = {V, 10, 1, threads, limit, dir, NULL, -1};
    wv_cooc_result r;
    int rc = wv_cooccur_count(&cfg, ids, n, &r, NULL);
    if (rc) return rc;
    out->nnz = wv_cooc_full_nnz(&r);
    out->indptr = malloc((size_t)(V + 1) * sizeof *out->indptr);
    out->indices = malloc((size_t)out->nnz * sizeof *out->indices);
    out->data = malloc((size_t)out->nnz * sizeof *out->data);
    if (!out->indptr || !out->indices || !out->data) return WV_ERR_NOMEM;
    wv_cooc_to_csr(&r, V, out->indptr, out->indices, out->data, threads);
    printf("threads %d, limit %zu: %lld records, %lld spilled runs\n", threads, limit, (long long)r.n,
           (long long)r.spilled_runs);
    wv_cooc_free(&r);
    return 0;
}

static int same(const csr *a, const csr *b, int32_t V) {
    return a->nnz == b->nnz && !memcmp(a->indptr, b->indptr, (size_t)(V + 1) * sizeof *a->indptr) &&
           !memcmp(a->indices, b->indices, (size_t)a->nnz * sizeof *a->indices) &&
           !memcmp(a->data, b->data, (size_t)a->nnz * sizeof *a->data);
}

static void release(csr *c) {
    free(c->indptr);
    free(c->indices);
    free(c->data);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    const int64_t n = 300000;
    const int32_t V = 5000;
    int32_t *ids = malloc((size_t)n * sizeof *ids);
    if (!ids) return 2;
    uint64_t x = 88172645463325252ULL; /* xorshift: half the words from 50 frequent ones */
    for (int64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ids[i] = x % 100 == 0 ? -1 : (int32_t)((x >> 20) % ((x >> 40) % 2 ? 50 : (uint64_t)V));
    }
    csr first = {0}, other = {0};
    int failed = 0;
    for (int threads = 1; threads <= 5 && !failed; threads += 2) {
        for (int spill = 0; spill < 2 && !failed; spill++) {
            size_t limit = spill ? (size_t)threads * 4 * 16 * 4096 * 2 : (size_t)1 << 28;
            csr *c = threads == 1 && !spill ? &first : &other;
            int rc = count(ids, n, V, threads, limit, dir, c);
            if (rc) {
                printf("count failed: %d\n", rc);
                failed = 1;
            } else if (c != &first && !same(&first, c, V)) {
                printf("threads %d, spill %d: a different matrix\n", threads, spill);
                failed = 1;
            }
            if (c == &other) release(&other);
        }
    }
    release(&first);
    free(ids);
    return failed;
}
