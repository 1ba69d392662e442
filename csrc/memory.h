/* Cache-line-aligned allocation for per-thread scratch buffers: buffers of
 * different threads must not share a cache line, or every write by one
 * thread evicts the line from the other's cache (false sharing). And huge
 * pages for large tables read at random (hugepages.c). */
#ifndef WV_MEMORY_H
#define WV_MEMORY_H

#include <stdlib.h>

#define WV_CACHE_LINE 64

/* bytes rounded up to whole cache lines: what wv_alloc_lines takes for them. */
static inline size_t wv_lines_bytes(size_t bytes) {
    return (bytes + WV_CACHE_LINE - 1) / WV_CACHE_LINE * WV_CACHE_LINE;
}

/* free() releases it; NULL on failure. */
static inline void *wv_alloc_lines(size_t bytes) {
    size_t rounded = wv_lines_bytes(bytes);
    return aligned_alloc(WV_CACHE_LINE, rounded ? rounded : WV_CACHE_LINE);
}

/* Asks for huge pages under the 2 MiB-aligned part of a block of at least
 * 4 MiB (Linux; nothing elsewhere): a table read at random then misses the
 * TLB far less, and once freed its memory goes back in whole huge pages. */
void wv_advise_huge(void *p, size_t bytes);

#endif
