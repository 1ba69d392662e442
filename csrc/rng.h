/* Per-thread pseudo-random numbers: splitmix64 (one 64-bit word of state).
 * Each worker owns one generator seeded from (seed, epoch, thread), so runs
 * with one thread are bit-reproducible and threads never share state. */
#ifndef WV_RNG_H
#define WV_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t state;
} wv_rng;

static inline uint64_t wv_rng_next(wv_rng *rng) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Seed from several words so (seed, epoch, thread) give independent streams. */
static inline void wv_rng_seed(wv_rng *rng, uint64_t seed, uint64_t a, uint64_t b) {
    rng->state = seed;
    rng->state = wv_rng_next(rng) ^ (a * 0xD1B54A32D192ED03ULL);
    rng->state = wv_rng_next(rng) ^ (b * 0xABC98388FB8FAC03ULL);
    (void)wv_rng_next(rng);
}

/* Uniform in [0, n) by multiply-shift (Lemire); bias < n / 2^32, negligible here. */
static inline uint32_t wv_rng_below(wv_rng *rng, uint32_t n) {
    return (uint32_t)(((wv_rng_next(rng) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform float in [0, 1) with 24 bits of resolution. */
static inline float wv_rng_uniform(wv_rng *rng) {
    return (float)(wv_rng_next(rng) >> 40) * (1.0f / 16777216.0f);
}

#endif
