import NIOConcurrencyHelpers

/// A continue's place in its client's order (docs/CONTROL.md, "Framing"): the requests of one
/// client take effect and are answered in the order they were sent. A continue first fetches the
/// activity from the other machine, which changes nothing here, so it starts while the client's
/// earlier continues still wait for theirs, and waits for its turn (the one before it answered)
/// only to dispatch it: a client's continues wait for the network side by side instead of one
/// after another. A `refresh` takes effect when read (`ControlPlace.atOnce`); every other request
/// runs alone (`ControlServer.serve`).
public final class ControlTurn: Sendable {
    private struct State {
        var ended = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// A turn that has already ended: for a request that waits on nothing (a D-Bus call, a
    /// request the daemon makes of itself).
    public static let now: ControlTurn = {
        let turn = ControlTurn()
        turn.end()
        return turn
    }()

    public var hasEnded: Bool { state.withLockedValue { $0.ended } }

    /// Returns once the turn has ended.
    public func wait() async {
        if hasEnded { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ended = state.withLockedValue { s -> Bool in
                if s.ended { return true }
                s.waiting.append(c)
                return false
            }
            if ended { c.resume() }
        }
    }

    /// Ends the turn; whoever waits for it goes on. A second call does nothing.
    public func end() {
        let waiting = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            s.ended = true
            defer { s.waiting = [] }
            return s.waiting
        }
        for c in waiting { c.resume() }
    }
}

/// Where a request takes effect among its client's others; every request is still answered in
/// the order sent (docs/CONTROL.md, "Framing").
public enum ControlPlace: Sendable {
    /// Alone: once every earlier request of the client has been answered, and before any later
    /// one starts.
    case inTurn
    /// Beside the client's earlier continues: it starts once the `inTurn` requests before it have
    /// ended, and waits for its turn itself before it changes anything (a continue's fetch).
    case overlapping
    /// When read, whatever of the client's still runs: the answer to a question handoffd asked
    /// it, which someone waits for under a short budget (`refresh`, 500 ms; `handled`, 5 s). It
    /// changes nothing the client's order governs, and behind the client's own `continue` or a
    /// `scene-update` (answered once written) it would miss that budget.
    case atOnce
}
