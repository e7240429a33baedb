import HandoffAsync

/// How many of our requests may await their answers on one session: the peer serves at most
/// `PeerAdmission.maxInFlightPerSession` of a session's requests at once and answers the rest
/// `busy` (docs/PROTOCOL.md, "In flight"), so past that a request waits here for one to be
/// answered, within its own deadline. Several clients continuing from the same peer at once, or
/// one client pipelining its continues (`ControlTurn`), otherwise met `busy`. Kept by PeerLinks.
struct RequestWindow {
    static let size = PeerAdmission.maxInFlightPerSession

    /// Requests awaiting answers, by session.
    private var out: [ObjectIdentifier: Int] = [:]
    /// Requests waiting for a slot, by session: a slot given back goes to the oldest.
    private let waiting = Waiters<ObjectIdentifier, Void>()

    /// A slot on the session: now if one is free, else when a request there is answered, or
    /// `.timedOut` after `deadline`. Registered before the caller suspends, so no slot given
    /// back meanwhile is missed.
    mutating func take(_ session: ObjectIdentifier, deadline: Duration) -> Waiters<ObjectIdentifier, Void>.Ticket? {
        if out[session, default: 0] < Self.size {
            out[session, default: 0] += 1
            return nil
        }
        return waiting.register(session, deadline: deadline)
    }

    func wait(_ ticket: Waiters<ObjectIdentifier, Void>.Ticket) async -> WaitOutcome<Void> { await waiting.wait(ticket) }

    /// A request's answer came (or it failed): its slot goes to the oldest request still waiting.
    mutating func give(_ session: ObjectIdentifier) {
        if waiting.resumeOldest(session, with: ()) { return }
        let n = out[session, default: 0]
        out[session] = n > 1 ? n - 1 : nil
    }
}
