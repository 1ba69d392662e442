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
#define WV_FALLTHROUGH __attribute__((fallthrough))
#else
#define WV_FALLTHROUGH ((void)0)
#endif

#if defined(__GNUC__)
#define WV_HOT static inline __attribute__((always_inline))
#else
#define WV_HOT static inline
#endif

/* For a function that must stay out of line though called once: the
 * kernels forced into one large caller make a function the compiler's
 * global passes take minutes over. */
#if defined(__GNUC__)
#define WV_APART static __attribute__((noinline))
#else
#define WV_APART static
#endif

/* Asks for every cache line of a row, for writing, ahead of its use: the
 * trainers wait on random rows, not arithmetic. Forced inline: a callee
 * whose only effect is a prefetch is deleted by GCC when kept out of line. */
WV_HOT void wv_prefetch_span(const float *p, size_t floats) {
    const char *a = (const char *)p;
    size_t bytes = floats * sizeof(float);
    for (; bytes > 512; bytes -= 512, a += 512)
        for (int k = 0; k < 8; k++) __builtin_prefetch(a + 64 * k, 1, 3);
    /* the rest unrolled: a row's count of lines is the same on every call,
     * so the jump is predicted and no loop counter runs a line */
    switch ((bytes + 63) / 64) {
    case 8: __builtin_prefetch(a + 448, 1, 3); WV_FALLTHROUGH;
    case 7: __builtin_prefetch(a + 384, 1, 3); WV_FALLTHROUGH;
    case 6: __builtin_prefetch(a + 320, 1, 3); WV_FALLTHROUGH;
    case 5: __builtin_prefetch(a + 256, 1, 3); WV_FALLTHROUGH;
    case 4: __builtin_prefetch(a + 192, 1, 3); WV_FALLTHROUGH;
    case 3: __builtin_prefetch(a + 128, 1, 3); WV_FALLTHROUGH;
    case 2: __builtin_prefetch(a + 64, 1, 3); WV_FALLTHROUGH;
    case 1: __builtin_prefetch(a, 1, 3); WV_FALLTHROUGH;
    default: break;
    }
    __builtin_prefetch((const char *)(p + floats) - 1, 1, 3); /* the line a misaligned row's end crosses into */
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

#if defined(__GNUC__)
/* Eight (four) floats at any 4-byte boundary, in GCC/Clang's portable
 * vectors: GCC 12 turned the same loops written with `omp simd` into
 * scalar code. may_alias: they read float arrays. */
typedef float wv_f8 __attribute__((vector_size(32), aligned(4), may_alias));
typedef float wv_f4 __attribute__((vector_size(16), aligned(4), may_alias));
#if defined(__clang__)
#define WV_SHUFFLE8(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
typedef int wv_i8 __attribute__((vector_size(32)));
#define WV_SHUFFLE8(a, b, ...) __builtin_shuffle(a, b, (wv_i8){__VA_ARGS__})
#endif

/* sums[k] = the sum of s[k]'s eight lanes, for all eight at once (a
 * transposing tree of in-lane shuffles and adds: 21 instructions with AVX,
 * where folding each sum alone took about 20 apiece). Not returned by
 * value: an 8-float vector changes the call ABI where AVX is off. */
WV_HOT void wv_sum_lanes8(const wv_f8 *s, float *sums) {
    wv_f8 a[4], b[2];
    for (int i = 0; i < 4; i++) /* [s0 02, s1 02, s0 13, s1 13 | the same of lanes 4-7] for each pair */
        a[i] = WV_SHUFFLE8(s[2 * i], s[2 * i + 1], 0, 8, 1, 9, 4, 12, 5, 13)
               + WV_SHUFFLE8(s[2 * i], s[2 * i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    for (int i = 0; i < 2; i++) /* [s0 0-3, s1 0-3, s2 0-3, s3 0-3 | their lanes 4-7] for each four */
        b[i] = WV_SHUFFLE8(a[2 * i], a[2 * i + 1], 0, 1, 8, 9, 4, 5, 12, 13)
               + WV_SHUFFLE8(a[2 * i], a[2 * i + 1], 2, 3, 10, 11, 6, 7, 14, 15);
    *(wv_f8 *)sums = WV_SHUFFLE8(b[0], b[1], 0, 1, 2, 3, 8, 9, 10, 11)
                     + WV_SHUFFLE8(b[0], b[1], 4, 5, 6, 7, 12, 13, 14, 15);
}
#endif

#if defined(__GNUC__)
/* wv_add_combination and wv_add_to_rows pass over the columns in blocks of
 * nv vectors of eight, nv a constant at each call (12, 4, 1: twelve sums and
 * a broadcast fit in the 16 AVX2 registers), and take the last 4 columns
 * into the pass before them (tail), so that dim 100 is one pass of 12
 * vectors and 4. */
enum { WV_MAX_VECTORS = 12 };

/* Whether exactly 4 columns are left after a pass of nv vectors from c. */
static inline int wv_pass_tail(int dim, int c, int nv) { return dim - c == 8 * nv + 4; }

/* Runs PASS(c, nv, tail) over the columns from c, nv and tail constants:
 * passes of 12 vectors, then 4, then 1, then 4 columns alone; leaves c at
 * the first column no pass took (a scalar remainder). */
#define WV_PASSES_OF(dim, c, nv, PASS)                                    \
    for (int tail_; (dim) - (c) >= 8 * (nv); (c) += 8 * (nv) + 4 * tail_) \
        if ((tail_ = wv_pass_tail(dim, c, nv))) PASS(c, nv, 1);           \
        else PASS(c, nv, 0)
#define WV_PASSES(dim, c, PASS)                  \
    do {                                         \
        WV_PASSES_OF(dim, c, 12, PASS);          \
        WV_PASSES_OF(dim, c, 4, PASS);           \
        WV_PASSES_OF(dim, c, 1, PASS);           \
        if ((dim) - (c) >= 4) PASS(c, 0, 1), (c) += 4; \
    } while (0)

/* wv_add_combination (with `add`; else y set) over columns [c, c + 8 nv + 4 tail). */
WV_HOT void wv_combination_pass(float *restrict y, int add, const float *const *x, const float *a, int a_stride,
                                int n, int c, int nv, int tail) {
    wv_f8 s[WV_MAX_VECTORS];
    wv_f4 t = {0};
    for (int v = 0; v < nv; v++) s[v] = (wv_f8){0};
    for (int j = 0; j < n; j++) {
        const float g = a[(size_t)j * a_stride];
        const float *xj = x[j] + c;
        for (int v = 0; v < nv; v++) s[v] += g * *(const wv_f8 *)(xj + 8 * v);
        if (tail) t += g * *(const wv_f4 *)(xj + 8 * nv);
    }
    for (int v = 0; v < nv; v++) {
        if (add) *(wv_f8 *)(y + c + 8 * v) += s[v];
        else *(wv_f8 *)(y + c + 8 * v) = s[v];
    }
    if (tail) {
        if (add) *(wv_f4 *)(y + c + 8 * nv) += t;
        else *(wv_f4 *)(y + c + 8 * nv) = t;
    }
}

/* wv_add_to_rows over columns [c, c + 8 nv + 4 tail). */
WV_HOT void wv_to_rows_pass(float *const *y, const float *a, int a_stride, int n, const float *x, int c, int nv,
                            int tail) {
    wv_f8 xv[WV_MAX_VECTORS];
    for (int v = 0; v < nv; v++) xv[v] = *(const wv_f8 *)(x + c + 8 * v);
    const wv_f4 xt = tail ? *(const wv_f4 *)(x + c + 8 * nv) : (wv_f4){0};
    for (int j = 0; j < n; j++) {
        const float g = a[(size_t)j * a_stride];
        float *yj = y[j] + c;
        for (int v = 0; v < nv; v++) *(wv_f8 *)(yj + 8 * v) += g * xv[v];
        if (tail) *(wv_f4 *)(yj + 8 * nv) += g * xt;
    }
}
#endif

/* y += sum_j a[j * a_stride] * x[j] over n rows of dim floats (without
 * `add`: y = it, no zeroing pass before). The sum is
 * kept in registers a block of columns at a time, so each element of y is
 * loaded and stored once rather than once per row (a loop of axpys is
 * bound by those loads and stores). Rounds as the loop of axpys into a
 * zeroed buffer, then one axpy into y, would. */
WV_HOT void wv_combination(float *restrict y, int add, const float *const *x, const float *a, int a_stride, int n,
                           int dim) {
    int c = 0;
#if defined(__GNUC__)
#define WV_PASS(c, nv, tail) wv_combination_pass(y, add, x, a, a_stride, n, c, nv, tail)
    WV_PASSES(dim, c, WV_PASS);
#undef WV_PASS
#endif
    for (; c < dim; c++) {
        float s = 0.0f;
        for (int j = 0; j < n; j++) s += a[(size_t)j * a_stride] * x[j][c];
        y[c] = add ? y[c] + s : s;
    }
}

WV_HOT void wv_add_combination(float *restrict y, const float *const *x, const float *a, int a_stride, int n,
                               int dim) {
    wv_combination(y, 1, x, a, a_stride, n, dim);
}

/* y = sum_j a[j * a_stride] * x[j] (no zeroing pass before). */
WV_HOT void wv_set_combination(float *restrict y, const float *const *x, const float *a, int a_stride, int n,
                               int dim) {
    wv_combination(y, 0, x, a, a_stride, n, dim);
}

/* y[j] += a[j * a_stride] * x for each of n rows y[j]: x is loaded into
 * registers once, a block of columns at a time, for all n rows (a loop of
 * axpys loads it again for every row). The rows may repeat: each is
 * loaded after the store before it. Rounds as that loop of axpys. */
WV_HOT void wv_add_to_rows(float *const *y, const float *a, int a_stride, int n, const float *x, int dim) {
    int c = 0;
#if defined(__GNUC__)
#define WV_PASS(c, nv, tail) wv_to_rows_pass(y, a, a_stride, n, x, c, nv, tail)
    WV_PASSES(dim, c, WV_PASS);
#undef WV_PASS
#endif
    for (; c < dim; c++)
        for (int j = 0; j < n; j++) y[j][c] += a[(size_t)j * a_stride] * x[c];
}

#if defined(__GNUC__)
/* wv_add_combination_and_rows over columns [c, c + 8 nv + 4 tail). */
WV_HOT void wv_combination_rows_pass(float *e, float e_scale, int add, float *const *y, const float *a, int n,
                                     const float *x, int c, int nv, int tail) {
    wv_f8 s[WV_MAX_VECTORS];
    wv_f4 t = {0};
    for (int v = 0; v < nv; v++) s[v] = (wv_f8){0};
    for (int j = 0; j < n; j++) {
        const float g = a[j];
        float *yj = y[j] + c;
        for (int v = 0; v < nv; v++) {
            const wv_f8 r = *(const wv_f8 *)(yj + 8 * v);
            s[v] += g * r;
            *(wv_f8 *)(yj + 8 * v) = r + g * *(const wv_f8 *)(x + c + 8 * v);
        }
        if (tail) {
            const wv_f4 r = *(const wv_f4 *)(yj + 8 * nv);
            t += g * r;
            *(wv_f4 *)(yj + 8 * nv) = r + g * *(const wv_f4 *)(x + c + 8 * nv);
        }
    }
    for (int v = 0; v < nv; v++) {
        wv_f8 *ev = (wv_f8 *)(e + c + 8 * v);
        *ev = add ? *ev + e_scale * s[v] : e_scale * s[v];
    }
    if (tail) {
        wv_f4 *et = (wv_f4 *)(e + c + 8 * nv);
        *et = add ? *et + e_scale * t : e_scale * t;
    }
}
#endif

/* The error and the update of a layer's output rows in one pass over them:
 * s = sum_j a[j] y[j], each row read before it moves, then y[j] += a[j] x;
 * e = e_scale s, or with `add` e += e_scale s. That is wv_add_combination
 * then wv_add_to_rows with each row loaded once for both. e may be x (the
 * input row moved by its error as the pass goes: each block of x is read by
 * every row before e's block is written). A row repeated in y enters s
 * after its first move, as word2vec.c's running error sees it. */
WV_HOT void wv_add_combination_and_rows(float *e, float e_scale, int add, float *const *y, const float *a, int n,
                                        const float *x, int dim) {
    int c = 0;
#if defined(__GNUC__)
#define WV_PASS(c, nv, tail) wv_combination_rows_pass(e, e_scale, add, y, a, n, x, c, nv, tail)
    WV_PASSES(dim, c, WV_PASS);
#undef WV_PASS
#endif
    for (; c < dim; c++) {
        float s = 0.0f;
        const float xc = x[c];
        for (int j = 0; j < n; j++) {
            s += a[j] * y[j][c];
            y[j][c] += a[j] * xc;
        }
        e[c] = add ? e[c] + e_scale * s : e_scale * s;
    }
}

#if defined(__GNUC__)
/* out[k] = x . y[k] for k < kn, kn a constant where inlined (so that the
 * kn sums stay in registers: a count known only at run time kept them in
 * memory), in vector sums of eight lanes (a four-column tail in the first
 * four) added up for all kn at once. */
WV_HOT void wv_dots_block(const float *x, const float *const *y, int kn, int dim, float *out) {
    wv_f8 s[8];
    for (int k = 0; k < 8; k++) s[k] = (wv_f8){0};
    int c = 0;
    for (; c + 8 <= dim; c += 8) {
        const wv_f8 xc = *(const wv_f8 *)(x + c);
        for (int k = 0; k < kn; k++) s[k] += xc * *(const wv_f8 *)(y[k] + c);
    }
    if (c + 4 <= dim) {
        const wv_f4 xc = *(const wv_f4 *)(x + c);
        for (int k = 0; k < kn; k++) {
            const wv_f4 p = xc * *(const wv_f4 *)(y[k] + c);
            s[k] += (wv_f8){p[0], p[1], p[2], p[3], 0.0f, 0.0f, 0.0f, 0.0f};
        }
        c += 4;
    }
    float sums[8];
    wv_sum_lanes8(s, sums);
    if (c < dim) /* dim not a multiple of four */
        for (int k = 0; k < kn; k++)
            for (int cc = c; cc < dim; cc++) sums[k] += x[cc] * y[k][cc];
    for (int k = 0; k < kn; k++) out[k] = sums[k];
}

/* out[k] = x . y[k] for k < n: x is read once for all n products (the
 * rows of a window's m x (1 + K) products share it), eight at a time. */
WV_HOT void wv_dots(const float *x, const float *const *y, int n, int dim, float *out) {
    for (int k0 = 0; k0 < n; k0 += 8) {
        switch (n - k0 < 8 ? n - k0 : 8) { /* each count its own unrolled copy */
        case 1: wv_dots_block(x, y + k0, 1, dim, out + k0); break;
        case 2: wv_dots_block(x, y + k0, 2, dim, out + k0); break;
        case 3: wv_dots_block(x, y + k0, 3, dim, out + k0); break;
        case 4: wv_dots_block(x, y + k0, 4, dim, out + k0); break;
        case 5: wv_dots_block(x, y + k0, 5, dim, out + k0); break;
        case 6: wv_dots_block(x, y + k0, 6, dim, out + k0); break;
        case 7: wv_dots_block(x, y + k0, 7, dim, out + k0); break;
        default: wv_dots_block(x, y + k0, 8, dim, out + k0); break;
        }
    }
}
#else
static inline void wv_dots(const float *x, const float *const *y, int n, int dim, float *out) {
    for (int k = 0; k < n; k++) out[k] = wv_dot(x, y[k], dim);
}
#endif

#endif
