import CWaylandClipboard
import HandoffAsync
import HandoffClipboard
import HandoffCore
#if canImport(Glibc)
    import Glibc
#endif

extension WaylandClipboard {
    func offered(_ offer: OpaquePointer, _ mime: String) {
        lock.withLock { state.offerTypes[offer, default: []].append(mime) }
    }

    /// A selection changed: the previous offer goes; another client's copy is read (the pipes
    /// are asked for here, on the event thread, and read on a thread of their own).
    func selected(_ offer: OpaquePointer?, primary isPrimary: Bool) {
        let (previous, types) = lock.withLock { () -> (OpaquePointer?, [String]) in
            let previous = state.current[isPrimary]
            state.current[isPrimary] = offer
            if let previous, previous != offer { state.offerTypes[previous] = nil }
            return (previous == offer ? nil : previous, offer.flatMap { state.offerTypes[$0] } ?? [])
        }
        if let previous { hw_offer_destroy(client, UnsafeMutableRawPointer(previous)) }
        guard let offer, isPrimary == false || primary, !types.contains(DisplayTypes.ownMarker) else { return }
        // A copy by another client: the clipboard is theirs now.
        if !isPrimary { lock.withLock { state.owned = nil } }
        if types.contains(DisplayTypes.hint) {
            continuation.yield(DisplayCopy(items: [(DisplayTypes.hint, [])]))
            return
        }
        let pipes = DisplayTypes.reads(types).compactMap { (name, mime) -> (String, Int32)? in
            let fd = name.withCString { hw_receive(client, UnsafeMutableRawPointer(offer), $0) }
            return fd < 0 ? nil : (mime, fd)
        }
        guard !pipes.isEmpty else { return }
        let limit = self.limit, continuation = self.continuation
        BlockingThread.start {
            var items: [(mime: String, bytes: [UInt8])] = []
            var total = 0
            for (mime, fd) in pipes {
                let bytes = Pipes.readAll(fd, limit: limit - total, within: Self.readWithin)
                close(fd)
                guard let bytes else { continue }
                total += bytes.count
                items.append((mime, bytes))
            }
            if !items.isEmpty { continuation.yield(DisplayCopy(items: items)) }
        }
    }

    /// A client pastes from our source: the bytes are written on a thread of their own (the
    /// pasting client may read slowly), then the pipe is closed.
    func send(_ source: OpaquePointer, _ mime: String, _ fd: Int32) {
        guard let owned = lock.withLock({ state.owned }), owned.sources.contains(source), mime != DisplayTypes.ownMarker,
            let wanted = DisplayTypes.mime(for: mime, offered: ownedTypes(owned))
        else {
            close(fd)
            return
        }
        let serve = owned.serve
        Task {
            let bytes = await serve(wanted)
            BlockingThread.start {
                if let bytes { _ = Pipes.writeAll(fd, bytes) }
                close(fd)
            }
        }
    }

    func cancelled(_ source: OpaquePointer) {
        lock.withLock {
            if let held = state.owned, held.sources.contains(source) {
                let rest = held.sources.filter { $0 != source }
                state.owned = rest.isEmpty ? nil : Owned(sources: rest, serve: held.serve, mimes: held.mimes)
            }
        }
        hw_source_destroy(client, UnsafeMutableRawPointer(source))
    }

    func ownedTypes(_ owned: Owned) -> [String] { owned.mimes }

    /// Makes the agent the clipboard's source (and the primary selection's, if watched), offering
    /// `mimes`; `serve` gives a type's bytes when a client pastes.
    public func own(_ mimes: [String], serve: @escaping @Sendable (String) async -> [UInt8]?) {
        let names = mimes.flatMap(DisplayTypes.names(for:)) + [DisplayTypes.ownMarker]
        let sources = (primary ? [false, true] : [false]).map { isPrimary -> (OpaquePointer, Bool) in
            let source = withCStrings(names) { hw_source_create(client, $0, Int32(names.count)) }
            return (OpaquePointer(source!), isPrimary)
        }
        lock.withLock { state.owned = Owned(sources: sources.map(\.0), serve: serve, mimes: mimes) }
        for (source, isPrimary) in sources { hw_set_selection(client, UnsafeMutableRawPointer(source), isPrimary ? 1 : 0) }
    }

    /// Gives the clipboard up if the agent holds it.
    public func release() {
        guard lock.withLock({ state.owned != nil }) else { return }
        hw_set_selection(client, nil, 0)
        if primary { hw_set_selection(client, nil, 1) }
    }

    public var holdsClipboard: Bool { lock.withLock { state.owned != nil } }
}

/// `body` with the strings as a C array of C strings.
func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
