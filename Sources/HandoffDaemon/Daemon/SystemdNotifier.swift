#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notification protocol without libsystemd: one datagram per state ("READY=1",
/// "WATCHDOG=1", "STOPPING=1", "STATUS=...") to the socket named by $NOTIFY_SOCKET. Not running
/// under systemd (no variable) makes every call a no-op.
public struct SystemdNotifier: Sendable {
    public let socketPath: String?
    /// Half the unit's WatchdogSec, when the watchdog is on for this process.
    public let watchdogInterval: Duration?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, pid: pid_t = getpid()) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == pid } ?? true
        if forUs, let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0 {
            watchdogInterval = .microseconds(Int64(usec / 2))
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends one notification; false if there is no socket or sending failed.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        // "@name" is an abstract socket: a leading NUL, and no terminating one.
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        guard path.count < MemoryLayout.size(ofValue: addr.sun_path) else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.enumerated() { raw[i] = b } }
        let length = MemoryLayout<sa_family_t>.size + path.count + (abstract ? 0 : 1)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withUnsafeBufferPointer { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, socklen_t(length)) }
            }
        }
        return sent == message.count
    }
}
