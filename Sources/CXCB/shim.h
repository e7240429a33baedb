#ifndef HANDOFF_CXCB_SHIM_H
#define HANDOFF_CXCB_SHIM_H

// The X11 clipboard through libxcb and its XFixes extension (selection-owner notifications).
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>
#include <xcb/xfixes.h>

// The first event number of XFixes on this connection (its SelectionNotify is that + 0), or -1
// when the server lacks it. The extension's id is a C global Swift 6 does not read.
static inline int hx_xfixes_first_event(xcb_connection_t *c) {
    const xcb_query_extension_reply_t *r = xcb_get_extension_data(c, &xcb_xfixes_id);
    return (r && r->present) ? r->first_event : -1;
}

// An event's type without the "sent by SendEvent" bit.
static inline uint8_t hx_event_type(const xcb_generic_event_t *e) { return e->response_type & 0x7f; }

// A SelectionNotify answering a request: the property holds the data, or XCB_NONE (refused).
static inline void hx_send_selection_notify(
    xcb_connection_t *c, xcb_window_t requestor, xcb_atom_t selection, xcb_atom_t target, xcb_atom_t property, xcb_timestamp_t time) {
    xcb_selection_notify_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.response_type = XCB_SELECTION_NOTIFY;
    ev.time = time;
    ev.requestor = requestor;
    ev.selection = selection;
    ev.target = target;
    ev.property = property;
    xcb_send_event(c, 0, requestor, XCB_EVENT_MASK_NO_EVENT, (const char *)&ev);
}

#endif
