/* External sort of (key, value) records, equal keys summed: the memory a
 * sort may use is capped, and what does not fit goes to temporary files.
 *
 * A sorter (wv_xsort, one per thread) takes records into a buffer (packed
 * into 8 bytes where key and value fit, else 16); a full buffer is sorted
 * in place (radix sort, no extra memory), its equal keys summed, and kept
 * as a sorted run of 16-byte records: in memory while the sorter's cap
 * allows, else spilled to an unlinked temporary file (nothing can outlive
 * the process). When a sorter holds WV_XSORT_FAN_IN spilled runs they are
 * merged into one. The runs of all sorters are then gathered into one list
 * (wv_xruns), reduced to at most WV_XSORT_FAN_IN runs, and merged: the last
 * merge can be cut into key ranges, each merged on its own thread. */
#ifndef WV_EXTSORT_H
#define WV_EXTSORT_H

#include <stdint.h>
#include <stdio.h>

#include "status.h"

#define WV_XSORT_FAN_IN 32 /* runs merged at once (bounds the open files) */

/* A key is hi << 32 | lo with hi, lo < the sorter's key_limit: keys sort
 * as (hi, lo) pairs. */
typedef struct {
    uint64_t key;
    int64_t value;
} wv_xrec;

static inline uint64_t wv_xkey(int32_t hi, int32_t lo) { return ((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo; }

/* A sorted run without repeated keys, in memory or in a spilled file. */
typedef struct {
    wv_xrec *mem;
    FILE *file;
    int64_t n;
} wv_xrun;

typedef struct {
    wv_xrun *items;
    int n, cap;
} wv_xruns;

typedef struct {
    wv_xrec *buf;             /* records not yet sorted (those that do not pack) */
    int64_t len, cap;
    uint64_t *packed;         /* records not yet sorted, packed: key << value_bits | value */
    int64_t packed_len, packed_cap;
    int64_t packed_max;       /* the largest value that packs; -1: none does */
    int key_bits, value_bits; /* bits of a key half (below the sorter's key_limit), of a packed value */
    wv_xruns runs;
    size_t mem_bytes, mem_cap; /* bytes of runs kept in memory, and their cap */
    int n_file_runs;
    const char *tmp_dir;      /* where runs spill; NULL: /tmp */
    int64_t spilled;          /* runs written to files */
    int64_t merges;           /* merges of spilled runs (bounded fan-in) */
} wv_xsort;

/* A sorter with buffers of buf_records records' bytes in all that keeps up
 * to mem_cap bytes of runs in memory. Values in [0, max_value] are held in
 * 8 bytes where the key and the value fit in 64 bits (twice the records in
 * the same memory, half the bytes to sort); others in 16. */
wv_status wv_xsort_init(wv_xsort *s, int64_t buf_records, size_t mem_cap, int32_t key_limit, int64_t max_value,
                        const char *tmp_dir);
/* Sorts the buffers into a run (nothing if they are empty). */
wv_status wv_xsort_flush(wv_xsort *s);
/* Sorts the 16-byte buffer into a run (with nothing packed: both buffers). */
wv_status wv_xsort_flush_unpacked(wv_xsort *s);

static inline wv_status wv_xsort_add(wv_xsort *s, uint64_t key, int64_t value) {
    if (value >= 0 && value <= s->packed_max) {
        uint64_t packed = (key >> 32) << s->key_bits | (key & 0xFFFFFFFFu);
        s->packed[s->packed_len] = packed << s->value_bits | (uint64_t)value;
        if (++s->packed_len == s->packed_cap) return wv_xsort_flush(s);
        return WV_OK;
    }
    s->buf[s->len].key = key;
    s->buf[s->len].value = value;
    if (++s->len == s->cap) return wv_xsort_flush_unpacked(s);
    return WV_OK;
}

/* Frees the buffer only (once every record is added and flushed). */
void wv_xsort_free_buffer(wv_xsort *s);
/* Frees the buffer and the runs still held. */
void wv_xsort_free(wv_xsort *s);

/* Moves every run of `from` to the end of `into`. On failure the runs left
 * in `from` are freed. */
wv_status wv_xruns_take(wv_xruns *into, wv_xruns *from);
/* Merges the first WV_XSORT_FAN_IN runs into one spilled run at the end,
 * until at most WV_XSORT_FAN_IN are left; *merges counts the merges. stop,
 * where not NULL, is read after each merge: WV_ERR_STOPPED once set. */
wv_status wv_xruns_reduce(wv_xruns *runs, const char *tmp_dir, int64_t *merges, _Atomic int *stop);
void wv_xruns_free(wv_xruns *runs);

/* *count receives the number of records with a key below `key` in all runs. */
wv_status wv_xruns_count_below(const wv_xruns *runs, uint64_t key, int64_t *count);

/* Another sorted source of records for a merge, without repeated keys: next
 * stores the next record and returns 1, or returns 0 at the end. */
typedef struct {
    int (*next)(void *ctx, wv_xrec *out);
    void *ctx;
} wv_xsource;

/* Receives the merged records in key order; a status other than WV_OK ends
 * the merge with that status. */
typedef wv_status (*wv_xemit)(void *ctx, const wv_xrec *r);

/* Merges the records with lo <= key < hi of every run, and those of
 * `extra` (NULL: none; it must hold only keys in the range), into emit,
 * equal keys summed. Runs are only read: several ranges may be merged at
 * once on different threads. */
wv_status wv_xruns_merge_range(const wv_xruns *runs, uint64_t lo, uint64_t hi, const wv_xsource *extra,
                               wv_xemit emit, void *ctx);

#endif
