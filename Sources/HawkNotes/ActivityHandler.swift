import HandoffCore

/// Turns a continued activity into a route (onContinueUserActivity). Handlers see activities and
/// content only: nothing of sockets, discovery or storage.
public protocol ActivityHandler: Sendable {
    /// The activity types this handler continues.
    var activityTypes: Set<ActivityType> { get }
    /// Routes the activity, or says why it cannot.
    func route(for activity: UserActivity) throws(ContinuationFailure) -> Route
}
