#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore

/// What the extension tells or asks the host (docs/BROWSER.md, "Messages"). Every field is
/// checked here: a page cannot talk to the host, but the extension's input comes from pages.
public enum BrowserMessage: Sendable, Equatable {
    case hello(version: String)
    /// The focused window's active tab: this machine's current activity.
    case tab(WebPage)
    /// Nothing to offer now (sharing off, a private window, focus gone for a while).
    case away
    case list(id: Int64)
    case open(id: Int64, peer: String, activity: UUID)
    case send(id: Int64, peer: String, page: WebPage)
    /// The answer to an `open-tab`.
    case opened(token: String, ok: Bool)

    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case notJSON(String)
        case unknownType(String)
        case badField(String, String)

        public var code: FailureCode {
            switch self {
            case .notJSON: .notJson
            case .unknownType: .unknownMessage
            case .badField: .badField
            }
        }

        public var description: String {
            switch self {
            case .notJSON(let why): "the message is not a JSON object: \(why)"
            case .unknownType(let type): "unknown message type '\(type.prefix(40))'"
            case .badField(let field, let why): "field '\(field)': \(why)"
            }
        }
    }

    public static let maxPeerName = 256
    public static let maxToken = 64

    public init(json: [UInt8]) throws(Problem) {
        let value: PropertyListValue
        do { value = try JSONValue.parse(json) } catch { throw .notJSON(error.description) }
        guard let f = value.dictionaryValue else { throw .notJSON("not an object") }
        let type = f["type"]?.stringValue ?? ""
        switch type {
        case "hello": self = .hello(version: String((f["version"]?.stringValue ?? "").prefix(32)))
        case "tab": self = .tab(try Self.page(f))
        case "away": self = .away
        case "list": self = .list(id: try Self.id(f))
        case "open":
            guard let text = f["activity"]?.stringValue, let activity = UUID(uuidString: text) else {
                throw .badField("activity", "must be an activity's id")
            }
            self = .open(id: try Self.id(f), peer: try Self.peer(f), activity: activity)
        case "send": self = .send(id: try Self.id(f), peer: try Self.peer(f), page: try Self.page(f))
        case "opened":
            guard let token = f["token"]?.stringValue, !token.isEmpty, token.utf8.count <= Self.maxToken else {
                throw .badField("token", "must be the token of an open-tab")
            }
            self = .opened(token: token, ok: f["ok"]?.boolValue ?? false)
        default: throw .unknownType(type)
        }
    }

    static func id(_ f: [String: PropertyListValue]) throws(Problem) -> Int64 {
        guard let id = f["id"]?.integerValue, id > 0 else { throw .badField("id", "must be a positive integer") }
        return id
    }

    static func peer(_ f: [String: PropertyListValue]) throws(Problem) -> String {
        guard let peer = f["peer"]?.stringValue, !peer.isEmpty, peer.utf8.count <= maxPeerName else {
            throw .badField("peer", "must name a paired machine")
        }
        return peer
    }

    static func page(_ f: [String: PropertyListValue]) throws(Problem) -> WebPage {
        do { return try WebPage(url: f["url"]?.stringValue ?? "", title: f["title"]?.stringValue ?? "") } catch {
            throw .badField("url", error.description)
        }
    }
}
