import Foundation
import HandoffTestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// Stands in for systemd's notification socket: collects the datagrams a daemon sends to
/// $NOTIFY_SOCKET, with the time each arrived.
final class NotifyListener: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var received: [(Date, String, Bool)] = []
    /// Evaluated as each message arrives (for instance: does the control socket exist yet?).
    private let probe: @Sendable () -> Bool

    init(path: String, probe: @escaping @Sendable () -> Bool = { true }) throws {
        self.path = path
        self.probe = probe
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let ok = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else { throw TimedOut(what: "binding \(path): errno \(errno)") }
        Thread { [weak self] in
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buf, buf.count, 0)
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    return
                }
                let text = String(decoding: buf[0..<n], as: UTF8.self)
                guard let self else { return }
                let probed = self.probe()
                self.lock.withLock { self.received.append((Date(), text, probed)) }
            }
        }.start()
    }

    /// Every message so far, each split into its lines ("READY=1", "STATUS=...").
    var messages: [(at: Date, lines: [String], probe: Bool)] {
        lock.withLock { received.map { ($0.0, $0.1.split(separator: "\n").map(String.init), $0.2) } }
    }

    func first(_ line: String) -> Date? { messages.first { $0.lines.contains(line) }?.at }

    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
        unlink(path)
    }
}
