import Foundation
import HandoffClient
import HandoffControl
import HandoffCore

#if canImport(Glibc)
    import Glibc
#endif

/// Continuation stream figures as an app sees them (Benchmarks/scripts/bench-streams.sh):
///   handoff-stream-bench open SOCKET PEER ACTIVITY N        stream open latency after a continue
///   handoff-stream-bench echo SOCKET PEER ACTIVITY N        1-byte round trips app -> app
///   handoff-stream-bench send SOCKET PEER ACTIVITY BYTES [RSS-PID...]
///       one stream, BYTES from this app to the other (which discards and half-closes); prints
///       MB/s, "half" on stdout at 50 %, and the daemons' RSS growth
///   handoff-stream-bench tcp-sink PORT | tcp-send HOST PORT BYTES   the plain TCP floor
@main
struct StreamBench {
    static func main() async throws {
        var a = Array(CommandLine.arguments.dropFirst())
        switch a.isEmpty ? "" : a.removeFirst() {
        case "open":
            let app = try await App.continued(socket: a[0], peer: a[1], activity: a[2])
            var samples: [Double] = []
            for _ in 0..<Int(a[3])! {
                let start = ContinuousClock.now
                let s = try await app.client.openStream(activity: app.activity)
                samples.append(ms(ContinuousClock.now - start))
                shutdown(s.descriptor, Int32(SHUT_WR))
                drain(s.descriptor)
                _ = await s.outcome(timeout: .seconds(10))
                s.close()
            }
            report("stream open after continue (open session)", samples, unit: "ms")
        case "echo":
            let app = try await App.continued(socket: a[0], peer: a[1], activity: a[2])
            let s = try await app.client.openStream(activity: app.activity)
            var samples: [Double] = []
            var byte: UInt8 = 7
            for _ in 0..<Int(a[3])! {
                let start = ContinuousClock.now
                guard write(s.descriptor, &byte, 1) == 1, read(s.descriptor, &byte, 1) == 1 else { throw BenchError("echo ended") }
                samples.append(ms(ContinuousClock.now - start))
            }
            report("1-byte echo round trip app -> app", samples, unit: "ms")
            s.close()
        case "send":
            let app = try await App.continued(socket: a[0], peer: a[1], activity: a[2])
            try await send(app, bytes: Int(a[3])!, pids: a.dropFirst(4).compactMap { Int32($0) })
        case "tcp-sink":
            try tcpSink(port: Int(a[0])!)
        case "tcp-send":
            try tcpSend(host: a[0], port: Int(a[1])!, bytes: Int(a[2])!)
        default:
            FileHandle.standardError.write(Data("usage: handoff-stream-bench open|echo|send|tcp-sink|tcp-send ...\n".utf8))
            exit(64)
        }
    }

    static func send(_ app: App, bytes: Int, pids: [Int32]) async throws {
        let s = try await app.client.openStream(activity: app.activity)
        let base = pids.map(rss)
        let peak = Peak(count: pids.count)
        let sampling = Thread {
            while !peak.done {
                peak.note(pids.map(rss))
                usleep(20_000)
            }
        }
        sampling.start()
        let start = ContinuousClock.now
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        for i in chunk.indices { chunk[i] = UInt8(truncatingIfNeeded: i) }
        var sent = 0
        var saidHalf = false
        while sent < bytes {
            let n = min(chunk.count, bytes - sent)
            var off = 0
            while off < n {
                let w = chunk.withUnsafeBytes { write(s.descriptor, $0.baseAddress! + off, n - off) }
                if w < 0, errno == EINTR { continue }
                guard w > 0 else { throw BenchError("write: \(String(cString: strerror(errno)))") }
                off += w
            }
            sent += n
            if !saidHalf, sent >= bytes / 2 {
                saidHalf = true
                print("half")
                fflush(nil)
            }
        }
        shutdown(s.descriptor, Int32(SHUT_WR))
        // The other app half-closes once it has read everything: that is when the bytes arrived.
        drain(s.descriptor)
        let elapsed = ContinuousClock.now - start
        let outcome = await s.outcome(timeout: .seconds(30))
        peak.stop()
        s.close()
        let seconds = ms(elapsed) / 1000
        print(String(format: "stream: %ld bytes in %.3f s = %.0f MB/s (%@)", bytes, seconds, Double(bytes) / seconds / 1e6, outcome.description))
        for (i, pid) in pids.enumerated() {
            print(
                String(
                    format: "rss pid %d: %.1f MiB before, peak %.1f MiB, growth %.1f MiB", pid, Double(base[i]) / 1024, Double(peak.max[i]) / 1024,
                    Double(peak.max[i] - base[i]) / 1024))
        }
    }

    static func drain(_ fd: Int32) {
        var buf = [UInt8](repeating: 0, count: 65_536)
        while buf.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    static func tcpSink(port: Int) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        let bound = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 1) == 0 else { throw BenchError("bind \(port): errno \(errno)") }
        print("ready")
        fflush(nil)
        let c = accept(listener, nil, nil)
        drain(c)
        close(c)
    }

    static func tcpSend(host: String, port: Int, bytes: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &addr.sin_addr)
        let ok = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { throw BenchError("connect \(host):\(port): errno \(errno)") }
        let chunk = [UInt8](repeating: 7, count: 1 << 20)
        let start = ContinuousClock.now
        var sent = 0
        while sent < bytes {
            let w = chunk.withUnsafeBytes { write(fd, $0.baseAddress, min($0.count, bytes - sent)) }
            guard w > 0 else { throw BenchError("write: errno \(errno)") }
            sent += w
        }
        shutdown(fd, Int32(SHUT_WR))
        drain(fd)
        let seconds = ms(ContinuousClock.now - start) / 1000
        print(String(format: "plain TCP: %ld bytes in %.3f s = %.0f MB/s", bytes, seconds, Double(bytes) / seconds / 1e6))
    }
}

/// The continuing app: B's live handler for the activity's type, which it continued.
struct App {
    let client: HandoffClient
    let activity: UUID

    static func continued(socket: String, peer: String, activity text: String) async throws -> App {
        guard let activity = UUID(uuidString: text) else { throw BenchError("not an id: \(text)") }
        let client = try await HandoffClient.connect(socketPath: socket)
        let listed = try await client.perform(ActivitiesRequest(peer: peer))
        guard let type = listed.items.first(where: { $0.activity == activity })?.type else { throw BenchError("\(peer) does not offer \(text)") }
        _ = try await client.perform(HandleRequest(types: [type], name: "handoff-stream-bench"))
        let other = try await HandoffClient.connect(socketPath: socket)
        let answering = Task {
            for await e in client.events where e.name == "continue" {
                _ = try? await client.perform(HandledRequest(token: e.fields["token"]?.stringValue ?? "", accepted: true))
                return
            }
        }
        _ = try await other.perform(ContinueRequest(peer: peer, activity: activity, scene: nil))
        await answering.value
        await other.close()
        return App(client: client, activity: activity)
    }
}

final class Peak: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var max: [Int]
    private var stopped = false
    init(count: Int) { max = Array(repeating: 0, count: count) }
    var done: Bool { lock.withLock { stopped } }
    func stop() { lock.withLock { stopped = true } }
    func note(_ values: [Int]) { lock.withLock { for (i, v) in values.enumerated() where v > max[i] { max[i] = v } } }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15 }

/// VmRSS in KiB.
func rss(_ pid: Int32) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

func report(_ what: String, _ samples: [Double], unit: String) {
    let s = samples.sorted()
    guard !s.isEmpty else { return print("\(what): no samples") }
    func p(_ q: Double) -> Double { s[min(s.count - 1, Int(Double(s.count) * q))] }
    print(String(format: "%@: n=%ld p50=%.3f p90=%.3f p99=%.3f min=%.3f %@", what, s.count, p(0.5), p(0.9), p(0.99), s[0], unit))
}
