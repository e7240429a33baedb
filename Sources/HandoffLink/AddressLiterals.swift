import NIOCore
import NIOPosix

// An IP address given as text is used as it is. NIO's `connect(host:port:)` resolves even a
// literal through getaddrinfo on another thread (1.5 ms before handoffd's first dial at start,
// measured with perf trace), and `bind(host:port:)` on the event loop; both read nsswitch.conf
// and ask nscd first. An address with a zone (fe80::1%eth0) is read too (NIO uses getaddrinfo
// with AI_NUMERICHOST for it, which asks nobody); a name still goes to the resolver.

extension ClientBootstrap {
    func connect(hostOrAddress host: String, port: Int) -> EventLoopFuture<Channel> {
        if let address = try? SocketAddress(ipAddress: host, port: port) { return connect(to: address) }
        return connect(host: host, port: port)
    }
}

extension ServerBootstrap {
    func bind(hostOrAddress host: String, port: Int) -> EventLoopFuture<Channel> {
        if let address = try? SocketAddress(ipAddress: host, port: port) { return bind(to: address) }
        return bind(host: host, port: port)
    }
}
