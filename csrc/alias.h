/* Walker/Vose alias table: O(1) draws from a discrete distribution
 * (the unigram^0.75 noise distribution of negative sampling). */
#ifndef WV_ALIAS_H
#define WV_ALIAS_H

#include <stdint.h>

#include "rng.h"
#include "status.h"

/* threshold[i] is P(keep i | bucket i) scaled to 2^32 (saturated at
 * UINT32_MAX); otherwise the draw returns alias[i]. */
typedef struct {
    uint32_t *threshold;
    int32_t *alias;
    int32_t size;
} wv_alias_table;

/* Builds the table over weights[0..n) (all >= 0, sum > 0) into caller-owned
 * arrays threshold[n] and alias[n]. WV_ERR_INVALID: the weights are
 * unusable (none, negative, not finite, all zero). */
wv_status wv_alias_build(const double *weights, int32_t n, uint32_t *threshold, int32_t *alias);

static inline int32_t wv_alias_draw(const wv_alias_table *t, wv_rng *rng) {
    uint64_t r = wv_rng_next(rng);
    int32_t i = (int32_t)(((r >> 32) * (uint64_t)(uint32_t)t->size) >> 32);
    return ((uint32_t)r < t->threshold[i]) ? i : t->alias[i];
}

#endif
