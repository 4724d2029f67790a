#ifndef INGEST_CYAJL_SHIM_H
#define INGEST_CYAJL_SHIM_H
#include <stddef.h>
#include <stdlib.h>
#include <yajl/yajl_parse.h>

/// The largest block YAJL may hold. A feed is untrusted: YAJL buffers a token
/// that spans two chunks (a string, a number) whole, so a 1 GB string without
/// a closing quote would become a 1 GB allocation. Its allocator hooks have
/// a context pointer, but a constant keeps them as simple as libcsv's.
#define INGEST_YAJL_MAX_BLOCK_BYTES ((size_t)8 << 20)

static void *ingest_yajl_malloc(void *context, size_t size) {
    (void)context;
    return size > INGEST_YAJL_MAX_BLOCK_BYTES ? NULL : malloc(size);
}

static void *ingest_yajl_realloc(void *context, void *pointer, size_t size) {
    (void)context;
    return size > INGEST_YAJL_MAX_BLOCK_BYTES ? NULL : realloc(pointer, size);
}

static void ingest_yajl_free(void *context, void *pointer) {
    (void)context;
    free(pointer);
}

/// A parser with the bounded allocator; NULL when it cannot be made.
static inline yajl_handle ingest_yajl_alloc(const yajl_callbacks *callbacks, void *context) {
    static yajl_alloc_funcs funcs = { ingest_yajl_malloc, ingest_yajl_realloc, ingest_yajl_free, NULL };
    return yajl_alloc(callbacks, &funcs, context);
}
#endif
