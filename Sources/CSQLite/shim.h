#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: SQLite
// copies the bytes it is given before the bind returns.
static inline void (*csqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
