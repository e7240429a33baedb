#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffCore
import HandoffProtocol

/// What each source puts into the search index, and what a result's id names. Ids:
/// `activity:UUID` (current here), `remote:PEER/UUID`, `scene:UUID`. An app's own content is
/// found through what it publishes as eligible for search.
enum SearchItems {
    /// This machine's current activities that their apps made eligible for search
    /// (`isEligibleForSearch`, Apple's meaning): title, keywords, and the type as detail.
    static func local(_ entries: [CurrentActivities.Entry]) -> [SearchItem] {
        entries.filter { $0.activity.isEligibleForSearch }.map { e in
            SearchItem(
                id: "activity:" + e.activity.id.canonicalString, source: "local", kind: "activity",
                title: e.activity.title ?? e.activity.type.rawValue,
                keywords: e.activity.keywords.sorted().joined(separator: " "), detail: e.activity.type.rawValue, updated: e.updated)
        }
    }

    /// A paired machine's current activities, as its list gives them (title, type and when it
    /// last changed there: the list carries no keywords, and the whole activity stays there until
    /// it is continued).
    static func remote(_ items: [ActivitySummary], peer: String) -> [SearchItem] {
        items.map { s in
            SearchItem(
                id: "remote:\(peer)/\(s.activityID.canonicalString)", source: "remote:" + peer, kind: "remote", title: s.title ?? s.type,
                detail: s.type, peer: peer, updated: s.updated)
        }
    }

    /// Each window: what it is doing (its current activity's title), and the text it keeps (drafts).
    static func scenes(_ scenes: [StoredScene]) -> [SearchItem] {
        scenes.filter { $0.discarded == nil }.map { s in
            SearchItem(
                id: "scene:" + s.scene.id.canonicalString, source: "scenes", kind: "scene", title: s.scene.currentActivity?.title ?? "A window",
                keywords: s.scene.currentActivity?.keywords.sorted().joined(separator: " ") ?? "",
                body: texts(in: s.scene.storage.propertyList).joined(separator: "\n"),
                detail: "a \(s.role) on this machine", updated: s.updated)
        }
    }

    /// Every string in a stored value (a scene's storage), bounded.
    static func texts(in value: PropertyListValue, limit: Int = 64) -> [String] {
        var out: [String] = []
        func walk(_ v: PropertyListValue) {
            guard out.count < limit else { return }
            switch v {
            case .string(let s): out.append(s)
            case .array(let a): a.forEach(walk)
            case .dictionary(let d): d.keys.sorted().forEach { walk(d[$0]!) }
            default: break
            }
        }
        walk(value)
        return out
    }

    /// What a result id names.
    enum Target: Equatable {
        case activity(UUID)
        case remote(peer: String, activity: UUID)
        case scene(UUID)
    }

    static func target(_ id: String) -> Target? {
        guard let colon = id.firstIndex(of: ":") else { return nil }
        let kind = id[..<colon]
        let rest = String(id[id.index(after: colon)...])
        func pair() -> (String, UUID)? {
            guard let slash = rest.lastIndex(of: "/"), let u = UUID(canonical: String(rest[rest.index(after: slash)...])) else { return nil }
            return (String(rest[..<slash]), u)
        }
        switch kind {
        case "activity": return UUID(canonical: rest).map(Target.activity)
        case "scene": return UUID(canonical: rest).map(Target.scene)
        case "remote": return pair().flatMap { $0.0.isEmpty ? nil : .remote(peer: $0.0, activity: $0.1) }
        default: return nil
        }
    }
}
