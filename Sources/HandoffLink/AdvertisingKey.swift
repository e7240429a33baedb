@preconcurrency import Crypto
import Foundation

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

    /// Seals `token`. The nonce is the TXT sequence number and the token's index: the sequence
    /// never repeats (it grows with the clock across restarts), so neither does a (key, nonce) pair.
    public func seal(_ token: [UInt8], sequence: UInt64, index: UInt32) -> [UInt8] {
        let box = try! ChaChaPoly.seal(token, using: SymmetricKey(data: key), nonce: Self.nonce(sequence, index), authenticating: Self.ad(generation))
        return Array(box.ciphertext) + Array(box.tag)
    }

    /// Opens a sealed token; nil if it was sealed with another key (or tampered with).
    public func open(_ sealed: [UInt8], sequence: UInt64, index: UInt32) -> [UInt8]? {
        guard sealed.count >= 16,
              let box = try? ChaChaPoly.SealedBox(nonce: Self.nonce(sequence, index), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16)),
              let plain = try? ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: Self.ad(generation)) else { return nil }
        return Array(plain)
    }

    static func nonce(_ sequence: UInt64, _ index: UInt32) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(i))) }
        for i in 0..<4 { bytes[8 + i] = UInt8(truncatingIfNeeded: index >> (8 * UInt32(i))) }
        return try! ChaChaPoly.Nonce(data: bytes)
    }

    static func ad(_ generation: UInt32) -> [UInt8] { Array("handoffd-advert".utf8) + withUnsafeBytes(of: generation.bigEndian) { Array($0) } }
}
