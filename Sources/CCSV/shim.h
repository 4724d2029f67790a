#ifndef INGEST_CCSV_SHIM_H
#define INGEST_CCSV_SHIM_H
#include <stddef.h>
#include <stdlib.h>
#include <csv.h>

/// The largest field libcsv may buffer. A feed is untrusted: without a cap a
/// 100 MB line with no delimiter becomes a 100 MB allocation (or more, as the
/// buffer grows). libcsv's realloc hook has no context pointer, so the cap is
/// a constant here rather than a setting.
#define INGEST_CSV_MAX_FIELD_BYTES ((size_t)1 << 20)

static inline void *ingest_csv_bounded_realloc(void *pointer, size_t size) {
    if (size > INGEST_CSV_MAX_FIELD_BYTES) return NULL;
    return realloc(pointer, size);
}

static inline void ingest_csv_install_bounded_realloc(struct csv_parser *parser) {
    csv_set_realloc_func(parser, ingest_csv_bounded_realloc);
}
/// Whether the parser stands inside a quoted field that has not closed.
/// libcsv reports that from csv_fini only in strict mode, which also fails a
/// quote inside an unquoted field (data, in real exports); its states are
/// private to libcsv.c (3.0.x: FIELD_BEGUN is 2), so they are read here.
static inline int ingest_csv_in_open_quote(const struct csv_parser *parser) {
    return parser->pstate == 2 && parser->quoted;
}
#endif
