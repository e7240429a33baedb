import CHandoffShims
import Dispatch
import HandoffCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// What tells the dialer to try paired peers again at once: the kernel reported an address or
/// link change (rtnetlink), or the machine woke from suspend.
enum NetworkChange: Sendable, Equatable {
    case addressesChanged
    case resumed
}

/// The kernel's address and link notifications (a NETLINK_ROUTE socket read by a dispatch
/// source), as a stream. Each burst of datagrams is one change: an address moved is a delete and
/// an add, and one look at the addresses after both is enough.
enum NetworkChanges {
    /// nil when the socket cannot be opened (no netlink in this sandbox); the dialer then relies
    /// on its backoff and on mDNS.
    static func watch() -> AsyncStream<NetworkChange>? {
        let fd = handoff_netlink_open()
        guard fd >= 0 else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: NetworkChange.self, bufferingPolicy: .bufferingNewest(1))
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "handoffd.netlink"))
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            var any = false
            while buffer.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 { any = true }
            if any {
                // Before the news: whoever acts on it reads the addresses afresh.
                InterfaceAddresses.changed()
                continuation.yield(.addressesChanged)
            }
        }
        source.setCancelHandler {
            InterfaceAddresses.watching(false)
            close(fd)
        }
        let owned = SourceBox(source)
        continuation.onTermination = { _ in owned.source.cancel() }
        InterfaceAddresses.watching(true)
        source.resume()
        return stream
    }
}

/// Dispatch sources are thread-safe; the type does not say so.
private final class SourceBox: @unchecked Sendable {
    let source: any DispatchSourceRead
    init(_ source: any DispatchSourceRead) { self.source = source }
}

/// Notices a resume from suspend: CLOCK_BOOTTIME counts the time asleep, CLOCK_MONOTONIC does
/// not, so their difference jumps by the time the machine slept.
struct SuspendDetector {
    private let gap: () -> Double
    private var lastGap: Double

    /// `gap`: CLOCK_BOOTTIME less CLOCK_MONOTONIC, in seconds (tests give their own).
    init(gap: @escaping () -> Double = SuspendDetector.clockGap) {
        self.gap = gap
        lastGap = gap()
    }

    /// True when the machine slept (more than `threshold` seconds) since the last call.
    mutating func resumed(threshold: Double = 2) -> Bool {
        let now = gap()
        defer { lastGap = now }
        return now - lastGap > threshold
    }

    static func clockGap() -> Double {
        var boot = timespec(), mono = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        return Double(boot.tv_sec - mono.tv_sec) + Double(boot.tv_nsec - mono.tv_nsec) / 1e9
    }
}
