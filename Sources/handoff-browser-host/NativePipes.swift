#if canImport(FoundationEssentials)
    import FoundationEssentials
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import Dispatch
import HandoffAsync
import HandoffBrowser
import NIOConcurrencyHelpers

/// The browser's end of the host: messages read from stdin on a thread of their own (a blocking
/// read must not hold a Swift concurrency thread), at most `window` of them waiting to be handled
/// (the reader stops reading until one is), and frames written to stdout whole, one at a time.
/// Nothing else ever goes to stdout: it is the channel.
final class NativePipes: Sendable {
    static let maxFromBrowser = 64 * 1024
    static let window = 64

    let incoming: AsyncStream<NativeFrameDecoder.Item>
    private let continuation: AsyncStream<NativeFrameDecoder.Item>.Continuation
    private let room = DispatchSemaphore(value: window)
    private let writeLock = NIOLock()

    init() {
        (incoming, continuation) = AsyncStream.makeStream(of: NativeFrameDecoder.Item.self)
    }

    /// Reads stdin until the browser closes it; the stream then ends.
    func startReading() {
        let started = BlockingThread.start(name: "browser-stdin") { [self] in
            var decoder = NativeFrameDecoder(maxMessage: Self.maxFromBrowser)
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                for item in decoder.feed(buffer[..<n]) {
                    room.wait()
                    continuation.yield(item)
                }
            }
            continuation.finish()
        }
        // No thread for stdin: nothing can be read, so the browser is treated as gone.
        if started != 0 { continuation.finish() }
    }

    /// The handler took a message: the reader may hand over another.
    func handled() { room.signal() }

    /// Writes one message; false if it is too long for the browser or stdout is gone.
    @discardableResult
    func send(_ message: HostMessage) -> Bool {
        guard let frame = NativeFrame.encode(message.json) else { return false }
        return writeLock.withLock {
            var offset = 0
            while offset < frame.count {
                let n = frame.withUnsafeBytes { write(1, $0.baseAddress! + offset, frame.count - offset) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }
}

/// Diagnostics go to stderr, which the browser keeps in its own log.
func logLine(_ text: String) {
    let line = Array("handoff-browser-host: \(text)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}
