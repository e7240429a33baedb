#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Checks on the directories and files that hold the identity, the pairings and the scenes: they
/// must be handoffd's own and not open to others, and the files are never followed through a
/// symbolic link (one planted by another local user would point our writes elsewhere).
public enum PrivateFiles {
    /// An existing directory (a symbolic link to one is fine: systemd's StateDirectory= with
    /// DynamicUser= is one) must be owned by our uid and not writable by group or others.
    public static func checkDirectory(_ path: String) throws(LinkError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw .identity("cannot use directory \(path): \(String(cString: strerror(errno))); create it with mode 0700 for handoffd's user")
        }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw .identity("\(path) is not a directory; point the configuration at a directory") }
        if st.st_uid != geteuid() {
            throw .identity(
                "directory \(path) belongs to uid \(st.st_uid), not to handoffd's uid \(geteuid()); run `chown \(geteuid()) \(path)` if it is handoffd's, or use another directory"
            )
        }
        if st.st_mode & 0o022 != 0 {
            throw .identity(
                "directory \(path) is writable by group or others (mode \(String(st.st_mode & 0o777, radix: 8))); run `chmod 700 \(path)`")
        }
    }

    /// Each path that exists must be a regular file, not a symbolic link.
    public static func refuseLinks(_ paths: [String]) throws(LinkError) {
        for path in paths {
            var st = stat()
            if lstat(path, &st) != 0 {
                if errno == ENOENT { continue }
                throw .identity("cannot check \(path): \(String(cString: strerror(errno)))")
            }
            if st.st_mode & S_IFMT == S_IFLNK {
                throw .identity("\(path) is a symbolic link; handoffd's files must be plain files in its own directory: remove the link")
            }
            if st.st_mode & S_IFMT != S_IFREG { throw .identity("\(path) is not a regular file; move it aside") }
        }
    }

    /// A database file and the files SQLite keeps beside it.
    public static func sqlitePaths(_ path: String) -> [String] { [path, path + "-wal", path + "-shm", path + "-journal"] }
}
