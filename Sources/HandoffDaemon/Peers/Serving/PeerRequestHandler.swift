#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffCore
import HandoffProtocol

/// How this machine answers a peer's requests (docs/PROTOCOL.md). Knows the current activities
/// and the declared types; asks the owning app for fresh userInfo before sending an activity that
/// needs saving, within a budget. Anything it cannot parse is answered with an `error`, never a
/// crash, and the session goes on.
public struct PeerRequestHandler: Sendable {
    public let device: String
    public let declaredTypes: [String]
    /// The current activities right now.
    public let current: @Sendable () async -> CurrentActivities
    /// Asks the app that owns a needsSave activity for a fresh version; nil if it did not answer.
    public let refresh: @Sendable (UserActivity) async -> UserActivity?
    public var refreshBudget: Duration = .milliseconds(500)

    public init(
        device: String, declaredTypes: [String], current: @escaping @Sendable () async -> CurrentActivities,
        refresh: @escaping @Sendable (UserActivity) async -> UserActivity?
    ) {
        self.device = device
        self.declaredTypes = declaredTypes
        self.current = current
        self.refresh = refresh
    }

    /// The reply to one message from a peer (nil for notifications that need none).
    public func reply(to bytes: [UInt8], at now: Date = Date()) async -> PeerMessage? {
        let message: PeerMessage
        do throws(PeerProtocolError) { message = try PeerMessage(decoding: bytes) } catch {
            return .error(id: nil, code: error.code, message: error.description)
        }
        return await reply(to: message, at: now)
    }

    /// The reply to one decoded message from `peerID` (nil: a test's or this machine's own).
    public func reply(to message: PeerMessage, from peerID: PeerID? = nil, at now: Date = Date()) async -> PeerMessage? {
        switch message {
        case .hello(let id, let hello):
            guard hello.protocolVersion == PeerMessage.protocolVersion else { return Self.unsupported(hello, id: id) }
            return .hello(id: id, Hello(device: device, types: declaredTypes))
        case .list(let id):
            return .activities(id: id, items: await current().summaries(at: now))
        case .fetch(let id, let activityID):
            // An expired activity is still served, so that the continuing machine reports "expired"
            // (on both machines) rather than "not found".
            // One for another machine alone is not found by this one: it must not learn it exists.
            guard
                let entry = await current().entries.first(where: {
                    $0.activity.id == activityID && $0.activity.isEligibleForHandoff && $0.isFor(peerID)
                })
            else {
                return .error(
                    id: id, code: .notFound,
                    message: "activity \(activityID.canonicalString) is not current here (it may have been resigned, invalidated or expired)")
            }
            return .activity(id: id, activity: await freshest(entry.activity))
        case .ping(let id):
            return .pong(id: id)
        case .push, .continued, .changed, .invalidated, .activities, .activity, .outcome, .pong, .error, .goodbye, .streamOpen, .streamAccepted,
            .clipboard:
            // Handled by the daemon's session logic (dispatch, events), or replies we did not ask for.
            return message.requestID.map { .error(id: $0, code: .unexpected, message: "not handled here") }
        }
    }

    /// The answer to a hello of another protocol version.
    static func unsupported(_ hello: Hello, id: Int64) -> PeerMessage {
        .error(
            id: id, code: .unsupportedVersion,
            message: "peer protocol \(hello.protocolVersion) is not supported; this machine speaks \(PeerMessage.protocolVersion)")
    }

    /// The activity, refreshed by its app first if it needs saving and the app answers in time.
    func freshest(_ activity: UserActivity) async -> UserActivity {
        guard activity.needsSave else { return activity }
        let budget = refreshBudget
        let refresh = self.refresh
        // Timeout.race, not Waiters: this bounds an operation (asking the app, whose own wait has
        // no deadline) and cancels it when the budget runs out.
        let fresh = await Timeout.race(budget) { await refresh(activity) }
        // Only a newer version of the same activity replaces what we have.
        if let fresh, fresh.id == activity.id, fresh.version > activity.version { return fresh }
        return activity
    }
}
