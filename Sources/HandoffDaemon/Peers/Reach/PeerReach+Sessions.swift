#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClipboard
import HandoffCore
import HandoffLink
import HandoffProtocol

/// The hello on each session, a request that opens its session, network changes, and what
/// pairing and unpairing change of how a peer is reached.
extension PeerReach {
    /// The machine's addresses changed, or it woke up: sessions whose local address is gone are
    /// closed, and every peer without a session is dialled now.
    func networkChanged(_ change: NetworkChange) async {
        tellNetworkChanged(change)
        // When the addresses cannot be read, the pings find the sessions that are really dead.
        let local = LocalAddresses.current().map { Set($0.map(Self.withoutZone)) }
        for id in await links.connectedPeerIDs {
            guard let local else { break }
            for s in await links.sessions(of: id) {
                if let here = s.localEndpoint?.host, !local.contains(Self.withoutZone(here)), here != "127.0.0.1", here != "::1" {
                    await links.close(s, because: .closedHere)
                }
            }
        }
        localAddresses = InterfaceAddresses.current() ?? localAddresses
        // After a resume, every session may be dead: ping them all now.
        if change == .resumed { state.lastPing = [:] }
        state.dialer.resetAll()
        logger.info("network changed; dialling paired peers", metadata: ["change": "\(change)"])
        look()
    }

    private static func withoutZone(_ address: String) -> String { address.split(separator: "%").first.map(String.init) ?? address }

    /// A pairing succeeded: the new peer is dialled now, at `where_` if the pairing went there
    /// (by address), and so are the configured addresses (one of them may be this peer's).
    func paired(_ peer: PeerIdentity, at where_: PeerEndpoint?) {
        if let where_ { remember(where_, of: peer) }
        state.dialer.reset(peer.id.rawValue)
        for e in settings.staticPeers { state.dialer.reset("static:\(e)") }
        look()
    }

    /// After unpairing: sessions closed, nothing kept.
    func forget(_ peer: PeerIdentity) async {
        await links.drop(peerID: peer.id)
        state.forget(peerID: peer.id)
    }

    /// Closes the sessions with a peer (troubleshooting; the benchmark's cold trials). The dialer
    /// waits its backoff before dialling it again.
    func disconnect(_ peer: PeerIdentity) async {
        state.dialer.leftNow(peer.id.rawValue, at: ReachClock.now(), jitter: Double.random(in: 0...1))
        await links.drop(peerID: peer.id)
    }

    func capabilities(of peerID: PeerID) -> PeerCapabilities? { state.capabilities[peerID] }

    /// The activities a peer may see: those of the types it declared (all, before its hello).
    func offered(_ items: [ActivitySummary], to peerID: PeerID) -> [ActivitySummary] {
        state.capabilities[peerID].map { $0.offered(items) } ?? items
    }

    /// Our whole current list, for each session that opens later (`tellOurActivities`).
    func keep(ourActivities items: [ActivitySummary]) { ourActivities = items }

    /// `offered` for each of `peerIDs`, grouped: each distinct list with the peers it goes to.
    /// `items` is our whole current list: kept, for each session that opens later.
    func offered(_ items: [ActivitySummary], toEach peerIDs: some Sequence<PeerID>) -> [(list: [ActivitySummary], peers: [PeerID])] {
        ourActivities = items
        var groups: [(list: [ActivitySummary], peers: [PeerID])] = []
        for id in peerIDs {
            let list = offered(items, to: id)
            if let i = groups.firstIndex(where: { $0.list == list }) { groups[i].peers.append(id) } else { groups.append((list, [id])) }
        }
        return groups
    }

    /// A configured address (`static_peers`) was found to be this peer's.
    func isStatic(_ peerID: PeerID) -> Bool { state.staticOwner.values.contains(peerID) }

    // MARK: - Hello

    /// The peer's hello: what it continues, and where its link listens. Refused if it speaks
    /// another protocol version.
    func greeted(by peer: PeerIdentity, hello: Hello, on session: LinkSession) -> Bool {
        guard hello.protocolVersion == PeerMessage.protocolVersion else { return false }
        state.capabilities[peer.id] = PeerCapabilities(hello)
        if let port = hello.port.map(Int.init) {
            let onLoopback = session.remoteEndpoint.map { ToldAddresses.classify($0.host) == .loopback } ?? false
            let usable = ToldAddresses.usable(hello.addresses, port: port, sessionOnLoopback: onLoopback, local: localAddresses)
            let (taken, refused) = state.toldBudget.admit(usable, peerID: peer.id, at: ReachClock.now())
            state.told[peer.id] = taken
            if refused > 0 {
                logger.notice(
                    "a peer's hello named more new addresses than it may in a minute; those are not dialled",
                    metadata: ["peer.id": "\(peer.fingerprint)", "addresses.refused": "\(refused)", "limit.perMinute": "\(ToldBudget.perMinute)"])
            }
            if !session.initiatedLocally, let source = session.remoteEndpoint { remember(PeerEndpoint(host: source.host, port: port), of: peer) }
        }
        return true
    }

    /// Our hello, as a request or as the answer to the peer's.
    func ownHello() -> Hello {
        // A machine that shares its clipboard says so as a type: offers go only to those that do.
        let types = settings.declared.names + (settings.clipboard.enabled ? [ClipboardMessage.capability] : [])
        return Hello(device: settings.device, types: types, port: port == 0 ? nil : Int64(port), addresses: LocalAddresses.shareable())
    }

    /// The answer to a peer's hello: ours, or why the versions do not match.
    func answer(hello: Hello, id: Int64, on session: LinkSession) async -> PeerMessage {
        guard greeted(by: session.peer, hello: hello, on: session) else { return PeerRequestHandler.unsupported(hello, id: id) }
        if !session.initiatedLocally { await links.chosenByPeer(session) }
        tellOurActivities(on: session)
        return .hello(id: id, ownHello())
    }

    /// Once hellos are exchanged on a new session, our current activities go on it, as a change
    /// would: what the peer held came over an older session and may be stale (changes made while
    /// the wire was down reached nobody, and the advert's announcements were lost with them).
    /// Nothing is sent before our activities are first known.
    func tellOurActivities(on session: LinkSession) {
        guard let items = ourActivities, let bytes = try? PeerMessage.changed(items: offered(items, to: session.peer.id)).encoded() else { return }
        _ = session.post(bytes)
    }

    /// The types this machine declares changed (an app installed or removed): every open session
    /// says hello again, so that peers offer and push what it now continues (what a peer offers
    /// another is only of the types that one declared in its last hello).
    func greetAgain() async {
        for peerID in await links.connectedPeerIDs {
            for session in await links.sessions(of: peerID) { await greet(session) }
        }
    }

    /// The side that opens a session says hello first; the answer says what the peer continues.
    func greet(_ session: LinkSession) async {
        do throws(PeerRequestError) {
            let greeting = ownHello()
            let reply = try await links.request({ .hello(id: $0, greeting) }, on: session)
            try greeted(reply, on: session)
            tellOurActivities(on: session)
        } catch {
            logger.notice("a peer did not answer our hello", metadata: ["peer.id": "\(session.peer.fingerprint)", "error": "\(error.code)"])
        }
    }

    /// The peer's answer to our hello: its own.
    private func greeted(_ reply: PeerMessage, on session: LinkSession) throws(PeerRequestError) {
        guard case .hello(_, let hello) = reply else { throw .unexpectedReply("something else than its hello") }
        if !greeted(by: session.peer, hello: hello, on: session) {
            throw .refused(
                code: .unsupportedVersion,
                message:
                    "\(hello.device.terminalSafe) speaks peer protocol \(hello.protocolVersion); this machine speaks \(PeerMessage.protocolVersion)")
        }
    }

    // MARK: - A request that opens its session

    /// Sends a request to a peer on its session, opening one at `address` (and greeting the peer)
    /// if there is none.
    func request(
        _ make: @escaping @Sendable (Int64) -> PeerMessage, to identity: PeerIdentity, at address: (host: String, port: Int)?, timeout: Duration
    ) async throws(PeerRequestError) -> PeerMessage {
        let (session, opened) = try await links.session(to: identity, host: address?.host, port: address?.port)
        guard opened else { return try await links.request(make, on: session, timeout: timeout) }
        // The side that opens a session says hello first. The request follows at once, without
        // waiting for the peer's hello: the peer answers its hello before it reads the next
        // message, so the session costs no extra round trip.
        let greeting = ownHello()
        let hello = try await links.ask({ .hello(id: $0, greeting) }, on: session)
        let reply: PeerMessage
        do { reply = try await links.request(make, on: session, timeout: timeout) } catch {
            links.forget(hello)
            throw error
        }
        try greeted(try await links.answer(hello), on: session)
        tellOurActivities(on: session)
        return reply
    }
}
