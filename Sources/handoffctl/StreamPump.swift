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
    static let checkEvery: Int64 = 32 << 20

    /// Copies `from` to `to` until the end of `from` (at most `limit` bytes), calling `progress`
    /// with the running count, and `check` every `checkEvery` bytes (a reason it returns stops the
    /// copy); then half-closes `to` if `shutdownAfter`. Returns the bytes copied and the error
    /// that stopped it, if any.
    static func copy(
        from: Int32, to: Int32, limit: Int64 = .max, shutdownAfter: Bool, progress: @escaping @Sendable (Int64) -> Void = { _ in },
        check: @escaping @Sendable (Int64) -> String? = { _ in nil }
    ) async -> (bytes: Int64, error: String?) {
        await withCheckedContinuation { (done: CheckedContinuation<(bytes: Int64, error: String?), Never>) in
            BlockingThread.start {
                var mover = Mover(from: from, to: to)
                var total: Int64 = 0
                var failure = check(0)
                var checked: Int64 = 0
                while total < limit, failure == nil {
                    let want = Int(min(Int64(chunk), limit - total))
                    let moved = mover.move(want)
                    if case .failure(let why) = moved {
                        failure = why.description
                        break
                    }
                    guard case .success(let n) = moved, n > 0 else { break }
                    total += Int64(n)
                    progress(total)
                    if total - checked >= checkEvery {
                        checked = total
                        failure = check(total)
                    }
                }
                mover.close()
                if shutdownAfter { shutdown(to, Int32(SHUT_WR)) }
                done.resume(returning: (total, failure))
            }
        }
    }
}

extension StreamPump {
    /// Reads `fd` to its end, discarding what comes; false if the end did not come within `limit`.
    static func drain(_ fd: Int32, within limit: Duration) async -> Bool {
        await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            BlockingThread.start {
                let deadline = ContinuousClock.now + limit
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let left = deadline - ContinuousClock.now
                    guard left > .zero else { return done.resume(returning: false) }
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    let millis = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
                    let ready = poll(&p, 1, millis)
                    if ready < 0, errno == EINTR { continue }
                    guard ready > 0 else { return done.resume(returning: ready == 0 ? false : true) }
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n < 0, errno == EINTR { continue }
                    if n <= 0 { return done.resume(returning: true) }
                }
            }
        }
    }

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
