import HandoffCore
/// The authenticated sessions open now, by channel, in the order they opened: what keeps their
/// number within `SessionLimits` (a burst of handshakes from one peer once took every descriptor).
/// Pure state, kept by LinkEndpoint under its lock.
struct OpenSessions {
    private var byChannel: [ObjectIdentifier: (session: LinkSession, order: UInt64)] = [:]
    private var next: UInt64 = 0

    var all: [LinkSession] { byChannel.values.sorted { $0.order < $1.order }.map(\.session) }
    var count: Int { byChannel.count }

    func count(ofPeer id: PeerID) -> Int { byChannel.values.count { $0.session.peer.id == id } }

    /// Adds a session; returns the peer's oldest sessions to close so that it keeps at most
    /// `perPeer` (an attacker churns only its own), or nil when the total is reached (the new one
    /// is refused: evicting another peer's session would let one peer push out everyone).
    mutating func admit(_ session: LinkSession, key: ObjectIdentifier, limits: SessionLimits) -> [LinkSession]? {
        let mine = byChannel.values.filter { $0.session.peer.id == session.peer.id }.sorted { $0.order < $1.order }
        let evict = Array(mine.prefix(max(0, mine.count + 1 - limits.perPeer)).map(\.session))
        guard byChannel.count - evict.count < limits.total else { return nil }
        for s in evict { byChannel.removeValue(forKey: ObjectIdentifier(s.channel)) }
        next += 1
        byChannel[key] = (session, next)
        return evict
    }

    mutating func remove(_ key: ObjectIdentifier) { byChannel.removeValue(forKey: key) }
}
