// The data-control glue of handoff_wayland.h. The two protocols have the same messages in the
// same order; each call goes to the one bound.
#define _GNU_SOURCE  // pipe2
#include "handoff_wayland.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <wayland-client.h>

#include "ext-data-control-v1-client.h"
#include "wlr-data-control-unstable-v1-client.h"

struct hw_client {
    struct wl_display *display;
    struct wl_registry *registry;
    struct wl_seat *seat;
    struct ext_data_control_manager_v1 *ext_manager;
    struct zwlr_data_control_manager_v1 *wlr_manager;
    uint32_t wlr_version;
    void *device;  // ext_data_control_device_v1 or zwlr_data_control_device_v1
    hw_callbacks callbacks;
};

static int is_ext(const hw_client *c) { return c->ext_manager != NULL; }

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    hw_client *c = data;
    if (strcmp(interface, wl_seat_interface.name) == 0 && c->seat == NULL) {
        c->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    } else if (strcmp(interface, ext_data_control_manager_v1_interface.name) == 0) {
        c->ext_manager = wl_registry_bind(registry, name, &ext_data_control_manager_v1_interface, 1);
    } else if (strcmp(interface, zwlr_data_control_manager_v1_interface.name) == 0) {
        c->wlr_version = version < 2 ? version : 2;
        c->wlr_manager = wl_registry_bind(registry, name, &zwlr_data_control_manager_v1_interface, c->wlr_version);
    }
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data; (void)registry; (void)name;
}

static const struct wl_registry_listener registry_listener = { registry_global, registry_global_remove };

// Offers, devices and sources: the listeners take the object as `void *`, so one set of
// functions serves both protocols (their listener structs have the same shape).
static void offer_offer(void *data, void *offer, const char *mime) {
    hw_client *c = data;
    c->callbacks.offer_type(c->callbacks.context, offer, mime);
}

static const struct ext_data_control_offer_v1_listener ext_offer_listener = { (void *)offer_offer };
static const struct zwlr_data_control_offer_v1_listener wlr_offer_listener = { (void *)offer_offer };

static void device_data_offer(void *data, void *device, void *offer) {
    hw_client *c = data;
    (void)device;
    if (is_ext(c)) ext_data_control_offer_v1_add_listener(offer, &ext_offer_listener, c);
    else zwlr_data_control_offer_v1_add_listener(offer, &wlr_offer_listener, c);
}

static void device_selection(void *data, void *device, void *offer) {
    hw_client *c = data;
    (void)device;
    c->callbacks.selection(c->callbacks.context, offer, 0);
}

static void device_finished(void *data, void *device) {
    hw_client *c = data;
    (void)device;
    c->callbacks.finished(c->callbacks.context);
}

static void device_primary_selection(void *data, void *device, void *offer) {
    hw_client *c = data;
    (void)device;
    c->callbacks.selection(c->callbacks.context, offer, 1);
}

static const struct ext_data_control_device_v1_listener ext_device_listener = {
    (void *)device_data_offer, (void *)device_selection, (void *)device_finished, (void *)device_primary_selection };
static const struct zwlr_data_control_device_v1_listener wlr_device_listener = {
    (void *)device_data_offer, (void *)device_selection, (void *)device_finished, (void *)device_primary_selection };

static void source_send(void *data, void *source, const char *mime, int32_t fd) {
    hw_client *c = data;
    c->callbacks.send(c->callbacks.context, source, mime, fd);
}

static void source_cancelled(void *data, void *source) {
    hw_client *c = data;
    c->callbacks.cancelled(c->callbacks.context, source);
}

static const struct ext_data_control_source_v1_listener ext_source_listener = { (void *)source_send, (void *)source_cancelled };
static const struct zwlr_data_control_source_v1_listener wlr_source_listener = { (void *)source_send, (void *)source_cancelled };

int hw_open(const char *display, const hw_callbacks *callbacks, hw_client **out) {
    hw_client *c = calloc(1, sizeof *c);
    if (c == NULL) return HW_NO_DISPLAY;
    c->callbacks = *callbacks;
    c->display = wl_display_connect(display);
    if (c->display == NULL) { free(c); return HW_NO_DISPLAY; }
    c->registry = wl_display_get_registry(c->display);
    wl_registry_add_listener(c->registry, &registry_listener, c);
    wl_display_roundtrip(c->display);
    int problem = 0;
    if (c->ext_manager == NULL && c->wlr_manager == NULL) problem = HW_NO_DATA_CONTROL;
    else if (c->seat == NULL) problem = HW_NO_SEAT;
    if (problem != 0) { hw_close(c); return problem; }
    // ext-data-control-v1 is the protocol's settled form: preferred where both are offered.
    if (c->ext_manager != NULL && c->wlr_manager != NULL) {
        zwlr_data_control_manager_v1_destroy(c->wlr_manager);
        c->wlr_manager = NULL;
    }
    if (is_ext(c)) {
        c->device = ext_data_control_manager_v1_get_data_device(c->ext_manager, c->seat);
        ext_data_control_device_v1_add_listener(c->device, &ext_device_listener, c);
    } else {
        c->device = zwlr_data_control_manager_v1_get_data_device(c->wlr_manager, c->seat);
        zwlr_data_control_device_v1_add_listener(c->device, &wlr_device_listener, c);
    }
    *out = c;
    return 0;
}

const char *hw_protocol(const hw_client *c) { return is_ext(c) ? "ext-data-control-v1" : "zwlr-data-control-v1"; }
int hw_fd(const hw_client *c) { return wl_display_get_fd(c->display); }

int hw_dispatch(hw_client *c) {
    if (wl_display_dispatch(c->display) < 0) return -1;
    return 0;
}

int hw_flush(hw_client *c) { return wl_display_flush(c->display); }

int hw_receive(hw_client *c, void *offer, const char *mime) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    if (is_ext(c)) ext_data_control_offer_v1_receive(offer, mime, fds[1]);
    else zwlr_data_control_offer_v1_receive(offer, mime, fds[1]);
    wl_display_flush(c->display);
    close(fds[1]);
    return fds[0];
}

void hw_offer_destroy(hw_client *c, void *offer) {
    if (offer == NULL) return;
    if (is_ext(c)) ext_data_control_offer_v1_destroy(offer);
    else zwlr_data_control_offer_v1_destroy(offer);
}

void *hw_source_create(hw_client *c, const char *const *mimes, int count) {
    void *source;
    if (is_ext(c)) {
        source = ext_data_control_manager_v1_create_data_source(c->ext_manager);
        ext_data_control_source_v1_add_listener(source, &ext_source_listener, c);
        for (int i = 0; i < count; i++) ext_data_control_source_v1_offer(source, mimes[i]);
    } else {
        source = zwlr_data_control_manager_v1_create_data_source(c->wlr_manager);
        zwlr_data_control_source_v1_add_listener(source, &wlr_source_listener, c);
        for (int i = 0; i < count; i++) zwlr_data_control_source_v1_offer(source, mimes[i]);
    }
    return source;
}

void hw_set_selection(hw_client *c, void *source, int primary) {
    if (is_ext(c)) {
        if (primary) ext_data_control_device_v1_set_primary_selection(c->device, source);
        else ext_data_control_device_v1_set_selection(c->device, source);
    } else {
        if (primary && c->wlr_version >= 2) zwlr_data_control_device_v1_set_primary_selection(c->device, source);
        else if (!primary) zwlr_data_control_device_v1_set_selection(c->device, source);
    }
    wl_display_flush(c->display);
}

void hw_source_destroy(hw_client *c, void *source) {
    if (is_ext(c)) ext_data_control_source_v1_destroy(source);
    else zwlr_data_control_source_v1_destroy(source);
}

void hw_close(hw_client *c) {
    if (c->device != NULL) {
        if (is_ext(c)) ext_data_control_device_v1_destroy(c->device);
        else zwlr_data_control_device_v1_destroy(c->device);
    }
    if (c->ext_manager != NULL) ext_data_control_manager_v1_destroy(c->ext_manager);
    if (c->wlr_manager != NULL) zwlr_data_control_manager_v1_destroy(c->wlr_manager);
    if (c->seat != NULL) wl_seat_destroy(c->seat);
    if (c->registry != NULL) wl_registry_destroy(c->registry);
    wl_display_disconnect(c->display);
    free(c);
}
