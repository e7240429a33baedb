/// One entry of the machine's declared activity types (Info.plist's NSUserActivityTypes), with the
/// userInfo keys every activity of that type must carry and the payload type it carries, if any.
public struct ActivityTypeDeclaration: Sendable, Equatable {
    public let type: ActivityType
    public let requiredKeys: Set<String>
    /// The typed payload's name (see `UserActivity.payloadTypeName`), when the type carries one.
    public let payload: String?
    /// Whether an activity of the type may be eligible for search (indexed here and on peers).
    public let search: Bool
    /// Whether an activity of the type may offer continuation streams.
    public let streams: Bool

    public init(type: ActivityType, requiredKeys: Set<String> = [], payload: String? = nil, search: Bool = true, streams: Bool = true) {
        self.type = type
        self.requiredKeys = requiredKeys
        self.payload = payload
        self.search = search
        self.streams = streams
    }
}
