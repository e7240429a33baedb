#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `search`: what was being done, on this machine and on paired ones, best match first
/// (docs/CONTROL.md, "Search").
public struct SearchRequest: ControlOperation {
    public typealias Result = Listing<SearchHit>
    public static let name = "search"
    public static let defaultLimit: Int64 = 20
    public static let maxLimit: Int64 = 200
    /// Words, each matched as a prefix, case and diacritics ignored.
    public var query: String
    public var limit: Int64

    public init(query: String, limit: Int64 = defaultLimit) { (self.query, self.limit) = (query, limit) }

    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        query = try f.string("query")
        guard query.utf8.count <= 1024 else { throw .badArgument(name: "query", reason: "must be at most 1024 bytes") }
        limit = try f.optionalInteger("limit") ?? Self.defaultLimit
        guard (1...Self.maxLimit).contains(limit) else { throw .badArgument(name: "limit", reason: "must be 1 to \(Self.maxLimit)") }
    }

    public var arguments: [String: PropertyListValue] { ["query": .string(query), "limit": .integer(limit)] }
}

/// One search result. `id` names it for `search-open` (and the desktop's search providers).
public struct SearchHit: ControlItem, Equatable {
    /// What it is: activity (current here), remote (current on a paired machine), scene, book,
    /// character.
    public var kind: String
    public var id: String
    public var title: String
    /// A line that says more (a book's tagline, the activity's type, the scene's content).
    public var detail: String
    /// The paired machine it is on; nil: this machine.
    public var peer: String?
    public var updated: Date?
    /// bm25 rank, lower is better.
    public var rank: Double

    public init(kind: String, id: String, title: String, detail: String, peer: String? = nil, updated: Date? = nil, rank: Double) {
        (self.kind, self.id, self.title, self.detail, self.peer, self.updated, self.rank) = (kind, id, title, detail, peer, updated, rank)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("kind", kind)
        w.set("id", id)
        w.set("title", title)
        w.set("detail", detail)
        w.set("peer", peer)
        w.set("updated", updated)
        w["rank"] = .real(rank)
        return .dictionary(w.values)
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        guard let rank = f.values["rank"]?.realValue ?? f.values["rank"]?.integerValue.map(Double.init) else {
            throw .badArgument(name: "rank", reason: "must be a number")
        }
        self.init(
            kind: try f.string("kind"), id: try f.string("id"), title: try f.string("title"), detail: try f.string("detail"),
            peer: try f.optionalString("peer"), updated: try f.optionalDate("updated"), rank: rank)
    }

    /// Where it is, for people: "this machine" or the peer's name.
    public var place: String { peer ?? "this machine" }
}

/// `search-open`: continues a search result here (a paired machine's activity is fetched and
/// continued; this machine's activity, scene or content is routed to its app or window).
public struct SearchOpenRequest: ControlOperation {
    public typealias Result = ContinuationReport
    public static let name = "search-open"
    /// Waits on a peer, a handler or a person: bounded by handoffd, not by the client.
    public var answerWithin: Duration? { nil }
    public var result: String
    public init(result: String) { self.result = result }
    public init(request: ControlRequest) throws(ControlError) { result = try request.fields.string("result") }
    public var arguments: [String: PropertyListValue] { ["result": .string(result)] }
}
