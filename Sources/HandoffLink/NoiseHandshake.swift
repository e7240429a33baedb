@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Noise_XX_25519_ChaChaPoly_SHA256 handshake state (spec section 5.3), for either role:
///   -> e
///   <- e, ee, s, es
///   -> s, se
/// Pure: bytes in, bytes out. The static key of the peer is known after message 2 (initiator) or
/// message 3 (responder), before any application payload is accepted.
public struct NoiseHandshake: Sendable {
    public enum Role: Sendable { case initiator, responder }

    public static let protocolName = "Noise_XX_25519_ChaChaPoly_SHA256"
    public static let maxMessage = 65_535

    public let role: Role
    private var symmetric: NoiseSymmetricState
    private let s: X25519.PrivateKey
    private var e: X25519.PrivateKey?
    private let presetEphemeral: X25519.PrivateKey?
    public private(set) var remoteStatic: [UInt8]?
    private var re: [UInt8]?
    /// Index of the next message (0, 1, 2); 3 once complete.
    public private(set) var step = 0

    /// `ephemeral` is for test vectors only; normally a fresh one is made.
    public init(role: Role, prologue: [UInt8], staticKey: X25519.PrivateKey, ephemeral: X25519.PrivateKey? = nil) {
        self.role = role
        symmetric = NoiseSymmetricState(protocolName: Self.protocolName)
        symmetric.mixHash(prologue)
        s = staticKey
        presetEphemeral = ephemeral
    }

    public var isComplete: Bool { step == 3 }
    public var handshakeHash: [UInt8] { symmetric.h }
    /// Whose turn it is to write.
    public var isMyTurn: Bool { (step % 2 == 0) == (role == .initiator) && !isComplete }

    public mutating func writeMessage(payload: [UInt8] = []) throws(NoiseError) -> [UInt8] {
        guard isMyTurn else { throw .outOfOrder("not our turn to write message \(step + 1)") }
        var out: [UInt8] = []
        switch step {
        case 0:
            out += writeEphemeral()
        case 1:
            out += writeEphemeral()
            symmetric.mixKey(try X25519.dh(e!, re!))  // ee
            out += try symmetric.encryptAndHash(publicKey(s))  // s
            symmetric.mixKey(try X25519.dh(s, re!))  // es (responder side)
        default:
            out += try symmetric.encryptAndHash(publicKey(s))  // s
            symmetric.mixKey(try X25519.dh(s, re!))  // se (initiator side)
        }
        out += try symmetric.encryptAndHash(payload)
        guard out.count <= Self.maxMessage else { throw .messageTooLong(out.count) }
        step += 1
        return out
    }

    public mutating func readMessage(_ message: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard !isMyTurn, !isComplete else { throw .outOfOrder("not expecting message \(step + 1)") }
        guard message.count <= Self.maxMessage else { throw .messageTooLong(message.count) }
        var rest = message[...]
        func take(_ n: Int) throws(NoiseError) -> [UInt8] {
            guard rest.count >= n else { throw .malformedMessage("message \(step + 1) is too short") }
            defer { rest = rest.dropFirst(n) }
            return Array(rest.prefix(n))
        }
        switch step {
        case 0:
            try readEphemeral(try take(32))
        case 1:
            try readEphemeral(try take(32))
            symmetric.mixKey(try X25519.dh(e!, re!))  // ee
            let rs = try symmetric.decryptAndHash(try take(48))  // s
            try X25519.checkPublicKey(rs)
            remoteStatic = rs
            symmetric.mixKey(try X25519.dh(e!, rs))  // es (initiator side)
        default:
            let rs = try symmetric.decryptAndHash(try take(48))  // s
            try X25519.checkPublicKey(rs)
            remoteStatic = rs
            symmetric.mixKey(try X25519.dh(e!, rs))  // se (responder side)
        }
        let payload = try symmetric.decryptAndHash(Array(rest))
        step += 1
        return payload
    }

    /// The transport keys, once the handshake is complete.
    public func split() throws(NoiseError) -> NoiseTransport {
        guard isComplete else { throw .outOfOrder("handshake not complete") }
        let (c1, c2) = symmetric.split()
        return role == .initiator ? NoiseTransport(send: c1, receive: c2) : NoiseTransport(send: c2, receive: c1)
    }

    private mutating func writeEphemeral() -> [UInt8] {
        let key = presetEphemeral ?? X25519.PrivateKey()
        e = key
        let pub = publicKey(key)
        symmetric.mixHash(pub)
        return pub
    }

    private mutating func readEphemeral(_ pub: [UInt8]) throws(NoiseError) {
        try X25519.checkPublicKey(pub)
        re = pub
        symmetric.mixHash(pub)
    }

    private func publicKey(_ k: X25519.PrivateKey) -> [UInt8] { Array(k.publicKey.rawRepresentation) }
}

/// The two cipher states of an established session.
public struct NoiseTransport: Sendable {
    var send: NoiseCipherState
    var receive: NoiseCipherState

    public mutating func encrypt(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard plaintext.count + 16 <= NoiseHandshake.maxMessage else { throw .messageTooLong(plaintext.count + 16) }
        return try send.encrypt(ad: [], plaintext: plaintext)
    }

    public mutating func decrypt(_ ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        try receive.decrypt(ad: [], ciphertext: ciphertext)
    }
}
