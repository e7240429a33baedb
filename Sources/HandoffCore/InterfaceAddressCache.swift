import Synchronization

/// This machine's addresses, read once per change instead of at every look.
///
/// getifaddrs(3) is a netlink dump of every address and link (0.2-0.5 ms), and handoffd looked
/// at its addresses at each hello, each advert publish, each listing resolve and once a second:
/// nine reads in its first 20 ms, on the event loop a restarted peer's handshake waits for.
/// While a watcher of the kernel's address notifications runs (`NetworkChanges`, rtnetlink),
/// the last read stays good until it reports a change; without one, every look reads again.
final class InterfaceAddressCache: Sendable {
    private struct State {
        /// Counts the changes reported; a read is good while no change came after its start.
        var generation: UInt64 = 0
        var read: (generation: UInt64, addresses: [InterfaceAddress])?
        var watchers = 0
    }

    private enum Look {
        case unwatched
        case cached([InterfaceAddress])
        case stale(since: UInt64)
    }

    private let state = Mutex(State())

    func addresses(reading: () -> [InterfaceAddress]?) -> [InterfaceAddress]? {
        let look: Look = state.withLock { s in
            guard s.watchers > 0 else { return .unwatched }
            if let read = s.read, read.generation == s.generation { return .cached(read.addresses) }
            return .stale(since: s.generation)
        }
        switch look {
        case .unwatched:
            return reading()
        case .cached(let addresses):
            return addresses
        case .stale(let started):
            guard let fresh = reading() else { return nil }
            // A change reported during the read leaves it stale: the next look reads again.
            state.withLock { $0.read = (started, fresh) }
            return fresh
        }
    }

    func changed() { state.withLock { $0.generation &+= 1 } }

    func watching(_ on: Bool) {
        state.withLock { s in
            s.watchers += on ? 1 : -1
            s.generation &+= 1
        }
    }
}
