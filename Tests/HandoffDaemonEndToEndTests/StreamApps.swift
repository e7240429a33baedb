import Crypto
import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The two apps of a continuation with streams, as the tests drive them through HandoffClient:
/// the origin published an activity that supports streams on A; the continuer, B's live handler
/// for its type, continued it.
struct StreamApps {
    let origin: HandoffClient
    let continuer: HandoffClient
    let activity: UUID
    static let type = "org.example.stream"
    static let config = DaemonHost.hawkNotesTypes + "  - type: \(type)\n  - type: org.handoffd.file\n    required_keys: [name, size]\n"

    static func continued(_ a: DaemonHost, _ b: DaemonHost) async throws -> StreamApps {
        let origin = try await HandoffClient.connect(socketPath: a.socket)
        var activity = UserActivity(type: try ActivityType(type), title: "a stream")
        activity.supportsContinuationStreams = true
        _ = try await origin.perform(PublishRequest(activity: activity))
        let continuer = try await HandoffClient.connect(socketPath: b.socket)
        _ = try await continuer.perform(HandleRequest(types: [type], name: "stream test"))
        let id = activity.id.uuidString
        try await waitUntil("beta lists the activity", timeout: 10) {
            try await b.request("activities", ["peer": "alpha"])?.arrayValue?.contains { $0["activity"] == id } == true
        }
        let answering = Task {
            for await e in continuer.events where e.name == "continue" {
                _ = try? await continuer.perform(HandledRequest(token: e.fields["token"]?.stringValue ?? "", accepted: true))
                return
            }
        }
        let continued = try b.ctl(["continue", "alpha", id, "--json"])
        await answering.value
        guard continued.status == 0, jsonField(continued.output, "outcome") == "continued" else {
            throw TimedOut(what: "the continuation: \(continued.output)")
        }
        return StreamApps(origin: origin, continuer: continuer, activity: activity.id)
    }

    /// B asks for a stream, A's app accepts it: both ends.
    func open() async throws -> (atB: HandoffStream, atA: HandoffStream) {
        let origin = self.origin
        async let accepted: HandoffStream = {
            for await e in origin.events where e.name == "streamRequested" {
                return try await origin.acceptStream(e.fields["stream"]?.stringValue ?? "")
            }
            throw TimedOut(what: "streamRequested")
        }()
        let atB = try await continuer.openStream(activity: activity)
        return (atB, try await accepted)
    }

    func close() async {
        await origin.close()
        await continuer.close()
    }
}

/// Blocking I/O on a thread of its own, for the tests' apps.
enum Blocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            Thread { done.resume(returning: body()) }.start()
        }
    }

    /// Writes `count` bytes of a fixed pattern (seeded), `progress` told of each chunk; returns
    /// what was written and its SHA-256. `pause` is asked before each chunk and may hold it.
    static func write(
        _ fd: Int32, count: Int, seed: UInt8 = 7, halfClose: Bool = true, pause: @escaping @Sendable (Int) -> Void = { _ in },
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async -> (bytes: Int, sha: String) {
        await run {
            var hash = SHA256()
            var chunk = [UInt8](repeating: 0, count: 1 << 18)
            for i in chunk.indices { chunk[i] = UInt8(truncatingIfNeeded: i &* 131 &+ Int(seed)) }
            var total = 0
            while total < count {
                pause(total)
                let n = min(chunk.count, count - total)
                var off = 0
                while off < n {
                    let w = chunk.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, n - off) }
                    if w < 0, errno == EINTR { continue }
                    guard w > 0 else { return (total + off, "write failed: \(String(cString: strerror(errno)))") }
                    off += w
                }
                hash.update(data: chunk[..<n])
                total += n
                progress(total)
            }
            if halfClose { shutdown(fd, Int32(SHUT_WR)) }
            return (total, hash.finalize().map { String(format: "%02x", $0) }.joined())
        }
    }

    /// Reads to the end; returns the bytes read and their SHA-256 (or the error).
    static func read(_ fd: Int32) async -> (bytes: Int, sha: String) {
        await run {
            var hash = SHA256()
            var buffer = [UInt8](repeating: 0, count: 1 << 18)
            var total = 0
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n < 0 { return (total, "read failed: \(String(cString: strerror(errno)))") }
                if n == 0 { break }
                hash.update(data: buffer[..<n])
                total += n
            }
            return (total, hash.finalize().map { String(format: "%02x", $0) }.joined())
        }
    }

    /// Echoes everything back, then half-closes.
    static func echo(_ fd: Int32) async -> Int {
        await run {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var total = 0
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                var off = 0
                while off < n {
                    let w = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, n - off) }
                    if w <= 0 { return total }
                    off += w
                }
                total += n
            }
            shutdown(fd, Int32(SHUT_WR))
            return total
        }
    }

    /// A daemon's resident set, in KiB (from /proc).
    static func rss(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
}
