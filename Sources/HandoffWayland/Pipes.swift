#if canImport(Glibc)
    import Glibc
#endif

/// Reading and writing a transfer's pipe, bounded in size and time.
enum Pipes {
    /// Everything until EOF, or nil past `limit` bytes or `within`.
    static func readAll(_ fd: Int32, limit: Int, within: Duration) -> [UInt8]? {
        let deadline = ContinuousClock.now + within
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let left = deadline - .now
            guard left > .zero else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(max(1, left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000))
            if poll(&p, 1, ms) < 0 {
                if errno == EINTR { continue }
                return nil
            }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return nil
            }
            if n == 0 { return bytes }
            bytes += buffer[..<n]
            if bytes.count > limit { return nil }
        }
    }

    /// All of `bytes`, false if the reader went away first.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
