import Foundation
import HandoffAdvert
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
@testable import HandoffLink

/// An endpoint listening on loopback with its own trust store.
struct Node {
    let endpoint: LinkEndpoint
    let store: InMemoryTrustStore
    let port: Int

    static func start(_ name: String, configure: (inout LinkConfiguration) -> Void = { _ in }, host: String = "127.0.0.1") async throws -> Node {
        var config = LinkConfiguration()
        configure(&config)
        let store = InMemoryTrustStore()
        let endpoint = LinkEndpoint(identity: IdentityKey(), name: name, trustStore: store, configuration: config)
        let port = try await endpoint.listen(host: host, port: 0)
        return Node(endpoint: endpoint, store: store, port: port)
    }

    var identity: PeerIdentity { endpoint.identity.identity }
}

/// Pins each node's key in the other's store, as a finished pairing would.
func pinEachOther(_ a: Node, _ b: Node) {
    a.store.pin(TrustedPeer(identity: b.identity, name: b.endpoint.name, pairedAt: Date()))
    b.store.pin(TrustedPeer(identity: a.identity, name: a.endpoint.name, pairedAt: Date()))
}

func firstPairingRequest(_ node: Node) async -> PairingSession? {
    for await p in node.endpoint.pairingRequests { return p }
    return nil
}

/// A raw TCP connection (no link protocol) from a chosen local address.
func rawConnect(to port: Int, from local: String = "127.0.0.1") async throws -> Channel {
    try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .bind(to: try SocketAddress(ipAddress: local, port: 0))
        .connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: port)).get()
}

/// Waits until `condition` holds, up to `seconds`.
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

@Suite(.serialized, .timeLimit(.minutes(1))) struct LinkTCPTests {
    @Test func fullPairingThenASession() async throws {
        let a = try await Node.start("Alice's laptop"), b = try await Node.start("Bob's desk")
        b.endpoint.openPairingWindow()
        async let request = firstPairingRequest(b)
        let mine = try await a.endpoint.pair(host: "127.0.0.1", port: b.port)
        let theirs = try #require(await request)
        let codeA = try await mine.code(), codeB = try await theirs.code()
        #expect(codeA == codeB && codeA.count == 6)
        #expect(mine.peerName == "Bob's desk" && theirs.peerName == "Alice's laptop")
        #expect(a.store.peers().isEmpty && b.store.peers().isEmpty)
        mine.confirm()
        theirs.confirm()
        let pinnedA = try await mine.outcome().get(), pinnedB = try await theirs.outcome().get()
        #expect(pinnedA.identity == b.identity && pinnedB.identity == a.identity)
        #expect(a.store.peers().map(\.identity) == [b.identity] && b.store.peers().map(\.identity) == [a.identity])

        // The pinned keys now open a session, both ways.
        let session = try await a.endpoint.connect(host: "127.0.0.1", port: b.port, expecting: b.identity)
        var incoming = b.endpoint.sessions.makeAsyncIterator()
        let accepted = try #require(await incoming.next())
        #expect(accepted.peer == a.identity)
        try await session.send(Array("hello".utf8))
        let inbox = accepted.messages.makeAsyncIterator()
        #expect(await inbox.next() == Array("hello".utf8))
        try await accepted.send(Array(repeating: 7, count: 1024))
        let back = session.messages.makeAsyncIterator()
        #expect(await back.next()?.count == 1024)
        await session.close()
        await a.endpoint.shutdown()
        await b.endpoint.shutdown()
    }

    @Test func manInTheMiddleGetsDifferentCodesAndNothingIsStored() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B"), m = try await Node.start("M")
        m.endpoint.openPairingWindow()
        b.endpoint.openPairingWindow()
        async let toM = firstPairingRequest(m)
        async let toB = firstPairingRequest(b)
        // A believes it pairs with B but reaches M; M pairs onward with B.
        let aSide = try await a.endpoint.pair(host: "127.0.0.1", port: m.port)
        let mSide = try await m.endpoint.pair(host: "127.0.0.1", port: b.port)
        let bSide = try #require(await toB)
        _ = try #require(await toM)
        _ = mSide
        let codeA = try await aSide.code(), codeB = try await bSide.code()
        #expect(codeA != codeB)
        // The users compare, see different codes, and reject.
        aSide.reject()
        bSide.reject()
        if case .success = await aSide.outcome() { Issue.record("A pinned a key") }
        if case .success = await bSide.outcome() { Issue.record("B pinned a key") }
        #expect(a.store.peers().isEmpty && b.store.peers().isEmpty)
    }

    @Test func unpairedKeyIsRefusedAndNoSessionReachesTheApp() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B"), c = try await Node.start("C")
        pinEachOther(a, b)
        c.store.pin(TrustedPeer(identity: b.identity, name: "B", pairedAt: Date()))  // C trusts B; B does not trust C
        await #expect(throws: LinkError.self) { try await c.endpoint.connect(host: "127.0.0.1", port: b.port) }
        // And C cannot be reached as if it were paired: A refuses C's key when calling it.
        await #expect(throws: LinkError.self) { try await a.endpoint.connect(host: "127.0.0.1", port: c.port) }
        // The only session B ever yields is A's.
        _ = try await a.endpoint.connect(host: "127.0.0.1", port: b.port)
        var it = b.endpoint.sessions.makeAsyncIterator()
        #expect(await it.next()?.peer == a.identity)
    }

    @Test func oversizeFrameClosesTheConnection() async throws {
        let b = try await Node.start("B")
        let raw = try await rawConnect(to: b.port)
        var header = raw.allocator.buffer(capacity: 4)
        header.writeInteger(UInt32(1_000_000))
        try await raw.writeAndFlush(header)
        #expect(await eventually(2) { !raw.isActive })
        #expect(await eventually(2) { b.endpoint.unauthenticatedConnections == 0 })
    }

    @Test func handshakeTimeout() async throws {
        // 1.5 s: the count is read before the timeout ends the connection, also on two busy cores
        // (with 300 ms, the 660 tests beside it sometimes made the test read it too late).
        let b = try await Node.start("B") { $0.handshakeTimeout = .milliseconds(1_500) }
        // The clock starts before the connection: the timeout runs from the accept, which is later.
        let start = ContinuousClock.now
        let raw = try await rawConnect(to: b.port)
        #expect(await eventually(1) { b.endpoint.unauthenticatedConnections == 1 })
        #expect(await eventually(5) { !raw.isActive })
        #expect(ContinuousClock.now - start >= .milliseconds(1_450))
        #expect(await eventually(1) { b.endpoint.unauthenticatedConnections == 0 })
    }

    @Test func unauthenticatedLimitsAndAPairedPeerStillGetsIn() async throws {
        let b = try await Node.start("B", host: "127.0.0.1")
        let a = try await Node.start("A")
        pinEachOther(a, b)
        // B's listener is on 127.0.0.1; A has authenticated from 127.0.0.1 before, so that address is known.
        _ = try await a.endpoint.connect(host: "127.0.0.1", port: b.port)
        var held: [Channel] = []
        // Four /24s (one /24 may hold at most four: ConnectionLimiter.perPrefix).
        for source in ["127.0.2.2", "127.0.2.2", "127.0.3.3", "127.0.3.3", "127.0.4.4", "127.0.4.4", "127.0.5.5", "127.0.5.5"] {
            held.append(try await rawConnect(to: b.port, from: source))
        }
        #expect(await eventually(2) { b.endpoint.unauthenticatedConnections == 8 })
        // A third from one source, and a ninth in all, are closed at once.
        let third = try await rawConnect(to: b.port, from: "127.0.2.2")
        let ninth = try await rawConnect(to: b.port, from: "127.0.6.6")
        #expect(await eventually(2) { !third.isActive && !ninth.isActive })
        #expect(
            held.allSatisfy { $0.isActive },
            "inactive: \(held.enumerated().filter { !$0.element.isActive }.map { "\($0.offset) \($0.element.localAddress.map { "\($0)" } ?? "")" })")
        // The paired peer, from its known address, still gets a session.
        let session = try await a.endpoint.connect(host: "127.0.0.1", port: b.port, expecting: b.identity)
        #expect(session.peer == b.identity)
        for h in held { try? await h.close() }
        #expect(await eventually(2) { b.endpoint.unauthenticatedConnections == 0 })
    }

    /// Three failures lock out the address they came from, not pairing for everyone;
    /// and a failure leaves the window open for the next attempt.
    @Test func threeFailedPairingsLockTheirSourceOnly() async throws {
        // B listens on both stacks: A comes from 127.0.0.1 (seen as ::ffff:127.0.0.1), C from ::1.
        let a = try await Node.start("A"), b = try await Node.start("B", host: "::"), c = try await Node.start("C")
        b.endpoint.openPairingWindow()
        for _ in 0..<3 {
            #expect(b.endpoint.isPairingWindowOpen, "a failed attempt leaves the window open")
            async let request = firstPairingRequest(b)
            let mine = try await a.endpoint.pair(host: "127.0.0.1", port: b.port)
            _ = try await mine.code()
            let theirs = try #require(await request)
            theirs.reject()
            if case .success = await mine.outcome() { Issue.record("pinned after a rejection") }
            // B records the failure when its own side finishes, which can be just after A's.
            if case .success = await theirs.outcome() { Issue.record("pinned after a rejection") }
        }
        #expect(b.endpoint.isPairingLocked(source: "::ffff:127.0.0.1") && b.endpoint.lockedPairingSources == 1)
        await #expect(throws: LinkError.refused(.lockedOut)) { try await a.endpoint.pair(host: "127.0.0.1", port: b.port) }
        #expect(a.store.peers().isEmpty && b.store.peers().isEmpty)
        // Another machine still pairs in the same window.
        async let request = firstPairingRequest(b)
        let fromC = try await c.endpoint.pair(host: "::1", port: b.port)
        let atB = try #require(await request)
        #expect(try await fromC.code() == atB.code())
        fromC.confirm()
        atB.confirm()
        #expect(try await fromC.outcome().get().identity == b.identity)
        #expect(try await atB.outcome().get().identity == c.identity)
        #expect(!b.endpoint.isPairingWindowOpen, "a success closes the window")
    }

    /// A window takes at most five failures in all (from any addresses), then closes.
    @Test func aWindowClosesAfterFiveFailures() async throws {
        let b = try await Node.start("B", host: "::")
        b.endpoint.openPairingWindow()
        let sources = ["127.0.0.1", "::1"]
        for i in 0..<5 {
            let a = try await Node.start("A\(i)")
            async let request = firstPairingRequest(b)
            let mine = try await a.endpoint.pair(host: sources[i % 2], port: b.port)
            let theirs = try #require(await request)
            theirs.reject()
            _ = await mine.outcome()
            _ = await theirs.outcome()
        }
        #expect(!b.endpoint.isPairingWindowOpen)
    }

    @Test func closedWindowAndSecondAttempt() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B"), c = try await Node.start("C")
        await #expect(throws: LinkError.refused(.notAccepting)) { try await a.endpoint.pair(host: "127.0.0.1", port: b.port) }
        b.endpoint.openPairingWindow()
        async let request = firstPairingRequest(b)
        let mine = try await a.endpoint.pair(host: "127.0.0.1", port: b.port)
        let theirs = try #require(await request)
        _ = try await theirs.code()
        // A second device tries meanwhile: it is refused at its preamble, and
        // that no longer stops the pairing in progress, nor counts toward the lockout.
        await #expect(throws: LinkError.refused(.busy)) { try await c.endpoint.pair(host: "127.0.0.1", port: b.port) }
        mine.confirm()
        theirs.confirm()
        #expect(try await mine.outcome().get().identity == b.identity)
        #expect(try await theirs.outcome().get().identity == a.identity)
        #expect(c.store.peers().isEmpty && b.endpoint.lockedPairingSources == 0)
    }

    @Test func pairingWindowTimesOut() async throws {
        // Long enough that the request arrives inside it even with both cores busy (400 ms once
        // closed before A's connection was in, in a CI run, and 2 s once while a build ran beside
        // the tests): what is tested is the expiry after.
        let a = try await Node.start("A"), b = try await Node.start("B") { $0.pairingWindow = .seconds(4) }
        b.endpoint.openPairingWindow()
        async let request = firstPairingRequest(b)
        let mine = try await a.endpoint.pair(host: "127.0.0.1", port: b.port)
        let theirs = try #require(await request)
        mine.confirm()
        #expect(await theirs.outcome() == .failure(.pairing(.timedOut)))
        #expect(await mine.outcome() == .failure(.pairing(.timedOut)))
        #expect(a.store.peers().isEmpty && b.store.peers().isEmpty)
    }

    @Test func sessionsExchangeAdvertisingKeys() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B")
        pinEachOther(a, b)
        _ = try await a.endpoint.connect(host: "127.0.0.1", port: b.port)
        let aKey = a.store.ownAdvertisingKey(), bKey = b.store.ownAdvertisingKey()
        #expect(await eventually { a.store.peer(withKey: b.identity.publicKey)?.advertisingKey == bKey })
        #expect(await eventually { b.store.peer(withKey: a.identity.publicKey)?.advertisingKey == aKey })
    }

    @Test func unpairTellsAConnectedPeerAndHandsTheNewKeyToTheOthers() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B"), c = try await Node.start("C")
        pinEachOther(a, b)
        pinEachOther(c, b)
        let toA = try await a.endpoint.connect(host: "127.0.0.1", port: b.port)
        _ = try await c.endpoint.connect(host: "127.0.0.1", port: b.port)
        let old = b.store.ownAdvertisingKey()
        #expect(await eventually { c.store.peer(withKey: b.identity.publicKey)?.advertisingKey == old })
        #expect(await eventually { b.endpoint.openSessions.count == 2 })
        let next = try await b.endpoint.unpair(a.identity)
        // A hears it and forgets B; C gets B's new key; A's copy of the old key cannot read B's new adverts.
        #expect(await eventually { a.store.peer(withKey: b.identity.publicKey) == nil })
        #expect(await eventually { !toA.channel.isActive })
        #expect(await eventually { c.store.peer(withKey: b.identity.publicKey)?.advertisingKey == next })
        #expect(old.open(next.seal([1], salt: [UInt8](repeating: 9, count: 16), index: 0), salt: [UInt8](repeating: 9, count: 16), index: 0) == nil)
        #expect(b.store.pendingUnpairs().isEmpty)
    }

    @Test func unpairReachesAnAbsentPeerWhenItNextConnects() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B")
        pinEachOther(a, b)
        _ = try await b.endpoint.unpair(a.identity)
        #expect(b.store.pendingUnpairs() == [a.identity])
        // A still trusts B and calls: the handshake tells it that it was unpaired; no session exists.
        await #expect(throws: LinkError.unpairedByPeer(b.identity)) { try await a.endpoint.connect(host: "127.0.0.1", port: b.port) }
        #expect(a.store.peer(withKey: b.identity.publicKey) == nil)
        #expect(await eventually { b.store.pendingUnpairs().isEmpty })
        // Neither side yields a session to the application.
        #expect(b.endpoint.openSessions.isEmpty)
    }

    @Test func unpairingEndsTrust() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B")
        pinEachOther(a, b)
        _ = try await a.endpoint.connect(host: "127.0.0.1", port: b.port)
        let before = b.store.ownAdvertisingKey()
        let next = try await b.endpoint.unpair(a.identity)
        #expect(next.generation == before.generation + 1)
        await #expect(throws: LinkError.self) { try await a.endpoint.connect(host: "127.0.0.1", port: b.port) }
    }
}

/// A dial that hangs (the other end accepts TCP and never answers the handshake, as an
/// address that drops packets would hold it for the whole timeout) ends at once when the endpoint
/// shuts down, so that SIGTERM is not held up by it.
@Suite struct DialAtShutdownTests {
    @Test func aHangingDialEndsWhenTheEndpointShutsDown() async throws {
        let accepted = NIOLockedValueBox(0)
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                accepted.withLockedValue { $0 += 1 }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { silent.close(promise: nil) }
        let node = try await Node.start("a")
        let dial = node.endpoint.startConnect(host: "127.0.0.1", port: silent.localAddress!.port!, expecting: IdentityKey().identity)
        // The TCP connection is up and the handshake is waiting for an answer that never comes.
        let deadline = ContinuousClock.now + .seconds(5)
        while accepted.withLockedValue({ $0 }) == 0 {
            #expect(ContinuousClock.now < deadline, "the silent server never accepted the dial")
            if ContinuousClock.now >= deadline { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        // Timed from the shutdown, against half the handshake's 10 s timeout: a loaded CI machine
        // (every suite starting at once) has taken 2 s to get here, and the claim is only that
        // the dial does not wait for its timeout.
        let shutdownAt = ContinuousClock.now
        await node.endpoint.shutdown()
        await #expect(throws: (any Error).self) { try await dial.get() }
        #expect(ContinuousClock.now - shutdownAt < .seconds(5), "the dial waited for its timeout")
    }
}
