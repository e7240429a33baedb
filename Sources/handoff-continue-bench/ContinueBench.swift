import Foundation
import HandoffClient
import HandoffCore
import NIOCore
import NIOPosix

/// Continuation latency between two handoffd processes, measured as an app sees it: from the
/// `continue` request on an open control connection (HandoffClient) to its answer, which comes
/// after the route was applied to a scene on this machine.
///   handoff-continue-bench continue SOCKET PEER ACTIVITY N cold|open [RSS-PID...]
///   handoff-continue-bench echo PORT                 (plain TCP echo, for the round trip beside it)
///   handoff-continue-bench tcp HOST PORT N
@main
struct ContinueBench {
    static func main() async throws {
        var args = Array(CommandLine.arguments.dropFirst())
        switch args.isEmpty ? "" : args.removeFirst() {
        case "continue":
            try await continueTrials(
                socket: args[0], peer: args[1], activity: args[2], n: Int(args[3])!, cold: args[4] == "cold",
                rssPIDs: args.dropFirst(5).compactMap { Int32($0) })
        case "op":
            // The control path alone: one operation N times on an open connection.
            let client = try await HandoffClient.connect(socketPath: args[0])
            var samples: [Double] = []
            for _ in 0..<Int(args[2])! {
                let start = ContinuousClock.now
                _ = try await client.request(args[1], args.count > 3 ? ["peer": .string(args[3])] : [:])
                let e = ContinuousClock.now - start
                samples.append(Double(e.components.attoseconds) / 1e15 + Double(e.components.seconds) * 1e3)
            }
            report("op \(args[1])", samples, unit: "ms")
        case "scenes":
            try await sceneSaves(socket: args[0], n: Int(args[1])!)
        case "echo":
            try await echo(port: Int(args[0])!)
        case "tcp":
            try tcp(host: args[0], port: Int(args[1])!, n: Int(args[2])!)
        default:
            FileHandle.standardError.write(Data("usage: handoff-continue-bench continue|echo|tcp ...\n".utf8))
            exit(64)
        }
    }

    static func continueTrials(socket: String, peer: String, activity: String, n: Int, cold: Bool, rssPIDs: [Int32]) async throws {
        let client = try await HandoffClient.connect(socketPath: socket)
        let args: [String: PropertyListValue] = ["peer": .string(peer), "activity": .string(activity)]
        _ = try await client.request("continue", args)  // warm-up: code paths, scene made
        var samples: [Double] = []
        var skipped = 0
        if !rssPIDs.isEmpty { print("rss after 0: \(rss(rssPIDs))") }
        for i in 1...n {
            if cold { _ = try await client.request("disconnect", ["peer": .string(peer)]) }
            let start = ContinuousClock.now
            let result = try await client.request("continue", args)
            let elapsed = ContinuousClock.now - start
            guard result?.dictionaryValue?["outcome"]?.stringValue == "continued" else {
                throw BenchError("trial \(i): \(String(describing: result))")
            }
            // A cold trial counts only if it really opened the session.
            if cold && result?.dictionaryValue?["session"]?.stringValue != "new" {
                skipped += 1
                continue
            }
            samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
            if !rssPIDs.isEmpty && i % 4000 == 0 { print("rss after \(i): \(rss(rssPIDs))") }
        }
        await client.close()
        report(cold ? "continue, cold peer connection" : "continue, open session", samples, unit: "ms")
        if skipped > 0 { print("  (\(skipped) cold trials found a session already open and were left out)") }
    }

    /// Save latency of a 2 KB scene (acknowledged = durable): N scenes are made, then, after the
    /// one-second write window of each has passed, each gets one 2 KB update, timed.
    static func sceneSaves(socket: String, n: Int) async throws {
        let client = try await HandoffClient.connect(socketPath: socket)
        var ids: [String] = []
        for _ in 0..<n { ids.append(try await client.request("scene-connect")?.dictionaryValue?["scene"]?.stringValue ?? "") }
        try await Task.sleep(for: .milliseconds(1100))
        var samples: [Double] = []
        for (i, id) in ids.enumerated() {
            let text = String(repeating: "\(i % 10)", count: 2000)
            let start = ContinuousClock.now
            _ = try await client.request(
                "scene-update",
                [
                    "scene": .string(id), "book": "The Burning Swift",
                    "set": [["key": "notes", "value": .string(text)]]
                ])
            let e = ContinuousClock.now - start
            samples.append(Double(e.components.attoseconds) / 1e15 + Double(e.components.seconds) * 1e3)
        }
        await client.close()
        report("scene save, 2 KB, acknowledged = durable", samples, unit: "ms")
    }

    static func report(_ label: String, _ samples: [Double], unit: String) {
        let s = samples.sorted()
        func q(_ p: Double) -> Double { s[min(s.count - 1, Int((Double(s.count) * p).rounded(.down)))] }
        print(
            String(
                format: "%@: n=%d p50=%.3f %@ p99=%.3f %@ min=%.3f max=%.3f", label, s.count, q(0.5), unit, q(0.99), unit, s.first ?? 0, s.last ?? 0))
    }

    /// Resident set sizes in MiB, from /proc/PID/status.
    static func rss(_ pids: [Int32]) -> String {
        pids.map { pid in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            func field(_ name: String) -> Double {
                status.split(separator: "\n").first { $0.hasPrefix(name) }?.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first
                    .flatMap { Double($0) } ?? 0
            }
            return String(
                format: "pid %d %.1f MiB (anonymous %.1f, file-backed %.1f)", pid, field("VmRSS:") / 1024, field("RssAnon:") / 1024,
                field("RssFile:") / 1024)
        }.joined(separator: ", ")
    }

    static func echo(port: Int) async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { $0.pipeline.addHandler(Echo()) }
            .bind(host: "0.0.0.0", port: port).get()
        print("ready")
        fflush(nil)
        try await channel.closeFuture.get()
    }

    /// Blocking round trips of 1 KiB on one TCP connection, as the plain floor.
    static func tcp(host: String, port: Int, n: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &addr.sin_addr)
        let ok = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { throw BenchError("connect \(host):\(port): errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let out = [UInt8](repeating: 7, count: 1024)
        var buf = [UInt8](repeating: 0, count: 1024)
        var samples: [Double] = []
        for _ in 0..<n {
            let start = ContinuousClock.now
            _ = out.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
            var got = 0
            while got < 1024 {
                let r = buf.withUnsafeMutableBufferPointer { read(fd, $0.baseAddress! + got, 1024 - got) }
                if r <= 0 { break }
                got += r
            }
            let e = ContinuousClock.now - start
            samples.append(Double(e.components.attoseconds) / 1e15 + Double(e.components.seconds) * 1e3)
        }
        close(fd)
        report("plain TCP round trip (1 KiB)", samples, unit: "ms")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

final class Echo: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.writeAndFlush(data, promise: nil) }
}
