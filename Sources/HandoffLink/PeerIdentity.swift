import HandoffCore
@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A machine's long-term public key, its id (SHA-256 of the key, hex) and the short fingerprint
/// people compare and TXT may carry.
public struct PeerIdentity: Sendable, Hashable, CustomStringConvertible {
    public let publicKey: [UInt8]
    /// SHA-256 of the key in hex. Computed once: it is the key of every lookup.
    public let id: PeerID

    public init(publicKey: [UInt8]) {
        self.publicKey = publicKey
        id = PeerID(Self.hex(Array(SHA256.hash(data: publicKey))))
    }

    /// The first 8 bytes of the id in four groups: "3f2a-91c0-7d44-e1b8".
    public var fingerprint: String {
        let hex = Array(id.rawValue.utf8.prefix(16))
        return stride(from: 0, to: 16, by: 4).map { String(decoding: hex[$0..<$0 + 4], as: UTF8.self) }.joined(separator: "-")
    }

    public var description: String { fingerprint }

    public static func == (a: PeerIdentity, b: PeerIdentity) -> Bool { a.publicKey == b.publicKey }
    public func hash(into h: inout Hasher) { h.combine(publicKey) }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
