#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffControl
import HandoffLink
import HandoffProtocol
import HandoffCore

/// What we ask the paired peers and what they tell us: requests (opening a session through
/// `PeerReach` when there is none), each peer's current activities (pushed on its session, listed
/// on request, confirmed by its advert's sealed tokens), and telling every peer with a session
/// that ours changed. Asks the reach and the listing; neither of them calls back into it.
actor PeerAsking {
    private let reach: PeerReach
    private let listing: PeerListing
    private let events: ControlEvents
    /// The activity types this machine declares (an advert's tokens of other types are not
    /// expected here).
    private let declared: DeclaredTypes
    private var remote = RemoteDirectory()

    init(reach: PeerReach, listing: PeerListing, events: ControlEvents, declared: DeclaredTypes) {
        self.reach = reach
        self.listing = listing
        self.events = events
        self.declared = declared
    }

    func heartbeat() {}

    /// A paired peer's advert was read (`ListingNews.offers`).
    func offers(_ tokens: [AdvertTXT.Token], peerID: PeerID) { remote.advertRead(tokens, peerID: peerID, declared: declared.hashes) }

    func remoteChanged(_ items: [ActivitySummary], from peer: PeerIdentity, on session: LinkSession) {
        remote.pushed(items, peerID: peer.id, session: session.serial)
        events.broadcast("remoteActivitiesChanged", ["peer": .string(reach.name(of: peer)), "count": .integer(Int64(items.count))])
    }

    func remoteInvalidated(_ activityID: UUID, by peer: PeerIdentity) {
        remote.invalidated(activityID, peerID: peer.id)
        events.broadcast("remoteActivityInvalidated", ["peer": .string(reach.name(of: peer)), "activity": .string(activityID.canonicalString)])
    }

    /// After unpairing: nothing it said is kept.
    func forget(peerID: PeerID) { remote.forget(peerID: peerID) }

    /// A paired peer's activities: what we hold when it is still what the peer offers (its
    /// pushes on the open session, or its advert's sealed tokens, say so), else asked over the link.
    func activities(of peer: PeerView) async throws(ControlError) -> [ActivitySummary] {
        guard let trusted = peer.trusted else {
            throw .failed(code: .notPaired, message: PeerRequestError.notPaired(peer.name).description)
        }
        let links = reach.links
        if let held = remote.fresh(trusted.identity.id, openSession: await links.sessionID(of: trusted.identity.id)) { return held }
        let mark = remote.mark(trusted.identity.id)
        let reply = try await request(peer) { .list(id: $0) }
        guard case .activities(_, let items) = reply else {
            throw .failed(code: .unexpectedReply, message: "\(peer.name) answered the list with something else")
        }
        remote.answered(items, peerID: trusted.identity.id, session: await links.sessionID(of: trusted.identity.id), mark: mark)
        return items
    }

    /// Tells every peer with an open session that our activities changed, each only of the types
    /// it declared. One call into each actor, and each distinct list encoded once, however many
    /// peers: two hops per peer made the 49th of 49 peers wait for the other 48 (Tests/Rigs/scale.sh).
    func tellChanged(_ items: [ActivitySummary]) async {
        let links = reach.links
        // Kept for sessions that open from now on before the peers with one are read: a session
        // adopted after that reading is told these after its hellos (Tests/Rigs/chaos.sh once saw a
        // session opening meanwhile get the list from before, and miss the push).
        await reach.keep(ourActivities: items)
        for (list, peers) in await reach.offered(items, toEach: await links.connectedPeerIDs) {
            await links.notify(.changed(items: list), peerIDs: peers)
        }
    }

    func tellInvalidated(_ activityID: UUID) async {
        let links = reach.links
        await links.notify(.invalidated(activityID: activityID), peerIDs: await links.connectedPeerIDs)
    }

    /// Sends a request to a paired peer, opening a session (and greeting the peer) if needed;
    /// with no session and no address known, waits for its advert for the listing's grace.
    /// Not isolated: it touches nothing of this actor's, and each continue passing through it
    /// was a hop (and a wait behind the others) for nothing.
    nonisolated func request(
        _ peer: PeerView, timeout: Duration = .seconds(5), _ make: @escaping @Sendable (Int64) -> PeerMessage
    ) async throws(ControlError) -> PeerMessage {
        guard let trusted = peer.trusted else {
            throw .failed(code: .notPaired, message: PeerRequestError.notPaired(peer.name).description)
        }
        let links = reach.links, id = trusted.identity.id
        // The usual case, a session open: one call into the links, none into the reach. Closed
        // under the request, it goes once more below (a session found or opened), and no more.
        var again = false
        do throws(PeerRequestError) {
            if let reply = try await links.requestIfOpen(make, peerID: id, timeout: timeout) { return reply }
        } catch {
            guard case .sessionClosed = error else { throw .failed(code: error.code, message: error.naming(peer.name).description) }
            again = true
        }
        var address = peer.address
        if address == nil, await links.current(id) == nil, let listed = await listing.awaitListed(peerID: id) {
            address = PeerView(name: peer.name, trusted: trusted, discovered: listed, present: false).address
        }
        do throws(PeerRequestError) {
            return try await reach.request(make, to: trusted.identity, at: address, timeout: timeout)
        } catch {
            // Both machines dialled at once and the session this request went out on was the one
            // both closed: the other one is open, so the request goes again there, once.
            if !again, case .sessionClosed = error, let other = await links.current(id), other.channel.isActive {
                do throws(PeerRequestError) { return try await links.request(make, on: other, timeout: timeout) } catch {
                    throw .failed(code: error.code, message: error.naming(peer.name).description)
                }
            }
            throw .failed(code: error.code, message: error.naming(peer.name).description)
        }
    }
}
