/* Dense float kernels for one row (dim ~ 100-300). Written so that GCC/Clang
 * vectorise them: `omp simd reduction` lets the compiler reorder the sum of
 * the dot product without -ffast-math for the whole file (build with
 * -fopenmp-simd; no OpenMP runtime is needed). */
#ifndef WV_VECMATH_H
#define WV_VECMATH_H

#include <stddef.h>

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
