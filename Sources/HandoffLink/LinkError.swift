/// Why a link connection or a pairing ended. Each case says what happened and, where a person can
/// do something, what.
public enum LinkError: Error, Sendable, Equatable, CustomStringConvertible {
    case frameTooLarge(size: Int, limit: Int)
    /// A message we were asked to send does not fit one frame: that send fails, the session stays.
    case messageTooLarge(size: Int, limit: Int)
    case noise(NoiseError)
    case unsupportedVersion(UInt8)
    case badPreamble
    case peerNotPaired(fingerprint: String)
    case unexpectedPeer(expected: String, got: String)
    case handshakeTimeout(seconds: Int)
    case tooManyUnauthenticated
    case closed
    /// The peer did not take what we wrote within the write deadline, or let too much pile up.
    case stalled
    /// The session was closed to keep within the session limits (per peer, or in all).
    case tooManySessions
    case peerClosedHandshake
    /// The peer has unpaired this machine (it told us during the handshake).
    case unpairedByPeer(PeerIdentity)
    /// We told a peer that we unpaired it; no session was made.
    case unpairNoticeDelivered(PeerIdentity)
    case identity(String)
    case refused(PairingRefusal)
    case pairing(PairingFailure)

    public var description: String {
        switch self {
        case .frameTooLarge(let size, let limit): "a frame of \(size) bytes exceeds the limit of \(limit); the connection was closed"
        case .messageTooLarge(let size, let limit): "a message of \(size) bytes does not fit a link frame (at most \(limit)); it was not sent"
        case .noise(let e): e.description
        case .unsupportedVersion(let v): "the peer speaks link protocol version \(v); update handoffd on the older machine"
        case .badPreamble: "the peer is not a handoffd (bad preamble)"
        case .peerNotPaired(let fp): "the peer's key \(fp) is not paired with this machine; pair first with `handoffctl pair`"
        case .unexpectedPeer(let expected, let got): "expected the peer \(expected) but the key presented was \(got)"
        case .handshakeTimeout(let s): "the handshake did not finish within \(s) s"
        case .tooManyUnauthenticated: "too many unauthenticated connections; try again shortly"
        case .closed: "the connection closed"
        case .stalled: "the peer stopped taking what this machine sends (a write missed its deadline); the session was closed"
        case .tooManySessions: "too many sessions with this peer, or in all; the oldest (or this one) was closed"
        case .unpairedByPeer(let p): "the peer \(p.fingerprint) has unpaired this machine; it was removed here too (pair again to reconnect)"
        case .unpairNoticeDelivered(let p): "told the peer \(p.fingerprint) that it was unpaired; no session"
        case .peerClosedHandshake:
            "the peer closed the connection during the handshake: it has not paired with this machine (pair with `handoffctl pair`), or it is shutting down"
        case .identity(let why): why
        case .refused(let r): r.description
        case .pairing(let f): f.description
        }
    }
}
