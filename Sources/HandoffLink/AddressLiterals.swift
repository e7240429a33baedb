import NIOCore
import NIOPosix

// An IP address given as text is used as it is. NIO's `connect(host:port:)` resolves even a
// literal through getaddrinfo on another thread (1.5 ms before handoffd's first dial at start,
// measured with perf trace), and `bind(host:port:)` on the event loop; both read nsswitch.conf
// and ask nscd first. An address with a zone (fe80::1%eth0) is read too (NIO uses getaddrinfo
// with AI_NUMERICHOST for it, which asks nobody). The names RFC 6761 reserves are answered here
// (`ReservedName`); any other name goes to the resolver.

extension ClientBootstrap {
    func connect(hostOrAddress host: String, port: Int) -> EventLoopFuture<Channel> {
        do {
            if let address = try ReservedName.address(host, port: port) { return connect(to: address) }
        } catch {
            return MultiThreadedEventLoopGroup.singleton.next().makeFailedFuture(error)
        }
        return connect(host: host, port: port)
    }
}

extension ServerBootstrap {
    func bind(hostOrAddress host: String, port: Int) -> EventLoopFuture<Channel> {
        do {
            if let address = try ReservedName.address(host, port: port) { return bind(to: address) }
        } catch {
            return MultiThreadedEventLoopGroup.singleton.next().makeFailedFuture(error)
        }
        return bind(host: host, port: port)
    }
}

/// A name that cannot give an address: one under `.invalid`, which never resolves (RFC 6761).
public struct UnresolvedName: Error, Sendable, Equatable {
    public let host: String
}

/// Literals, and the names RFC 6761 reserves, without a resolver: `localhost` (and names under
/// it) is the loopback, a name under `.invalid` never resolves. NIO looks names up one at a time
/// per event loop; where the resolver does not answer (a network that drops DNS) each lookup
/// took 10 s, and every dial on that loop waited behind it.
enum ReservedName {
    static func address(_ host: String, port: Int) throws(UnresolvedName) -> SocketAddress? {
        if let address = try? SocketAddress(ipAddress: host, port: port) { return address }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return try? SocketAddress(ipAddress: "127.0.0.1", port: port) }
        if name == "invalid" || name.hasSuffix(".invalid") { throw UnresolvedName(host: host) }
        return nil
    }
}
