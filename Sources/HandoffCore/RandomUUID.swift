#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension UUID {
    /// A version 4 UUID from the system's generator (getrandom(2), 8 bytes a call): Foundation's
    /// `UUID()` on Linux opens /dev/urandom, reads it and closes it each time, three system calls
    /// that were a sixth of a live handler's offer on a push (docs/PERFORMANCE.md). The daemon's tokens use it.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: generator.next() as UInt64, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: generator.next() as UInt64, toByteOffset: 8, as: UInt64.self)
        }
        bytes.6 = bytes.6 & 0x0F | 0x40  // version 4
        bytes.8 = bytes.8 & 0x3F | 0x80  // variant RFC 4122
        return UUID(uuid: bytes)
    }
}
