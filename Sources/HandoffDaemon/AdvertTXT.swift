@preconcurrency import Crypto
import Foundation
import HandoffDiscovery
import HandoffLink

/// handoffd's TXT entries (the discovery layer adds txtvers and seq):
///   pv  peer protocol version        fp  identity fingerprint
///   ag  advertising key generation   n   the record's random salt (base64url, 16 bytes)
///   t0..t3  one sealed token per advertised activity
/// A token is the activity id (16 bytes), the first 4 bytes of SHA-256(type) and the version
/// (4 bytes), sealed with the advertising key: a stranger learns that a handoffd runs here and
/// how many activities it offers, nothing about what they are.
public enum AdvertTXT {
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

        var bytes: [UInt8] {
            withUnsafeBytes(of: activityID.uuid) { Array($0) } + typeHash + withUnsafeBytes(of: version.bigEndian) { Array($0) }
        }

        init?(bytes: [UInt8]) {
            guard bytes.count == 24 else { return nil }
            let u = bytes.prefix(16)
            activityID = UUID(uuid: (u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]))
            typeHash = Array(bytes[16..<20])
            version = bytes[20..<24].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
    }

    /// What a peer's record says, as far as our copy of its advertising key lets us read it.
    public struct Reading: Sendable, Equatable {
        public let protocolVersion: Int?
        public let fingerprint: String?
        public let keyGeneration: UInt32?
        /// nil when we hold no key for it, or a key of another generation: fetch it over the link.
        public let tokens: [Token]?
    }

    public static func typeHash(_ type: String) -> [UInt8] { Array(SHA256.hash(data: Array(type.utf8)).prefix(4)) }

    public static func record(
        tokens: [Token], key: AdvertisingKey, salt: [UInt8] = AdvertisingKey.randomSalt(),
        fingerprint: String
    ) throws(TXTError) -> TXTRecord {
        var entries: [TXTRecord.Entry] = [
            .init("pv", String(PeerMessage.protocolVersion)), .init("fp", fingerprint),
            .init("ag", String(key.generation)), .init("n", base64url(salt))
        ]
        for (i, token) in tokens.prefix(CurrentActivities.maxCurrent).enumerated() {
            entries.append(.init("t\(i)", base64url(key.seal(token.bytes, salt: salt, index: UInt32(i)))))
        }
        return try TXTRecord(entries)
    }

    public static func read(_ txt: TXTRecord, key: AdvertisingKey?) -> Reading {
        let generation = txt["ag"].flatMap(UInt32.init)
        var tokens: [Token]?
        if let key, key.generation == generation, let salt = txt["n"].flatMap(unbase64url), salt.count == AdvertisingKey.saltBytes {
            tokens = []
            for i in 0..<CurrentActivities.maxCurrent {
                guard let text = txt["t\(i)"] else { break }
                guard let sealed = unbase64url(text), let plain = key.open(sealed, salt: salt, index: UInt32(i)),
                    let token = Token(bytes: plain)
                else {
                    tokens = nil
                    break
                }
                tokens?.append(token)
            }
        }
        return Reading(protocolVersion: txt["pv"].flatMap(Int.init), fingerprint: txt["fp"], keyGeneration: generation, tokens: tokens)
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func unbase64url(_ text: String) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map(Array.init)
    }
}
