#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffLink

/// A session that stops answering pings is not proof that the peer is gone. TCP doubles its
/// retransmission timeout after each loss of the same segment, and everything written behind
/// that segment waits for it: through 25 % loss a segment lost five times in a row (one in a
/// thousand) holds the session silent for 6 s, while the wire still carries three packets in
/// four (Tests/Rigs/chaos.sh reported peers absent that way). A fresh connection starts with fresh
/// timers. So a ping that times out makes the peer due for a dial at once, with its silent
/// session still open; the first fresh session that authenticates replaces it (the session
/// table retires the older one: the peer never leaves), and only if none does within the
/// redial budget is the silent session closed and the peer absent.
extension PeerReach {
    /// A ping on `session` went unanswered.
    func suspectStalled(_ session: LinkSession) async {
        let id = session.peer.id
        // A retired session, or one already suspected: nothing new to do.
        guard state.stalled[id] == nil, await links.current(id) === session else { return }
        logger.notice("a peer stopped answering pings; dialling it afresh", metadata: ["peer.id": "\(session.peer.fingerprint)"])
        state.stalled[id] = (session, ReachClock.now())
        state.dialer.reset(id.rawValue)
        look()
    }

    /// Silent sessions that no fresh one replaced within the budget are closed: the peer is absent.
    func closeUnreplaced() async {
        let now = ReachClock.now()
        for (id, stall) in state.stalled where now - stall.since >= settings.redialBudget {
            state.stalled[id] = nil
            guard await links.current(id) === stall.session else { continue }
            logger.notice(
                "a peer stopped answering pings and could not be reached afresh; closing its session",
                metadata: ["peer.id": "\(stall.session.peer.fingerprint)"])
            await links.close(stall.session, because: .pingTimeout)
        }
    }
}
