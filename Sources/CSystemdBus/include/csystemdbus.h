#ifndef HANDOFF_CSYSTEMDBUS_H
#define HANDOFF_CSYSTEMDBUS_H

// libsystemd's D-Bus (sd-bus) and event loop (sd-event), seen only by HandoffBus. The library is
// loaded when a bus is joined (handoff_systemd_load), not by the loader at exec, with the
// libraries it brings (libgcrypt, libgpg-error, liblz4, liblzma, libzstd, libcap). A running
// handoffd maps them anyway once its Avahi client is made (libavahi-client's libdbus-1 links
// libsystemd; CAvahi loads it after the first dials), but never at exec, and a handoffd without a
// bus never touches sd-bus's pages.
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <sys/eventfd.h>

// Loads libsystemd.so.0 and finds every function HandoffBus calls. NULL when it is ready; else
// what went wrong (dlerror's text, kept until the next call). Safe to call more than once.
const char *handoff_systemd_load(void);

#endif
