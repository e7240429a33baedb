#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The counterpart of NSUserActivity: what a person is doing, in a form another machine can
/// continue. A value type; every change raises `version`, so that peers and the advert can tell a
/// newer state from an older one.
public struct UserActivity: Sendable, Equatable {
    /// userInfo keys that start with this are ours (typed payloads); callers cannot set them directly.
    public static let reservedKeyPrefix = "handoff."

    public let id: UUID
    public let type: ActivityType
    /// Raised by every change; starts at 1.
    public private(set) var version: UInt64

    public var title: String? { didSet { bump() } }
    public private(set) var userInfo: [String: PropertyListValue] { didSet { bump() } }
    public var requiredUserInfoKeys: Set<String> { didSet { bump() } }
    public var targetContentIdentifier: String? { didSet { bump() } }
    /// The page to open when no handler for `type` exists on the continuing machine; http(s) only.
    public private(set) var webpageURL: URL? { didSet { bump() } }
    public var referrerURL: URL? { didSet { bump() } }
    public var keywords: Set<String> { didSet { bump() } }
    public var expirationDate: Date? { didSet { bump() } }
    public var isEligibleForHandoff: Bool { didSet { bump() } }
    public var isEligibleForSearch: Bool { didSet { bump() } }
    public var persistentIdentifier: String? { didSet { bump() } }
    /// Set when the owning app should be asked for fresh userInfo before the activity is sent.
    public var needsSave: Bool { didSet { bump() } }
    /// NSUserActivity's supportsContinuationStreams: the continuing app may ask for a pair of
    /// streams with the app that published (or pushed) it (docs/STREAMS.md).
    public var supportsContinuationStreams: Bool { didSet { bump() } }

    public init(type: ActivityType, id: UUID = UUID(), title: String? = nil) {
        self.id = id
        self.type = type
        self.version = 1
        self.title = title
        self.userInfo = [:]
        self.requiredUserInfoKeys = []
        self.targetContentIdentifier = nil
        self.webpageURL = nil
        self.referrerURL = nil
        self.keywords = []
        self.expirationDate = nil
        self.isEligibleForHandoff = true
        self.isEligibleForSearch = false
        self.persistentIdentifier = nil
        self.needsSave = false
        self.supportsContinuationStreams = false
    }

    private mutating func bump() { version &+= 1 }

    /// Replaces userInfo. Keys with the reserved prefix are refused.
    public mutating func setUserInfo(_ info: [String: PropertyListValue]) throws(ActivityError) {
        try Self.checkCallerKeys(info.keys)
        userInfo = info
    }

    /// Merges entries into userInfo, as NSUserActivity.addUserInfoEntries does: new values win.
    public mutating func addUserInfoEntries(_ entries: [String: PropertyListValue]) throws(ActivityError) {
        try Self.checkCallerKeys(entries.keys)
        userInfo.merge(entries) { _, new in new }
    }

    public mutating func setWebpageURL(_ url: URL?) throws(ActivityError) {
        if let url {
            let scheme = url.scheme?.lowercased()
            guard scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
                throw .unsupportedURLScheme(url.absoluteString)
            }
        }
        webpageURL = url
    }

    public func isExpired(at now: Date) -> Bool {
        guard let expirationDate else { return false }
        return expirationDate <= now
    }

    /// Sets userInfo without the reserved-key check: for payload storage and decoding only.
    mutating func setUserInfoUnchecked(_ info: [String: PropertyListValue]) { userInfo = info }

    /// Restores a version read from disk or the wire. Called last, after every field is set.
    mutating func restoreVersion(_ v: UInt64) { version = v }

    private static func checkCallerKeys(_ keys: some Sequence<String>) throws(ActivityError) {
        for key in keys where key.hasPrefix(reservedKeyPrefix) {
            throw .reservedUserInfoKey(key)
        }
    }
}
