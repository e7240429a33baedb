#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffCore
import HandoffProtocol

/// The activities this machine offers to continue: one per scene (NSUserActivity.becomeCurrent
/// per window), at most four, newest last. Expired and ineligible ones are kept locally but not
/// advertised.
public struct CurrentActivities: Sendable {
    public static let maxCurrent = PrivateAdvert.maxTokens

    public struct Entry: Sendable, Equatable {
        public var activity: UserActivity
        public let scene: UUID?
        public var updated: Date
        /// The one paired machine (its peer id) the activity is for: never advertised or listed,
        /// fetched or pushed to any other (a file sent to one machine). Nil: every paired machine.
        public var audience: PeerID? = nil

        /// Whether `peerID` may fetch it (a peer's own request names it; nil is this machine).
        public func isFor(_ peerID: PeerID?) -> Bool { audience == nil || audience == peerID }
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    /// Makes `activity` current for `scene`, replacing that scene's previous one (or an older
    /// version of the same activity). Returns the ids that stopped being current.
    @discardableResult
    public mutating func becomeCurrent(_ activity: UserActivity, scene: UUID?, audience: PeerID? = nil, at now: Date) -> [UUID] {
        var dropped: [UUID] = []
        entries.removeAll { e in
            // Activities without a scene (from a tool rather than a window) replace only themselves.
            let replace = e.activity.id == activity.id || (scene != nil && e.scene == scene)
            if replace && e.activity.id != activity.id { dropped.append(e.activity.id) }
            return replace
        }
        entries.append(Entry(activity: activity, scene: scene, updated: now, audience: audience))
        while entries.count > Self.maxCurrent { dropped.append(entries.removeFirst().activity.id) }
        return dropped
    }

    /// A newer version of a current activity (after the app refreshed it); false if not current.
    @discardableResult
    public mutating func update(_ activity: UserActivity, at now: Date) -> Bool {
        guard let i = entries.firstIndex(where: { $0.activity.id == activity.id }) else { return false }
        entries[i].activity = activity
        entries[i].updated = now
        return true
    }

    /// resignCurrent and invalidate both end an activity here; invalidation is also told to peers.
    @discardableResult
    public mutating func remove(_ id: UUID) -> Bool {
        let before = entries.count
        entries.removeAll { $0.activity.id == id }
        return entries.count != before
    }

    public func entry(id: UUID) -> Entry? { entries.first { $0.activity.id == id } }

    /// What peers may see: eligible for Handoff, not expired, and for every paired machine.
    public func advertised(at now: Date) -> [Entry] {
        entries.filter { $0.audience == nil && $0.activity.isEligibleForHandoff && !$0.activity.isExpired(at: now) }
    }

    public func summaries(at now: Date) -> [ActivitySummary] {
        advertised(at: now).map { ActivitySummary($0.activity, scene: $0.scene, updated: $0.updated) }
    }

    /// Drops expired activities; returns their ids.
    public mutating func removeExpired(at now: Date) -> [UUID] {
        let gone = entries.filter { $0.activity.isExpired(at: now) }.map(\.activity.id)
        entries.removeAll { $0.activity.isExpired(at: now) }
        return gone
    }
}
