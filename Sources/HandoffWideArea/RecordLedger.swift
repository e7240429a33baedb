#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The names this machine may have left in the zone, kept in a file of the state directory and
/// written before each update that adds them: after a crash (or a stop while the server was
/// away), the next start deletes them first, so that no advert of ours is left twice. Names
/// are random per rotation, so nothing else tells ours from another machine's.
struct RecordLedger {
    struct Entry: Hashable, Sendable {
        let service: String
        let instance: String
        let host: String
    }

    let path: String
    private(set) var entries: Set<Entry> = []

    init(path: String) {
        self.path = path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ").map(String.init)
            if f.count == 3 { entries.insert(Entry(service: f[0], instance: f[1], host: f[2])) }
        }
    }

    mutating func insert(_ e: Entry) throws {
        guard !entries.contains(e) else { return }
        entries.insert(e)
        try save()
    }

    mutating func remove(_ e: Entry) throws {
        guard entries.remove(e) != nil else { return }
        try save()
    }

    /// A temporary file, fsync, rename, fsync of the directory: the old list or the new one.
    private func save() throws {
        let text = entries.map { "\($0.service) \($0.instance) \($0.host)\n" }.sorted().joined()
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw LedgerError(path: tmp, errno: errno) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0 else { throw LedgerError(path: tmp, errno: errno) }
        guard rename(tmp, path) == 0 else { throw LedgerError(path: path, errno: errno) }
        let dir = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
    }
}

struct LedgerError: Error, CustomStringConvertible {
    let path: String
    let errno: Int32
    var description: String { "cannot write \(path): \(String(cString: strerror(errno)))" }
}
