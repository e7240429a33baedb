import Foundation
import HandoffCore
import HandoffLink
import HandoffProtocol
import HandoffTestSupport
import Logging
import NIOConcurrencyHelpers
import Testing
@testable import HandoffDaemon

/// One machine's link endpoint on loopback with an in-memory trust store.
struct LoopNode {
    let endpoint: LinkEndpoint
    let store: InMemoryTrustStore
    let port: Int

    static func start(_ name: String) async throws -> LoopNode {
        let store = InMemoryTrustStore()
        let endpoint = LinkEndpoint(identity: IdentityKey(), name: name, trustStore: store)
        return LoopNode(endpoint: endpoint, store: store, port: try await endpoint.listen(host: "127.0.0.1", port: 0))
    }

    var identity: PeerIdentity { endpoint.identity.identity }

    func pin(_ other: LoopNode) {
        store.pin(TrustedPeer(identity: other.identity, name: other.endpoint.name, pairedAt: Date()))
        other.store.pin(TrustedPeer(identity: identity, name: endpoint.name, pairedAt: Date()))
    }

    func nextSession() async -> LinkSession? {
        for await s in endpoint.sessions { return s }
        return nil
    }
}

/// A paired peer answering requests sent to another, and messages that
/// do not fit a frame closing the whole session.
@Suite(.serialized, .timeLimit(.minutes(1))) struct HostilePeerTests {
    @Test func onlyTheAskedSessionMayAnswer() async throws {
        let a = try await LoopNode.start("A"), b = try await LoopNode.start("B"), c = try await LoopNode.start("C")
        a.pin(b)
        a.pin(c)
        let links = PeerLinks(endpoint: a.endpoint, logger: Logger(label: "test"))
        let reading = Task { await links.run() }
        defer { reading.cancel() }
        await links.setServer { message, _ in
            if case .ping(let id) = message { return .pong(id: id) }
            return nil
        }
        // A asks B; B notes the id and does not answer yet.
        async let incomingAtB = b.nextSession()
        let answered = NIOLockedValueBox<PeerMessage?>(nil)
        let request = Task {
            let reply = try await links.request({ .ping(id: $0) }, to: b.identity, host: "127.0.0.1", port: b.port, timeout: .seconds(20))
            answered.withLockedValue { $0 = reply }
            return reply
        }
        let atB = try #require(await incomingAtB)
        let iterator = atB.messages.makeAsyncIterator()
        guard case .ping(let id)? = try await iterator.next().map({ try PeerMessage(decoding: $0) }) else {
            Issue.record("B did not get a ping")
            return
        }
        // C, also paired with A, answers in B's place with the right id.
        async let incomingAtA = a.nextSession()
        let fromC = try await c.endpoint.connect(host: "127.0.0.1", port: a.port, expecting: a.identity)
        await links.adopt(try #require(await incomingAtA))
        try await fromC.send(PeerMessage.pong(id: id).encoded())
        // A reads C's messages in order: once it answered C's own ping, it has seen the forged pong.
        try await fromC.send(PeerMessage.ping(id: 77).encoded())
        let fromCMessages = fromC.messages.makeAsyncIterator()
        while let bytes = await fromCMessages.next() {
            if case .pong(77) = try PeerMessage(decoding: bytes) { break }
        }
        #expect(answered.withLockedValue { $0 } == nil)
        // B's own answer is the one taken.
        try await atB.send(PeerMessage.pong(id: id).encoded())
        #expect(try await request.value == .pong(id: id))
    }

    @Test func requestIdsAreRandom() async throws {
        let a = try await LoopNode.start("A"), b = try await LoopNode.start("B")
        a.pin(b)
        let links = PeerLinks(endpoint: a.endpoint, logger: Logger(label: "test"))
        let reading = Task { await links.run() }
        defer { reading.cancel() }
        async let incomingAtB = b.nextSession()
        let requests = Task {
            for _ in 0..<3 { _ = try? await links.request({ .ping(id: $0) }, to: b.identity, host: "127.0.0.1", port: b.port, timeout: .seconds(20)) }
        }
        let atB = try #require(await incomingAtB)
        var ids: [Int64] = []
        for await bytes in atB.messages {
            guard case .ping(let id) = try PeerMessage(decoding: bytes) else { continue }
            ids.append(id)
            try await atB.send(PeerMessage.pong(id: id).encoded())
            if ids.count == 3 { break }
        }
        await requests.value
        #expect(ids[1] != ids[0] &+ 1 && ids[2] != ids[1] &+ 1)
    }

    @Test func anOversizedSendFailsThatSendOnly() async throws {
        let a = try await LoopNode.start("A"), b = try await LoopNode.start("B")
        a.pin(b)
        async let incoming = b.nextSession()
        let s = try await a.endpoint.connect(host: "127.0.0.1", port: b.port, expecting: b.identity)
        let atB = try #require(await incoming)
        await #expect(throws: LinkError.messageTooLarge(size: 70_000, limit: s.maxMessage)) { try await s.send(Array(repeating: 1, count: 70_000)) }
        try await s.send(Array(repeating: 2, count: s.maxMessage))
        let it = atB.messages.makeAsyncIterator()
        #expect(await it.next()?.count == s.maxMessage)
        #expect(s.channel.isActive)
    }

    @Test func aReplyThatDoesNotFitBecomesAnErrorReply() async throws {
        let a = try await LoopNode.start("A"), b = try await LoopNode.start("B")
        a.pin(b)
        let linksA = PeerLinks(endpoint: a.endpoint, logger: Logger(label: "test"))
        let readingA = Task { await linksA.run() }
        defer { readingA.cancel() }
        let linksB = PeerLinks(endpoint: b.endpoint, logger: Logger(label: "test"))
        let readingB = Task { await linksB.run() }
        defer { readingB.cancel() }
        await linksB.setServer { message, _ in
            // Titles not cut (built directly): 4 x 17 KB, past a frame.
            let long = String(repeating: "t", count: 17_000)
            return .activities(
                id: message.requestID ?? 0,
                items: (0..<4).map { _ in
                    ActivitySummary(activityID: UUID(), type: "a.b", title: long, scene: nil, version: 1)
                })
        }
        let pump = Task { for await s in b.endpoint.sessions { await linksB.adopt(s) } }
        defer { pump.cancel() }
        let started = ContinuousClock.now
        await #expect(throws: PeerRequestError.self) {
            _ = try await linksA.request({ .list(id: $0) }, to: b.identity, host: "127.0.0.1", port: b.port, timeout: .seconds(20))
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        do {
            _ = try await linksA.request({ .list(id: $0) }, to: b.identity, host: "127.0.0.1", port: b.port, timeout: .seconds(20))
        } catch {
            #expect(error.code == "reply-too-large")
        }
        // The session survived both.
        #expect(await linksA.connectedPeerIDs.contains(b.identity.id))
    }

    @Test func listsAndActivitiesAtTheLimitsFitAFrame() throws {
        let frame = LinkSession.maxMessage(frame: 65_535)
        // Four current activities with 17 KB titles: their summaries are cut.
        let summaries = (0..<CurrentActivities.maxCurrent).map { _ in
            ActivitySummary(
                UserActivity(type: try! ActivityType("org.hawknotes.draftNote"), title: String(repeating: "é", count: 8_500)), scene: UUID())
        }
        #expect(try PeerMessage.changed(items: summaries).encoded().count <= frame)
        #expect(summaries.allSatisfy { ($0.title?.utf8.count ?? 0) <= ActivitySummary.maxTitleBytes })
        // The largest activity that may be published, in the message that carries it.
        var a = UserActivity(type: try ActivityType("org.hawknotes.draftNote"))
        let base = try a.measureSize().bytes
        try a.addUserInfoEntries(["blob": .data(Data(count: ActivitySizePolicy.defaultHardLimit - base - 16))])
        var size = try a.measureSize().bytes
        while size < ActivitySizePolicy.defaultHardLimit {
            try a.addUserInfoEntries([
                "blob": .data(Data(count: (a.userInfo["blob"]?.dataValue?.count ?? 0) + ActivitySizePolicy.defaultHardLimit - size))
            ])
            size = try a.measureSize().bytes
        }
        #expect(size == ActivitySizePolicy.defaultHardLimit)
        #expect(try PeerMessage.activity(id: .max, activity: a).encoded().count <= frame)
        #expect(try PeerMessage.push(id: .min, activity: a).encoded().count <= frame)
        // The most values an activity may hold, in a message (4,097 values failed to encode).
        var many = UserActivity(type: try ActivityType("org.hawknotes.draftNote"))
        let fixed = try BoundedDecoder(limits: CodecLimits(maxValues: 1 << 20)).decode(many.encoded()).count
        try many.addUserInfoEntries(["list": .array(Array(repeating: .integer(1), count: CodecLimits.default.maxValues - fixed - 1))])
        _ = try many.encoded()
        let message = try PeerMessage.activity(id: 9, activity: many).encoded()
        #expect(try PeerMessage(decoding: message) == .activity(id: 9, activity: many))
    }
}

private extension PropertyListValue {
    /// Number of values, containers included.
    var count: Int {
        switch self {
        case .array(let a): 1 + a.reduce(0) { $0 + $1.count }
        case .dictionary(let d): 1 + d.values.reduce(0) { $0 + $1.count }
        default: 1
        }
    }
}
