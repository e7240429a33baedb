#if canImport(Glibc)
    import Glibc
#endif

/// One agent per display and daemon: the systemd unit and the XDG autostart entry may both start
/// one, and two would take the clipboard from each other. The lock is a file in the runtime
/// directory, held (flock) while the agent runs; the kernel lets it go when the agent ends.
enum SingleInstance {
    /// True if this process holds the lock for `display` and `socket`.
    static func take(display: String, socket: String, environment: [String: String]) -> Bool {
        let directory = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let safe = String(display.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        var hash: UInt32 = 2_166_136_261
        for byte in socket.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let path = "\(directory)/handoff-clipboard-agent-\(getuid())-\(safe)-\(String(hash, radix: 16)).lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return true }  // no lock to take: run rather than share nothing
        return flock(fd, LOCK_EX | LOCK_NB) == 0
    }
}
