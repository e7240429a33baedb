@preconcurrency import Crypto
import Foundation

/// Noise CipherState (spec section 5.1) with ChaChaPoly: a key and a nonce counter that never
/// repeats. Receiving with an implicit counter is what rejects replayed and reordered frames.
public struct NoiseCipherState: Sendable {
    static let maxNonce = UInt64.max  // reserved by the spec; reaching it ends the session
    private(set) var key: SymmetricKey?
    private(set) var nonce: UInt64 = 0

    init(key: [UInt8]? = nil) { self.key = key.map { SymmetricKey(data: $0) } }

    var hasKey: Bool { key != nil }

    mutating func encrypt(ad: [UInt8], plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else { return plaintext }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        do {
            let box = try ChaChaPoly.seal(plaintext, using: key, nonce: Self.nonce(nonce), authenticating: ad)
            nonce += 1
            // One copy out of the sealed box, the tag appended (a `+` of two arrays copied it all again).
            var out = [UInt8]()
            out.reserveCapacity(plaintext.count + 16)
            out.append(contentsOf: box.ciphertext)
            out.append(contentsOf: box.tag)
            return out
        } catch {
            throw .malformedMessage("encryption failed")
        }
    }

    mutating func decrypt(ad: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else { return ciphertext }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        guard ciphertext.count >= 16 else { throw .decryptFailed }
        do {
            let box = try ChaChaPoly.SealedBox(nonce: Self.nonce(nonce), ciphertext: ciphertext.dropLast(16), tag: ciphertext.suffix(16))
            let plain = try ChaChaPoly.open(box, using: key, authenticating: ad)
            // The counter moves only on success, so a forged frame cannot desynchronise the session.
            nonce += 1
            return Array(plain)
        } catch {
            throw .decryptFailed
        }
    }

    /// 32 bits of zeros, then the counter little-endian (the ChaChaPoly nonce of the spec).
    static func nonce(_ n: UInt64) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for i in 0..<8 { bytes[4 + i] = UInt8(truncatingIfNeeded: n >> (8 * UInt64(i))) }
        return try! ChaChaPoly.Nonce(data: bytes)
    }
}

extension NoiseCipherState {
    /// Runs one seal with the key and the next nonce; the counter moves only once it succeeded.
    mutating func seal(_ body: (SymmetricKey, ChaChaPoly.Nonce) throws -> ChaChaPoly.SealedBox) throws(NoiseError) -> ChaChaPoly.SealedBox {
        guard let key else { throw .malformedMessage("a transport frame before the handshake") }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        do {
            let box = try body(key, Self.nonce(nonce))
            nonce += 1
            return box
        } catch {
            throw .malformedMessage("encryption failed")
        }
    }

    /// Runs one open with the key and the next nonce; the counter moves only on success, so a
    /// forged frame cannot desynchronise the session.
    mutating func open(_ body: (SymmetricKey, ChaChaPoly.Nonce) throws -> Data) throws(NoiseError) -> Data {
        guard let key else { throw .malformedMessage("a transport frame before the handshake") }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        do {
            let plain = try body(key, Self.nonce(nonce))
            nonce += 1
            return plain
        } catch {
            throw .decryptFailed
        }
    }
}
