import HandoffCore
import HandoffLink

/// Why a session with a peer ended: what `peerAbsent` reports when it was the last one.
enum SessionEnd: String, Sendable {
    /// The peer said goodbye: it is stopping.
    case goodbye
    /// The peer stopped answering pings: it crashed, slept or lost its network.
    case pingTimeout = "ping-timeout"
    /// The peer did not take what we wrote within the write deadline (it stopped reading).
    case stalled
    /// The connection closed without a goodbye.
    case connectionLost = "connection-lost"
    /// Another session with the same peer is kept instead (see `SessionTable.choose`).
    case replaced
    /// Closed here: unpaired, `handoffctl disconnect`, our address went away, or shutdown.
    case closedHere = "closed-here"
}

/// The open sessions with each paired peer, and which of them is used. Usually one per peer;
/// two appear when both machines dial each other at the same moment, or when a peer dials again
/// while an old session still looks open. Pure state, kept by PeerLinks.
struct SessionTable {
    struct Entry {
        let session: LinkSession
        let openedAt: ContinuousClock.Instant
        var ending: SessionEnd?
        /// When the session was retired (replaced), and whether its close has begun.
        var retiredAt: ContinuousClock.Instant?
        var closing = false
    }

    /// Sessions opened within this of each other were opened at the same moment (a race), and
    /// both ends keep the one their keys choose; after it, the newer one replaces the older.
    /// Simultaneous dials authenticate within a round trip or two of each other.
    static let raceWindow: Duration = .seconds(1)
    /// A retired session closes once nothing is in flight on it, and not before this (what the
    /// peer sent before it retired the same session is still on its way) nor after `retireAtMost`.
    static let retireAtLeast: Duration = .seconds(1)
    static let retireAtMost: Duration = .seconds(60)

    /// By identity id, oldest first.
    private var byPeer: [PeerID: [Entry]] = [:]

    /// How a session compares with another, for `choose`.
    struct Candidate: Equatable {
        let initiatedLocally: Bool
        let openedAt: ContinuousClock.Instant
    }

    enum Keep: Equatable { case both, new, old }

    /// Of an open session (`old`) and one just authenticated (`new`), which to keep. Both ends
    /// must reach the same answer on their own, from what both know: who opened each session and
    /// the two public keys (`localKeyIsLower`).
    /// - Opened the same way: if we opened both, the newer replaces the older (we dialled again,
    ///   e.g. because our address changed). If the peer opened both within `raceWindow`, it
    ///   decides (it closes all but one of a round of parallel dials) and we keep both meanwhile;
    ///   later than that, it dialled again and the older is stale (its close may never reach us
    ///   when the peer's old address is gone).
    /// - Opened from both ends at once (within `raceWindow`): the one opened by the machine with
    ///   the lower key is kept, on both ends.
    /// - Otherwise the newer replaces the older.
    static func choose(old: Candidate, new: Candidate, localKeyIsLower: Bool) -> Keep {
        if old.initiatedLocally == new.initiatedLocally {
            return new.initiatedLocally || new.openedAt - old.openedAt >= raceWindow ? .new : .both
        }
        if new.openedAt - old.openedAt < raceWindow {
            let newOpenedByLower = new.initiatedLocally == localKeyIsLower
            return newOpenedByLower ? .new : .old
        }
        return .new
    }

    /// Adds an authenticated session; returns the sessions retired (maybe the new one) and
    /// whether the peer had none before.
    mutating func add(_ session: LinkSession, at now: ContinuousClock.Instant, localKeyIsLower: Bool) -> (close: [LinkSession], first: Bool) {
        let id = session.peer.id
        var entries = byPeer[id] ?? []
        let first = !entries.contains { $0.ending == nil }
        var close: [LinkSession] = []
        var keepNew = true
        let new = Candidate(initiatedLocally: session.initiatedLocally, openedAt: now)
        for i in entries.indices where entries[i].ending == nil {
            let old = Candidate(initiatedLocally: entries[i].session.initiatedLocally, openedAt: entries[i].openedAt)
            switch Self.choose(old: old, new: new, localKeyIsLower: localKeyIsLower) {
            case .both: break
            case .new:
                entries[i].ending = .replaced
                entries[i].retiredAt = now
                close.append(entries[i].session)
            case .old: keepNew = false
            }
        }
        entries.append(Entry(session: session, openedAt: now, ending: keepNew ? nil : .replaced, retiredAt: keepNew ? nil : now))
        if !keepNew { close.append(session) }
        byPeer[id] = entries
        return (close, first)
    }

    /// Whether a retired session is still to close (the dial and ping loop looks for it often).
    var hasRetiredToClose: Bool { byPeer.values.contains { $0.contains { $0.retiredAt != nil && !$0.closing } } }

    /// Retired sessions due to close at `now`: `idle` says whether nothing is in flight on one.
    mutating func retiredToClose(at now: ContinuousClock.Instant, idle: (LinkSession) -> Bool) -> [LinkSession] {
        var due: [LinkSession] = []
        for (id, entries) in byPeer {
            var changed = entries
            for i in changed.indices {
                guard let at = changed[i].retiredAt, !changed[i].closing else { continue }
                let age = now - at
                if age >= Self.retireAtMost || (age >= Self.retireAtLeast && idle(changed[i].session)) {
                    changed[i].closing = true
                    due.append(changed[i].session)
                }
            }
            byPeer[id] = changed
        }
        return due
    }

    /// The peer greeted us on a session it opened: that is the one it chose (it greets only the
    /// session it keeps), so the older ones it opened are retired: a stale one whose close never
    /// reached us (the peer's old address is gone) does not wait for the pings.
    mutating func chosenByPeer(_ session: LinkSession, at now: ContinuousClock.Instant) -> [LinkSession] {
        guard var entries = byPeer[session.peer.id], let mine = entries.firstIndex(where: { $0.session === session }),
            entries[mine].ending == nil
        else { return [] }
        var retired: [LinkSession] = []
        for i in entries.indices where i < mine && entries[i].ending == nil && !entries[i].session.initiatedLocally {
            entries[i].ending = .replaced
            entries[i].retiredAt = now
            retired.append(entries[i].session)
        }
        byPeer[session.peer.id] = entries
        return retired
    }

    /// Notes why a session is being closed here (the first reason counts).
    mutating func ending(_ session: LinkSession, _ reason: SessionEnd) {
        guard var entries = byPeer[session.peer.id], let i = entries.firstIndex(where: { $0.session === session }) else { return }
        if entries[i].ending == nil { entries[i].ending = reason }
        byPeer[session.peer.id] = entries
    }

    /// A session's connection closed: why, and whether it was the peer's last one.
    mutating func remove(_ session: LinkSession) -> (reason: SessionEnd, last: Bool)? {
        let id = session.peer.id
        guard var entries = byPeer[id], let i = entries.firstIndex(where: { $0.session === session }) else { return nil }
        let reason = entries.remove(at: i).ending ?? .connectionLost
        byPeer[id] = entries.isEmpty ? nil : entries
        // A replaced session was never the one that made the peer present.
        return (reason, reason != .replaced && !entries.contains { $0.ending == nil })
    }

    /// The session our requests to a peer use: the newest one kept.
    func current(_ peerID: PeerID) -> LinkSession? { byPeer[peerID]?.last { $0.ending == nil }?.session }

    /// Every session with a peer that is not being closed.
    func open(_ peerID: PeerID) -> [LinkSession] { byPeer[peerID]?.filter { $0.ending == nil }.map(\.session) ?? [] }

    /// Peers with a session kept open.
    var peerIDs: Set<PeerID> { Set(byPeer.compactMap { $0.value.contains { $0.ending == nil } ? $0.key : nil }) }

    var all: [LinkSession] { byPeer.values.flatMap { $0.map(\.session) } }
}
