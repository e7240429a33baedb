import HandoffControl
import HandoffCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension HandoffClient {
    /// Performs one operation on a connection of its own, with blocking calls on the calling
    /// thread, and closes it: for command-line tools, which would otherwise start an event loop
    /// thread and hop between threads for one line each way (`handoffctl status` spent about a
    /// third of its time there). The request and the answer are the same lines `perform` uses.
    /// Apps that keep a connection, or wait for events, use `connect` and `perform`.
    public static func performOnce<Op: ControlOperation>(
        _ operation: Op, socketPath: String = defaultSocketPath
    ) throws(ClientError) -> Op.Result {
        try OnceConnection(socketPath: socketPath).perform(operation)
    }

    /// A connection for one blocking operation, opened before the operation is known: handoffd
    /// admits a connection (credentials, its reader, its place among the clients) on its own
    /// thread while the tool goes on with its work, parsing its command line, instead of after
    /// the request is written (a third of a millisecond of every `handoffctl` command that
    /// talks to it). A connection that could not be made keeps why, and `perform` throws it:
    /// the error comes when the operation is asked for, as with `performOnce`.
    public final class OnceConnection: Sendable {
        public let socketPath: String
        /// The descriptor (or why there is none) until `perform` takes it.
        private let opened: Mutex<Opened>

        /// Not a `Result<Int32, ClientError>?`: that generic type is made at run time, its
        /// `ClientError: Error` checked by a walk over all of the binary's conformance records.
        private enum Opened {
            case descriptor(Int32)
            case failed(ClientError)
            case taken
        }

        /// Connects now (a Unix socket's connect does not wait for the daemon to accept).
        public init(socketPath: String = HandoffClient.defaultSocketPath) {
            self.socketPath = socketPath
            do throws(ClientError) { opened = Mutex(.descriptor(try HandoffClient.connectBlocking(socketPath))) } catch {
                opened = Mutex(.failed(error))
            }
        }

        /// Performs `operation` and closes the connection: one operation per connection.
        public func perform<Op: ControlOperation>(_ operation: Op) throws(ClientError) -> Op.Result {
            let fd: Int32
            switch opened.withLock({ o -> Opened in
                defer { o = .taken }
                return o
            }) {
            case .descriptor(let descriptor): fd = descriptor
            case .failed(let error): throw error
            case .taken: throw .refused(code: "connection-used", message: "this connection has performed its operation; open another")
            }
            defer { Glibc.close(fd) }
            try HandoffClient.writeAll(fd, ControlRequest(id: 1, op: Op.name, arguments: operation.arguments).line)
            let answer = try HandoffClient.readAnswer(fd, id: 1)
            do throws(ControlError) { return try Op.Result(propertyList: answer) } catch {
                throw .badResponse("\(Op.name): \(error.description)")
            }
        }

        deinit { if case .descriptor(let fd) = opened.withLock({ $0 }) { Glibc.close(fd) } }
    }

    fileprivate static func connectBlocking(_ path: String) throws(ClientError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let room = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < room else {
            throw .refused(code: "socket-path", message: "the control socket path \(path) is longer than \(room - 1) bytes; use a shorter --socket")
        }
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
            throw e == EACCES ? .permissionDenied(socket: path) : .daemonNotRunning(socket: path)
        }
        return fd
    }

    fileprivate static func writeAll(_ fd: Int32, _ line: [UInt8]) throws(ClientError) {
        var sent = 0
        while sent < line.count {
            let n = line.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .connectionLost }
            sent += n
        }
    }

    /// Reads lines until the answer to `id` (events are skipped; none are asked for).
    fileprivate static func readAnswer(_ fd: Int32, id: Int64) throws(ClientError) -> PropertyListValue? {
        var framer = LineFramer(maxLine: AnswerLine.maxLength)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .connectionLost }
            for item in framer.feed(buffer[..<n]) {
                guard case .line(let bytes) = item else { throw .refused(code: "unreadable-answer", message: AnswerLine.tooLong) }
                switch AnswerLine(bytes) {
                case .event: continue
                case .unreadable(_, let message): throw .refused(code: "unreadable-answer", message: message)
                case .answer(let answered, let outcome) where answered == id || answered == nil: return try outcome.get()
                case .answer: continue
                }
            }
        }
    }
}
