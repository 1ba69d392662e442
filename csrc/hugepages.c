#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "memory.h"

#include <stdint.h>
#include <sys/mman.h>

void wv_advise_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (bytes < 2 * huge) return;
    uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1), end = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (end > start) (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}
