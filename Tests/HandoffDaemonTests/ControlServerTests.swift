import Foundation
import HandoffControl
import HandoffCore
import HandoffTestSupport
import NIOConcurrencyHelpers
import Testing
@testable import HandoffDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// Echoes `echo` requests, sends an event for `poke`, refuses everything else as unknown.
struct EchoOperations: ControlOperations {
    static let floods = NIOLockedValueBox(0)
    func perform(_ request: ControlRequest, from client: ControlClient, after turn: ControlTurn) async -> Result<PropertyListValue?, ControlError> {
        switch request.op {
        case "echo": return .success(request.arguments["value"])
        // Answers far larger than any request may be: a long list, and one line of 300 KiB.
        case "big": return .success(.array((0..<3000).map { ["n": .integer(Int64($0)), "s": "x"] }))
        case "long": return .success(.string(String(repeating: "y", count: 300 * 1024)))
        case "poke":
            client.send(event: "poked", ["by": .integer(Int64(client.uid))])
            return .success(nil)
        // 4 MiB of events, far past what a client may leave unread.
        case "flood":
            for i in 0..<4096 { client.send(event: "flooded", ["i": .integer(Int64(i)), "pad": .string(String(repeating: "p", count: 1000))]) }
            EchoOperations.floods.withLockedValue { $0 += 1 }
            return .success(nil)
        default: return .failure(.unknownOp(request.op))
        }
    }
    func disconnected(_ client: ControlClient) async {}
    func connectionClosing(_ client: ControlClient) {}
}

/// A Unix-socket client with a receive timeout, reading JSON lines. Its blocking reads run on a
/// Dispatch thread: blocking a Swift concurrency thread could starve the server under test (the
/// pool has one thread per core, and other suites block theirs too).
final class LineClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String, timeout: Int = 5) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            let bytes = Array(path.utf8)
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next line as a JSON object; nil on timeout or close.
    func readJSON() async -> [String: Any]? {
        await offPool { self.readJSONBlocking() }
    }

    func isClosedByServer() async -> Bool { await offPool { self.isClosedByServerBlocking() } }

    private func offPool<T>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { c in DispatchQueue.global().async { c.resume(returning: body()) } }
    }

    private func readJSONBlocking() -> [String: Any]? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                return (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// True once the server has closed the connection: end of stream, or a reset (Linux resets
    /// instead of closing when the server leaves our unread request in its buffer).
    private func isClosedByServerBlocking() -> Bool {
        var b: UInt8 = 0
        let n = recv(fd, &b, 1, 0)
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }
}

func errorCode(_ line: [String: Any]?) -> String? { (line?["error"] as? [String: Any])?["code"] as? String }

@Suite(.serialized, .timeLimit(.minutes(1))) struct ControlServerTests {
    func server(allowed: Set<uid_t> = [geteuid(), 0], maxClients: Int = 32, maxLine: Int = 1024) async throws -> ControlServer {
        // A socket file of its own in the temporary directory, removed by `stop()`: nothing left behind.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hc-\(UUID().uuidString.prefix(8)).sock").path
        let s = ControlServer(
            path: path, allowedUIDs: allowed, maxClients: maxClients,
            maxLine: maxLine, operations: EchoOperations())
        try await s.start()
        // Serves until the test's `stop()`.
        Task { try await s.run() }
        return s
    }

    @Test func answersInOrderAndSurvivesBadRequests() async throws {
        let s = try await server()
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        c.send(
            "{\"id\":1,\"op\":\"echo\",\"value\":{\"$date\":\"2026-11-21T20:00:00.000Z\"}}\n{nope\n{\"id\":2,\"op\":\"fly\"}\n\n{\"id\":3,\"op\":\"echo\",\"value\":[1,2]}\n"
        )
        let first = await c.readJSON()
        #expect(first?["id"] as? Int == 1 && first?["ok"] as? Bool == true)
        #expect((first?["result"] as? [String: Any])?["$date"] as? String == "2026-11-21T20:00:00.000Z")
        #expect(errorCode(await c.readJSON()) == "not-json")
        let unknown = await c.readJSON()
        #expect(errorCode(unknown) == "unknown-op" && unknown?["id"] as? Int == 2)
        #expect(await c.readJSON()?["id"] as? Int == 3)
        await s.stop()
    }

    @Test func overlongLineIsRefusedAndTheNextIsServed() async throws {
        let s = try await server(maxLine: 64)
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        c.send("{\"op\":\"echo\",\"value\":\"" + String(repeating: "x", count: 500) + "\"}\n{\"id\":9,\"op\":\"echo\"}\n")
        #expect(errorCode(await c.readJSON()) == "line-too-long")
        #expect(await c.readJSON()?["id"] as? Int == 9)
        await s.stop()
    }

    @Test func eventsReachTheClient() async throws {
        let s = try await server()
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        c.send("{\"id\":1,\"op\":\"poke\"}\n")
        let one = await c.readJSON(), two = await c.readJSON()
        let lines = [one, two].compactMap { $0 }
        #expect(lines.contains { $0["event"] as? String == "poked" && $0["by"] as? Int == Int(geteuid()) })
        #expect(lines.contains { $0["id"] as? Int == 1 })
        await s.stop()
    }

    @Test func otherUIDsAreRefused() async throws {
        // Serve only uid 4242: this (root) client must be turned away after SO_PEERCRED.
        let s = try await server(allowed: [4242])
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        c.send("{\"op\":\"echo\"}\n")
        let line = await c.readJSON()
        #expect(errorCode(line) == "permission-denied")
        #expect(
            (line?["error"] as? [String: Any])?["message"] as? String == "uid \(geteuid()) may not control handoffd; run as uid \(geteuid()) or root")
        #expect(await c.isClosedByServer())
        await s.stop()
    }

    @Test func clientCountIsBounded() async throws {
        let s = try await server(maxClients: 2)
        defer { unlink(s.path) }  // also when the test fails before stop()
        let a = try LineClient(path: s.path), b = try LineClient(path: s.path)
        a.send("{\"id\":1,\"op\":\"echo\"}\n")
        b.send("{\"id\":1,\"op\":\"echo\"}\n")
        let fromA = await a.readJSON(), fromB = await b.readJSON()
        #expect(fromA?["ok"] as? Bool == true && fromB?["ok"] as? Bool == true)
        let c = try LineClient(path: s.path)
        #expect(errorCode(await c.readJSON()) == "too-many-clients")
        #expect(await c.isClosedByServer())
        // a and b must hold their connections until here (ARC could close them after last use).
        withExtendedLifetime((a, b)) {}
        await s.stop()
    }

    @Test func socketIsPrivateAndAStaleOneIsReplaced() async throws {
        let s = try await server()
        defer { unlink(s.path) }  // also when the test fails before stop()
        var st = stat()
        #expect(stat(s.path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        await s.stop()
        #expect(FileManager.default.createFile(atPath: s.path, contents: Data("stale".utf8)))
        let again = ControlServer(path: s.path, operations: EchoOperations())
        try await again.start()
        Task { try await again.run() }
        let c = try LineClient(path: s.path)
        c.send("{\"id\":5,\"op\":\"echo\"}\n")
        #expect(await c.readJSON()?["id"] as? Int == 5)
        await again.stop()
    }

    /// Events for a client that does not read piled up without bound.
    @Test func aClientThatDoesNotReadItsEventsIsDropped() async throws {
        let s = try await server()
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        let before = EchoOperations.floods.withLockedValue { $0 }
        c.send("{\"id\":1,\"op\":\"flood\"}\n")
        _ = try await waitUntil("the server sent its flood", timeout: 10) { EchoOperations.floods.withLockedValue { $0 } > before }
        // Read only now: what arrives is bounded, ends with the reason, then the connection closes.
        var events = 0
        var last: [String: Any]?
        while let line = await c.readJSON() {
            if line["event"] as? String == "flooded" { events += 1 }
            last = line
            if line["event"] as? String == "dropped" { break }
        }
        #expect(last?["event"] as? String == "dropped")
        #expect((last?["reason"] as? String)?.contains("unread") == true)
        #expect(events < 4096)
        #expect(await c.isClosedByServer())
        await s.stop()
    }

    /// Requests from a client that does not read its answers were buffered
    /// without bound; now the server stops reading from it.
    @Test func aClientThatDoesNotReadItsAnswersIsNotBuffered() async throws {
        let s = try await server(maxLine: 1 << 20)
        defer { unlink(s.path) }  // also when the test fails before stop()
        let c = try LineClient(path: s.path)
        _ = try await waitUntil("admitted", timeout: 5) { s.clientCount == 1 }
        // 4,000 requests of 1 KiB for 300 KiB answers each (1.2 GB if all were answered and held).
        let one = "{\"op\":\"long\",\"pad\":\"" + String(repeating: "p", count: 1000) + "\"}\n"
        var sent = 0
        var flags = fcntl(c.fd, F_GETFL)
        flags |= O_NONBLOCK
        _ = fcntl(c.fd, F_SETFL, flags)
        let bytes = Array(String(repeating: one, count: 4_000).utf8)
        let deadline = ContinuousClock.now + .seconds(3)
        while sent < bytes.count, ContinuousClock.now < deadline {
            let n = bytes[sent...].withUnsafeBufferPointer { Glibc.send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n } else { try await Task.sleep(for: .milliseconds(20)) }
        }
        // The server stopped taking requests long before all were sent.
        #expect(sent < bytes.count)
        #expect(s.clientCount == 1)
        await s.stop()
    }
}
