#ifndef INGEST_CSQLITE_SHIM_H
#define INGEST_CSQLITE_SHIM_H
/* Debian's libsqlite3 is built with the session extension (changesets
 * between two snapshots); its declarations show only when these are set. */
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>
#include <string.h>

/// sqlite3_config is variadic, which Swift cannot call. Turning memory
/// statistics off removes the one global mutex Debian's build takes on every
/// allocation; it must run before SQLite is first used.
static inline int ingest_sqlite_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// The authorizer that keeps one table of `main` as it is: every INSERT,
/// UPDATE or DELETE of it (`table`, a NUL-terminated name the caller keeps
/// alive) is refused when prepared, reads and everything else allowed.
static inline int ingest_sqlite_frozen_table(void *table, int action, const char *first, const char *second,
                                             const char *database, const char *trigger) {
    (void)second;
    (void)trigger;
    if ((action == SQLITE_INSERT || action == SQLITE_UPDATE || action == SQLITE_DELETE) && first && database
        && strcmp(first, (const char *)table) == 0 && strcmp(database, "main") == 0) {
        return SQLITE_DENY;
    }
    return SQLITE_OK;
}

/// Installs `ingest_sqlite_frozen_table` for `table`. SQLite expires every
/// prepared statement when an authorizer is set, so statements prepared
/// before are authorized again before they next run.
static inline int ingest_sqlite_freeze_table(sqlite3 *db, const char *table) {
    return sqlite3_set_authorizer(db, ingest_sqlite_frozen_table, (void *)table);
}

/// SQLITE_TRANSIENT is a cast macro Swift does not import.
static inline sqlite3_destructor_type ingest_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Order-free digests of rows. Rows combine by a sum and an xor of a
/// multiple, both order-free, so a difference must fool both to pass; a
/// row can be taken out again. Two row hashes:
///
/// - `ingest_check_digest(col, …)`, for the check before publishing: the
///   writer adds every offer it inserts, and the aggregate computes the same
///   over a scan of a table or of one index, so "this index holds exactly
///   its table's rows" costs two sequential scans instead of one index
///   lookup per row (PRAGMA integrity_check). Its values never leave the
///   run, so it is built for speed: each value's type tag and length, then
///   its bytes eight at a time, each step one 64×64→128-bit multiply whose
///   halves are xored (wyhash's "mum").
/// - `ingest_digest(col, …)`, the content digests in the manifest, which
///   clients that apply a changeset compute too (SNAPSHOT.md): FNV-1a over
///   each value's bytes, tagged with its type and ended by its length. It
///   takes one multiply per byte, a dependent chain, which is why the
///   check's own digests no longer use it (docs/PERFORMANCE.md); it stays
///   as it is because it is the clients' contract.
#include <stdint.h>
#include <string.h>

typedef struct { uint64_t sum; uint64_t mix; int64_t count; } ingest_digest_state;

static inline uint64_t ingest_digest_row_start(void) { return 0xCBF29CE484222325ULL; }

static inline uint64_t ingest_digest_bytes(uint64_t hash, uint8_t tag, const void *bytes, int length) {
    hash = (hash ^ tag) * 0x100000001B3ULL;
    const uint8_t *p = (const uint8_t *)bytes;
    for (int i = 0; i < length; i++) hash = (hash ^ p[i]) * 0x100000001B3ULL;
    /* the length ends the value, so ("ab","c") and ("a","bc") differ */
    return (hash ^ (uint64_t)(uint32_t)length) * 0x100000001B3ULL;
}

static inline uint64_t ingest_check_mix(uint64_t hash, uint64_t word) {
    __uint128_t product = (__uint128_t)(hash ^ word) * 0x9E3779B97F4A7C15ULL;
    return (uint64_t)product ^ (uint64_t)(product >> 64);
}

static inline uint64_t ingest_check_bytes(uint64_t hash, uint8_t tag, const void *bytes, int length) {
    /* the length leads the value, so ("ab","c") and ("a","bc") differ and a tail's zero padding adds nothing */
    hash = ingest_check_mix(hash, (uint64_t)tag | ((uint64_t)(uint32_t)length << 8));
    const uint8_t *p = (const uint8_t *)bytes;
    int i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, p + i, 8);
        hash = ingest_check_mix(hash, word);
    }
    if (i < length) {
        uint64_t word = 0;
        memcpy(&word, p + i, (size_t)(length - i));
        hash = ingest_check_mix(hash, word);
    }
    return hash;
}

static inline uint64_t ingest_check_text(uint64_t hash, const char *text, int length) { return ingest_check_bytes(hash, 3, text, length); }
static inline uint64_t ingest_check_int(uint64_t hash, int64_t value) {
    return ingest_check_mix(ingest_check_mix(hash, 1 | (8 << 8)), (uint64_t)value);
}
static inline uint64_t ingest_check_null(uint64_t hash) { return ingest_check_mix(hash, 5); }

static inline void ingest_digest_add(ingest_digest_state *state, uint64_t row) {
    state->sum += row; state->mix ^= row * 0x9E3779B97F4A7C15ULL; state->count += 1;
}
static inline void ingest_digest_remove(ingest_digest_state *state, uint64_t row) {
    state->sum -= row; state->mix ^= row * 0x9E3779B97F4A7C15ULL; state->count -= 1;
}
static inline uint64_t ingest_digest_value(const ingest_digest_state *state) {
    return state->sum ^ ((state->mix << 1) | (state->mix >> 63));
}

/// One row into either aggregate; `check` picks the row hash (a constant
/// at both call sites, so each is compiled with its own).
static inline __attribute__((always_inline)) void ingest_digest_row(sqlite3_context *context, int argc, sqlite3_value **argv, int check) {
    ingest_digest_state *state = (ingest_digest_state *)sqlite3_aggregate_context(context, sizeof(ingest_digest_state));
    if (!state) { sqlite3_result_error_nomem(context); return; }
    uint64_t hash = ingest_digest_row_start();
    for (int i = 0; i < argc; i++) {
        switch (sqlite3_value_type(argv[i])) {
        case SQLITE_INTEGER: {
            int64_t value = sqlite3_value_int64(argv[i]);
            hash = check ? ingest_check_int(hash, value) : ingest_digest_bytes(hash, 1, &value, 8);
            break;
        }
        case SQLITE_FLOAT: {
            double real = sqlite3_value_double(argv[i]);
            hash = check ? ingest_check_bytes(hash, 2, &real, 8) : ingest_digest_bytes(hash, 2, &real, 8);
            break;
        }
        case SQLITE_TEXT: {
            const unsigned char *text = sqlite3_value_text(argv[i]);
            int length = sqlite3_value_bytes(argv[i]);
            hash = check ? ingest_check_bytes(hash, 3, text, length) : ingest_digest_bytes(hash, 3, text, length);
            break;
        }
        case SQLITE_BLOB: {
            const void *blob = sqlite3_value_blob(argv[i]);
            int length = sqlite3_value_bytes(argv[i]);
            hash = check ? ingest_check_bytes(hash, 4, blob, length) : ingest_digest_bytes(hash, 4, blob, length);
            break;
        }
        default: hash = check ? ingest_check_null(hash) : ingest_digest_bytes(hash, 5, "", 0); break;
        }
    }
    ingest_digest_add(state, hash);
}

static void ingest_digest_step(sqlite3_context *context, int argc, sqlite3_value **argv) { ingest_digest_row(context, argc, argv, 0); }
static void ingest_check_digest_step(sqlite3_context *context, int argc, sqlite3_value **argv) { ingest_digest_row(context, argc, argv, 1); }

/// Either aggregate's result: "<rows>:<digest in hex>".
static void ingest_digest_final(sqlite3_context *context) {
    ingest_digest_state *state = (ingest_digest_state *)sqlite3_aggregate_context(context, 0);
    ingest_digest_state empty = {0, 0, 0};
    if (!state) state = &empty;
    char text[48];
    sqlite3_snprintf(sizeof text, text, "%lld:%016llx", (long long)state->count, (unsigned long long)ingest_digest_value(state));
    sqlite3_result_text(context, text, -1, SQLITE_TRANSIENT);
}

/// `ingest_table_digests(spec, c0, c1, …)`: a table's scan for the check
/// before publishing in one aggregate, every column read once. `spec`
/// lists the check digests wanted, each as the positions of its columns
/// among c0… ("1,0,2;0,1,2": an index on (c1, c0, c2), then the writer's
/// (c0, c1, c2); "x" for an index's expression, hashed as the empty text,
/// as the index's scan hashes `''` in its place). The result is each such `ingest_check_digest`, then
/// `ingest_digest` of all the columns, separated by spaces. Separate
/// aggregates read and hashed each column once per digest that names it:
/// 22 column reads a row of `offers` where 10 do.
enum { INGEST_TABLE_DIGESTS_MAX_GROUPS = 16, INGEST_TABLE_DIGESTS_MAX_COLUMNS = 64 };

typedef struct {
    int parsed;
    int groups;
    int lengths[INGEST_TABLE_DIGESTS_MAX_GROUPS];
    /* a column's position, or INGEST_TABLE_DIGESTS_MAX_COLUMNS for an expression ("x" in the spec) */
    unsigned char positions[INGEST_TABLE_DIGESTS_MAX_GROUPS][INGEST_TABLE_DIGESTS_MAX_COLUMNS];
    ingest_digest_state states[INGEST_TABLE_DIGESTS_MAX_GROUPS + 1]; /* the last: the content digest */
} ingest_table_digests_state;

/// Reads the spec once, into the aggregate's own memory; 0 when it is not one.
static int ingest_table_digests_parse(ingest_table_digests_state *state, const unsigned char *spec, int columns) {
    if (!spec) return 0;
    if (!*spec) { state->groups = 0; state->parsed = 1; return 1; } /* only the content digest */
    int group = 0, value = -1;
    state->lengths[0] = 0;
    for (const unsigned char *p = spec;; p++) {
        if (*p == 'x' && value < 0) { /* an expression's place in an index: the empty text stands for it */
            value = INGEST_TABLE_DIGESTS_MAX_COLUMNS;
            continue;
        }
        if (*p >= '0' && *p <= '9') {
            value = (value < 0 ? 0 : value * 10) + (*p - '0');
            if (value >= columns) return 0;
            continue;
        }
        if (*p != ',' && *p != ';' && *p != 0) return 0;
        if (value < 0 || state->lengths[group] >= INGEST_TABLE_DIGESTS_MAX_COLUMNS) return 0;
        state->positions[group][state->lengths[group]++] = (unsigned char)value;
        value = -1;
        if (*p == ';' || *p == 0) {
            group += 1;
            if (*p == 0) break;
            if (group >= INGEST_TABLE_DIGESTS_MAX_GROUPS) return 0;
            state->lengths[group] = 0;
        }
    }
    state->groups = group;
    state->parsed = 1;
    return 1;
}

static void ingest_table_digests_step(sqlite3_context *context, int argc, sqlite3_value **argv) {
    ingest_table_digests_state *state = (ingest_table_digests_state *)sqlite3_aggregate_context(context, sizeof(ingest_table_digests_state));
    if (!state) { sqlite3_result_error_nomem(context); return; }
    int columns = argc - 1;
    if (columns < 1 || columns > INGEST_TABLE_DIGESTS_MAX_COLUMNS) { sqlite3_result_error(context, "ingest_table_digests: 1 to 64 columns", -1); return; }
    if (!state->parsed && !ingest_table_digests_parse(state, sqlite3_value_text(argv[0]), columns)) {
        sqlite3_result_error(context, "ingest_table_digests: a spec of column positions, such as 1,0,2;0,1,2", -1);
        return;
    }
    int types[INGEST_TABLE_DIGESTS_MAX_COLUMNS];
    const void *bytes[INGEST_TABLE_DIGESTS_MAX_COLUMNS];
    int lengths[INGEST_TABLE_DIGESTS_MAX_COLUMNS];
    int64_t numbers[INGEST_TABLE_DIGESTS_MAX_COLUMNS];
    uint64_t content = ingest_digest_row_start();
    for (int i = 0; i < columns; i++) {
        sqlite3_value *value = argv[i + 1];
        int type = sqlite3_value_type(value);
        types[i] = type;
        switch (type) {
        case SQLITE_INTEGER:
            numbers[i] = sqlite3_value_int64(value);
            content = ingest_digest_bytes(content, 1, &numbers[i], 8);
            break;
        case SQLITE_FLOAT: {
            double real = sqlite3_value_double(value);
            memcpy(&numbers[i], &real, 8);
            content = ingest_digest_bytes(content, 2, &real, 8);
            break;
        }
        case SQLITE_TEXT:
            bytes[i] = sqlite3_value_text(value);
            lengths[i] = sqlite3_value_bytes(value);
            content = ingest_digest_bytes(content, 3, bytes[i], lengths[i]);
            break;
        case SQLITE_BLOB:
            bytes[i] = sqlite3_value_blob(value);
            lengths[i] = sqlite3_value_bytes(value);
            content = ingest_digest_bytes(content, 4, bytes[i], lengths[i]);
            break;
        default:
            content = ingest_digest_bytes(content, 5, "", 0);
            break;
        }
    }
    for (int group = 0; group < state->groups; group++) {
        uint64_t hash = ingest_digest_row_start();
        for (int k = 0; k < state->lengths[group]; k++) {
            int i = state->positions[group][k];
            if (i == INGEST_TABLE_DIGESTS_MAX_COLUMNS) { hash = ingest_check_bytes(hash, 3, "", 0); continue; }
            switch (types[i]) {
            case SQLITE_INTEGER: hash = ingest_check_int(hash, numbers[i]); break;
            case SQLITE_FLOAT: hash = ingest_check_bytes(hash, 2, &numbers[i], 8); break;
            case SQLITE_TEXT: hash = ingest_check_bytes(hash, 3, bytes[i], lengths[i]); break;
            case SQLITE_BLOB: hash = ingest_check_bytes(hash, 4, bytes[i], lengths[i]); break;
            default: hash = ingest_check_null(hash); break;
            }
        }
        ingest_digest_add(&state->states[group], hash);
    }
    ingest_digest_add(&state->states[state->groups], content);
}

static void ingest_table_digests_final(sqlite3_context *context) {
    ingest_table_digests_state *state = (ingest_table_digests_state *)sqlite3_aggregate_context(context, 0);
    if (!state || !state->parsed) {
        /* no row: NULL, which the caller reads as every digest empty ("0:0000000000000000") */
        sqlite3_result_null(context);
        return;
    }
    char text[(INGEST_TABLE_DIGESTS_MAX_GROUPS + 1) * 48];
    int used = 0;
    for (int group = 0; group <= state->groups; group++) {
        sqlite3_snprintf((int)sizeof text - used, text + used, "%s%lld:%016llx", group ? " " : "",
                         (long long)state->states[group].count, (unsigned long long)ingest_digest_value(&state->states[group]));
        used += (int)strlen(text + used);
    }
    sqlite3_result_text(context, text, used, SQLITE_TRANSIENT);
}

static inline int ingest_sqlite_register_digest(sqlite3 *db) {
    int code = sqlite3_create_function_v2(db, "ingest_digest", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL,
                                          ingest_digest_step, ingest_digest_final, NULL);
    if (code != SQLITE_OK) return code;
    code = sqlite3_create_function_v2(db, "ingest_check_digest", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL,
                                      ingest_check_digest_step, ingest_digest_final, NULL);
    if (code != SQLITE_OK) return code;
    return sqlite3_create_function_v2(db, "ingest_table_digests", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL,
                                      ingest_table_digests_step, ingest_table_digests_final, NULL);
}

/// `ingest_changeset_values(v1, v2, …)`: the values as one blob in the
/// session extension's record encoding (a type byte; 8 big-endian bytes for
/// a number; a varint length and the bytes for text and blobs; 5 for NULL).
/// The night's changeset merge (`SnapshotMerge`) compares two rows by these
/// blobs with one memcmp, where reading each column through the API took
/// four calls a value, and writes an inserted or deleted row as the blob.
static inline int ingest_varint_length(sqlite3_uint64 v) {
    int n = 1;
    if (v & ((sqlite3_uint64)0xff000000 << 32)) return 9;
    while (v >>= 7) n++;
    return n;
}
static inline unsigned char *ingest_put_varint(unsigned char *p, sqlite3_uint64 v) {
    int n = ingest_varint_length(v);
    if (n == 9) {
        p[8] = (unsigned char)v; v >>= 8;
        for (int i = 7; i >= 0; i--) { p[i] = (unsigned char)((v & 0x7f) | 0x80); v >>= 7; }
        return p + 9;
    }
    for (int i = n - 1; i >= 0; i--) { p[i] = (unsigned char)((v & 0x7f) | (i == n - 1 ? 0 : 0x80)); v >>= 7; }
    return p + n;
}
static void ingest_changeset_values(sqlite3_context *context, int argc, sqlite3_value **argv) {
    /* Each value's type, bytes and length asked once (the API calls were a
     * fifth of the merge), and a row that fits built on the stack and handed
     * over as SQLITE_TRANSIENT: SQLite copies it into the result register's
     * buffer, which it keeps from row to row, where a blob of our own was a
     * malloc and a free per row. */
    enum { most_columns = 64, stack_bytes = 1024 };
    int types[most_columns];
    const void *data[most_columns];
    int lengths[most_columns];
    if (argc > most_columns) { sqlite3_result_error(context, "ingest_changeset_values: more than 64 columns", -1); return; }
    sqlite3_uint64 size = 0;
    for (int i = 0; i < argc; i++) {
        int type = sqlite3_value_type(argv[i]);
        types[i] = type;
        switch (type) {
        case SQLITE_INTEGER: case SQLITE_FLOAT: size += 9; break;
        case SQLITE_TEXT: case SQLITE_BLOB: {
            /* text (or blob) before bytes, as the API asks: the length is then the converted value's */
            data[i] = type == SQLITE_TEXT ? (const void *)sqlite3_value_text(argv[i]) : sqlite3_value_blob(argv[i]);
            int n = sqlite3_value_bytes(argv[i]);
            lengths[i] = n;
            size += 1 + ingest_varint_length((sqlite3_uint64)n) + n;
            break;
        }
        default: size += 1; break;
        }
    }
    unsigned char local[stack_bytes];
    unsigned char *blob = size <= stack_bytes ? local : sqlite3_malloc64(size > 0 ? size : 1);
    if (!blob) { sqlite3_result_error_nomem(context); return; }
    unsigned char *p = blob;
    for (int i = 0; i < argc; i++) {
        int type = types[i];
        if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
            sqlite3_uint64 bits;
            if (type == SQLITE_INTEGER) { sqlite3_int64 value = sqlite3_value_int64(argv[i]); memcpy(&bits, &value, 8); }
            else { double value = sqlite3_value_double(argv[i]); memcpy(&bits, &value, 8); }
            *p++ = (unsigned char)(type == SQLITE_INTEGER ? 1 : 2);
            for (int shift = 56; shift >= 0; shift -= 8) *p++ = (unsigned char)(bits >> shift);
        } else if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
            int n = lengths[i];
            *p++ = (unsigned char)(type == SQLITE_TEXT ? 3 : 4);
            p = ingest_put_varint(p, (sqlite3_uint64)n);
            if (n > 0) { memcpy(p, data[i], (size_t)n); p += n; }
        } else {
            *p++ = 5;
        }
    }
    if (blob == local) sqlite3_result_blob64(context, blob, (sqlite3_uint64)(p - blob), SQLITE_TRANSIENT);
    else sqlite3_result_blob64(context, blob, (sqlite3_uint64)(p - blob), sqlite3_free);
}
static inline int ingest_sqlite_register_changeset_values(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "ingest_changeset_values", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                      ingest_changeset_values, NULL, NULL, NULL);
}

/// Changeset conflicts abort: a changeset is applied to the very version it was made from, so any conflict means the wrong base.
static int ingest_changeset_abort_on_conflict(void *context, int conflict, sqlite3_changeset_iter *iterator) {
    (void)context; (void)conflict; (void)iterator;
    return SQLITE_CHANGESET_ABORT;
}
static inline int ingest_changeset_apply(sqlite3 *db, int size, void *changeset) {
    return sqlite3changeset_apply(db, size, changeset, NULL, ingest_changeset_abort_on_conflict, NULL);
}
#endif
