import CXCB
import HandoffClipboard
#if canImport(Glibc)
    import Glibc
#endif

extension X11Clipboard {
    /// Bytes written to a pasting program in one property; more go by INCR, a part at a time.
    static let partBytes = 256 * 1024

    /// A program pastes: the list of targets at once; the bytes once `serve` has them.
    func answer(_ r: xcb_selection_request_event_t) {
        // Obsolete programs name no property: the target's name is used (ICCCM 2.2).
        let property = r.property == xcb_atom_t(XCB_NONE) ? r.target : r.property
        guard let owned = lock.withLock({ owned }), selections.contains(r.selection), let target = x.name(of: r.target) else {
            return refuse(r)
        }
        switch target {
        case "TARGETS":
            var atoms = [x.atom("TARGETS"), x.atom("TIMESTAMP")] + owned.mimes.flatMap(DisplayTypes.names(for:)).map { x.atom($0) }
            xcb_change_property(x.c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), r.requestor, property, x.atom("ATOM"), 32, UInt32(atoms.count), &atoms)
            hx_send_selection_notify(x.c, r.requestor, r.selection, r.target, property, r.time)
            x.flush()
        case "TIMESTAMP":
            var time = [UInt32(0)]
            xcb_change_property(
                x.c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), r.requestor, property, xcb_atom_t(XCB_ATOM_INTEGER.rawValue), 32, 1, &time)
            hx_send_selection_notify(x.c, r.requestor, r.selection, r.target, property, r.time)
            x.flush()
        default:
            guard let mime = DisplayTypes.mime(for: target, offered: owned.mimes) else { return refuse(r) }
            // TEXT asks the owner to choose: UTF-8 it is.
            let type = target == "TEXT" ? x.atom("UTF8_STRING") : r.target
            let serve = owned.serve
            Task { [self] in deliver(await serve(mime), type: type, to: r, property: property) }
        }
    }

    private func refuse(_ r: xcb_selection_request_event_t) {
        hx_send_selection_notify(x.c, r.requestor, r.selection, r.target, xcb_atom_t(XCB_NONE), r.time)
        x.flush()
    }

    /// The bytes to the pasting program: in its property at once, or by INCR when large.
    private func deliver(_ bytes: [UInt8]?, type: xcb_atom_t, to r: xcb_selection_request_event_t, property: xcb_atom_t) {
        guard let bytes else { return refuse(r) }
        if bytes.count <= Self.partBytes {
            bytes.withUnsafeBytes {
                _ = xcb_change_property(
                    x.c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), r.requestor, property, type, 8, UInt32(bytes.count), $0.baseAddress)
            }
        } else {
            // Told of each deletion of the property: the program read a part, the next goes.
            var mask = [UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)]
            xcb_change_window_attributes(x.c, r.requestor, UInt32(XCB_CW_EVENT_MASK.rawValue), &mask)
            lock.withLock { sending[TransferKey(requestor: r.requestor, property: property)] = Transfer(type: type, bytes: bytes, offset: 0) }
            var size = [UInt32(bytes.count)]
            xcb_change_property(x.c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), r.requestor, property, x.atom("INCR"), 32, 1, &size)
        }
        hx_send_selection_notify(x.c, r.requestor, r.selection, r.target, property, r.time)
        x.flush()
    }

    /// The pasting program deleted the property: the next part, or the empty one that ends it.
    func sendNextPart(_ key: TransferKey) {
        guard var transfer = lock.withLock({ sending[key] }) else { return }
        let end = min(transfer.bytes.count, transfer.offset + Self.partBytes)
        transfer.bytes.withUnsafeBytes { raw in
            _ = xcb_change_property(
                x.c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), key.requestor, key.property, transfer.type, 8, UInt32(end - transfer.offset),
                raw.baseAddress.map { $0 + transfer.offset })
        }
        lock.withLock {
            if transfer.offset == transfer.bytes.count {
                sending[key] = nil
            } else {
                transfer.offset = end
                sending[key] = transfer
            }
        }
        x.flush()
    }
}
