#ifndef HANDOFF_CAVAHI_H
#define HANDOFF_CAVAHI_H

// Avahi, seen only by HandoffAvahi. libavahi-common (the poll thread, string lists, addresses:
// small, needs only libc) is linked; libavahi-client is loaded by the poll thread when it makes
// the client (handoff_avahi_client_load), not by the loader at exec: it brings libdbus-1, and
// libdbus-1 brings libsystemd with libgcrypt, libgpg-error, liblz4, liblzma, libzstd and libcap,
// whose mapping and 3,000 symbol relocations were most of the loader's work before handoffd's
// first line ran, while a restarted peer waited for its first dial (docs/PERFORMANCE.md).
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/defs.h>
#include <avahi-common/domain.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
#include <avahi-common/watch.h>

// Loads libavahi-client.so.3 and finds every function HandoffAvahi calls. NULL when it is ready;
// else what went wrong (dlerror's text, kept until the next call). Safe to call more than once,
// from any thread; until it has succeeded no avahi_client_* or avahi_entry_group_*, browser or
// resolver function may be called.
const char *handoff_avahi_client_load(void);

#endif
