/* What every C entry point that can fail returns. One enum for the whole
 * core, so that a caller never has to know which module's convention it is
 * reading; the bindings turn each member into one exception
 * (wv_engine/_status.pxi). Where a module has something specific to say
 * (a Huffman code too long, counts not sorted) it has its own member. */
#ifndef WV_STATUS_H
#define WV_STATUS_H

typedef enum {
    WV_OK = 0,
    WV_ERR_NOMEM,          /* an allocation failed */
    WV_ERR_THREAD,         /* a thread could not be started */
    WV_ERR_DIVERGED,       /* training: the loss became NaN or infinite */
    WV_ERR_BUSY,           /* an epoch is already running on this model */
    WV_ERR_IO,             /* a temporary file could not be written or read */
    WV_ERR_STOPPED,        /* the caller's stop flag was raised */
    WV_ERR_MEMORY_LIMIT,   /* the memory limit is too small to make progress */
    WV_ERR_INVALID,        /* input values the routine cannot use (its header says which) */
    WV_ERR_UNSORTED,       /* Huffman: counts not sorted in descending order */
    WV_ERR_CODE_TOO_LONG,  /* Huffman: a code would exceed WV_MAX_CODE_LENGTH bits */
    WV_ERR_DUPLICATE,      /* encoder: a vocabulary word given twice */
    WV_ERR_OVERFLOW,       /* encoder: the caller's output buffer is too small */
} wv_status;

#endif
