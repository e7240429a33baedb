import CHandoffShims
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

/// The control socket's listening end, accepted on a thread of its own rather than by NIO's
/// ServerBootstrap: the server must know each connection's descriptor to pass a stream's socket
/// with an answer (SCM_RIGHTS), which NIO neither does nor exposes. Each accepted descriptor is
/// handed to NIO at once (`ClientBootstrap.withConnectedSocket`), which owns it from then on.
final class ControlListener: Sendable {
    let path: String
    private let fd: Int32
    private let stopped = NIOLockedValueBox(false)

    /// Binds `path` with mode 0600 (a stale socket file is replaced) and listens.
    init(path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlListenerError.failed("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw ControlListenerError.pathTooLong(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        // The socket file is created with the umask's mode: private from the start.
        let old = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(old)
        guard bound == 0, listen(fd, 128) == 0 else {
            let e = errno
            close(fd)
            throw ControlListenerError.failed("bind", e)
        }
        self.path = path
        self.fd = fd
    }

    /// Accepts until `stop()`, on a thread of its own; each connection's descriptor goes to `accepted`.
    func run(_ accepted: @escaping @Sendable (Int32) -> Void) throws(ControlListenerError) {
        let failure = BlockingThread.start(name: "handoffd-control") { [self] in
            while true {
                let c = handoff_accept_cloexec(fd)
                if c >= 0 {
                    accepted(c)
                    continue
                }
                if stopped.withLockedValue({ $0 }) { break }
                if errno == EINTR || errno == ECONNABORTED { continue }
                // Out of descriptors (EMFILE): wait a little rather than spin.
                usleep(10_000)
            }
            close(fd)
        }
        guard failure == 0 else { throw ControlListenerError.failed("pthread_create", failure) }
    }

    /// Stops accepting (the thread wakes from accept) and removes the socket file.
    func stop() {
        let was = stopped.withLockedValue { s -> Bool in
            defer { s = true }
            return s
        }
        guard !was else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        try? FileManager.default.removeItem(atPath: path)
    }
}

enum ControlListenerError: Error, CustomStringConvertible {
    case failed(String, Int32)
    case pathTooLong(String)

    var description: String {
        switch self {
        case .failed(let call, let e): "could not open the control socket (\(call)): \(String(cString: strerror(e)))"
        case .pathTooLong(let p): "the control socket path \(p) is longer than a Unix socket path may be"
        }
    }
}
