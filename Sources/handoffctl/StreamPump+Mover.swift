import CHandoffShims

#if canImport(Glibc)
    import Glibc
#endif

extension StreamPump {
    /// How a copy moves its bytes: inside the kernel where the two descriptors allow it, else
    /// through a buffer of ours. A file sent goes to the stream's socket by sendfile(2), a file
    /// received comes from it by splice(2) through a pipe: the bytes of a transfer are not copied
    /// into this process and out again, which on two cores took time from the daemons carrying
    /// them. Either falls back to read/write where the kernel refuses it (EINVAL: a file system
    /// without splice, say).
    struct Mover {
        enum Way {
            case sendfile
            case splice(read: Int32, write: Int32)
            case buffer([UInt8])
        }

        let from: Int32
        let to: Int32
        private(set) var way: Way

        init(from: Int32, to: Int32) {
            self.from = from
            self.to = to
            if Self.isFile(from) {
                way = .sendfile
            } else if Self.isFile(to), let pipe = Self.pipe() {
                way = .splice(read: pipe.read, write: pipe.write)
            } else {
                way = .buffer([UInt8](repeating: 0, count: StreamPump.chunk))
            }
        }

        /// Moves up to `count` bytes: how many (0 at the end of `from`), or why it failed.
        mutating func move(_ count: Int) -> Result<Int, Failure> {
            switch way {
            case .sendfile:
                let n = Glibc.sendfile(to, from, nil, count)
                if n < 0, errno == EINVAL || errno == ENOSYS { return fallBack(count) }
                return Self.result(n)
            case .splice(let r, let w):
                var n = handoff_splice(from, w, UInt(count))
                while n < 0 && errno == EINTR { n = handoff_splice(from, w, UInt(count)) }
                if n < 0, errno == EINVAL || errno == ENOSYS { return fallBack(count) }
                guard n > 0 else { return Self.result(n) }
                var left = n
                while left > 0 {
                    let m = handoff_splice(r, to, UInt(left))
                    if m < 0, errno == EINTR { continue }
                    if m <= 0 { return .failure(Failure(errno: m < 0 ? errno : EIO)) }
                    left -= m
                }
                return .success(n)
            case .buffer(var buffer):
                defer { way = .buffer(buffer) }
                var n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, count) }
                while n < 0 && errno == EINTR { n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, count) } }
                guard n > 0 else { return Self.result(n) }
                var off = 0
                while off < n {
                    let w = buffer.withUnsafeBytes { write(to, $0.baseAddress! + off, n - off) }
                    if w < 0, errno == EINTR { continue }
                    if w <= 0 { return .failure(Failure(errno: w < 0 ? errno : EIO)) }
                    off += w
                }
                return .success(n)
            }
        }

        mutating func close() {
            if case .splice(let r, let w) = way {
                _ = Glibc.close(r)
                _ = Glibc.close(w)
            }
            way = .buffer([])
        }

        /// The kernel would not move these bytes (nothing was moved): through our buffer instead.
        private mutating func fallBack(_ count: Int) -> Result<Int, Failure> {
            close()
            way = .buffer([UInt8](repeating: 0, count: StreamPump.chunk))
            return move(count)
        }

        private static func result(_ n: Int) -> Result<Int, Failure> {
            n >= 0 ? .success(n) : .failure(Failure(errno: errno))
        }

        /// A pipe as large as a chunk, so that one splice in fills what one splice out empties.
        private static func pipe() -> (read: Int32, write: Int32)? {
            var fds: [Int32] = [-1, -1]
            guard handoff_pipe2_cloexec(&fds) == 0 else { return nil }
            _ = handoff_set_pipe_size(fds[1], Int32(StreamPump.chunk))
            return (fds[0], fds[1])
        }

        private static func isFile(_ fd: Int32) -> Bool {
            var st = stat()
            return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { String(cString: strerror(errno)) }
    }
}
