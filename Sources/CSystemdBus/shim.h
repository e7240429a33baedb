// libsystemd's D-Bus (sd-bus) and event loop (sd-event), for HandoffBus only.
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <sys/eventfd.h>
