#ifndef HANDOFF_WAYLAND_H
#define HANDOFF_WAYLAND_H

// The clipboard of a Wayland session through a data-control protocol (ext-data-control-v1, else
// zwlr-data-control-v1): what the clipboard agent needs of libwayland-client, behind one small
// interface whose callbacks run on the thread that calls hw_dispatch.

typedef struct hw_client hw_client;

typedef struct hw_callbacks {
    void *context;
    /// An offer (another client's copy, or ours) names one of its MIME types.
    void (*offer_type)(void *context, void *offer, const char *mime);
    /// The clipboard (primary: the primary selection) now holds this offer; NULL: nothing.
    void (*selection)(void *context, void *offer, int primary);
    /// A client pastes from our source: write the bytes of `mime` to `fd`, then close it.
    void (*send)(void *context, void *source, const char *mime, int fd);
    /// Our source was replaced: destroy it.
    void (*cancelled)(void *context, void *source);
    /// The data device is gone (the seat went).
    void (*finished)(void *context);
} hw_callbacks;

enum { HW_NO_DISPLAY = -1, HW_NO_DATA_CONTROL = -2, HW_NO_SEAT = -3 };

/// Connects and binds the seat's data device: 0, or one of the HW_ errors.
int hw_open(const char *display, const hw_callbacks *callbacks, hw_client **out);
/// The protocol in use: "ext-data-control-v1" or "zwlr-data-control-v1".
const char *hw_protocol(const hw_client *client);
int hw_fd(const hw_client *client);
/// Reads and dispatches what arrived; -1 once the connection is gone.
int hw_dispatch(hw_client *client);
int hw_flush(hw_client *client);
/// Asks the offer's client for `mime`: the read end of a pipe it writes into, or -1.
int hw_receive(hw_client *client, void *offer, const char *mime);
void hw_offer_destroy(hw_client *client, void *offer);
/// A source offering these types, not yet the selection.
void *hw_source_create(hw_client *client, const char *const *mimes, int count);
/// Makes the source (NULL: nothing) the clipboard, or the primary selection.
void hw_set_selection(hw_client *client, void *source, int primary);
void hw_source_destroy(hw_client *client, void *source);
void hw_close(hw_client *client);

#endif
