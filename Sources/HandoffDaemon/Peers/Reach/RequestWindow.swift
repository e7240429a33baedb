/// How many of our requests may await their answers on one session: the peer serves at most
/// `PeerAdmission.maxInFlightPerSession` of a session's requests at once and answers the rest
/// `busy` (docs/PROTOCOL.md), so past that a request waits here for one to be answered. Several
/// clients continuing from the same peer at once, or one client pipelining its continues
/// (`ControlTurn`), otherwise met `busy`. Kept by PeerLinks (an actor); pure state and the
/// waiters' continuations.
struct RequestWindow {
    static let size = PeerAdmission.maxInFlightPerSession

    private var out: [ObjectIdentifier: Int] = [:]
    private var waiting: [ObjectIdentifier: [CheckedContinuation<Void, Never>]] = [:]

    /// A slot, now if one is free; else the continuation is kept until `give` hands one over.
    mutating func take(_ session: ObjectIdentifier) -> Bool {
        if out[session, default: 0] < Self.size {
            out[session, default: 0] += 1
            return true
        }
        return false
    }

    mutating func wait(_ session: ObjectIdentifier, _ continuation: CheckedContinuation<Void, Never>) {
        waiting[session, default: []].append(continuation)
    }

    /// A request's answer came (or it failed): its slot goes to the oldest waiter, if any.
    mutating func give(_ session: ObjectIdentifier) -> CheckedContinuation<Void, Never>? {
        if var queue = waiting[session], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[session] = queue.isEmpty ? nil : queue
            return next
        }
        let n = out[session, default: 0]
        out[session] = n > 1 ? n - 1 : nil
        return nil
    }

    /// Requests awaiting answers on the session, and requests waiting for a slot there.
    func count(_ session: ObjectIdentifier) -> (out: Int, waiting: Int) { (out[session] ?? 0, waiting[session]?.count ?? 0) }
}
