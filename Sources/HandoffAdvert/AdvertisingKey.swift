@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The symmetric key that seals the activity tokens this machine puts in its TXT record, so that
/// only paired peers (who receive it over the link) can read them. Rotated whenever a peer is
/// unpaired; the generation tells peers which key a record was sealed with.
public struct AdvertisingKey: Sendable, Equatable {
    public let generation: UInt32
    public let key: [UInt8]

    public init(generation: UInt32, key: [UInt8]) {
        self.generation = generation
        self.key = key
    }

    public static func random(generation: UInt32) -> AdvertisingKey {
        AdvertisingKey(generation: generation, key: SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
    }

    public func rotated() -> AdvertisingKey { .random(generation: generation &+ 1) }

    /// Bytes of the per-record salt (`n` in the TXT).
    public static let saltBytes = 16

    /// A fresh salt for one record: random, never from a clock or a counter, so no clock step
    /// or restart can repeat it.
    public static func randomSalt() -> [UInt8] { SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) } }

    /// Seals `token` under a key derived for this record (HKDF of our key and the record's
    /// random salt), with the token's index as nonce: a (key, nonce) pair never repeats unless
    /// two 128-bit random salts do.
    public func seal(_ token: [UInt8], salt: [UInt8], index: UInt32) -> [UInt8] {
        let box = try! ChaChaPoly.seal(token, using: recordKey(salt), nonce: Self.nonce(index), authenticating: Self.ad(generation))
        return Array(box.ciphertext) + Array(box.tag)
    }

    /// Opens a sealed token; nil if it was sealed with another key or salt (or tampered with).
    public func open(_ sealed: [UInt8], salt: [UInt8], index: UInt32) -> [UInt8]? {
        guard sealed.count >= 16,
            let box = try? ChaChaPoly.SealedBox(nonce: Self.nonce(index), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16)),
            let plain = try? ChaChaPoly.open(box, using: recordKey(salt), authenticating: Self.ad(generation))
        else { return nil }
        return Array(plain)
    }

    private func recordKey(_ salt: [UInt8]) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key), salt: salt, info: Self.ad(generation), outputByteCount: 32)
    }

    static func nonce(_ index: UInt32) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for i in 0..<4 { bytes[8 + i] = UInt8(truncatingIfNeeded: index >> (8 * UInt32(i))) }
        return try! ChaChaPoly.Nonce(data: bytes)
    }

    static func ad(_ generation: UInt32) -> [UInt8] { Array("handoffd-advert".utf8) + withUnsafeBytes(of: generation.bigEndian) { Array($0) } }
}
