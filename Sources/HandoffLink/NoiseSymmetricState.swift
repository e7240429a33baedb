@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Noise SymmetricState (spec section 5.2) with SHA-256: the chaining key, the transcript hash
/// and the cipher that handshake payloads are sealed with.
struct NoiseSymmetricState: Sendable {
    private(set) var ck: [UInt8]
    private(set) var h: [UInt8]
    private(set) var cipher = NoiseCipherState()

    init(protocolName: String) {
        let name = Array(protocolName.utf8)
        h = name.count <= 32 ? name + [UInt8](repeating: 0, count: 32 - name.count) : Array(SHA256.hash(data: name))
        ck = h
    }

    mutating func mixKey(_ ikm: [UInt8]) {
        let (newCK, tempK) = Self.hkdf(chainingKey: ck, ikm: ikm)
        ck = newCK
        cipher = NoiseCipherState(key: tempK)
    }

    mutating func mixHash(_ data: [UInt8]) {
        h = Array(SHA256.hash(data: h + data))
    }

    mutating func encryptAndHash(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let ct = try cipher.encrypt(ad: h, plaintext: plaintext)
        mixHash(ct)
        return ct
    }

    mutating func decryptAndHash(_ ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let pt = try cipher.decrypt(ad: h, ciphertext: ciphertext)
        mixHash(ciphertext)
        return pt
    }

    func split() -> (NoiseCipherState, NoiseCipherState) {
        let (k1, k2) = Self.hkdf(chainingKey: ck, ikm: [])
        return (NoiseCipherState(key: k1), NoiseCipherState(key: k2))
    }

    /// HKDF as Noise defines it (two outputs), on HMAC-SHA256.
    static func hkdf(chainingKey: [UInt8], ikm: [UInt8]) -> ([UInt8], [UInt8]) {
        let temp = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: ikm, using: SymmetricKey(data: chainingKey)))
        let out1 = Array(HMAC<SHA256>.authenticationCode(for: [0x01], using: temp))
        let out2 = Array(HMAC<SHA256>.authenticationCode(for: out1 + [0x02], using: temp))
        return (out1, out2)
    }
}
