#include "alias.h"

#include <math.h>
#include <stdlib.h>

wv_status wv_alias_build(const double *weights, int32_t n, uint32_t *threshold, int32_t *alias) {
    if (n <= 0) return WV_ERR_INVALID;
    double total = 0.0;
    for (int32_t i = 0; i < n; i++) {
        if (!(weights[i] >= 0.0) || !isfinite(weights[i])) return WV_ERR_INVALID;
        total += weights[i];
    }
    if (!(total > 0.0)) return WV_ERR_INVALID;

    double *scaled = malloc((size_t)n * sizeof *scaled);
    int32_t *small = malloc((size_t)n * sizeof *small);
    int32_t *large = malloc((size_t)n * sizeof *large);
    if (!scaled || !small || !large) {
        free(scaled); free(small); free(large);
        return WV_ERR_NOMEM;
    }
    int32_t n_small = 0, n_large = 0;
    for (int32_t i = 0; i < n; i++) {
        scaled[i] = weights[i] * (double)n / total;
        alias[i] = i;
        if (scaled[i] < 1.0) small[n_small++] = i;
        else large[n_large++] = i;
    }
    /* Vose: pair each under-full bucket with an over-full one. */
    while (n_small > 0 && n_large > 0) {
        int32_t s = small[--n_small];
        int32_t l = large[n_large - 1];
        threshold[s] = (uint32_t)fmin(scaled[s] * 4294967296.0, 4294967295.0);
        alias[s] = l;
        scaled[l] = (scaled[l] + scaled[s]) - 1.0;
        if (scaled[l] < 1.0) {
            n_large--;
            small[n_small++] = l;
        }
    }
    /* Leftovers are full buckets (up to rounding). */
    while (n_large > 0) threshold[large[--n_large]] = UINT32_MAX;
    while (n_small > 0) threshold[small[--n_small]] = UINT32_MAX;
    free(scaled); free(small); free(large);
    return WV_OK;
}
