import CXCB
import HandoffClipboard
import HandoffAsync
import HandoffCore
#if canImport(Glibc)
    import Glibc
#endif

/// The X11 CLIPBOARD (and PRIMARY, if asked) of one display, for the clipboard agent: each copy
/// another program makes is read (its shared types) and handed over as a `DisplayCopy`; `own` makes
/// this program the owner, offering types whose bytes come from `serve` when a program pastes.
/// Large transfers both ways use ICCCM's INCR protocol. Runs its own thread for the X events.
public final class X11Clipboard: @unchecked Sendable {
    let x: X11Connection
    let selections: [xcb_atom_t]
    let limit: Int
    let lock = ThreadLock()
    /// What we own now (nil: another program owns the selection, or nobody).
    var owned: Owned?
    /// INCR transfers to pasting programs, by (requestor, property).
    var sending: [TransferKey: Transfer] = [:]
    /// Events that came while the thread waited for another (handled after).
    var deferred: [UnsafeMutablePointer<xcb_generic_event_t>] = []
    let continuation: AsyncStream<DisplayCopy>.Continuation
    public let copies: AsyncStream<DisplayCopy>

    struct Owned {
        let mimes: [String]
        let serve: @Sendable (String) async -> [UInt8]?
    }

    struct TransferKey: Hashable {
        let requestor: xcb_window_t
        let property: xcb_atom_t
    }

    struct Transfer {
        let type: xcb_atom_t
        let bytes: [UInt8]
        var offset: Int
    }

    /// Opens the display (`nil`: $DISPLAY) and watches CLIPBOARD, and PRIMARY when `primary`.
    /// Copies larger than `limit` bytes are not read.
    public init(display: String?, primary: Bool = false, limit: Int) throws(X11Error) {
        let x = try X11Connection(display: display)
        self.x = x
        self.limit = limit
        var names = ["CLIPBOARD"]
        if primary { names.append("PRIMARY") }
        selections = names.map { x.atom($0) }
        (copies, continuation) = AsyncStream.makeStream(of: DisplayCopy.self, bufferingPolicy: .bufferingNewest(4))
        let mask = UInt32(XCB_XFIXES_SELECTION_EVENT_MASK_SET_SELECTION_OWNER.rawValue)
        for selection in selections { xcb_xfixes_select_selection_input(x.c, x.window, selection, mask) }
        // The atoms the reads and answers use, interned once here rather than on the event thread.
        for name in ["TARGETS", "TIMESTAMP", "INCR", "ATOM", "UTF8_STRING", "STRING", "TEXT", "HANDOFF_SELECTION"] + DisplayTypes.names {
            _ = x.atom(name)
        }
        x.flush()
    }

    /// Runs the event loop on a thread of its own until the display connection ends.
    public func start() -> Int32 {
        BlockingThread.start(name: "x11-clipboard") { [self] in
            while !x.failed {
                let next = deferred.isEmpty ? x.nextEvent(until: .now + .seconds(1)) : deferred.removeFirst()
                guard let event = next else { continue }
                handle(event)
                free(event)
            }
            continuation.finish()
        }
    }

    /// Takes the clipboard, offering `mimes`; `serve` gives a type's bytes when a program pastes
    /// (nil: it cannot, and the paste gets nothing).
    public func own(_ mimes: [String], serve: @escaping @Sendable (String) async -> [UInt8]?) {
        lock.withLock { owned = Owned(mimes: mimes, serve: serve) }
        for selection in selections { xcb_set_selection_owner(x.c, x.window, selection, xcb_timestamp_t(XCB_CURRENT_TIME)) }
        x.flush()
    }

    /// Gives the clipboard up if we hold it (the content we offered is gone).
    public func release() {
        let held = lock.withLock { () -> Bool in
            defer { owned = nil }
            return owned != nil
        }
        guard held else { return }
        for selection in selections {
            let reply = xcb_get_selection_owner_reply(x.c, xcb_get_selection_owner(x.c, selection), nil)
            if let reply, reply.pointee.owner == x.window {
                xcb_set_selection_owner(x.c, xcb_window_t(XCB_NONE), selection, xcb_timestamp_t(XCB_CURRENT_TIME))
            }
            free(reply)
        }
        x.flush()
    }

    public var holdsClipboard: Bool { lock.withLock { owned != nil } }

    private func handle(_ event: UnsafeMutablePointer<xcb_generic_event_t>) {
        let type = hx_event_type(event)
        if type == x.xfixesEvent {
            let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_xfixes_selection_notify_event_t.self).pointee
            // Our own ownership, or nobody's: nothing was copied.
            guard notify.owner != x.window, notify.owner != xcb_window_t(XCB_NONE) else { return }
            lock.withLock { owned = nil }
            if let copy = read(notify.selection) { continuation.yield(copy) }
            return
        }
        switch Int32(type) {
        case XCB_SELECTION_REQUEST:
            answer(UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_selection_request_event_t.self).pointee)
        case XCB_SELECTION_CLEAR:
            lock.withLock { owned = nil }
        case XCB_PROPERTY_NOTIFY:
            let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
            if notify.state == UInt8(XCB_PROPERTY_DELETE.rawValue) { sendNextPart(TransferKey(requestor: notify.window, property: notify.atom)) }
        default:
            break
        }
    }
}
