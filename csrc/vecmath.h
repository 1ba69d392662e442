/* Dense float kernels for one row (dim ~ 100-300). Written so that GCC/Clang
 * vectorise them: `omp simd reduction` lets the compiler reorder the sum of
 * the dot product without -ffast-math for the whole file (build with
 * -fopenmp-simd; no OpenMP runtime is needed). */
#ifndef WV_VECMATH_H
#define WV_VECMATH_H

#include <stddef.h>

/* For a trainer's hot loop: compiled for AVX2+FMA and for a baseline, the
 * one to run picked at load time (GCC function multiversioning; needs glibc
 * ifunc). The kernels below, inlined into it, are compiled for each target.
 * No -march=native: the build stays portable. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(WV_NO_MULTIVERSION)
#define WV_MULTIVERSION __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define WV_MULTIVERSION
#endif

/* For every function the hot loop calls: forced inline, so that it is
 * compiled inside each clone above. Left to itself the compiler keeps a
 * large callee out of line (it has two callers once the loop is cloned),
 * and an out-of-line callee runs the baseline code in every clone. */
#if defined(__GNUC__)
#define WV_HOT static inline __attribute__((always_inline))
#else
#define WV_HOT static inline
#endif

/* Asks for every cache line of a row, for writing, ahead of its use: the
 * trainers wait on random rows, not arithmetic. Forced inline: a callee
 * whose only effect is a prefetch is deleted by GCC when kept out of line. */
WV_HOT void wv_prefetch_span(const float *p, size_t floats) {
    const char *a = (const char *)p, *end = (const char *)(p + floats);
    for (; a < end; a += 64) __builtin_prefetch(a, 1, 3);
    __builtin_prefetch(end - 1, 1, 3);
}

static inline float wv_dot(const float *restrict a, const float *restrict b, int n) {
    float s = 0.0f;
#pragma omp simd reduction(+:s)
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* y += a * x */
static inline void wv_axpy(float a, const float *restrict x, float *restrict y, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) y[i] += a * x[i];
}

static inline void wv_zero(float *restrict y, int n) {
    for (int i = 0; i < n; i++) y[i] = 0.0f;
}

static inline void wv_scale(float a, float *restrict y, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) y[i] *= a;
}

#endif
