@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// X25519 with the checks swift-crypto leaves to us: it accepts the all-zero and low-order public
/// keys and returns an all-zero shared secret, which would make a session key predictable.
public enum X25519 {
    public typealias PrivateKey = Curve25519.KeyAgreement.PrivateKey

    public static func checkPublicKey(_ key: [UInt8]) throws(NoiseError) {
        guard key.count == 32 else { throw .invalidPublicKey("it is \(key.count) bytes, not 32") }
        if key.allSatisfy({ $0 == 0 }) { throw .invalidPublicKey("it is all zeros") }
    }

    /// The shared secret; throws for a key whose result is all zeros (any low-order point).
    public static func dh(_ priv: PrivateKey, _ pub: [UInt8]) throws(NoiseError) -> [UInt8] {
        try checkPublicKey(pub)
        let secret: [UInt8]
        do {
            let pk = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: pub)
            secret = try priv.sharedSecretFromKeyAgreement(with: pk).withUnsafeBytes { Array($0) }
        } catch {
            throw .invalidPublicKey("it is not a Curve25519 point")
        }
        // Constant-time enough: we only learn whether every byte is zero.
        if secret.reduce(0, |) == 0 { throw .invalidPublicKey("it has low order (the shared secret would be zero)") }
        return secret
    }
}
