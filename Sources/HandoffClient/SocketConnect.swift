#if canImport(Glibc)
    import Glibc
#endif

extension HandoffClient {
    /// Connects a blocking Unix socket to handoffd's control socket at `path` (for the one-shot
    /// connections and the stream door; `connect` goes through NIO and maps its errors with
    /// `ClientError.connecting`).
    static func connectBlocking(_ path: String) throws(ClientError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        if let tooLong = ClientError.tooLong(path) { throw tooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .daemonNotRunning(socket: path) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let e = errno
            Glibc.close(fd)
            throw ClientError.connecting(errno: e, socket: path)
        }
        return fd
    }
}

extension ClientError {
    /// The longest path a Unix socket address holds (107 bytes on Linux), less its terminator.
    static let pathRoom = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// A path no socket address can hold: said as such, not as "handoffd is not running".
    static func tooLong(_ path: String) -> ClientError? {
        path.utf8.count <= pathRoom
            ? nil : .badSocketPath(socket: path, why: "is longer than the \(pathRoom) bytes a Unix socket's path may have")
    }

    /// Why a connect to `socket` failed, as a person can act on it. A refused connect is also
    /// what a path that is no socket at all gets (a directory, a file: `--socket /tmp`), which
    /// is a mistyped path, not a stopped daemon.
    static func connecting(errno e: Int32, socket: String) -> ClientError {
        switch e {
        case EACCES, EPERM:
            return .permissionDenied(socket: socket)
        case ENOTDIR:
            return .badSocketPath(socket: socket, why: "goes through something that is not a directory")
        case ECONNREFUSED:
            var info = stat()
            guard stat(socket, &info) == 0 else { return .daemonNotRunning(socket: socket) }
            switch info.st_mode & S_IFMT {
            case S_IFSOCK: return .daemonNotRunning(socket: socket)  // a socket left by a handoffd that stopped
            case S_IFDIR: return .badSocketPath(socket: socket, why: "is a directory")
            default: return .badSocketPath(socket: socket, why: "is a file, not a socket")
            }
        default:
            return .daemonNotRunning(socket: socket)
        }
    }
}
