#include "huffman.h"

#include <stdlib.h>

wv_status wv_huffman_build(const int64_t *counts, int32_t n, uint8_t *code_length,
                           uint8_t *codes, int32_t *points) {
    if (n <= 0) return WV_OK;
    for (int32_t i = 1; i < n; i++)
        if (counts[i] > counts[i - 1]) return WV_ERR_UNSORTED;
    if (n == 1) { /* a single word needs no decision */
        code_length[0] = 0;
        return WV_OK;
    }
    size_t nodes = 2 * (size_t)n;
    int64_t *count = malloc(nodes * sizeof *count);
    uint8_t *binary = calloc(nodes, 1);
    int64_t *parent = malloc(nodes * sizeof *parent);
    if (!count || !binary || !parent) {
        free(count); free(binary); free(parent);
        return WV_ERR_NOMEM;
    }
    for (int32_t a = 0; a < n; a++) count[a] = counts[a];
    for (size_t a = (size_t)n; a < nodes; a++) count[a] = INT64_MAX / 4;

    /* pos1 walks leaves from the rarest up, pos2 the new internal nodes. */
    int64_t pos1 = n - 1, pos2 = n;
    for (int64_t a = 0; a < n - 1; a++) {
        int64_t min1, min2;
        if (pos1 >= 0 && count[pos1] < count[pos2]) min1 = pos1--;
        else min1 = pos2++;
        if (pos1 >= 0 && count[pos1] < count[pos2]) min2 = pos1--;
        else min2 = pos2++;
        count[n + a] = count[min1] + count[min2];
        parent[min1] = n + a;
        parent[min2] = n + a;
        binary[min2] = 1;
    }
    wv_status rc = WV_OK;
    int64_t root = 2 * (int64_t)n - 2;
    for (int32_t w = 0; w < n && rc == WV_OK; w++) {
        uint8_t code[WV_MAX_CODE_LENGTH];
        int64_t point[WV_MAX_CODE_LENGTH];
        int len = 0;
        int64_t b = w;
        /* Walk leaf -> root collecting bits and the nodes above them. */
        while (b != root) {
            if (len >= WV_MAX_CODE_LENGTH) { rc = WV_ERR_CODE_TOO_LONG; break; }
            code[len] = binary[b];
            point[len] = b;
            len++;
            b = parent[b];
        }
        if (rc) break;
        code_length[w] = (uint8_t)len;
        uint8_t *cw = codes + (size_t)w * WV_MAX_CODE_LENGTH;
        int32_t *pw = points + (size_t)w * WV_MAX_CODE_LENGTH;
        /* Reverse: codes root-down; points[0] = root, points[d] = parent of
         * the node that carries code bit d (word2vec.c: point[i-b] = node - V). */
        pw[0] = n - 2;
        for (int d = 0; d < len; d++) {
            cw[len - 1 - d] = code[d];
            if (d > 0) pw[len - d] = (int32_t)(point[d] - n);
        }
    }
    free(count); free(binary); free(parent);
    return rc;
}
