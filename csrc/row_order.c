#include "row_order.h"

#include <string.h>

int64_t wv_row_cycles(const int32_t *src, int64_t n, int32_t *cycles, int64_t cap, unsigned char *seen) {
    memset(seen, 0, (size_t)n);
    int64_t k = 0;
    for (int64_t t = 0; t < n; t++) {
        if (src[t] < 0 || src[t] >= n) return -1;
        if (seen[t] || src[t] == t) continue;
        if (k == cap) return -1;
        seen[t] = 1;
        cycles[k++] = (int32_t)(-1 - t);
        for (int64_t s = src[t]; s != t; s = src[s]) {
            /* a row reached twice, or a source out of range: not a permutation */
            if (s < 0 || s >= n || seen[s] || k == cap) return -1;
            seen[s] = 1;
            cycles[k++] = (int32_t)s;
        }
    }
    return k;
}

static inline int64_t position(int32_t entry) { return entry < 0 ? -1 - (int64_t)entry : entry; }

/* One cycle c[0..k): forward, row c[j] takes row c[j + 1]'s and the last
 * takes the first's; backward the other way round. */
static void move_cycle(float *matrix, int64_t dim, const int32_t *c, int64_t k, int forward, float *scratch) {
    const size_t bytes = (size_t)dim * sizeof *matrix;
#define ROW(j) (matrix + position(c[j]) * dim)
    if (forward) {
        memcpy(scratch, ROW(0), bytes);
        for (int64_t j = 0; j + 1 < k; j++) memcpy(ROW(j), ROW(j + 1), bytes);
        memcpy(ROW(k - 1), scratch, bytes);
    } else {
        memcpy(scratch, ROW(k - 1), bytes);
        for (int64_t j = k - 1; j > 0; j--) memcpy(ROW(j), ROW(j - 1), bytes);
        memcpy(ROW(0), scratch, bytes);
    }
#undef ROW
}

void wv_move_rows(float *matrix, int64_t dim, const int32_t *cycles, int64_t len, int forward, float *scratch) {
    for (int64_t a = 0; a < len;) {
        int64_t b = a + 1;
        while (b < len && cycles[b] >= 0) b++;
        move_cycle(matrix, dim, cycles + a, b - a, forward, scratch);
        a = b;
    }
}
