@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The activity tokens sealed in the private advert (PrivateAdvert), and the base64url text its
/// binary fields are written in. A token is the activity id (16 bytes), the first 4 bytes of
/// SHA-256(type) and the version (4 bytes): enough for a paired peer to tell whether what it holds
/// of our activities is still current, and which of them are of types it declares.
public enum AdvertTXT {
    /// The pairing advert's one TXT entry besides `v` (`p=1`): "a name you may pair with is here".
    public static let pairingKey = "p"

    public struct Token: Sendable, Equatable {
        public let activityID: UUID
        public let typeHash: [UInt8]
        public let version: UInt32

        public init(activityID: UUID, type: String, version: UInt64) {
            self.activityID = activityID
            typeHash = AdvertTXT.typeHash(type)
            self.version = UInt32(truncatingIfNeeded: version)
        }

        init(activityID: UUID, typeHash: [UInt8], version: UInt32) {
            self.activityID = activityID
            self.typeHash = typeHash
            self.version = version
        }

        public var bytes: [UInt8] {
            withUnsafeBytes(of: activityID.uuid) { Array($0) } + typeHash + withUnsafeBytes(of: version.bigEndian) { Array($0) }
        }

        public init?(bytes: [UInt8]) {
            guard bytes.count == 24 else { return nil }
            let u = bytes.prefix(16)
            activityID = UUID(uuid: (u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]))
            typeHash = Array(bytes[16..<20])
            version = bytes[20..<24].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
    }

    public static func typeHash(_ type: String) -> [UInt8] { Array(SHA256.hash(data: Array(type.utf8)).prefix(4)) }

    public static func base64url(_ bytes: [UInt8]) -> String {
        String(
            Data(bytes).base64EncodedString().compactMap { c -> Character? in
                c == "+" ? "-" : c == "/" ? "_" : c == "=" ? nil : c
            })
    }

    public static func unbase64url(_ text: String) -> [UInt8]? {
        var s = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map(Array.init)
    }
}
