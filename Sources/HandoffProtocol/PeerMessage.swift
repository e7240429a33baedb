#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// A message of the peer protocol (docs/PROTOCOL.md), carried as one application message of a
/// link session and encoded with the canonical encoding.
public enum PeerMessage: Sendable, Equatable {
    public static let protocolVersion: Int64 = 1

    /// Opens every session: what we are, which activity types we accept, where our link listens.
    case hello(id: Int64, Hello)
    case list(id: Int64)
    case activities(id: Int64, items: [ActivitySummary])
    case fetch(id: Int64, activityID: UUID)
    case activity(id: Int64, activity: UserActivity)
    /// The continuing machine's report to the origin (userActivityWasContinued / didFail...).
    case continued(activityID: UUID, version: UInt64, outcome: RemoteOutcome)
    /// The origin sends an activity to be dispatched on the receiver.
    case push(id: Int64, activity: UserActivity)
    case outcome(id: Int64, outcome: RemoteOutcome)
    /// The origin's current activities changed (sent at once to peers with an open session).
    case changed(items: [ActivitySummary])
    case invalidated(activityID: UUID)
    case ping(id: Int64)
    case pong(id: Int64)
    /// The sender is stopping (SIGTERM): the receiver marks it absent now and closes the session.
    case goodbye
    /// The continuing machine asks for a continuation stream with the app that owns `activityID`
    /// here (it continued that activity, or we pushed it there); `window` is what it lets us
    /// have outstanding toward it. Answered with `streamAccepted` or an `error`.
    case streamOpen(id: Int64, stream: UInt64, activityID: UUID, window: UInt32)
    case streamAccepted(id: Int64, stream: UInt64, window: UInt32)
    /// An answer that says why a request could not be served (`id` nil: not a request).
    case error(id: Int64?, code: FailureCode, message: String)
    /// The shared clipboard: offers, withdrawals, and the bytes fetched on paste.
    case clipboard(ClipboardMessage)
}

/// What a `hello` says.
public struct Hello: Sendable, Equatable {
    public var protocolVersion: Int64
    public var device: String
    public var types: [String]
    /// The sender's link port: a session it opened comes from another, ephemeral, port.
    public var port: Int64?
    /// The sender's own addresses now (link-local ones left out), so that the receiver can dial
    /// it there later; remembered like the address a session came from, never trusted.
    public var addresses: [String]

    /// At most this many addresses are read from a peer's hello.
    public static let maxAddresses = 16
    /// Longer addresses (an IPv6 literal with a zone is at most about 60) are refused.
    public static let maxAddressBytes = 64
    /// A device name (shown to the person) of at most this many bytes.
    public static let maxDeviceBytes = 64
    /// At most this many declared activity types, each at most `maxTypeBytes`.
    public static let maxTypes = 64
    public static let maxTypeBytes = 128

    public init(protocolVersion: Int64 = PeerMessage.protocolVersion, device: String, types: [String], port: Int64? = nil, addresses: [String] = []) {
        self.protocolVersion = protocolVersion
        self.device = device
        self.types = types
        self.port = port
        self.addresses = addresses
    }
}

/// One line of a peer's activity list.
public struct ActivitySummary: Sendable, Equatable {
    public let activityID: UUID
    public let type: String
    public let title: String?
    public let scene: UUID?
    public let version: UInt64
    /// When the activity last changed on its machine (published or updated), by that machine's
    /// clock: lists and search show it beside the activity. Absent from peers that do not send it.
    public let updated: Date?

    public init(activityID: UUID, type: String, title: String?, scene: UUID?, version: UInt64, updated: Date? = nil) {
        self.activityID = activityID
        self.type = type
        self.title = title
        self.scene = scene
        self.version = version
        self.updated = updated
    }

    /// Titles in lists are cut to this many bytes: a list of the current activities must fit one
    /// frame whatever their titles (the whole activity, fetched, carries the whole title).
    public static let maxTitleBytes = 256

    public init(_ activity: UserActivity, scene: UUID?, updated: Date? = nil) {
        self.init(
            activityID: activity.id, type: activity.type.rawValue, title: activity.title.map(Self.cut), scene: scene,
            version: activity.version, updated: updated)
    }

    static func cut(_ title: String) -> String {
        guard title.utf8.count > maxTitleBytes else { return title }
        var out = ""
        for c in title where out.utf8.count + c.utf8.count <= maxTitleBytes - 3 { out.append(c) }
        return out + "…"
    }
}

/// How a continuation or a push ended, as the other machine reports it.
public enum RemoteOutcome: Sendable, Equatable {
    case continued
    /// `code` is a `ContinuationFailure.code`; `message` its description on the reporting machine.
    case failed(code: FailureCode, message: String)

    public init(_ failure: ContinuationFailure) { self = .failed(code: failure.code, message: failure.description) }
}

/// Why a received message was not understood. Answered with `error`, never a crash.
public enum PeerProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    case undecodable(CodecError)
    case unknownType(String)
    case badField(String, String)

    public var description: String {
        switch self {
        case .undecodable(let e): "undecodable peer message: \(e)"
        case .unknownType(let t): "unknown peer message type '\(t)'"
        case .badField(let f, let why): "peer message field '\(f)': \(why)"
        }
    }

    public var code: FailureCode {
        switch self {
        case .undecodable: .undecodable
        case .unknownType: .unknownMessage
        case .badField: .badField
        }
    }
}
