import CXCB
import HandoffClipboard
#if canImport(Glibc)
    import Glibc
#endif

extension X11Clipboard {
    /// How long the program that owns the selection has to answer each step of a read.
    static let answerWithin = Duration.seconds(2)

    /// The shared types of what another program copied. A password manager's copy is told by its
    /// hint alone: nothing else of it is read.
    func read(_ selection: xcb_atom_t) -> DisplayCopy? {
        guard let targets = convert(selection, target: x.atom("TARGETS")), targets.type == x.atom("ATOM") else { return nil }
        let atoms = targets.bytes.withUnsafeBytes { raw in (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) } }
        let names = atoms.compactMap { x.name(of: $0) }
        if names.contains(DisplayTypes.hint) { return DisplayCopy(items: [(DisplayTypes.hint, [])]) }
        var items: [(mime: String, bytes: [UInt8])] = []
        var total = 0
        for (target, mime) in DisplayTypes.reads(names) {
            guard let got = convert(selection, target: x.atom(target)) else { continue }
            total += got.bytes.count
            guard total <= limit else { return nil }
            items.append((mime, got.bytes))
        }
        return items.isEmpty ? nil : DisplayCopy(items: items)
    }

    /// Asks the owner for one target into our window's property and reads it (INCR included).
    private func convert(_ selection: xcb_atom_t, target: xcb_atom_t) -> (type: xcb_atom_t, bytes: [UInt8])? {
        let property = x.atom("HANDOFF_SELECTION")
        xcb_delete_property(x.c, x.window, property)
        xcb_convert_selection(x.c, x.window, selection, target, property, xcb_timestamp_t(XCB_CURRENT_TIME))
        x.flush()
        guard
            let answered = waitFor(
                until: .now + Self.answerWithin,
                { event in
                    guard hx_event_type(event) == UInt8(XCB_SELECTION_NOTIFY) else { return false }
                    let n = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_selection_notify_event_t.self).pointee
                    return n.requestor == self.x.window && n.selection == selection && n.target == target
                })
        else { return nil }
        let notify = UnsafeMutableRawPointer(answered).assumingMemoryBound(to: xcb_selection_notify_event_t.self).pointee
        free(answered)
        guard notify.property != xcb_atom_t(XCB_NONE), let first = x.readProperty(property, of: x.window, limit: limit) else { return nil }
        xcb_delete_property(x.c, x.window, property)
        x.flush()
        guard first.type == x.atom("INCR") else { return first }
        // INCR: the owner writes the parts one by one, each after we deleted the last; an empty
        // part ends it.
        var bytes: [UInt8] = []
        var type = first.type
        while true {
            guard
                let changed = waitFor(
                    until: .now + Self.answerWithin,
                    { event in
                        guard hx_event_type(event) == UInt8(XCB_PROPERTY_NOTIFY) else { return false }
                        let n = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
                        return n.window == self.x.window && n.atom == property && n.state == UInt8(XCB_PROPERTY_NEW_VALUE.rawValue)
                    })
            else { return nil }
            free(changed)
            guard let part = x.readProperty(property, of: x.window, limit: limit - bytes.count) else { return nil }
            xcb_delete_property(x.c, x.window, property)
            x.flush()
            if part.bytes.isEmpty { return (type, bytes) }
            type = part.type
            bytes += part.bytes
        }
    }

    /// The first event `matches` takes, before `deadline`; the others are kept for the loop.
    private func waitFor(
        until deadline: ContinuousClock.Instant, _ matches: (UnsafeMutablePointer<xcb_generic_event_t>) -> Bool
    ) -> UnsafeMutablePointer<xcb_generic_event_t>? {
        while let event = x.nextEvent(until: deadline) {
            if matches(event) { return event }
            // Our own property's changes while a read waits are the read's business, not news.
            if hx_event_type(event) == UInt8(XCB_PROPERTY_NOTIFY),
                UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee.window == x.window
            {
                free(event)
                continue
            }
            deferred.append(event)
        }
        return nil
    }
}
