@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Noise CipherState (spec section 5.1) with ChaChaPoly: a key and a nonce counter that never
/// repeats. Receiving with an implicit counter is what rejects replayed and reordered frames.
public struct NoiseCipherState: Sendable {
    static let maxNonce = UInt64.max  // reserved by the spec; reaching it ends the session
    private(set) var key: SymmetricKey?
    private(set) var nonce: UInt64 = 0

    init(key: [UInt8]? = nil) { self.key = key.map { SymmetricKey(data: $0) } }

    var hasKey: Bool { key != nil }

    mutating func encrypt(ad: [UInt8], plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard hasKey else { return plaintext }
        let box = try withNextNonce(failing: .malformedMessage("encryption failed")) {
            try ChaChaPoly.seal(plaintext, using: $0, nonce: $1, authenticating: ad)
        }
        // One copy out of the sealed box, the tag appended (a `+` of two arrays copied it all again).
        var out = [UInt8]()
        out.reserveCapacity(plaintext.count + 16)
        out.append(contentsOf: box.ciphertext)
        out.append(contentsOf: box.tag)
        return out
    }

    mutating func decrypt(ad: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard hasKey else { return ciphertext }
        guard ciphertext.count >= 16 else { throw .decryptFailed }
        let plain = try withNextNonce(failing: .decryptFailed) {
            try ChaChaPoly.open(
                ChaChaPoly.SealedBox(nonce: $1, ciphertext: ciphertext.dropLast(16), tag: ciphertext.suffix(16)), using: $0, authenticating: ad)
        }
        return Array(plain)
    }

    /// The ChaChaPoly nonce of the spec for counter `n` (`appendNonce`).
    static func nonce(_ n: UInt64) -> ChaChaPoly.Nonce {
        var bytes = Data(capacity: 12)
        appendNonce(n, to: &bytes)
        return try! ChaChaPoly.Nonce(data: bytes)
    }
}

extension NoiseCipherState {
    /// Runs one seal or open with the key and the next nonce. The counter moves only once `body`
    /// succeeded, so a forged frame cannot desynchronise the session; any failure is `failure`.
    mutating func withNextNonce<T>(failing failure: NoiseError, _ body: (SymmetricKey, ChaChaPoly.Nonce) throws -> T) throws(NoiseError) -> T {
        try withNextCounter(failing: failure) { try body($0, Self.nonce($1)) }
    }

    /// The same with the nonce's counter, for a caller that writes the nonce's bytes itself.
    mutating func withNextCounter<T>(failing failure: NoiseError, _ body: (SymmetricKey, UInt64) throws -> T) throws(NoiseError) -> T {
        guard let key else { throw .malformedMessage("a transport frame before the handshake") }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        do {
            let result = try body(key, nonce)
            nonce += 1
            return result
        } catch {
            throw failure
        }
    }

    /// The nonce of counter `n` appended to `data`: 32 bits of zeros, then `n` little-endian.
    static func appendNonce(_ n: UInt64, to data: inout Data) {
        var words = (UInt32(0), UInt32(truncatingIfNeeded: n).littleEndian, UInt32(truncatingIfNeeded: n >> 32).littleEndian)
        withUnsafeBytes(of: &words) { data.append($0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 12) }
    }
}
