import Dispatch
import NIOConcurrencyHelpers
import NIOCore

/// What a `LinkEndpoint` hands its owner: the sessions peers opened, the pairings they started,
/// word that a peer's message changed the trust store, and the peers that unpaired this machine.
struct LinkOutputs: Sendable {
    let sessions: AsyncStream<LinkSession>
    let sessionsIn: AsyncStream<LinkSession>.Continuation
    let pairings: AsyncStream<PairingSession>
    let pairingsIn: AsyncStream<PairingSession>.Continuation
    let trustChanges: AsyncStream<Void>
    let trustChangesIn: AsyncStream<Void>.Continuation
    /// Peers that unpaired this machine and are forgotten here (at most once each: then unpinned).
    let unpairedByPeer: AsyncStream<TrustedPeer>
    let unpairedByPeerIn: AsyncStream<TrustedPeer>.Continuation

    init() {
        (sessions, sessionsIn) = AsyncStream.makeStream()
        (pairings, pairingsIn) = AsyncStream.makeStream()
        // Only that something changed matters: one pending word is enough.
        (trustChanges, trustChangesIn) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (unpairedByPeer, unpairedByPeerIn) = AsyncStream.makeStream()
    }

    func finish() {
        sessionsIn.finish()
        pairingsIn.finish()
        trustChangesIn.finish()
        unpairedByPeerIn.finish()
    }
}

/// The trust-store writes a peer's messages cause (fsync'd): off the event loop, in order.
struct StoreWrites: Sendable {
    let queue = DispatchQueue(label: "handoffd.link.store-writes")
    /// Advertising keys that peers sent and that wait for their write.
    let pendingKeys = NIOLockedValueBox(PendingKeyWrites())
    /// Advertising keys refused because another paired machine holds them.
    let refusedKeyClaims = NIOLockedValueBox(0)
}

/// The endpoint's connections: the listener, connections not yet authenticated (limited per
/// source), open sessions, and those we are opening.
struct LinkConnections: Sendable {
    let limiter: NIOLockedValueBox<ConnectionLimiter>
    let server = NIOLockedValueBox<Channel?>(nil)
    /// Open sessions, so that a new advertising key or an unpair notice reaches them at once.
    let open = NIOLockedValueBox(OpenSessions())
    /// Connections we are opening (TCP connect or handshake under way): closed by `shutdown`, so
    /// that a dial to an address that drops packets does not hold up the stop for its timeout.
    let dialling = NIOLockedValueBox<(stopped: Bool, channels: [ObjectIdentifier: Channel])>((false, [:]))

    init(_ configuration: LinkConfiguration) {
        limiter = NIOLockedValueBox(
            ConnectionLimiter(
                total: configuration.maxUnauthenticated, perSource: configuration.maxUnauthenticatedPerSource,
                perPrefix: configuration.maxUnauthenticatedPerPrefix,
                maxExempt: configuration.maxUnauthenticatedExempt))
    }
}
