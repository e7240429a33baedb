/// Failures of the Noise layer. A session that hits any of these is closed.
public enum NoiseError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidPublicKey(String)
    case decryptFailed
    case nonceExhausted
    case messageTooLong(Int)
    case malformedMessage(String)
    case outOfOrder(String)

    public var description: String {
        switch self {
        case .invalidPublicKey(let why): "the peer's public key is refused: \(why)"
        case .decryptFailed: "a message failed authentication (tampered, replayed or out of order)"
        case .nonceExhausted: "the session has sent 2^64-1 messages; reconnect"
        case .messageTooLong(let n): "a Noise message of \(n) bytes exceeds 65,535"
        case .malformedMessage(let why): "malformed handshake message: \(why)"
        case .outOfOrder(let why): "handshake step out of order: \(why)"
        }
    }
}
