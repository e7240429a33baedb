import CHandoffShims
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffControl
import HandoffCore

#if canImport(Glibc)
    import Glibc
#endif

/// A continuation stream handed to this app (docs/STREAMS.md): `descriptor` is a Unix stream
/// socket, read and written with ordinary calls; `shutdown(SHUT_WR)` half-closes it (the other
/// app reads the end), `close` ends it. How it ended (`outcome`) comes as a `streamClosed` event on
/// the control connection the stream was asked on, which this object keeps open for that.
public final class HandoffStream: @unchecked Sendable {
    public let info: StreamInfo
    /// The stream's socket; this object closes it in `close()` unless `takeDescriptor()` took it.
    public private(set) var descriptor: Int32
    private let connection: Int32
    private var buffered: [UInt8]
    private var earlyEvents: [ControlEvent]

    init(info: StreamInfo, descriptor: Int32, connection: Int32, buffered: [UInt8], earlyEvents: [ControlEvent]) {
        self.info = info
        self.descriptor = descriptor
        self.connection = connection
        self.buffered = buffered
        self.earlyEvents = earlyEvents
    }

    /// Hands the socket to the caller, who closes it.
    public func takeDescriptor() -> Int32 {
        defer { descriptor = -1 }
        return descriptor
    }

    /// How the stream ended, once it has: waits for handoffd's `streamClosed` event (at most
    /// `timeout`). Read after the socket reached its end, it says whether that end was clean.
    public func outcome(timeout: Duration = .seconds(90)) async -> StreamOutcome {
        let token = info.stream
        if let e = earlyEvents.first(where: { $0.name == "streamClosed" && $0.fields["stream"]?.stringValue == token }) { return StreamOutcome(e) }
        let connection = connection
        let start = buffered
        let millis = Int32(clamping: timeout.components.seconds * 1000 + Int64(timeout.components.attoseconds / 1_000_000_000_000_000))
        return await withCheckedContinuation { (done: CheckedContinuation<StreamOutcome, Never>) in
            // A thread of its own: the wait is a blocking read, never on Swift's cooperative pool.
            BlockingThread.start {
                var pending = start
                let deadline = ContinuousClock.now + .milliseconds(Int(millis))
                while true {
                    while let nl = pending.firstIndex(of: 0x0A) {
                        let line = Array(pending[..<nl])
                        pending.removeSubrange(...nl)
                        if let e = StreamDoor.event(line), e.name == "streamClosed", e.fields["stream"]?.stringValue == token {
                            done.resume(returning: StreamOutcome(e))
                            return
                        }
                    }
                    let left = deadline - ContinuousClock.now
                    guard left > .zero else { return done.resume(returning: .unknown("handoffd did not say within \(timeout) how the stream ended")) }
                    var p = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                    let ms = Int32(clamping: left.components.seconds * 1000 + 1)
                    if poll(&p, 1, ms) <= 0 { continue }
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    let n = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                    if n <= 0 { return done.resume(returning: .unknown("the connection to handoffd closed before it said how the stream ended")) }
                    pending += chunk[..<n]
                }
            }
        }
    }

    /// Closes the socket (if still ours) and the control connection.
    public func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
        _ = Glibc.close(connection)
    }
}

/// How a stream ended, as handoffd reports it.
public enum StreamOutcome: Sendable, Equatable, CustomStringConvertible {
    /// Both directions ended and every byte was acknowledged.
    case finished(sent: Int64, received: Int64)
    case failed(code: FailureCode, message: String)
    /// handoffd did not say (the wait timed out, or the connection ended).
    case unknown(String)

    init(_ e: ControlEvent) {
        let f = e.fields
        if f["outcome"]?.stringValue == "finished" {
            self = .finished(sent: f["sent"]?.integerValue ?? 0, received: f["received"]?.integerValue ?? 0)
        } else {
            self = .failed(code: f["code"]?.stringValue.map { FailureCode($0) } ?? .failed, message: f["message"]?.stringValue ?? "the stream failed")
        }
    }

    public var description: String {
        switch self {
        case .finished(let s, let r): "finished (\(s) bytes sent, \(r) received)"
        case .failed(_, let m): m
        case .unknown(let m): m
        }
    }
}
