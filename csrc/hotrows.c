#include "hotrows.h"

#include <string.h>

#include "memory.h"

wv_status wv_hot_rows_init(wv_hot_rows *o, float *shared, int dim, wv_hot_span span) {
    *o = wv_hot_rows_none(shared);
    o->lo = span.lo;
    o->hi = span.hi;
    o->hottest = span.hottest;
    if (span.hi <= span.lo) {
        o->hi = o->lo;
        return WV_OK;
    }
    size_t bytes = (size_t)(span.hi - span.lo) * (size_t)dim * sizeof(float);
    o->local = wv_alloc_lines(bytes);
    o->snapshot = wv_alloc_lines(bytes);
    if (!o->local || !o->snapshot) {
        wv_hot_rows_free(o);
        return WV_ERR_NOMEM;
    }
    memcpy(o->local, shared + (size_t)span.lo * dim, bytes);
    memcpy(o->snapshot, o->local, bytes);
    return WV_OK;
}

WV_MULTIVERSION /* vecmath.h */
void wv_hot_rows_sync(wv_hot_rows *o, int dim) {
    o->touches = 0;
    if (o->lo == o->hi) return;
    size_t n = (size_t)(o->hi - o->lo) * (size_t)dim;
    float *shared = o->shared + (size_t)o->lo * dim;
    float *local = o->local, *snap = o->snapshot;
    for (size_t i = 0; i < n; i++) {
        float merged = shared[i] + (local[i] - snap[i]);
        shared[i] = merged;
        local[i] = merged;
        snap[i] = merged;
    }
}

void wv_hot_rows_free(wv_hot_rows *o) {
    free(o->local);
    free(o->snapshot);
    o->local = NULL;
    o->snapshot = NULL;
    o->hi = o->lo;
}
