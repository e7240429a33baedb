#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The secure peer link of one machine: listens for peers, connects to them, pairs with them.
/// Sessions need both keys pinned; pairing needs the window open on the accepting side.
public final class LinkEndpoint: Sendable {
    public let identity: IdentityKey
    public let name: String
    public let trustStore: any TrustStore
    public let configuration: LinkConfiguration
    /// Authenticated sessions that peers opened to us.
    public var sessions: AsyncStream<LinkSession> { outputs.sessions }
    /// Pairings that peers started with us while the window was open.
    public var pairingRequests: AsyncStream<PairingSession> { outputs.pairings }
    /// Each paired peer that told this machine it unpaired it, once forgotten here.
    public var unpairedByPeer: AsyncStream<TrustedPeer> { outputs.unpairedByPeer }
    /// Yields when a peer's message changed the trust store (its new advertising key stored, its
    /// unpair notice): whoever recognises adverts reads the paired keys again.
    public var trustChanges: AsyncStream<Void> { outputs.trustChanges }
    /// Advertising keys refused because another paired machine holds them.
    public var refusedKeyClaims: Int { writes.refusedKeyClaims.withLockedValue { $0 } }

    let outputs = LinkOutputs()
    let writes = StoreWrites()
    private let connections: LinkConnections
    private let group: EventLoopGroup
    let logger: Logger
    private let coordinator = PairingCoordinator()
    /// In a class: a closure kept directly in the generic box was re-wrapped in a reabstraction
    /// thunk at every access, so each stream frame went through one more (found with perf: a
    /// 1 GiB transfer slowed to 19 MB/s, all of it in nested thunks).
    private let streamSink = NIOLockedValueBox<StreamSinkBox?>(nil)

    public init(
        identity: IdentityKey, name: String, trustStore: any TrustStore, configuration: LinkConfiguration = LinkConfiguration(),
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger = Logger(label: "handoffd.link")
    ) {
        self.identity = identity
        self.name = name
        self.trustStore = trustStore
        self.configuration = configuration
        self.group = group
        self.logger = logger
        connections = LinkConnections(configuration)
    }

    /// Starts listening; returns the bound port (pass 0 for any).
    public func listen(host: String, port: Int) async throws -> Int {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try self.acceptInitializer(channel) }
            }
            .bind(hostOrAddress: host, port: port).get()
        connections.server.withLockedValue { $0 = channel }
        return channel.localAddress?.port ?? port
    }

    public var unauthenticatedConnections: Int { connections.limiter.withLockedValue { $0.unauthenticated } }

    /// Opens a session to a paired peer. Fails if its key is not pinned (or is not `peer`).
    public func connect(host: String, port: Int, expecting peer: PeerIdentity? = nil) async throws -> LinkSession {
        try await startConnect(host: host, port: port, expecting: peer).get()
    }

    /// Starts opening a session and returns at once; the future completes with the session or
    /// the failure. (handoffd dials paired peers this way as soon as it listens, before its
    /// services run.)
    public func startConnect(host: String, port: Int, expecting peer: PeerIdentity? = nil) -> EventLoopFuture<LinkSession> {
        let promise = group.next().makePromise(of: LinkEstablished.self)
        let machine = LinkHandshakeMachine(role: .initiator, mode: .session, identity: identity, localName: name, policy: policy(expecting: peer))
        bootstrap(machine: machine, promise: promise).connect(hostOrAddress: host, port: port).whenFailure { promise.fail($0) }
        return promise.futureResult.flatMapThrowing { established in
            guard case .session(let s) = established else { throw LinkError.closed }
            return s
        }
    }

    /// Starts pairing with the machine at host:port, whose window must be open.
    public func pair(host: String, port: Int) async throws -> PairingSession {
        let promise = group.next().makePromise(of: LinkEstablished.self)
        let machine = LinkHandshakeMachine(role: .initiator, mode: .pairing, identity: identity, localName: name, policy: policy(expecting: nil))
        _ = try await connectChannel(host: host, port: port, machine: machine, promise: promise)
        // Only a pairing whose handshake completed counts toward the lockout (PairingHandler):
        // an unreachable address or a refusal is no guess at a code.
        guard case .pairing(let p) = try await promise.futureResult.get() else { throw LinkError.closed }
        return p
    }

    /// Opens the pairing window (120 s by default).
    public func openPairingWindow() {
        coordinator.openWindow(for: TimeInterval(configuration.pairingWindow.nanoseconds) / 1e9)
    }

    public func closePairingWindow() { coordinator.closeWindow() }

    /// The window is open now (opened, not yet used by a pairing, not run out).
    public var isPairingWindowOpen: Bool { coordinator.windowCloses.map { $0 > Date() } ?? false }

    /// When the window opened last runs out (nil: none was opened, or it was closed).
    public var pairingWindowCloses: Date? { coordinator.windowCloses }

    /// How many source addresses are locked out of pairing now (three failures each, 5 minutes).
    public var lockedPairingSources: Int { coordinator.lockedSources() }

    /// Whether pairing attempts from this address are locked out now.
    public func isPairingLocked(source: String) -> Bool { coordinator.isLocked(source: source) }

    /// Forgets a peer and rotates our advertising key in one durable step. The new key goes to
    /// every peer with an open session; the removed peer is told now if it is connected, else the
    /// next time it connects (it still trusts us, so it will).
    @discardableResult
    public func unpair(_ peer: PeerIdentity) async throws -> AdvertisingKey {
        let next = try trustStore.ownAdvertisingKey().rotated()
        try trustStore.unpin(id: peer.id, rotatingTo: next)
        logger.notice("unpaired; advertising key rotated", metadata: ["peer.id": "\(peer.fingerprint)", "advert.generation": "\(next.generation)"])
        for session in connections.open.withLockedValue({ $0.all }) {
            if session.peer == peer {
                await deliverUnpairNotice(on: session)
            } else {
                try? await session.sendControl(.advertisingKey(next))
            }
        }
        return next
    }

    /// Where stream frames go (the daemon's streams), called on the session's event loop with the
    /// frame after its kind byte. Set before sessions open: a frame with no sink is dropped.
    public func setStreamSink(_ sink: @escaping StreamSink) { streamSink.withLockedValue { $0 = StreamSinkBox(call: sink) } }
    public typealias StreamSink = @Sendable (LinkSession, ByteBufferView) -> Void

    /// The sessions open right now.
    public var openSessions: [LinkSession] { connections.open.withLockedValue { $0.all } }

    public func shutdown() async {
        let ch = connections.server.withLockedValue { c -> Channel? in
            defer { c = nil }
            return c
        }
        try? await ch?.close()
        let pending = connections.dialling.withLockedValue { d -> [Channel] in
            d.stopped = true
            return Array(d.channels.values)
        }
        for channel in pending { channel.close(promise: nil) }
        outputs.finish()
    }

    // MARK: - Pipelines

    enum LinkEstablished: Sendable {
        case session(LinkSession)
        case pairing(PairingSession)
    }

    /// `source` is the address an incoming connection came from (its pairing attempts are
    /// counted and locked out on their own).
    private func policy(expecting peer: PeerIdentity?, source: String = "?") -> LinkHandshakeMachine.Policy {
        let store = trustStore
        let coordinator = coordinator
        // A peer we unpaired but have not told yet gets through the handshake only to hear that.
        return .init(
            trust: { id in
                if (try? store.peer(withKey: id.publicKey)) != nil { return .pinned }
                if (try? store.pendingUnpairs())?.contains(id) == true { return .unpairedNotTold }
                return .unknown
            },
            expectedPeer: peer,
            pairingRefusal: { coordinator.refusalForIncoming(source: source) })
    }

    private func connectChannel(
        host: String, port: Int, machine: LinkHandshakeMachine,
        promise: EventLoopPromise<LinkEstablished>
    ) async throws -> Channel {
        do { return try await bootstrap(machine: machine, promise: promise).connect(hostOrAddress: host, port: port).get() } catch {
            promise.fail(error)
            throw error
        }
    }

    private func bootstrap(machine: LinkHandshakeMachine, promise: EventLoopPromise<LinkEstablished>) -> ClientBootstrap {
        ClientBootstrap(group: promise.futureResult.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(configuration.handshakeTimeout)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let key = ObjectIdentifier(channel)
                    let stopped = connections.dialling.withLockedValue { d in
                        if !d.stopped { d.channels[key] = channel }
                        return d.stopped
                    }
                    if stopped { throw LinkError.closed }
                    promise.futureResult.whenComplete { [connections] _ in
                        _ = connections.dialling.withLockedValue { $0.channels.removeValue(forKey: key) }
                    }
                    try self.addLinkHandlers(channel, machine: machine, isInitiator: true, source: nil, promise: promise)
                }
            }
    }

    private func acceptInitializer(_ channel: Channel) throws {
        let source = channel.remoteAddress?.ipAddress ?? "?"
        // Only addresses where a peer paired now authenticated lately are exempt (kept in the trust
        // store, forgotten with the peer): not every address a peer ever used, for ever.
        let known = trustStore.rememberedAddresses(since: Date().addingTimeInterval(-InMemoryTrustStore.addressMemory)).contains(source)
        let admission = connections.limiter.withLockedValue { $0.admit(source: source, isKnownPeerAddress: known) }
        guard admission != .refused else {
            logger.notice("refused an unauthenticated connection: limit reached", metadata: ["peer.address": "\(source)"])
            channel.close(promise: nil)
            return
        }
        // Released once, when the connection authenticates or closes.
        let released = NIOLockedValueBox(false)
        let release: @Sendable () -> Void = { [connections] in
            guard
                released.withLockedValue({ r in
                    defer { r = true }
                    return !r
                })
            else { return }
            connections.limiter.withLockedValue { admission == .exempt ? $0.releaseExempt() : $0.release(source: source) }
        }
        channel.closeFuture.whenComplete { _ in release() }
        let machine = LinkHandshakeMachine(role: .responder, identity: identity, localName: name, policy: policy(expecting: nil, source: source))
        let promise = channel.eventLoop.makePromise(of: LinkEstablished.self)
        promise.futureResult.whenSuccess { [outputs, trustStore, logger, writes] established in
            switch established {
            case .session(let s):
                // The write (at most daily per address) happens off the event loop.
                let peer = s.peer
                writes.queue.async {
                    do { try trustStore.rememberAddress(source, ofPeer: peer.id, at: Date()) } catch {
                        logger.warning("could not remember a peer's address", metadata: ["peer.id": "\(peer.fingerprint)", "error": "\(error)"])
                    }
                }
                outputs.sessionsIn.yield(s)
            case .pairing(let p):
                outputs.pairingsIn.yield(p)
            }
        }
        try addLinkHandlers(channel, machine: machine, isInitiator: false, source: source, promise: promise, release: release)
    }

    private func addLinkHandlers(
        _ channel: Channel, machine: LinkHandshakeMachine, isInitiator: Bool, source: String?,
        promise: EventLoopPromise<LinkEstablished>, release: (@Sendable () -> Void)? = nil
    ) throws {
        channel.shortenRetransmissions()
        let ops = channel.pipeline.syncOperations
        try ops.addHandler(ByteToMessageHandler(FrameDecoder(maxFrame: configuration.maxFrame)))
        try ops.addHandler(FrameEncoder())
        try ops.addHandler(NoiseChannelHandler(machine: machine, isInitiator: isInitiator, timeout: configuration.handshakeTimeout, logger: logger))
        // After the Noise handler, which fires the established event toward the tail.
        if let release { try ops.addHandler(AdmissionReleaseHandler(release: release)) }
        try ops.addHandler(EstablishmentRouter(endpoint: self, isInitiator: isInitiator, promise: promise))
    }

    /// After the handshake: a session bridge, or a pairing handler.
    fileprivate func route(_ e: LinkHandshakeMachine.Established, isInitiator: Bool, context: ChannelHandlerContext) throws -> LinkEstablished {
        let ops = context.pipeline.syncOperations
        switch e.mode {
        case .session:
            let channel = context.channel
            let peer = e.peer
            // The session is made after its bridge; stream frames reach the sink with it.
            let made = SessionHolder()
            let sink = streamSink
            let bridge = SessionBridge(
                onControl: { [weak self] control in self?.handle(control, from: peer, channel: channel) },
                onStream: { bytes in if let s = made.session, let box = sink.withLockedValue({ $0 }) { box.call(s, bytes) } })
            try ops.addHandler(bridge)
            let limits = configuration.sessions
            let session = LinkSession(
                peer: peer, channel: channel, bridge: bridge, maxFrame: configuration.maxFrame, limits: limits, initiatedLocally: isInitiator)
            made.session = session
            let key = ObjectIdentifier(channel)
            let evicted = connections.open.withLockedValue { open -> [LinkSession]? in
                open.admit(session, key: key, limits: limits)
            }
            guard let evicted else {
                logger.warning(
                    "closed a new session: the session limit is reached", metadata: ["peer.id": "\(peer.fingerprint)", "limit": "\(limits.total)"])
                throw LinkError.tooManySessions
            }
            for old in evicted {
                logger.notice(
                    "closed a peer's oldest session: at most \(limits.perPeer) per peer", metadata: ["peer.id": "\(peer.fingerprint)"])
                old.reason.withLockedValue { if $0 == nil { $0 = .tooManySessions } }
                old.channel.close(promise: nil)
            }
            channel.closeFuture.whenComplete { [connections] _ in connections.open.withLockedValue { $0.remove(key) } }
            if let own = try? trustStore.ownAdvertisingKey() {
                channel.writeAndFlush(channel.allocator.buffer(bytes: LinkControl.advertisingKey(own).bytes), promise: nil)
            }
            return .session(session)
        case .pairing:
            let session = PairingSession(peer: e.peer, peerName: e.peerName ?? "", channel: context.channel)
            if !isInitiator, !coordinator.begin(session) { throw LinkError.refused(.busy) }
            let machine = PairingMachine(role: isInitiator ? .initiator : .responder, handshakeHash: e.handshakeHash)
            try ops.addHandler(
                PairingHandler(
                    machine: machine, session: session, coordinator: coordinator, trustStore: trustStore,
                    window: configuration.pairingWindow, logger: logger))
            return .pairing(session)
        }
    }
}

/// Hands the established session (or the failure) to whoever is waiting, then steps aside.
private final class EstablishmentRouter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let endpoint: LinkEndpoint
    private let isInitiator: Bool
    private let promise: EventLoopPromise<LinkEndpoint.LinkEstablished>
    private var settled = false

    init(endpoint: LinkEndpoint, isInitiator: Bool, promise: EventLoopPromise<LinkEndpoint.LinkEstablished>) {
        self.endpoint = endpoint
        self.isInitiator = isInitiator
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let e = event as? LinkEstablishedEvent else { return context.fireUserInboundEventTriggered(event) }
        do {
            let result = try endpoint.route(e.established, isInitiator: isInitiator, context: context)
            settled = true
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            promise.succeed(result)
        } catch {
            settle(error, context: context)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if !settled { endpoint.handshakeFailed(error) }
        settle(error, context: context)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        settle(isInitiator ? LinkError.peerClosedHandshake : LinkError.closed, context: context)
        context.fireChannelInactive()
    }

    private func settle(_ error: Error, context: ChannelHandlerContext) {
        guard !settled else { return }
        settled = true
        promise.fail(error)
    }
}

/// Releases the connection's pre-authentication slot as soon as it authenticates.
private final class AdmissionReleaseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    let release: @Sendable () -> Void
    init(release: @escaping @Sendable () -> Void) { self.release = release }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Forward first: once removed, this context no longer reaches the handlers after it.
        context.fireUserInboundEventTriggered(event)
        if event is LinkEstablishedEvent {
            release()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}

/// The stream sink, boxed (see `LinkEndpoint.streamSink`).
final class StreamSinkBox: Sendable {
    let call: LinkEndpoint.StreamSink
    init(call: @escaping LinkEndpoint.StreamSink) { self.call = call }
}

/// The session a bridge belongs to, set once it is made (on the event loop, before any read).
private final class SessionHolder: @unchecked Sendable {
    weak var session: LinkSession?
}
