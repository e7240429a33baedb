@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// This machine's long-term X25519 key pair, kept in the state directory as 32 raw bytes with
/// mode 0600. Made on first start; a key file readable by anyone else is refused, not used.
public struct IdentityKey: Sendable {
    public static let fileName = "identity.key"

    public let privateKey: X25519.PrivateKey
    public var identity: PeerIdentity { PeerIdentity(publicKey: Array(privateKey.publicKey.rawRepresentation)) }

    public init(privateKey: X25519.PrivateKey = X25519.PrivateKey()) { self.privateKey = privateKey }

    /// Loads the key from `directory`, or makes and stores a new one if there is none. Only a
    /// file that does not exist is replaced: any other failure (permissions, I/O, a link) is an
    /// error, never a reason to overwrite the identity every pairing rests on.
    public static func loadOrCreate(in directory: URL) throws(LinkError) -> IdentityKey {
        let path = directory.appendingPathComponent(fileName).path
        var st = stat()
        if lstat(path, &st) != 0 {
            let why = errno
            guard why == ENOENT else {
                throw .identity(
                    "cannot read \(path): \(String(cString: strerror(why))); fix the file or its directory (handoffd does not replace an identity it cannot read)"
                )
            }
            let key = IdentityKey()
            try DurableFile.write(Array(key.privateKey.rawRepresentation), to: path, mode: 0o600)
            return key
        }
        try PrivateFiles.refuseLinks([path])
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .identity("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fstat(fd, &st) == 0 else { throw .identity("cannot read \(path): \(String(cString: strerror(errno)))") }
        if st.st_mode & 0o077 != 0 {
            throw .identity(
                "\(path) is readable or writable by others (mode \(String(st.st_mode & 0o777, radix: 8))); run `chmod 600 \(path)` and check that nobody copied it"
            )
        }
        if st.st_uid != geteuid() {
            throw .identity("\(path) belongs to uid \(st.st_uid), not to handoffd's uid \(geteuid()); fix its owner")
        }
        var bytes = [UInt8](repeating: 0, count: 33)
        let n = bytes.withUnsafeMutableBufferPointer { read(fd, $0.baseAddress, 33) }
        guard n == 32, let key = try? X25519.PrivateKey(rawRepresentation: bytes.prefix(32)) else {
            throw .identity("\(path) is not a 32-byte key; move it aside to make a new identity (peers must then pair again)")
        }
        return IdentityKey(privateKey: key)
    }
}

/// Writes a file so that after a crash or power loss it holds either the old or the new content:
/// a temporary file, fsync, rename, fsync of the directory.
enum DurableFile {
    static func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws(LinkError) {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let tmp = path + ".tmp-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .identity("cannot create \(tmp): \(String(cString: strerror(errno))); check that \(dir) exists and is writable") }
        var ok = bytes.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
        ok = ok && fchmod(fd, mode) == 0 && fsync(fd) == 0
        close(fd)
        guard ok, rename(tmp, path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(tmp)
            throw .identity("cannot write \(path): \(why)")
        }
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }
}
