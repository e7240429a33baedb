#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Moves bytes between descriptors with plain blocking calls, each direction on a thread of its
/// own (never Swift's cooperative pool): what `continue --stream`, `stream offer`, `send-file`
/// and `receive` do with a stream's socket.
enum StreamPump {
    static let chunk = 256 * 1024

    /// Copies `from` to `to` until the end of `from` (at most `limit` bytes), calling `progress`
    /// with the running count; then half-closes `to` if `shutdownAfter`. Returns the bytes copied
    /// and the error that stopped it, if any.
    static func copy(
        from: Int32, to: Int32, limit: Int64 = .max, shutdownAfter: Bool, progress: @escaping @Sendable (Int64) -> Void = { _ in }
    ) async -> (bytes: Int64, error: String?) {
        await withCheckedContinuation { (done: CheckedContinuation<(bytes: Int64, error: String?), Never>) in
            BlockingThread.start {
                var buffer = [UInt8](repeating: 0, count: chunk)
                var total: Int64 = 0
                var failure: String?
                loop: while total < limit {
                    let want = Int(min(Int64(chunk), limit - total))
                    let n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, want) }
                    if n < 0, errno == EINTR { continue }
                    if n < 0 {
                        failure = String(cString: strerror(errno))
                        break
                    }
                    if n == 0 { break }
                    var off = 0
                    while off < n {
                        let w = buffer.withUnsafeBytes { write(to, $0.baseAddress! + off, n - off) }
                        if w < 0, errno == EINTR { continue }
                        if w <= 0 {
                            failure = String(cString: strerror(errno))
                            break loop
                        }
                        off += w
                    }
                    total += Int64(n)
                    progress(total)
                }
                if shutdownAfter { shutdown(to, Int32(SHUT_WR)) }
                done.resume(returning: (total, failure))
            }
        }
    }
}

extension StreamPump {
    /// One line (without its newline) read from `fd`, at most 4 KiB; what came before the end if
    /// no newline did.
    static func readLine(_ fd: Int32) async -> String {
        await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            BlockingThread.start {
                var line: [UInt8] = []
                var byte: UInt8 = 0
                while line.count < 4096 {
                    let n = read(fd, &byte, 1)
                    if n < 0, errno == EINTR { continue }
                    if n <= 0 || byte == 0x0A { break }
                    line.append(byte)
                }
                done.resume(returning: String(decoding: line, as: UTF8.self))
            }
        }
    }
}

/// A progress bar on standard error (only on a terminal), at most ten redraws a second.
final class ProgressBar: Sendable {
    private let total: Int64
    private let label: String
    private let started = ContinuousClock.now
    private let last = Mutex(ContinuousClock.now - .seconds(1))
    private let shown = isatty(2) != 0

    init(total: Int64, label: String) {
        self.total = total
        self.label = label
    }

    func update(_ done: Int64) {
        guard shown else { return }
        let now = ContinuousClock.now
        let due = last.withLock { last in
            guard now - last >= .milliseconds(100) || done >= total else { return false }
            last = now
            return true
        }
        guard due else { return }
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let seconds = max(0.001, Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds))
        let rate = Double(done) / seconds / 1_000_000
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let line = "\r\(label) [\(bar)] \(Int(fraction * 100))% \(Self.size(done)) \(rate.fixedPoint(0)) MB/s"
        StandardStreams.error(line)
    }

    func finish() { if shown { StandardStreams.error("\n") } }

    static func size(_ n: Int64) -> String {
        if n >= 1 << 30 { return "\((Double(n) / Double(1 << 30)).fixedPoint(2)) GiB" }
        if n >= 1 << 20 { return "\((Double(n) / Double(1 << 20)).fixedPoint(1)) MiB" }
        if n >= 1 << 10 { return "\((Double(n) / Double(1 << 10)).fixedPoint(1)) KiB" }
        return "\(n) B"
    }
}
