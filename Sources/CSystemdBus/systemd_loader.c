// The sd-bus and sd-event functions HandoffBus calls, each forwarding to libsystemd.so.0 loaded by
// handoff_systemd_load(). Each is defined hidden, so that libsystemd's calls to its own functions
// are never captured by ours (as in CLDNS).
#include "csystemdbus.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#define FORWARD(ret, name, params, args)                                                                      \
    static ret(*real_##name) params;                                                                          \
    __attribute__((visibility("hidden"))) ret name params { return real_##name args; }
#define FORWARD_VOID(name, params, args)                                                                      \
    static void(*real_##name) params;                                                                         \
    __attribute__((visibility("hidden"))) void name params { real_##name args; }

FORWARD(int, sd_bus_add_object,
        (sd_bus *bus, sd_bus_slot **slot, const char *path, sd_bus_message_handler_t callback, void *userdata),
        (bus, slot, path, callback, userdata))
FORWARD(int, sd_bus_attach_event, (sd_bus *bus, sd_event *e, int priority), (bus, e, priority))
FORWARD(int, sd_bus_call_async,
        (sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, void *userdata, uint64_t usec),
        (bus, slot, m, callback, userdata, usec))
FORWARD(int, sd_bus_creds_get_euid, (sd_bus_creds *c, uid_t *euid), (c, euid))
FORWARD(int, sd_bus_creds_get_pid, (sd_bus_creds *c, pid_t *pid), (c, pid))
FORWARD(sd_bus_creds*, sd_bus_creds_unref, (sd_bus_creds *c), (c))
FORWARD_VOID(sd_bus_error_free, (sd_bus_error *e), (e))
FORWARD(int, sd_bus_error_is_set, (const sd_bus_error *e), (e))
FORWARD(int, sd_bus_error_set, (sd_bus_error *e, const char *name, const char *message), (e, name, message))
FORWARD(int, sd_bus_flush, (sd_bus *bus), (bus))
FORWARD(sd_bus*, sd_bus_flush_close_unref, (sd_bus *bus), (bus))
FORWARD(int, sd_bus_get_unique_name, (sd_bus *bus, const char **unique), (bus, unique))
FORWARD(int, sd_bus_match_signal,
        (sd_bus *bus, sd_bus_slot **ret, const char *sender, const char *path, const char *interface, const char *member,
         sd_bus_message_handler_t callback, void *userdata),
        (bus, ret, sender, path, interface, member, callback, userdata))
FORWARD(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p))
FORWARD(int, sd_bus_message_close_container, (sd_bus_message *m), (m))
FORWARD(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
FORWARD(int, sd_bus_message_exit_container, (sd_bus_message *m), (m))
FORWARD(const sd_bus_error*, sd_bus_message_get_error, (sd_bus_message *m), (m))
FORWARD(const char*, sd_bus_message_get_interface, (sd_bus_message *m), (m))
FORWARD(const char*, sd_bus_message_get_member, (sd_bus_message *m), (m))
FORWARD(const char*, sd_bus_message_get_path, (sd_bus_message *m), (m))
FORWARD(const char*, sd_bus_message_get_sender, (sd_bus_message *m), (m))
FORWARD(const char*, sd_bus_message_get_signature, (sd_bus_message *m, int complete), (m, complete))
FORWARD(int, sd_bus_message_is_method_call,
        (sd_bus_message *m, const char *interface, const char *member),
        (m, interface, member))
FORWARD(int, sd_bus_message_new_method_call,
        (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member),
        (bus, m, destination, path, interface, member))
FORWARD(int, sd_bus_message_new_method_error,
        (sd_bus_message *call, sd_bus_message **m, const sd_bus_error *e),
        (call, m, e))
FORWARD(int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m), (call, m))
FORWARD(int, sd_bus_message_new_signal,
        (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member),
        (bus, m, path, interface, member))
FORWARD(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
FORWARD(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents), (m, type, contents))
FORWARD(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p))
FORWARD(sd_bus_message*, sd_bus_message_ref, (sd_bus_message *m), (m))
FORWARD(int, sd_bus_message_set_destination, (sd_bus_message *m, const char *destination), (m, destination))
FORWARD(sd_bus_message*, sd_bus_message_unref, (sd_bus_message *m), (m))
FORWARD(int, sd_bus_new, (sd_bus **ret), (ret))
FORWARD(int, sd_bus_open_system, (sd_bus **ret), (ret))
FORWARD(int, sd_bus_open_user, (sd_bus **ret), (ret))
FORWARD(int, sd_bus_query_sender_creds, (sd_bus_message *m, uint64_t mask, sd_bus_creds **creds), (m, mask, creds))
FORWARD(int, sd_bus_request_name, (sd_bus *bus, const char *name, uint64_t flags), (bus, name, flags))
FORWARD(int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie), (bus, m, cookie))
FORWARD(int, sd_bus_set_address, (sd_bus *bus, const char *address), (bus, address))
FORWARD(int, sd_bus_set_bus_client, (sd_bus *bus, int b), (bus, b))
FORWARD(int, sd_bus_set_description, (sd_bus *bus, const char *description), (bus, description))
FORWARD(int, sd_bus_start, (sd_bus *bus), (bus))
FORWARD(sd_bus*, sd_bus_unref, (sd_bus *bus), (bus))
FORWARD(int, sd_event_add_io,
        (sd_event *e, sd_event_source **s, int fd, uint32_t events, sd_event_io_handler_t callback, void *userdata),
        (e, s, fd, events, callback, userdata))
FORWARD(int, sd_event_exit, (sd_event *e, int code), (e, code))
FORWARD(int, sd_event_loop, (sd_event *e), (e))
FORWARD(int, sd_event_new, (sd_event **e), (e))
FORWARD(sd_event*, sd_event_unref, (sd_event *e), (e))

#define ENTRY(name) {#name, (void **)&real_##name}
static const struct {
    const char *name;
    void **slot;
} functions[] = {
    ENTRY(sd_bus_add_object), ENTRY(sd_bus_attach_event), ENTRY(sd_bus_call_async), ENTRY(sd_bus_creds_get_euid),
    ENTRY(sd_bus_creds_get_pid), ENTRY(sd_bus_creds_unref), ENTRY(sd_bus_error_free), ENTRY(sd_bus_error_is_set),
    ENTRY(sd_bus_error_set), ENTRY(sd_bus_flush), ENTRY(sd_bus_flush_close_unref), ENTRY(sd_bus_get_unique_name),
    ENTRY(sd_bus_match_signal), ENTRY(sd_bus_message_append_basic), ENTRY(sd_bus_message_close_container),
    ENTRY(sd_bus_message_enter_container), ENTRY(sd_bus_message_exit_container), ENTRY(sd_bus_message_get_error),
    ENTRY(sd_bus_message_get_interface), ENTRY(sd_bus_message_get_member), ENTRY(sd_bus_message_get_path),
    ENTRY(sd_bus_message_get_sender), ENTRY(sd_bus_message_get_signature), ENTRY(sd_bus_message_is_method_call),
    ENTRY(sd_bus_message_new_method_call), ENTRY(sd_bus_message_new_method_error),
    ENTRY(sd_bus_message_new_method_return), ENTRY(sd_bus_message_new_signal), ENTRY(sd_bus_message_open_container),
    ENTRY(sd_bus_message_peek_type), ENTRY(sd_bus_message_read_basic), ENTRY(sd_bus_message_ref),
    ENTRY(sd_bus_message_set_destination), ENTRY(sd_bus_message_unref), ENTRY(sd_bus_new), ENTRY(sd_bus_open_system),
    ENTRY(sd_bus_open_user), ENTRY(sd_bus_query_sender_creds), ENTRY(sd_bus_request_name), ENTRY(sd_bus_send),
    ENTRY(sd_bus_set_address), ENTRY(sd_bus_set_bus_client), ENTRY(sd_bus_set_description), ENTRY(sd_bus_start),
    ENTRY(sd_bus_unref), ENTRY(sd_event_add_io), ENTRY(sd_event_exit), ENTRY(sd_event_loop), ENTRY(sd_event_new),
    ENTRY(sd_event_unref)
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;
static const char *failure;

const char *handoff_systemd_load(void) {
    pthread_mutex_lock(&lock);
    if (!loaded) {
        // RTLD_LOCAL: nothing of libsystemd (or of what it brings) is seen by later lookups.
        void *handle = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            failure = dlerror();
        } else {
            failure = NULL;
            for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
                *functions[i].slot = dlsym(handle, functions[i].name);
                if (!*functions[i].slot) {
                    failure = dlerror();
                    break;
                }
            }
            loaded = failure == NULL;
        }
    }
    const char *result = loaded ? NULL : failure;
    pthread_mutex_unlock(&lock);
    return result;
}
