#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore
#if canImport(Glibc)
    import Glibc
#endif

/// Timing lines for Benchmarks/scripts/bench-hawknotes.sh, only when $HAWKNOTES_TRACE names a file: each
/// line is the wall-clock time in seconds and what was just drawn (a key's handling with its
/// milliseconds from read to painted, the restored window, a continuation shown).
enum Trace {
    /// Appended to: the benchmark launches the app many times into one file.
    private static let file: Int32? = {
        guard let path = ProcessInfo.processInfo.environment["HAWKNOTES_TRACE"], !path.isEmpty else { return nil }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        return fd >= 0 ? fd : nil
    }()

    static var enabled: Bool { file != nil }

    static func note(_ what: String) {
        guard let file else { return }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let nanos = String(ts.tv_nsec)
        StandardStreams.write(file, Array("\(ts.tv_sec).\(String(repeating: "0", count: 9 - nanos.count))\(nanos) \(what)\n".utf8))
    }
}
