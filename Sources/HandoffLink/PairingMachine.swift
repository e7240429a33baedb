@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a pairing ended without pinning anything.
public enum PairingFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case rejectedHere
    case rejectedByPeer
    case commitMismatch
    case timedOut
    case cancelled
    case anotherAttempt
    case connectionLost
    case protocolError(String)

    public var description: String {
        switch self {
        case .rejectedHere: "pairing rejected on this machine; nothing was stored"
        case .rejectedByPeer: "the other machine rejected the code; if the codes differed, someone may be in the middle: nothing was stored"
        case .commitMismatch: "the other machine changed its contribution to the code (possible attack); nothing was stored"
        case .timedOut: "the pairing window closed before both sides confirmed; nothing was stored"
        case .cancelled: "pairing was cancelled; nothing was stored"
        case .anotherAttempt: "another device tried to pair at the same time; both attempts were stopped, nothing was stored: try again"
        case .connectionLost: "the connection was lost during pairing; nothing was stored"
        case .protocolError(let why): "pairing protocol error (\(why)); nothing was stored"
        }
    }

    var wireCode: UInt8 {
        switch self {
        case .rejectedHere, .rejectedByPeer: 1
        case .commitMismatch: 2
        case .timedOut: 3
        case .cancelled: 4
        case .anotherAttempt: 5
        case .connectionLost, .protocolError: 6
        }
    }

    /// How the peer's reason reads on this side.
    static func fromPeer(_ code: UInt8) -> PairingFailure {
        switch code {
        case 2: .commitMismatch
        case 3: .timedOut
        case 4: .cancelled
        case 5: .anotherAttempt
        case 6: .protocolError("reported by the peer")
        default: .rejectedByPeer
        }
    }
}

/// The numeric-comparison exchange that follows a pairing handshake, as a pure state machine.
///
/// The initiator commits to a random nonce before it sees the responder's, and reveals it after;
/// the code is derived from the Noise handshake hash and both nonces. A man in the middle runs two
/// handshakes with different hashes and must fix his nonce on one side before he learns the other
/// side's: he matches the codes with probability 1 in 10^6, however much he computes.
public struct PairingMachine: Sendable {
    public enum Output: Sendable, Equatable {
        case send([UInt8])
        case showCode(String)
        /// Both users confirmed: pin the peer's key now.
        case pinned
        case failed(PairingFailure)
    }

    enum Message: UInt8 {
        case commit = 1
        case nonce = 2
        case reveal = 3
        case confirm = 4
        case reject = 5
    }
    /// Each state holds what matters in it alone: the responder the initiator's commitment until
    /// the reveal, both sides the code and who confirmed it while people decide.
    private enum State: Sendable {
        /// Initiator, before `start()`.
        case start
        /// Responder, before the initiator's commitment.
        case awaitingCommit
        /// Initiator, committed, before the responder's nonce.
        case awaitingNonce
        /// Responder, its nonce sent, before the initiator reveals the nonce it committed to.
        case awaitingReveal(peerCommit: [UInt8])
        /// Both codes shown: waiting for the person here and the machine there.
        case deciding(code: String, confirmedHere: Bool, confirmedThere: Bool)
        /// Pinned or failed; the code stays readable once shown.
        case done(code: String?)

        /// For a protocol error's message (never the state's data: no nonce or code).
        var name: String {
            switch self {
            case .start: "start"
            case .awaitingCommit: "awaitingCommit"
            case .awaitingNonce: "awaitingNonce"
            case .awaitingReveal: "awaitingReveal"
            case .deciding: "deciding"
            case .done: "done"
            }
        }
    }

    public let role: NoiseHandshake.Role
    private let handshakeHash: [UInt8]
    private let ownNonce: [UInt8]
    private var state: State

    public init(role: NoiseHandshake.Role, handshakeHash: [UInt8], nonce: [UInt8]? = nil) {
        self.role = role
        self.handshakeHash = handshakeHash
        ownNonce = nonce ?? SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }
        state = role == .initiator ? .start : .awaitingCommit
    }

    public var isFinished: Bool { if case .done = state { true } else { false } }

    /// The six digits both people compare, once this side has derived them.
    public var code: String? {
        switch state {
        case .deciding(let code, _, _): code
        case .done(let code): code
        default: nil
        }
    }

    /// Initiator: the commitment to our nonce.
    public mutating func start() -> [Output] {
        guard role == .initiator, case .start = state else { return [] }
        state = .awaitingNonce
        return [.send([Message.commit.rawValue] + Self.commitment(handshakeHash, ownNonce))]
    }

    public mutating func receive(_ message: [UInt8]) -> [Output] {
        guard let type = message.first.flatMap(Message.init(rawValue:)) else { return fail(.protocolError("unknown message"), tell: true) }
        let body = Array(message.dropFirst())
        switch (type, state) {
        case (.commit, .awaitingCommit) where body.count == 32:
            state = .awaitingReveal(peerCommit: body)
            return [.send([Message.nonce.rawValue] + ownNonce)]
        case (.nonce, .awaitingNonce) where body.count == 16:
            let c = Self.code(handshakeHash, initiatorNonce: ownNonce, responderNonce: body)
            state = .deciding(code: c, confirmedHere: false, confirmedThere: false)
            return [.send([Message.reveal.rawValue] + ownNonce), .showCode(c)]
        case (.reveal, .awaitingReveal(let peerCommit)) where body.count == 16:
            guard Self.commitment(handshakeHash, body) == peerCommit else { return fail(.commitMismatch, tell: true) }
            let c = Self.code(handshakeHash, initiatorNonce: body, responderNonce: ownNonce)
            state = .deciding(code: c, confirmedHere: false, confirmedThere: false)
            return [.showCode(c)]
        case (.confirm, .deciding(let code, let here, _)):
            state = .deciding(code: code, confirmedHere: here, confirmedThere: true)
            return here ? finish() : []
        case (.reject, _) where !isFinished:
            state = .done(code: code)
            return [.failed(.fromPeer(body.first ?? 1))]
        default:
            return fail(.protocolError("unexpected message \(type) in state \(state.name)"), tell: true)
        }
    }

    /// The user here confirmed that both machines show the same code.
    public mutating func confirm() -> [Output] {
        guard case .deciding(let code, false, let there) = state else { return [] }
        state = .deciding(code: code, confirmedHere: true, confirmedThere: there)
        return [.send([Message.confirm.rawValue])] + (there ? finish() : [])
    }

    /// The user here rejected (codes differ), or cancelled, or the window timed out.
    public mutating func abort(_ reason: PairingFailure) -> [Output] {
        if case .done = state { return [] }
        return fail(reason, tell: true)
    }

    private mutating func finish() -> [Output] {
        state = .done(code: code)
        return [.pinned]
    }

    private mutating func fail(_ reason: PairingFailure, tell: Bool) -> [Output] {
        state = .done(code: code)
        return (tell ? [.send([Message.reject.rawValue, reason.wireCode])] : []) + [.failed(reason)]
    }

    static func commitment(_ h: [UInt8], _ nonce: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: Array("handoffd pairing commit".utf8) + h + nonce))
    }

    /// Six decimal digits from the handshake hash and both nonces.
    static func code(_ h: [UInt8], initiatorNonce: [UInt8], responderNonce: [UInt8]) -> String {
        let d = Array(SHA256.hash(data: Array("handoffd pairing code".utf8) + h + initiatorNonce + responderNonce))
        let n = (UInt32(d[0]) << 24 | UInt32(d[1]) << 16 | UInt32(d[2]) << 8 | UInt32(d[3])) % 1_000_000
        let digits = String(n)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}

/// Three failed pairings lock pairing for five minutes.
public struct PairingLockout: Sendable {
    public static let maxFailures = 3
    public static let duration: TimeInterval = 300

    private var failures = 0
    public private(set) var lockedUntil: Date?

    public init() {}

    public func isLocked(at now: Date) -> Bool { lockedUntil.map { now < $0 } ?? false }

    public mutating func recordFailure(at now: Date) {
        if let until = lockedUntil, now >= until {
            lockedUntil = nil
            failures = 0
        }
        failures += 1
        if failures >= Self.maxFailures {
            lockedUntil = now.addingTimeInterval(Self.duration)
            failures = 0
        }
    }

    public mutating func recordSuccess() { failures = 0 }
}
