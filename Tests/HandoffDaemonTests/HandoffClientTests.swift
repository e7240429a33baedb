import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import Testing
@testable import HandoffDaemon

@Suite(.serialized, .timeLimit(.minutes(1))) struct HandoffClientTests {
    func server(allowed: Set<uid_t> = [geteuid(), 0]) async throws -> ControlServer {
        // A socket file of its own, removed by `stop()`: nothing left in the temporary directory.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hc-\(UUID().uuidString.prefix(8)).sock").path
        let s = ControlServer(path: path, allowedUIDs: allowed, operations: EchoOperations())
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
        #expect(tooLong?.description.contains("use a shorter --socket") == true)
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
