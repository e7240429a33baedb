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
        try OnceConnection(socketPath: socketPath).perform(operation, within: operation.answerWithin)
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

        /// Performs `operation` and closes the connection: one operation per connection. Fails
        /// with `noAnswer` if handoffd has not answered within the operation's `answerWithin`.
        public func perform<Op: ControlOperation>(_ operation: Op) throws(ClientError) -> Op.Result {
            try perform(operation, within: operation.answerWithin)
        }

        /// The same, waiting at most `bound` for the answer (nil: as long as handoffd takes).
        public func perform<Op: ControlOperation>(_ operation: Op, within bound: Duration?) throws(ClientError) -> Op.Result {
            let fd: Int32
            switch opened.withLock({ o -> Opened in
                defer { o = .taken }
                return o
            }) {
            case .descriptor(let descriptor): fd = descriptor
            case .failed(let error): throw error
            case .taken: throw .refused(code: .connectionUsed, message: "this connection has performed its operation; open another")
            }
            defer { Glibc.close(fd) }
            let deadline = bound.map { (within: $0, at: ContinuousClock.now + $0) }
            // A daemon that does not read must not hold a large request's write either.
            if let bound { HandoffClient.limitWrites(fd, to: bound) }
            try HandoffClient.writeAll(fd, ControlRequest(id: 1, op: Op.name, arguments: operation.arguments).line, op: Op.name, within: bound)
            let answer = try HandoffClient.readAnswer(fd, id: 1, op: Op.name, deadline: deadline)
            do throws(ControlError) { return try Op.Result(propertyList: answer) } catch {
                throw .badResponse("\(Op.name): \(error.description)")
            }
        }

        deinit { if case .descriptor(let fd) = opened.withLock({ $0 }) { Glibc.close(fd) } }
    }

    /// SO_SNDTIMEO: a blocking send gives up (EAGAIN) after `bound`.
    fileprivate static func limitWrites(_ fd: Int32, to bound: Duration) {
        let (s, atto) = bound.components
        var t = timeval(tv_sec: Int(s), tv_usec: Int(atto / 1_000_000_000_000))
        if t.tv_sec == 0 && t.tv_usec == 0 { t.tv_usec = 1 }  // zero would mean no limit
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
    }

    fileprivate static func writeAll(_ fd: Int32, _ line: [UInt8], op: String, within bound: Duration?) throws(ClientError) {
        var sent = 0
        while sent < line.count {
            let n = line.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN, let bound { throw .noAnswer(operation: op, within: bound) }
            guard n > 0 else { throw .connectionLost }
            sent += n
        }
    }

    /// Reads lines until the answer to `id` (events are skipped; none are asked for), or until
    /// the deadline: each read waits in poll(2) for what is left of it.
    fileprivate static func readAnswer(
        _ fd: Int32, id: Int64, op: String, deadline: (within: Duration, at: ContinuousClock.Instant)?
    ) throws(ClientError) -> PropertyListValue? {
        var framer = LineFramer(maxLine: AnswerLine.maxLength)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let deadline, !readable(fd, before: deadline.at) { throw .noAnswer(operation: op, within: deadline.within) }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .connectionLost }
            for item in framer.feed(buffer[..<n]) {
                guard case .line(let bytes) = item else { throw .refused(code: .unreadableAnswer, message: AnswerLine.tooLong) }
                switch AnswerLine(bytes) {
                case .event: continue
                case .unreadable(_, let message): throw .refused(code: .unreadableAnswer, message: message)
                case .answer(let answered, let outcome) where answered == id || answered == nil: return try outcome.get()
                case .answer: continue
                }
            }
        }
    }

    /// Whether `fd` has something to read (or has ended) before `deadline`.
    private static func readable(_ fd: Int32, before deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let (s, atto) = (deadline - ContinuousClock.now).components
            guard s > 0 || (s == 0 && atto > 0) else { return false }
            // Rounded up: a wait of 0 ms while time is left would spin.
            let ms = s * 1000 + (atto + 999_999_999_999_999) / 1_000_000_000_000_000
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, Int32(clamping: ms))
            if n > 0 || (n < 0 && errno != EINTR) { return true }  // a failed poll: the read says why
        }
    }
}
