import Foundation

/// A child process whose stdout is read line by line in the background, so that a test can wait
/// for a line with a deadline instead of sleeping.
public final class ChildProcess: @unchecked Sendable {
    public let pid: Int32
    private let spawned: Spawned
    private let condition = NSCondition()
    private var buffer = Data()
    private var lines: [String] = []
    private var ended = false
    private var exitStatus: Int32?
    private var inputOpen = true

    /// Starts `executable` with `arguments`; stderr goes to `stderrPath` (appended).
    public init(_ executable: String, _ arguments: [String], stderrPath: String = "/dev/null") throws {
        spawned = try Spawned.start([executable] + arguments, stderrPath: stderrPath)
        pid = spawned.pid
        let reader = Thread { [spawned, weak self] in
            var buf = [UInt8](repeating: 0, count: 8192)
            while true {
                let n = read(spawned.stdoutRead, &buf, buf.count)
                if n < 0 && errno == EINTR { continue }
                self?.receive(n > 0 ? Data(buf[0..<n]) : Data())
                if n <= 0 { break }
            }
            close(spawned.stdoutRead)
        }
        reader.start()
    }

    private func receive(_ data: Data) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        if data.isEmpty {
            ended = true
            return
        }
        buffer.append(data)
        while let nl = buffer.firstIndex(of: 0x0A) {
            lines.append(String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...nl)
        }
    }

    public func send(_ line: String) {
        condition.lock()
        defer { condition.unlock() }
        guard inputOpen else { return }
        let bytes = Array((line + "\n").utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBufferPointer { write(spawned.stdinWrite, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            off += n
        }
    }

    public func closeInput() {
        condition.lock()
        defer { condition.unlock() }
        if inputOpen {
            close(spawned.stdinWrite)
            inputOpen = false
        }
    }

    /// Every line read so far.
    public var output: [String] { condition.withLock { lines } }

    /// Waits until a line at index >= `from` satisfies `match`; returns its index and text.
    public func waitForLine(from: Int = 0, timeout: Double, _ match: (String) -> Bool) -> (index: Int, line: String)? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        var next = from
        while true {
            while next < lines.count {
                if match(lines[next]) { return (next, lines[next]) }
                next += 1
            }
            if ended || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Waits until the output is read to its end (the process closed it), or `timeout` passes: an
    /// exited process's last lines may still be on their way to `output`.
    public func waitForOutputEnd(timeout: Double) { _ = waitForLine(timeout: timeout) { _ in false } }

    /// As `waitForLine`, for output lines that are JSON objects.
    public func waitForJSON(from: Int = 0, timeout: Double, _ match: (JSONLine) -> Bool) -> JSONLine? {
        waitForLine(from: from, timeout: timeout) { line in JSONLine(line).map(match) ?? false }.flatMap { JSONLine($0.line, index: $0.index) }
    }

    public var isRunning: Bool { exitStatusIfEnded() == nil }

    private func exitStatusIfEnded() -> Int32? {
        condition.lock()
        defer { condition.unlock() }
        if exitStatus == nil { exitStatus = Spawned.poll(pid) }
        return exitStatus
    }

    public func signal(_ sig: Int32) { if isRunning { kill(pid, sig) } }

    /// Waits for the process to exit; nil if it did not within `timeout`.
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = exitStatusIfEnded() { return status }
            if Date() > deadline { return nil }
            usleep(10_000)  // waitpid has no timed form; this polls the exit state, it stands in for nothing
        }
    }

    /// Ends the process (TERM, then KILL after 2 s) and reaps it.
    public func stop() {
        closeInput()
        guard isRunning else { return }
        signal(SIGTERM)
        if waitForExit(timeout: 2) == nil {
            signal(SIGKILL)
            _ = waitForExit(timeout: 5)
        }
    }

    deinit { stop() }
}

/// One JSON object line, with typed accessors for the fields tests look at.
public struct JSONLine: @unchecked Sendable {
    public let object: [String: Any]
    public let index: Int

    public init?(_ text: String, index: Int = -1) {
        guard let data = text.data(using: .utf8),
            let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        object = obj
        self.index = index
    }

    public subscript(key: String) -> Any? { object[key] }
    public func string(_ key: String) -> String? { object[key] as? String }
    /// The monotonic timestamp in nanoseconds.
    public var time: UInt64 { (object["t"] as? NSNumber)?.uint64Value ?? 0 }
    public var event: String? { string("event") }
    public var peer: [String: Any]? { object["peer"] as? [String: Any] }
    public var peerName: String? { peer?["name"] as? String }
    public var peerTXT: [String: String] { peer?["txt"] as? [String: String] ?? [:] }
    public var peerAddresses: [String] { peer?["addresses"] as? [String] ?? [] }
}
