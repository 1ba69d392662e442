/* The answers to analogy questions "a : b :: c : ?" from each question
 * word's scores against every candidate word: for evaluate.py, which
 * computes those scores (cosines) with one matrix product. */
#ifndef WV_ANALOGY_H
#define WV_ANALOGY_H

#include <stdint.h>

#include "status.h"

enum { WV_3COSADD = 0, WV_3COSMUL = 1 };

/* For each of the k questions, the candidate j in [0, n) with the highest
 *   3CosAdd: (g_b[j] - g_a[j]) + g_c[j]
 *   3CosMul: (g_b[j] * g_c[j]) / (g_a[j] + 1e-6)   (g shifted to [0, 1])
 * where g_x is row abc[3q + x] of `gram` (rows x n floats), leaving out the
 * candidates the question lists in excluded[q * n_excluded ...] (-1 pads);
 * ties go to the lowest j. best[q] is -1 when every candidate is excluded.
 * The arithmetic is numpy's on float32, in the same order. Runs on
 * n_threads threads. The caller checks that rows and candidates are in
 * range (evaluate.py). WV_ERR_NOMEM, else WV_OK. */
wv_status wv_analogy_best(const float *gram, int64_t n, const int32_t *abc, const int32_t *excluded,
                          int n_excluded, int64_t k, int method, int n_threads, int32_t *best);

#endif
