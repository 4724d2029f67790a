#ifndef INGEST_CSQLITE_SHIM_H
#define INGEST_CSQLITE_SHIM_H
#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call. Turning memory
/// statistics off removes the one global mutex Debian's build takes on every
/// allocation; it must run before SQLite is first used.
static inline int ingest_sqlite_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// SQLITE_TRANSIENT is a cast macro Swift does not import.
static inline sqlite3_destructor_type ingest_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
#endif
