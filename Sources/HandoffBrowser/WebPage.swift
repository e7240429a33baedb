#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// A page that may leave the browser or be opened in it: http or https with a host and no
/// credentials, its address and title bounded. The extension checks the same (policy.js); the
/// host checks again, and checks what comes from other machines before the browser opens it.
public struct WebPage: Sendable, Equatable {
    public static let maxURL = 8192
    public static let maxTitle = 1024

    public let url: URL
    public let title: String

    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case notWeb(String)
        public var description: String {
            switch self {
            case .notWeb(let why): why
            }
        }
    }

    public init(url text: String, title: String) throws(Problem) {
        guard !text.isEmpty, text.utf8.count <= Self.maxURL else { throw .notWeb("an address of 1 to \(Self.maxURL) bytes") }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .notWeb("only http and https pages")
        }
        guard let host = url.host, !host.isEmpty, url.user == nil, url.password == nil else {
            throw .notWeb("an address with a host and no user or password")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .notWeb("no control characters")
        }
        self.url = url
        self.title = String(title.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(Self.maxTitle).map(Character.init))
    }

    /// The activity that offers it: the web-browsing type, its address and title.
    public func activity(id: UUID) -> UserActivity {
        var activity = UserActivity(type: WebBrowsing.type, id: id, title: title.isEmpty ? url.host : title)
        try? activity.setWebpageURL(url)
        return activity
    }

    /// The page a continued activity points at, if the browser may open it.
    public init?(continuing activity: UserActivity) {
        guard let url = activity.webpageURL, let page = try? WebPage(url: url.absoluteString, title: activity.title ?? "") else { return nil }
        self = page
    }
}
