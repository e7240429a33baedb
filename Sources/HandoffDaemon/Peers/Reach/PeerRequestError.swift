import HandoffCore

/// Why a request to a peer did not get an answer.
public enum PeerRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    case notPaired(String)
    case unreachable(String, reason: String)
    case timedOut(String, after: Duration)
    case sessionClosed(String)
    case refused(code: FailureCode, message: String)
    case unexpectedReply(String)

    public var code: FailureCode {
        switch self {
        case .notPaired: .notPaired
        case .unreachable: .peerUnreachable
        case .timedOut: .peerTimeout
        case .sessionClosed: .peerGone
        case .refused(let code, _): code
        case .unexpectedReply: .unexpectedReply
        }
    }

    public var description: String {
        switch self {
        case .notPaired(let p): "\(p) is not paired with this machine; pair first with `handoffctl pair \(p)`"
        case .unreachable(let p, let why): "cannot reach \(p): \(why)"
        case .timedOut(let p, let d): "\(p) did not answer within \(d)"
        case .sessionClosed(let p): "the session with \(p) closed before it answered"
        case .refused(_, let message): message
        case .unexpectedReply(let what): "the peer answered with \(what)"
        }
    }
}

extension PeerRequestError {
    /// The same, naming the peer as the person knows it: the links know only its key, and
    /// "cannot reach 1e04-57d3-4713-c776" names a machine nobody calls that. A refusal is the
    /// peer's own words, said as its: "here" in them is the peer ("activity ... is not current
    /// here" read as this machine's), and another implementation may write anything there.
    func naming(_ name: String) -> PeerRequestError {
        switch self {
        case .notPaired: .notPaired(name)
        case .unreachable(_, let why): .unreachable(name, reason: why)
        case .timedOut(_, let after): .timedOut(name, after: after)
        case .sessionClosed: .sessionClosed(name)
        case .refused(let code, let message): .refused(code: code, message: "\(name) answered: \(message)")
        case .unexpectedReply: self
        }
    }
}
