import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A control socket whose "daemon" never answers: it listens, and the kernel completes each
/// connect into its backlog, as for a handoffd that is stopped (SIGSTOP) or wedged. For the
/// clients' bounds on how long they wait for an answer.
public final class SilentSocket: Sendable {
    public let path: String
    private let fd: Int32

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("silent-\(UUID().uuidString.prefix(8)).sock").path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EINVAL)
        }
    }

    /// Closes the socket and leaves its file: a socket nothing listens on, as a handoffd killed
    /// with SIGKILL leaves it.
    public func closeLeavingTheFile() { Glibc.close(fd) }

    /// Closes the socket and removes its file.
    public func close() {
        Glibc.close(fd)
        unlink(path)
    }
}
