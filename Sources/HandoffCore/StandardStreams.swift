#if canImport(Glibc)
    import Glibc
#endif

/// Text to standard output, standard error or another descriptor, written whole (`write(2)`
/// until every byte is out), for handoffctl and hawknotes: Foundation's FileHandle did this, and
/// they import only FoundationEssentials.
public enum StandardStreams {
    public static func error(_ text: String) { write(2, Array(text.utf8)) }
    public static func output(_ text: String) { write(1, Array(text.utf8)) }

    public static func write(_ fd: Int32, _ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, bytes.count - off) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return }
            off += n
        }
    }
}
