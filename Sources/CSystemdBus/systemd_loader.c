// The sd-bus and sd-event functions HandoffBus calls, each forwarding to libsystemd.so.0 loaded by
// handoff_systemd_load(). Each is defined hidden, so that libsystemd's calls to its own functions
// are never captured by ours (as in CLDNS).
#include "csystemdbus.h"

#include "library_loader.h"

HANDOFF_FORWARD(int, sd_bus_add_object,
        (sd_bus *bus, sd_bus_slot **slot, const char *path, sd_bus_message_handler_t callback, void *userdata),
        (bus, slot, path, callback, userdata))
HANDOFF_FORWARD(int, sd_bus_attach_event, (sd_bus *bus, sd_event *e, int priority), (bus, e, priority))
HANDOFF_FORWARD(int, sd_bus_call_async,
        (sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, void *userdata, uint64_t usec),
        (bus, slot, m, callback, userdata, usec))
HANDOFF_FORWARD(int, sd_bus_creds_get_euid, (sd_bus_creds *c, uid_t *euid), (c, euid))
HANDOFF_FORWARD(int, sd_bus_creds_get_pid, (sd_bus_creds *c, pid_t *pid), (c, pid))
HANDOFF_FORWARD(sd_bus_creds*, sd_bus_creds_unref, (sd_bus_creds *c), (c))
HANDOFF_FORWARD_VOID(sd_bus_error_free, (sd_bus_error *e), (e))
HANDOFF_FORWARD(int, sd_bus_error_is_set, (const sd_bus_error *e), (e))
HANDOFF_FORWARD(int, sd_bus_error_set, (sd_bus_error *e, const char *name, const char *message), (e, name, message))
HANDOFF_FORWARD(int, sd_bus_flush, (sd_bus *bus), (bus))
HANDOFF_FORWARD(sd_bus*, sd_bus_flush_close_unref, (sd_bus *bus), (bus))
HANDOFF_FORWARD(int, sd_bus_get_unique_name, (sd_bus *bus, const char **unique), (bus, unique))
HANDOFF_FORWARD(int, sd_bus_match_signal,
        (sd_bus *bus, sd_bus_slot **ret, const char *sender, const char *path, const char *interface, const char *member,
         sd_bus_message_handler_t callback, void *userdata),
        (bus, ret, sender, path, interface, member, callback, userdata))
HANDOFF_FORWARD(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p))
HANDOFF_FORWARD(int, sd_bus_message_close_container, (sd_bus_message *m), (m))
HANDOFF_FORWARD(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
HANDOFF_FORWARD(int, sd_bus_message_exit_container, (sd_bus_message *m), (m))
HANDOFF_FORWARD(const sd_bus_error*, sd_bus_message_get_error, (sd_bus_message *m), (m))
HANDOFF_FORWARD(const char*, sd_bus_message_get_interface, (sd_bus_message *m), (m))
HANDOFF_FORWARD(const char*, sd_bus_message_get_member, (sd_bus_message *m), (m))
HANDOFF_FORWARD(const char*, sd_bus_message_get_path, (sd_bus_message *m), (m))
HANDOFF_FORWARD(const char*, sd_bus_message_get_sender, (sd_bus_message *m), (m))
HANDOFF_FORWARD(const char*, sd_bus_message_get_signature, (sd_bus_message *m, int complete), (m, complete))
HANDOFF_FORWARD(int, sd_bus_message_is_method_call,
        (sd_bus_message *m, const char *interface, const char *member),
        (m, interface, member))
HANDOFF_FORWARD(int, sd_bus_message_new_method_call,
        (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member),
        (bus, m, destination, path, interface, member))
HANDOFF_FORWARD(int, sd_bus_message_new_method_error,
        (sd_bus_message *call, sd_bus_message **m, const sd_bus_error *e),
        (call, m, e))
HANDOFF_FORWARD(int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m), (call, m))
HANDOFF_FORWARD(int, sd_bus_message_new_signal,
        (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member),
        (bus, m, path, interface, member))
HANDOFF_FORWARD(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents))
HANDOFF_FORWARD(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents), (m, type, contents))
HANDOFF_FORWARD(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p))
HANDOFF_FORWARD(sd_bus_message*, sd_bus_message_ref, (sd_bus_message *m), (m))
HANDOFF_FORWARD(int, sd_bus_message_set_destination, (sd_bus_message *m, const char *destination), (m, destination))
HANDOFF_FORWARD(sd_bus_message*, sd_bus_message_unref, (sd_bus_message *m), (m))
HANDOFF_FORWARD(int, sd_bus_new, (sd_bus **ret), (ret))
HANDOFF_FORWARD(int, sd_bus_open_system, (sd_bus **ret), (ret))
HANDOFF_FORWARD(int, sd_bus_open_user, (sd_bus **ret), (ret))
HANDOFF_FORWARD(int, sd_bus_query_sender_creds, (sd_bus_message *m, uint64_t mask, sd_bus_creds **creds), (m, mask, creds))
HANDOFF_FORWARD(int, sd_bus_request_name, (sd_bus *bus, const char *name, uint64_t flags), (bus, name, flags))
HANDOFF_FORWARD(int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie), (bus, m, cookie))
HANDOFF_FORWARD(int, sd_bus_set_address, (sd_bus *bus, const char *address), (bus, address))
HANDOFF_FORWARD(int, sd_bus_set_bus_client, (sd_bus *bus, int b), (bus, b))
HANDOFF_FORWARD(int, sd_bus_set_description, (sd_bus *bus, const char *description), (bus, description))
HANDOFF_FORWARD(int, sd_bus_start, (sd_bus *bus), (bus))
HANDOFF_FORWARD(sd_bus*, sd_bus_unref, (sd_bus *bus), (bus))
HANDOFF_FORWARD(int, sd_event_add_io,
        (sd_event *e, sd_event_source **s, int fd, uint32_t events, sd_event_io_handler_t callback, void *userdata),
        (e, s, fd, events, callback, userdata))
HANDOFF_FORWARD(int, sd_event_exit, (sd_event *e, int code), (e, code))
HANDOFF_FORWARD(int, sd_event_loop, (sd_event *e), (e))
HANDOFF_FORWARD(int, sd_event_new, (sd_event **e), (e))
HANDOFF_FORWARD(sd_event*, sd_event_unref, (sd_event *e), (e))

static const struct handoff_library_function functions[] = {
    HANDOFF_ENTRY(sd_bus_add_object), HANDOFF_ENTRY(sd_bus_attach_event), HANDOFF_ENTRY(sd_bus_call_async), HANDOFF_ENTRY(sd_bus_creds_get_euid),
    HANDOFF_ENTRY(sd_bus_creds_get_pid), HANDOFF_ENTRY(sd_bus_creds_unref), HANDOFF_ENTRY(sd_bus_error_free), HANDOFF_ENTRY(sd_bus_error_is_set),
    HANDOFF_ENTRY(sd_bus_error_set), HANDOFF_ENTRY(sd_bus_flush), HANDOFF_ENTRY(sd_bus_flush_close_unref), HANDOFF_ENTRY(sd_bus_get_unique_name),
    HANDOFF_ENTRY(sd_bus_match_signal), HANDOFF_ENTRY(sd_bus_message_append_basic), HANDOFF_ENTRY(sd_bus_message_close_container),
    HANDOFF_ENTRY(sd_bus_message_enter_container), HANDOFF_ENTRY(sd_bus_message_exit_container), HANDOFF_ENTRY(sd_bus_message_get_error),
    HANDOFF_ENTRY(sd_bus_message_get_interface), HANDOFF_ENTRY(sd_bus_message_get_member), HANDOFF_ENTRY(sd_bus_message_get_path),
    HANDOFF_ENTRY(sd_bus_message_get_sender), HANDOFF_ENTRY(sd_bus_message_get_signature), HANDOFF_ENTRY(sd_bus_message_is_method_call),
    HANDOFF_ENTRY(sd_bus_message_new_method_call), HANDOFF_ENTRY(sd_bus_message_new_method_error),
    HANDOFF_ENTRY(sd_bus_message_new_method_return), HANDOFF_ENTRY(sd_bus_message_new_signal), HANDOFF_ENTRY(sd_bus_message_open_container),
    HANDOFF_ENTRY(sd_bus_message_peek_type), HANDOFF_ENTRY(sd_bus_message_read_basic), HANDOFF_ENTRY(sd_bus_message_ref),
    HANDOFF_ENTRY(sd_bus_message_set_destination), HANDOFF_ENTRY(sd_bus_message_unref), HANDOFF_ENTRY(sd_bus_new), HANDOFF_ENTRY(sd_bus_open_system),
    HANDOFF_ENTRY(sd_bus_open_user), HANDOFF_ENTRY(sd_bus_query_sender_creds), HANDOFF_ENTRY(sd_bus_request_name), HANDOFF_ENTRY(sd_bus_send),
    HANDOFF_ENTRY(sd_bus_set_address), HANDOFF_ENTRY(sd_bus_set_bus_client), HANDOFF_ENTRY(sd_bus_set_description), HANDOFF_ENTRY(sd_bus_start),
    HANDOFF_ENTRY(sd_bus_unref), HANDOFF_ENTRY(sd_event_add_io), HANDOFF_ENTRY(sd_event_exit), HANDOFF_ENTRY(sd_event_loop), HANDOFF_ENTRY(sd_event_new),
    HANDOFF_ENTRY(sd_event_unref)
};

static struct handoff_library library = HANDOFF_LIBRARY("libsystemd.so.0", functions);

const char *handoff_systemd_load(void) { return handoff_library_load(&library); }
