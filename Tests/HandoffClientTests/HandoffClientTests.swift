import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing
@testable import HandoffDaemon

@Suite(.serialized, .timeLimit(.minutes(1))) struct HandoffClientTests {
    func server(allowed: Set<uid_t> = [geteuid(), 0]) async throws -> ControlServer {
        // A socket file of its own, removed by `stop()`: nothing left in the temporary directory.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hc-\(UUID().uuidString.prefix(8)).sock").path
        let s = ControlServer(path: path, allowedUIDs: allowed, operations: AnsweringOperations())
        try await s.start()
        // Serves until the test's `stop()`.
        Task { try await s.run() }
        return s
    }

    @Test func requestsGetTheirOwnAnswers() async throws {
        let s = try await server()
        let client = try await HandoffClient.connect(socketPath: s.path)
        async let one = client.request("echo", ["value": 1])
        async let two = client.request("echo", ["value": ["a": .date(Date(timeIntervalSince1970: 3))]])
        #expect(try await one == 1)
        #expect(try await two == ["a": .date(Date(timeIntervalSince1970: 3))])
        await #expect(throws: ClientError.refused(code: "unknown-op", message: "unknown op 'fly'; see docs/CONTROL.md")) {
            try await client.request("fly")
        }
        await client.close()
        await s.stop()
    }

    @Test func largeAnswersArrive() async throws {
        let s = try await server()
        let client = try await HandoffClient.connect(socketPath: s.path)
        #expect(try await client.request("big")?.arrayValue?.count == 3000)
        #expect(try await client.request("long")?.stringValue?.count == 300 * 1024)
        #expect(try await client.request("echo", ["value": 1]) == 1)
        await client.close()
        await s.stop()
    }

    @Test func eventsArrive() async throws {
        let s = try await server()
        let client = try await HandoffClient.connect(socketPath: s.path)
        _ = try await client.request("poke")
        var it = client.events.makeAsyncIterator()
        let event = await it.next()
        #expect(event?.name == "poked" && event?.fields["by"] == .integer(Int64(geteuid())))
        await s.stop()
    }

    @Test func daemonNotRunningSaysHowToStartIt() async {
        let e = await #expect(throws: ClientError.self) { try await HandoffClient.connect(socketPath: "/nonexistent/handoffd/control.sock") }
        #expect(e == .daemonNotRunning(socket: "/nonexistent/handoffd/control.sock"))
        #expect(e?.description.contains("systemctl start handoffd") == true)
    }

    @Test func refusedUIDGetsPermissionDenied() async throws {
        let s = try await server(allowed: [4242])
        let client = try await HandoffClient.connect(socketPath: s.path)
        // Whether the request goes out before or after the refusal arrives, it reports the refusal.
        for _ in 0..<2 {
            let e = await #expect(throws: ClientError.self) { try await client.request("echo") }
            #expect(e?.code == "permission-denied")
        }
        await s.stop()
    }

    /// A daemon that took the connection and answers nothing (stopped, wedged): each request
    /// fails with `noAnswer` after its bound, the next one too, and says what to check.
    @Test func aSilentDaemonIsGivenUpOnAfterTheBound() async throws {
        let silent = try SilentSocket()
        defer { silent.close() }
        let client = try await HandoffClient.connect(socketPath: silent.path)
        for _ in 0..<2 {
            let started = ContinuousClock.now
            let e = await #expect(throws: ClientError.self) { try await client.perform(StatusRequest(), within: .milliseconds(200)) }
            #expect(e == .noAnswer(operation: "status", within: .milliseconds(200)))
            #expect(ContinuousClock.now - started >= .milliseconds(200))
        }
        await client.close()
    }

    /// The bound counts while the daemon is at the request: one sent behind a request the daemon
    /// takes longer over than the bound (a `send` waiting on the other machine) is answered.
    @Test func theBoundCountsFromTheRequestsTurn() async throws {
        let s = try await server()
        let client = try await HandoffClient.connect(socketPath: s.path)
        let before = AnsweringOperations.slowStarted.withLockedValue { $0 }
        async let slow = client.request("slow", ["ms": 700])
        let deadline = ContinuousClock.now + .seconds(5)
        while AnsweringOperations.slowStarted.withLockedValue({ $0 }) == before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(try await client.request("echo", ["value": 7], within: .milliseconds(300)) == 7)
        #expect(try await slow == "slow")
        await client.close()
        await s.stop()
    }

    /// What the daemon answers by itself is bounded; what waits on a peer, a handler or a
    /// person is bounded by the daemon.
    @Test func operationsThatWaitOnOthersAreLeftToTheDaemonsBounds() throws {
        #expect(StatusRequest().answerWithin == .seconds(30))
        #expect(ActivitiesRequest().answerWithin == .seconds(30))
        #expect(ActivitiesRequest(peer: "beta").answerWithin == .seconds(30))
        // Its peers asked side by side: as long as the slowest, 18 s at most.
        #expect(ActivitiesRequest(remote: true).answerWithin == .seconds(30))
        let id = UUID()
        let daemonBound: [any ControlOperation] = [
            SendRequest(activity: id, to: "beta"), ContinueRequest(peer: "beta", activity: id),
            try PairRequest(request: ControlRequest(id: 1, op: "pair", arguments: ["peer": "beta"])),
            try PairAcceptRequest(request: ControlRequest(id: 1, op: "pair-accept", arguments: [:])),
            PairConfirmRequest(pairing: "p", accept: true, code: "123456"),
            StreamOpenRequest(activity: id),
            SearchOpenRequest(result: "x")
        ]
        for op in daemonBound { #expect(op.answerWithin == nil, "\(type(of: op).name)") }
        #expect(ClientError.noAnswer(operation: "status", within: .milliseconds(250)).description.contains("within 0.25 s"))
        #expect(ClientError.noAnswer(operation: "status", within: .seconds(30)).code == "no-answer")
    }

    @Test func lostConnectionFailsWaitingRequests() async throws {
        let s = try await server()
        let client = try await HandoffClient.connect(socketPath: s.path)
        _ = try await client.request("echo")
        await s.stop()
        await client.close()
        await #expect(throws: ClientError.connectionLost) { try await client.request("echo") }
    }
}

/// An operation by name with its arguments as they are, answered with the raw result: what the
/// test server's `echo`, `big` and `fly` need.
struct RawOperation: ControlOperation {
    struct Result: ControlResult {
        let propertyList: PropertyListValue?
        init(propertyList: PropertyListValue?) { self.propertyList = propertyList }
    }
    // The name is per value in the tests; `name` is the type's, so each op is a type.
    static var name: String { "echo" }
    var arguments: [String: PropertyListValue]
    init(_ arguments: [String: PropertyListValue]) { self.arguments = arguments }
    init(request: ControlRequest) { arguments = request.arguments }
}

struct BigOperation: ControlOperation {
    typealias Result = RawOperation.Result
    static var name: String { "big" }
    var arguments: [String: PropertyListValue] { [:] }
    init() {}
    init(request: ControlRequest) {}
}

struct UnknownOperation: ControlOperation {
    typealias Result = RawOperation.Result
    static var name: String { "fly" }
    var arguments: [String: PropertyListValue] { [:] }
    init() {}
    init(request: ControlRequest) {}
}

/// `performOnce`: the command-line tools' blocking request on a connection of its own, against a
/// real control socket.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PerformOnceTests {
    @Test func answersRefusalsAndLargeAnswersComeBackAsFromAConnection() async throws {
        let s = try await HandoffClientTests().server()
        let value: PropertyListValue = ["a": .date(Date(timeIntervalSince1970: 3)), "b": [1, "two"]]
        #expect(try HandoffClient.performOnce(RawOperation(["value": value]), socketPath: s.path).propertyList == value)
        #expect(try HandoffClient.performOnce(BigOperation(), socketPath: s.path).propertyList?.arrayValue?.count == 3000)
        #expect(throws: ClientError.refused(code: "unknown-op", message: "unknown op 'fly'; see docs/CONTROL.md")) {
            try HandoffClient.performOnce(UnknownOperation(), socketPath: s.path)
        }
        await s.stop()
    }

    @Test func aRefusedUserAndAnAbsentDaemonSayWhatToDo() async throws {
        let s = try await HandoffClientTests().server(allowed: [4242])
        let e = #expect(throws: ClientError.self) { try HandoffClient.performOnce(RawOperation([:]), socketPath: s.path) }
        #expect(e?.code == "permission-denied")
        await s.stop()
        #expect(throws: ClientError.daemonNotRunning(socket: s.path)) { try HandoffClient.performOnce(RawOperation([:]), socketPath: s.path) }
        let long = "/tmp/" + String(repeating: "x", count: 120)
        let tooLong = #expect(throws: ClientError.self) { try HandoffClient.performOnce(RawOperation([:]), socketPath: long) }
        #expect(tooLong?.code == "socket-path" && tooLong?.description.contains("longer than the 107 bytes") == true)
    }

    /// The blocking request gives up on a silent daemon after its bound, as the async one does.
    @Test func aSilentDaemonIsGivenUpOnAfterTheBound() throws {
        let silent = try SilentSocket()
        defer { silent.close() }
        let started = ContinuousClock.now
        #expect(throws: ClientError.noAnswer(operation: "status", within: .milliseconds(200))) {
            try HandoffClient.OnceConnection(socketPath: silent.path).perform(StatusRequest(), within: .milliseconds(200))
        }
        let took = ContinuousClock.now - started
        #expect(took >= .milliseconds(200) && took < .seconds(10), "gave up after \(took)")
    }

    /// A connection opened before its operation is known (handoffctl opens it before parsing):
    /// the daemon admits it meanwhile; the operation is answered as `performOnce`'s; one
    /// operation per connection; a connection that could not be made says why when asked.
    @Test func aConnectionOpenedAheadPerformsOneOperationLater() async throws {
        let s = try await HandoffClientTests().server()
        let early = HandoffClient.OnceConnection(socketPath: s.path)
        let deadline = ContinuousClock.now + .seconds(5)
        while s.clientCount == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(s.clientCount == 1, "the daemon admitted the connection before any request was written")
        #expect(try early.perform(RawOperation(["value": "later"])).propertyList == "later")
        #expect(throws: ClientError.refused(code: "connection-used", message: "this connection has performed its operation; open another")) {
            try early.perform(RawOperation([:]))
        }
        await s.stop()
        let absent = HandoffClient.OnceConnection(socketPath: s.path)
        #expect(throws: ClientError.daemonNotRunning(socket: s.path)) { try absent.perform(RawOperation([:])) }
    }
}
