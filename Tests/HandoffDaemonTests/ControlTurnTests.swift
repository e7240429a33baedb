import Foundation
import HandoffControl
import HandoffCore
import HandoffTestSupport
import NIOConcurrencyHelpers
import Testing
@testable import HandoffDaemon

/// `fetch N` overlaps, as a continue does: it notes "fetching N", waits until the test opens its
/// gate (the other machine answering), then for its turn, and notes "fetched N". `set N` notes
/// "set N", as any request that changes something here; `save N` does too, once the test opens
/// its gate (a scene-update waiting for its write). `answer N` takes effect at once, as a
/// refresh (the answer to a question handoffd asked) does: it notes "answered N".
final class OrderedOperations: ControlOperations {
    private let log = NIOLockedValueBox<[String]>([])
    private let gates = NIOLockedValueBox<[Int64: ControlTurn]>([:])

    var noted: [String] { log.withLockedValue { $0 } }
    func gate(_ n: Int64) -> ControlTurn {
        gates.withLockedValue { g in
            if let t = g[n] { return t }
            let t = ControlTurn()
            g[n] = t
            return t
        }
    }
    private func note(_ s: String) { log.withLockedValue { $0.append(s) } }

    func place(of request: ControlRequest) -> ControlPlace {
        switch request.op {
        case "fetch": .overlapping
        case "answer": .atOnce
        default: .inTurn
        }
    }

    func perform(_ request: ControlRequest, from client: ControlClient, after turn: ControlTurn) async -> Result<PropertyListValue?, ControlError> {
        let n = request.arguments["n"]?.integerValue ?? 0
        switch request.op {
        case "fetch":
            note("fetching \(n)")
            await gate(n).wait()
            await turn.wait()
            note("fetched \(n)")
        case "set": note("set \(n)")
        case "save":
            note("saving \(n)")
            await gate(n).wait()
            note("saved \(n)")
        case "answer": note("answered \(n)")
        default: return .failure(.unknownOp(request.op))
        }
        return .success(.integer(n))
    }
    func disconnected(_ client: ControlClient) async {}
    func connectionClosing(_ client: ControlClient) {}
}

/// A client's continues wait for the other machine side by side, yet a
/// client's requests still take effect and are answered in the order sent (docs/CONTROL.md).
@Suite(.serialized, .timeLimit(.minutes(1))) struct ControlTurnTests {
    func server(_ operations: OrderedOperations) async throws -> ControlServer {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hc-\(UUID().uuidString.prefix(8)).sock").path
        let s = ControlServer(path: path, operations: operations)
        try await s.start()
        Task { try await s.run() }
        return s
    }

    func line(_ op: String, _ n: Int) -> String { "{\"id\":\(n),\"op\":\"\(op)\",\"n\":\(n)}\n" }

    /// The ids of the next `count` answers, in the order they came.
    func answerIDs(_ c: LineClient, _ count: Int) async throws -> [Int] {
        var ids: [Int] = []
        for _ in 0..<count { ids.append(try #require(await c.readJSON())["id"] as? Int ?? -1) }
        return ids
    }

    @Test func continuesWaitSideBySideButTakeEffectAndAnswerInOrder() async throws {
        let ops = OrderedOperations()
        let s = try await server(ops)
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        c.send(line("fetch", 1) + line("fetch", 2) + line("set", 3) + line("fetch", 4))
        // Both fetches wait for the network at once: neither gate is open yet.
        try await waitUntil("fetches 1 and 2 under way together", timeout: 5) {
            Set(ops.noted) == ["fetching 1", "fetching 2"]
        }
        // The second answers first; it still takes effect after the first, and the request after
        // them (not a fetch) only then; the fetch after that starts only once it has ended.
        ops.gate(2).end()
        ops.gate(4).end()
        ops.gate(1).end()
        let ids = try await answerIDs(c, 4)
        #expect(ids == [1, 2, 3, 4])
        #expect(Array(ops.noted.dropFirst(2)) == ["fetched 1", "fetched 2", "set 3", "fetching 4", "fetched 4"])
        await s.stop()
    }

    @Test func aClientRunsAtMostSixteenRequestsAtOnce() async throws {
        let ops = OrderedOperations()
        let s = try await server(ops)
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        c.send((1...40).map { line("fetch", $0) }.joined())
        try await waitUntil("16 fetches under way", timeout: 5) { ops.noted.count == ControlServer.maxRunning }
        // The first one ends; one more starts, and no other: the second has not ended.
        ops.gate(1).end()
        try await waitUntil("fetch 17 under way", timeout: 5) { ops.noted.contains("fetching 17") }
        #expect(ops.noted.filter { $0.hasPrefix("fetching") }.count == ControlServer.maxRunning + 1)
        for n in 2...40 { ops.gate(Int64(n)).end() }
        let ids = try await answerIDs(c, 40)
        #expect(ids == Array(1...40))
        await s.stop()
    }

    /// An app's answer to a needsSave question, sent on the connection where a scene save still
    /// waits for its write, reaches its asker at once (its budget is 500 ms), and is still
    /// answered in its place; what follows it waits as before.
    @Test func anAnswerTakesEffectBehindASaveAndIsAnsweredInItsPlace() async throws {
        let ops = OrderedOperations()
        let s = try await server(ops)
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        c.send(line("save", 1) + line("answer", 2) + line("set", 3) + line("fetch", 4))
        // The answer may even take effect before the save has started: it is taken when read.
        try await waitUntil("the answer taken while the save waits", timeout: 5) { Set(ops.noted) == ["saving 1", "answered 2"] }
        ops.gate(4).end()
        ops.gate(1).end()
        let ids = try await answerIDs(c, 4)
        #expect(ids == [1, 2, 3, 4])
        #expect(Array(ops.noted.dropFirst(2)) == ["saved 1", "set 3", "fetching 4", "fetched 4"])
        await s.stop()
    }

    /// A bad line behind a save is answered in its place too, and does not hold up an answer.
    @Test func aBadLineIsAnsweredInItsPlace() async throws {
        let ops = OrderedOperations()
        let s = try await server(ops)
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        c.send(line("save", 1) + "not json\n" + "\n" + line("answer", 3))
        try await waitUntil("the answer taken while the save waits", timeout: 5) { Set(ops.noted) == ["saving 1", "answered 3"] }
        ops.gate(1).end()
        let first = try #require(await c.readJSON()), second = try #require(await c.readJSON()), third = try #require(await c.readJSON())
        #expect(first["id"] as? Int == 1)
        #expect(second["ok"] as? Bool == false)
        #expect(third["id"] as? Int == 3)
        await s.stop()
    }
}
