/* Huffman codes for hierarchical softmax, built exactly as word2vec.c's
 * CreateBinaryTree (two-queue O(V) construction, ties prefer the internal
 * node, the second-picked child gets bit 1). */
#ifndef WV_HUFFMAN_H
#define WV_HUFFMAN_H

#include <stdint.h>

#include "status.h"

#define WV_MAX_CODE_LENGTH 64

/* counts[0..n) must be sorted in descending order. Writes, for word w,
 * code_length[w], codes[w*MAX + d] (bit from the root down) and
 * points[w*MAX + d] (0-based internal-node row, the root is n-2).
 * WV_ERR_CODE_TOO_LONG if a code would exceed WV_MAX_CODE_LENGTH,
 * WV_ERR_UNSORTED if counts are not sorted descending. */
wv_status wv_huffman_build(const int64_t *counts, int32_t n, uint8_t *code_length,
                     uint8_t *codes, int32_t *points);

#endif
