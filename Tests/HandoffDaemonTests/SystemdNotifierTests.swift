import Foundation
import Testing
@testable import HandoffDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// A datagram socket standing in for systemd's notify socket.
final class NotifySocket {
    let fd: Int32
    let path: String

    init(abstract: Bool = false) {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let name = "hd-notify-\(UUID().uuidString.prefix(8))"
        path = abstract ? "@" + name : FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) } }
        var tv = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
        if !path.hasPrefix("@") { unlink(path) }
    }

    func receive() -> String? {
        var buf = [UInt8](repeating: 0, count: 512)
        let n = recv(fd, &buf, buf.count, 0)
        return n > 0 ? String(decoding: buf[0..<n], as: UTF8.self) : nil
    }
}

@Suite struct SystemdNotifierTests {
    @Test(arguments: [false, true])
    func deliversNotifications(abstract: Bool) {
        let sock = NotifySocket(abstract: abstract)
        let n = SystemdNotifier(environment: ["NOTIFY_SOCKET": sock.path])
        #expect(n.notify("READY=1"))
        #expect(sock.receive() == "READY=1")
        #expect(n.notify("STATUS=advertising 2 activities"))
        #expect(sock.receive() == "STATUS=advertising 2 activities")
    }

    @Test func noSocketMeansNoOp() {
        #expect(!SystemdNotifier(environment: [:]).notify("READY=1"))
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/notify"]).notify("READY=1"))
    }

    @Test func watchdogIntervalIsHalfTheUnitsAndOnlyForUs() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000"], pid: 5).watchdogInterval == .seconds(5))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "5"], pid: 5).watchdogInterval == .seconds(5))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "6"], pid: 5).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: [:]).watchdogInterval == nil)
    }
}
