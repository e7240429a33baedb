import Foundation

/// Timing lines for scripts/bench-hawknotes.sh, only when $HAWKNOTES_TRACE names a file: each
/// line is the wall-clock time in seconds and what was just drawn (a key's handling with its
/// milliseconds from read to painted, the restored window, a continuation shown).
enum Trace {
    private static let file: FileHandle? = {
        guard let path = ProcessInfo.processInfo.environment["HAWKNOTES_TRACE"], !path.isEmpty else { return nil }
        // Appended to: the benchmark launches the app many times into one file.
        guard FileManager.default.fileExists(atPath: path) || FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
        return FileHandle(forWritingAtPath: path).map {
            $0.seekToEndOfFile()
            return $0
        }
    }()

    static var enabled: Bool { file != nil }

    static func note(_ what: String) {
        guard let file else { return }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        file.write(Data(String(format: "%d.%09d %@\n", ts.tv_sec, ts.tv_nsec, what).utf8))
    }
}
