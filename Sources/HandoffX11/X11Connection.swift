import CXCB
import HandoffClipboard
import HandoffCore
#if canImport(Glibc)
    import Glibc
#endif

/// Why the X11 clipboard cannot be watched.
public enum X11Error: Error, Sendable, CustomStringConvertible {
    case cannotConnect(display: String)
    case noXFixes

    public var description: String {
        switch self {
        case .cannotConnect(let display): "cannot connect to the X display '\(display)' (is DISPLAY right, and may this user use it?)"
        case .noXFixes: "the X server lacks the XFixes extension, which tells a program that the clipboard changed"
        }
    }
}

/// One connection to the X server with the calls the clipboard needs, and a way to wait for an
/// event with a deadline (libxcb itself only blocks, or polls).
final class X11Connection: @unchecked Sendable {
    let c: OpaquePointer
    let root: xcb_window_t
    /// A window of ours, never mapped: selections are requested for it and owned by it.
    let window: xcb_window_t
    let xfixesEvent: UInt8
    private var atoms: [String: xcb_atom_t] = [:]
    private var names: [xcb_atom_t: String] = [:]
    private let atomLock = ThreadLock()

    init(display: String?) throws(X11Error) {
        var screenNumber: Int32 = 0
        guard let c = xcb_connect(display, &screenNumber), xcb_connection_has_error(c) == 0 else {
            throw .cannotConnect(display: display ?? "$DISPLAY")
        }
        self.c = c
        var roots = xcb_setup_roots_iterator(xcb_get_setup(c))
        for _ in 0..<screenNumber { xcb_screen_next(&roots) }
        root = roots.data.pointee.root
        window = xcb_generate_id(c)
        // PropertyChange: the INCR protocol's parts arrive as property changes on our window.
        var mask = [UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)]
        xcb_create_window(
            c, UInt8(XCB_COPY_FROM_PARENT), window, root, -1, -1, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue),
            roots.data.pointee.root_visual, UInt32(XCB_CW_EVENT_MASK.rawValue), &mask)
        let first = hx_xfixes_first_event(c)
        guard first >= 0 else {
            xcb_disconnect(c)
            throw .noXFixes
        }
        xfixesEvent = UInt8(first) + UInt8(XCB_XFIXES_SELECTION_NOTIFY)
        let version = xcb_xfixes_query_version(c, 5, 0)
        free(xcb_xfixes_query_version_reply(c, version, nil))
    }

    deinit { xcb_disconnect(c) }

    func flush() { xcb_flush(c) }
    var failed: Bool { xcb_connection_has_error(c) != 0 }

    func atom(_ name: String) -> xcb_atom_t {
        if let known = atomLock.withLock({ atoms[name] }) { return known }
        let cookie = name.withCString { xcb_intern_atom(c, 0, UInt16(strlen($0)), $0) }
        guard let reply = xcb_intern_atom_reply(c, cookie, nil) else { return xcb_atom_t(XCB_ATOM_NONE.rawValue) }
        defer { free(reply) }
        let a = reply.pointee.atom
        atomLock.withLock {
            atoms[name] = a
            names[a] = name
        }
        return a
    }

    func name(of atom: xcb_atom_t) -> String? {
        if let known = atomLock.withLock({ names[atom] }) { return known }
        guard let reply = xcb_get_atom_name_reply(c, xcb_get_atom_name(c, atom), nil) else { return nil }
        defer { free(reply) }
        let length = Int(xcb_get_atom_name_name_length(reply))
        guard let chars = xcb_get_atom_name_name(reply) else { return nil }
        let name = String(decoding: UnsafeRawBufferPointer(start: chars, count: length), as: UTF8.self)
        atomLock.withLock {
            names[atom] = name
            atoms[name] = atom
        }
        return name
    }

    /// The next event, or nil once `deadline` passes (or the connection failed).
    func nextEvent(until deadline: ContinuousClock.Instant) -> UnsafeMutablePointer<xcb_generic_event_t>? {
        while true {
            if let e = xcb_poll_for_queued_event(c) ?? xcb_poll_for_event(c) { return e }
            if failed { return nil }
            let left = deadline - .now
            guard left > .zero else { return nil }
            var fd = pollfd(fd: xcb_get_file_descriptor(c), events: Int16(POLLIN), revents: 0)
            let ms = Int32(min(1_000, max(1, left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000)))
            _ = poll(&fd, 1, ms)
        }
    }

    /// A whole property's value and type, read in parts (a large one is read 1 MiB at a time),
    /// at most `limit` bytes; nil if it is absent or larger.
    func readProperty(_ property: xcb_atom_t, of window: xcb_window_t, limit: Int) -> (type: xcb_atom_t, bytes: [UInt8])? {
        var bytes: [UInt8] = []
        var type = xcb_atom_t(XCB_ATOM_NONE.rawValue)
        var offset: UInt32 = 0
        while true {
            let cookie = xcb_get_property(c, 0, window, property, xcb_atom_t(XCB_GET_PROPERTY_TYPE_ANY.rawValue), offset, 256 * 1024)
            guard let reply = xcb_get_property_reply(c, cookie, nil) else { return nil }
            defer { free(reply) }
            type = reply.pointee.type
            guard type != xcb_atom_t(XCB_ATOM_NONE.rawValue) else { return nil }
            let length = Int(xcb_get_property_value_length(reply))
            if length > 0, let value = xcb_get_property_value(reply) {
                bytes += UnsafeRawBufferPointer(start: value, count: length)
            }
            guard bytes.count <= limit else { return nil }
            if reply.pointee.bytes_after == 0 { break }
            offset += UInt32(length / 4)
        }
        return (type, bytes)
    }
}
