import Foundation
import HandoffLink
import Logging
import NIOCore
import NIOPosix

/// Link latency figures. Modes:
///   loopback [N]                          both ends in this process on 127.0.0.1
///   keygen DIR                            make DIR/identity.key, print the public key (hex)
///   serve DIR PORT PEERKEY                link on PORT, plain TCP echo on PORT+1, trusting PEERKEY
///   client DIR HOST PORT PEERKEY [N]      measure against a `serve`
@main
struct LinkBench {
    static func main() async throws {
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = .warning
            return h
        }
        var args = Array(CommandLine.arguments.dropFirst())
        let mode = args.isEmpty ? "loopback" : args.removeFirst()
        switch mode {
        case "loopback":
            let n = args.first.flatMap(Int.init) ?? 1000
            let server = try await Server.start(identity: IdentityKey(), peer: nil, host: "127.0.0.1", port: 0)
            let client = IdentityKey()
            server.store.pin(TrustedPeer(identity: client.identity, name: "client", pairedAt: Date()))
            try await measure(
                identity: client, serverKey: server.endpoint.identity.identity, host: "127.0.0.1",
                port: server.linkPort, echoPort: server.echoPort, n: n, label: "loopback")
        case "keygen":
            let key = try IdentityKey.loadOrCreate(in: URL(fileURLWithPath: args[0]))
            print(key.identity.publicKey.map { String(format: "%02x", $0) }.joined())
        case "serve":
            let key = try IdentityKey.loadOrCreate(in: URL(fileURLWithPath: args[0]))
            let server = try await Server.start(identity: key, peer: PeerIdentity(publicKey: hex(args[2])), host: "0.0.0.0", port: Int(args[1])!)
            FileHandle.standardOutput.write(Data("ready \(server.linkPort) \(server.echoPort)\n".utf8))
            FileHandle.standardOutput.synchronizeFile()
            while readLine() != nil {}
        case "client":
            let key = try IdentityKey.loadOrCreate(in: URL(fileURLWithPath: args[0]))
            let port = Int(args[2])!
            try await measure(
                identity: key, serverKey: PeerIdentity(publicKey: hex(args[3])), host: args[1], port: port,
                echoPort: port + 1, n: args.count > 4 ? Int(args[4])! : 1000, label: "test hosts")
        default:
            print("usage: handoff-link-bench loopback [N] | keygen DIR | serve DIR PORT PEERKEY | client DIR HOST PORT PEERKEY [N]")
            exit(2)
        }
    }

    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    static func measure(identity: IdentityKey, serverKey: PeerIdentity, host: String, port: Int, echoPort: Int, n: Int, label: String) async throws {
        let store = InMemoryTrustStore()
        store.pin(TrustedPeer(identity: serverKey, name: "server", pairedAt: Date()))
        let endpoint = LinkEndpoint(identity: identity, name: "client", trustStore: store)
        let request = [UInt8](repeating: 0x42, count: 1024)
        let clock = ContinuousClock()

        // Plain TCP round trips, 1 KiB each way.
        let plain = try await PlainEcho.connect(host: host, port: echoPort)
        var tcp: [Duration] = []
        for i in 0..<(n + 50) {
            let t = try await clock.measure { try await plain.roundTrip(request) }
            if i >= 50 { tcp.append(t) }
        }
        try await plain.close()

        // Full handshake + first 1 KiB request/response, a new connection each time.
        let handshakes = max(50, n / 5)
        var cold: [Duration] = []
        for i in 0..<(handshakes + 10) {
            var session: LinkSession?
            let t = try await clock.measure {
                let s = try await endpoint.connect(host: host, port: port, expecting: serverKey)
                let it = s.messages.makeAsyncIterator()
                try await s.send(request)
                _ = await it.next()
                session = s
            }
            await session?.close()
            if i >= 10 { cold.append(t) }
        }

        // Round trips on one established session.
        let session = try await endpoint.connect(host: host, port: port, expecting: serverKey)
        let it = session.messages.makeAsyncIterator()
        var warm: [Duration] = []
        for i in 0..<(n + 50) {
            let t = try await clock.measure {
                try await session.send(request)
                _ = await it.next()
            }
            if i >= 50 { warm.append(t) }
        }
        await session.close()

        func row(_ what: String, _ d: [Duration]) -> String {
            let us = d.map { Double($0.components.attoseconds) / 1e12 + Double($0.components.seconds) * 1e6 }.sorted()
            func q(_ p: Double) -> String { String(format: "%.1f", us[min(us.count - 1, Int(Double(us.count) * p))]) }
            return "| \(what) | \(us.count) | \(String(format: "%.1f", us[0])) | \(q(0.5)) | \(q(0.99)) |"
        }
        print("Link latency, \(label) (\(host)), microseconds")
        print("| what | n | min | p50 | p99 |")
        print("|---|---|---|---|---|")
        print(row("plain TCP round trip, 1 KiB each way", tcp))
        print(row("established session round trip, 1 KiB each way", warm))
        print(row("full handshake + first 1 KiB request/response", cold))
        let ratio = median(warm) / median(tcp)
        print(String(format: "session / plain TCP (p50): %.2f", ratio))
        await endpoint.shutdown()
    }

    static func median(_ d: [Duration]) -> Double {
        let s = d.map { Double($0.components.attoseconds) / 1e18 + Double($0.components.seconds) }.sorted()
        return s[s.count / 2]
    }
}

/// The link server plus a plain TCP echo server on the next port.
struct Server {
    let endpoint: LinkEndpoint
    let store: InMemoryTrustStore
    let linkPort: Int
    let echoPort: Int

    static func start(identity: IdentityKey, peer: PeerIdentity?, host: String, port: Int) async throws -> Server {
        let store = InMemoryTrustStore()
        if let peer { store.pin(TrustedPeer(identity: peer, name: "client", pairedAt: Date())) }
        let endpoint = LinkEndpoint(identity: identity, name: "server", trustStore: store)
        let linkPort = try await endpoint.listen(host: host, port: port)
        Task {
            await withDiscardingTaskGroup { group in
                for await session in endpoint.sessions {
                    group.addTask {
                        for await m in session.messages { try? await session.send(m) }
                    }
                }
            }
        }
        let echo = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { $0.pipeline.addHandler(EchoHandler()) }
            .bind(host: host, port: linkPort + 1).get()
        return Server(endpoint: endpoint, store: store, linkPort: linkPort, echoPort: echo.localAddress!.port!)
    }
}

final class EchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.writeAndFlush(data, promise: nil) }
}

/// A plain TCP client that sends a request and waits for as many bytes back.
final class PlainEcho: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private var waiting: (EventLoopPromise<Void>, Int)?
    private var received = 0
    private var channel: Channel!

    static func connect(host: String, port: Int) async throws -> PlainEcho {
        let h = PlainEcho()
        h.channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { $0.pipeline.addHandler(h) }
            .connect(host: host, port: port).get()
        return h
    }

    func roundTrip(_ bytes: [UInt8]) async throws {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        try await channel.eventLoop.submit {
            self.received = 0
            self.waiting = (promise, bytes.count)
            self.channel.writeAndFlush(self.channel.allocator.buffer(bytes: bytes), promise: nil)
        }.get()
        try await promise.futureResult.get()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        if let (p, n) = waiting, received >= n {
            waiting = nil
            p.succeed()
        }
    }

    func close() async throws { try await channel.close() }
}
