#ifndef HANDOFF_CSYSTEMDBUS_H
#define HANDOFF_CSYSTEMDBUS_H

// libsystemd's D-Bus (sd-bus) and event loop (sd-event), seen only by HandoffBus. The library is
// loaded when a bus is joined (handoff_systemd_load), not at every start: a handoffd without a
// bus (a system service, whose `desktop.dbus: auto` finds no session bus) maps neither libsystemd
// nor the libraries it brings (libgcrypt, libgpg-error, liblz4, liblzma, libzstd, libcap): 0.8
// MiB of resident memory and a tenth of the loader's work at start.
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <sys/eventfd.h>

// Loads libsystemd.so.0 and finds every function HandoffBus calls. NULL when it is ready; else
// what went wrong (dlerror's text, kept until the next call). Safe to call more than once.
const char *handoff_systemd_load(void);

#endif
