#if canImport(Glibc)
    import Glibc
#endif
import NIOCore

/// How long TCP waits before it sends a lost segment again, on link sessions. TCP doubles its
/// retransmission timeout after each loss of the same segment and holds everything behind it:
/// on a lossy wire a session can fall silent for seconds while most packets still get through,
/// and its pings time out (Tests/Rigs/chaos.sh). Two socket options shorten those silences; a
/// session that is silent all the same is replaced by a fresh one (PeerReach+Stalls.swift).
extension ChannelOption where Self == ChannelOptions.Types.SocketOption {
    /// TCP_THIN_LINEAR_TIMEOUTS (Linux 2.6.34 and later): while a session carries little (pings,
    /// pushes: fewer than four segments in flight), its first six retransmissions wait one RTO
    /// each (200 ms on a LAN) instead of doubling: six losses in a row cost 1.2 s, not 12.6 s.
    /// Bulk transfers are not thin and keep TCP's usual back-off.
    static var thinStreamTimeouts: Self { .init(level: .tcp, name: .init(rawValue: TCP_THIN_LINEAR_TIMEOUTS)) }

    /// TCP_RTO_MAX_MS (Linux 6.15 and later; 44 in linux/tcp.h, not yet in glibc's headers): the
    /// longest retransmission timeout, in milliseconds, 120,000 by default.
    static var maximumRetransmissionTimeout: Self { .init(level: .tcp, name: .init(rawValue: 44)) }
}

extension Channel {
    /// The options above, on a link connection (dialled or accepted). An older kernel refuses
    /// TCP_RTO_MAX_MS (ENOPROTOOPT): the session then has thin-stream timeouts and replacement.
    func shortenRetransmissions() {
        guard let options = syncOptions else { return }
        try? options.setOption(.thinStreamTimeouts, value: 1)
        try? options.setOption(.maximumRetransmissionTimeout, value: 1000)
    }
}
