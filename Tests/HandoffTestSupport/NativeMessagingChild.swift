import Foundation

/// A native messaging host run as a browser runs it: messages framed with a 32-bit length in the
/// machine's order both ways; what it writes is read in the background and waited for with a
/// deadline.
public final class NativeMessagingChild: @unchecked Sendable {
    public let pid: Int32
    private let spawned: Spawned
    private let condition = NSCondition()
    private var buffer: [UInt8] = []
    private var messages: [[String: Any]] = []
    private var inputOpen = true
    private var exitStatus: Int32?

    public init(_ argv: [String], stderrPath: String = "/dev/null") throws {
        spawned = try Spawned.start(argv, stderrPath: stderrPath)
        pid = spawned.pid
        let reader = Thread { [spawned, weak self] in
            var buf = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(spawned.stdoutRead, &buf, buf.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                self?.receive(buf[0..<n])
            }
            close(spawned.stdoutRead)
        }
        reader.start()
    }

    private func receive(_ bytes: ArraySlice<UInt8>) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        buffer.append(contentsOf: bytes)
        while buffer.count >= 4 {
            let length = Int(UInt32(buffer[0]) | UInt32(buffer[1]) << 8 | UInt32(buffer[2]) << 16 | UInt32(buffer[3]) << 24)
            guard buffer.count >= 4 + length else { break }
            let body = Data(buffer[4..<4 + length])
            buffer.removeFirst(4 + length)
            messages.append(
                (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? ["unreadable": String(decoding: body, as: UTF8.self)])
        }
    }

    /// Writes `bytes` as they are (a frame or anything else).
    public func sendRaw(_ bytes: [UInt8]) {
        condition.lock()
        defer { condition.unlock() }
        guard inputOpen else { return }
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBufferPointer { write(spawned.stdinWrite, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            off += n
        }
    }

    /// Frames `json` and writes it.
    public func send(_ json: String) { sendRaw(Self.frame(Array(json.utf8))) }

    public static func frame(_ body: [UInt8]) -> [UInt8] {
        let n = UInt32(body.count)
        return [UInt8(n & 0xff), UInt8(n >> 8 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 24)] + body
    }

    public func closeInput() {
        condition.lock()
        defer { condition.unlock() }
        if inputOpen {
            close(spawned.stdinWrite)
            inputOpen = false
        }
    }

    /// Every message read so far.
    public var received: [[String: Any]] { condition.withLock { messages } }

    /// Waits until a message at index >= `from` satisfies `match`; its index and fields.
    public func waitFor(from: Int = 0, timeout: Double, _ match: ([String: Any]) -> Bool) -> (index: Int, fields: [String: Any])? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if from < messages.count, let i = messages[from...].firstIndex(where: match) { return (i, messages[i]) }
            if !condition.wait(until: deadline) { return nil }
        }
    }

    /// As `waitFor`, off the Swift concurrency pool: a test's wait must not hold one of its few
    /// threads (other suites' timers run on them).
    public func message(from: Int = 0, timeout: Double, _ match: @escaping @Sendable (NativeMessage) -> Bool) async -> NativeMessage? {
        await offPool { self.waitFor(from: from, timeout: timeout) { match(NativeMessage($0)) }.map { NativeMessage($0.fields) } }
    }

    /// As `waitForExit`, off the Swift concurrency pool.
    public func exit(timeout: Double) async -> Int32? { await offPool { self.waitForExit(timeout: timeout) } }

    /// As `stop`, off the Swift concurrency pool.
    public func end() async { await offPool { self.stop() } }

    /// Waits for the process to exit; nil if it did not within `timeout`.
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = condition.withLock({ exitStatus ?? Spawned.poll(pid) }) {
                condition.withLock { exitStatus = status }
                return status
            }
            if Date() > deadline { return nil }
            usleep(10_000)  // waitpid has no timed form; this polls the exit state, it stands in for nothing
        }
    }

    /// Ends it (stdin closed, then TERM, then KILL) and reaps it.
    public func stop() {
        closeInput()
        if waitForExit(timeout: 2) == nil {
            kill(pid, SIGTERM)
            if waitForExit(timeout: 2) == nil {
                kill(pid, SIGKILL)
                _ = waitForExit(timeout: 5)
            }
        }
    }

    deinit { stop() }
}

/// One message a native messaging host wrote, with typed accessors for what tests look at.
public struct NativeMessage: @unchecked Sendable {
    public let fields: [String: Any]
    public init(_ fields: [String: Any]) { self.fields = fields }
    public subscript(_ key: String) -> Any? { fields[key] }
    public func string(_ key: String) -> String? { fields[key] as? String }
    public func int(_ key: String) -> Int? { fields[key] as? Int }
    public func bool(_ key: String) -> Bool? { fields[key] as? Bool }
    public func objects(_ key: String) -> [[String: Any]] { fields[key] as? [[String: Any]] ?? [] }
}
