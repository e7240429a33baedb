@preconcurrency import Crypto
import Foundation

/// A machine's long-term public key, its id (SHA-256 of the key, hex) and the short fingerprint
/// people compare and TXT may carry.
public struct PeerIdentity: Sendable, Hashable, CustomStringConvertible {
    public let publicKey: [UInt8]

    public init(publicKey: [UInt8]) { self.publicKey = publicKey }

    public var id: String { Array(SHA256.hash(data: publicKey)).map { String(format: "%02x", $0) }.joined() }

    /// The first 8 bytes of the id in four groups: "3f2a-91c0-7d44-e1b8".
    public var fingerprint: String {
        let hex = String(id.prefix(16))
        return stride(from: 0, to: 16, by: 4).map { i in
            String(hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 4)])
        }.joined(separator: "-")
    }

    public var description: String { fingerprint }
}
