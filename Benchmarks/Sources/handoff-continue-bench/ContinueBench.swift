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
///   handoff-continue-bench listing SOCKET-A SOCKET-B A-AS-SEEN-BY-B B-AS-SEEN-BY-A N open|advert
///     from `publish` on A to the activity listed by `activities --peer` on B, with a session open
///     (the `changed` push) or without one (the advert's TXT, then the link); beside it, in
///     advert mode, when B's handoffd saw the TXT change (the Avahi floor); and `activities
///     --peer` answered from what B holds.
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
        case "throughput":
            try await ThroughputBench.continues(
                socket: args[0], peer: args[1], activity: args[2], seconds: Double(args[3])!, inFlight: Int(args[4])!)
        case "control":
            try await ThroughputBench.control(socket: args[0], clients: Int(args[1])!, seconds: Double(args[2])!, inFlight: Int(args[3])!)
        case "scenes":
            try await sceneSaves(socket: args[0], n: Int(args[1])!)
        case "listing":
            try await listingTrials(
                socketA: args[0], socketB: args[1], peerOnB: args[2], peerOnA: args[3], n: Int(args[4])!, viaAdvert: args[5] == "advert")
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

    static func millis(_ d: Duration) -> Double { Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1e3 }

    static func listingTrials(socketA: String, socketB: String, peerOnB: String, peerOnA: String, n: Int, viaAdvert: Bool) async throws {
        let a = try await HandoffClient.connect(socketPath: socketA)
        let b = try await HandoffClient.connect(socketPath: socketB)
        let watcher = try await HandoffClient.connect(socketPath: socketB)
        _ = try await watcher.request("watch")
        // The first book of Hawk Notes' library (config/library.json): its content is the app's.
        let book: PropertyListValue = "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"
        let scene = PropertyListValue.string(UUID().canonicalString)
        func listed(_ id: String) async throws -> Bool {
            try await b.request("activities", ["peer": .string(peerOnB)])?.arrayValue?.contains { $0.dictionaryValue?["activity"]?.stringValue == id }
                ?? false
        }
        var listing: [Double] = [], floor: [Double] = [], cached: [Double] = []
        // When B's handoffd reported A's TXT changed (peerChanged), as it happens.
        let txtSeen = Instants()
        let reader = Task {
            // By any name: A's advert can be renamed under us ("alpha #2") when Avahi sees a conflict.
            for await e in watcher.events where e.name == "peerChanged" || e.name == "peerAppeared" {
                if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil { print("  event \(e.name) \(e.fields["peer"]?.stringValue ?? "")") }
                txtSeen.add(.now)
            }
        }
        for i in 0...n {
            if viaAdvert {
                // No session: the TXT is the only way B can learn of the activity.
                _ = try await b.request("disconnect", ["peer": .string(peerOnB)])
                _ = try await a.request("disconnect", ["peer": .string(peerOnA)])
            }
            let activity = UserActivity(type: try ActivityType("org.hawknotes.bookDetail"), title: "Bench \(i)")
            var plist = activity.propertyList
            if case .dictionary(var d) = plist {
                d["userInfo"] = ["bookID": book]
                plist = .dictionary(d)
            }
            let id = activity.id.canonicalString
            let start = ContinuousClock.now
            _ = try await a.request("publish", ["activity": plist, "scene": scene])
            while try await !listed(id) {
                if ContinuousClock.now - start > .seconds(10) { throw BenchError("trial \(i): not listed on B within 10 s") }
            }
            let elapsed = ContinuousClock.now - start
            guard i > 0 else { continue }  // the first trial warms up
            listing.append(millis(elapsed))
            if viaAdvert {
                // The TXT event of this trial (it may come after the listing, over the link, was done).
                let deadline = ContinuousClock.now + .seconds(5)
                while txtSeen.first(after: start) == nil && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
                let seen = txtSeen.first(after: start)
                if let seen { floor.append(millis(seen - start)) }
                if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil {
                    print("trial \(i): listed \(millis(elapsed)) ms, TXT seen \(seen.map { "\(millis($0 - start)) ms" } ?? "never")")
                }
            }
            // From what B holds now (the listing just made it current).
            let t = ContinuousClock.now
            _ = try await listed(id)
            cached.append(millis(ContinuousClock.now - t))
        }
        reader.cancel()
        if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil {
            do {
                _ = try await watcher.request("status")
                print("watcher still connected")
            } catch { print("watcher: \(error)") }
        }
        await a.close()
        await b.close()
        await watcher.close()
        report(
            viaAdvert ? "publish on A -> listed on B, no session (TXT, then the link)" : "publish on A -> listed on B, open session", listing,
            unit: "ms")
        if viaAdvert && !floor.isEmpty {
            report("publish on A -> B's handoffd saw the TXT change (Avahi floor)", floor, unit: "ms")
            let l = listing.sorted(), f = floor.sorted()
            print(String(format: "listed / TXT floor at p50: %.2f", l[l.count / 2] / f[f.count / 2]))
        }
        report("activities --peer answered from what B holds", cached, unit: "ms")
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
                    "scene": .string(id), "content": "b|E34747BE-30DC-4DD8-B191-BC6C56B9B9A3",
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

/// Instants recorded by one task and read by another.
final class Instants: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [ContinuousClock.Instant] = []
    func add(_ t: ContinuousClock.Instant) { lock.withLock { seen.append(t) } }
    func first(after t: ContinuousClock.Instant) -> ContinuousClock.Instant? { lock.withLock { seen.first { $0 > t } } }
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
