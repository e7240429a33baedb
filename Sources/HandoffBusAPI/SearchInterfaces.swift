#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore

/// The desktop's search interfaces, with the signatures their specifications give:
/// GNOME Shell's `org.gnome.Shell.SearchProvider2` and KDE's KRunner `org.kde.krunner1`.
/// Both are served on handoffd's bus name; both answer from the `search` operation and
/// continue a result through `search-open`.
public enum DesktopSearch {
    public static let gnomePath = HandoffBusAPI.objectPath + "/SearchProvider"
    public static let krunnerPath = HandoffBusAPI.objectPath + "/Runner"

    public static let gnome = BusInterface(
        name: "org.gnome.Shell.SearchProvider2",
        methods: [
            BusMethod("GetInitialResultSet", in: [BusArgument("terms", "as")], out: [BusArgument("results", "as")]),
            BusMethod(
                "GetSubsearchResultSet", in: [BusArgument("previous_results", "as"), BusArgument("terms", "as")],
                out: [BusArgument("results", "as")]),
            BusMethod("GetResultMetas", in: [BusArgument("identifiers", "as")], out: [BusArgument("metas", "aa{sv}")]),
            BusMethod(
                "ActivateResult", in: [BusArgument("identifier", "s"), BusArgument("terms", "as"), BusArgument("timestamp", "u")]),
            BusMethod("LaunchSearch", in: [BusArgument("terms", "as"), BusArgument("timestamp", "u")])
        ])

    public static let krunner = BusInterface(
        name: "org.kde.krunner1",
        methods: [
            BusMethod("Actions", out: [BusArgument("matches", "a(sss)")]),
            BusMethod("Match", in: [BusArgument("query", "s")], out: [BusArgument("matches", "a(sssida{sv})")]),
            BusMethod("Run", in: [BusArgument("matchId", "s"), BusArgument("actionId", "s")])
        ])

    /// At most this many results go to a desktop's search (it shows a handful).
    public static let maxResults: Int64 = 10

    /// GNOME's terms (words already split) as one query.
    public static func query(_ terms: [BusValue]) -> String { terms.compactMap(\.stringValue).joined(separator: " ") }

    /// A result's meta for GNOME Shell: id, name, description, and a themed icon name.
    public static func gnomeMeta(_ hit: SearchHit, now: Date) -> BusValue {
        .vardict([
            ("id", .string(hit.id)), ("name", .string(hit.title)), ("description", .string(describe(hit, now: now))),
            ("gicon", .string(icon(hit)))
        ])
    }

    /// The line under a result's title: where it is (another machine's), how long ago it last
    /// changed, and what it is ("On alpha · 5 min ago · org.hawknotes.bookDetail").
    public static func describe(_ hit: SearchHit, now: Date) -> String {
        ((hit.peer.map { ["On " + $0] } ?? []) + (hit.updated.map { [age($0, now: now)] } ?? []) + [hit.detail]).joined(separator: " · ")
    }

    /// How long ago, as a person says it. A time ahead of `now` (another machine's clock, a little
    /// fast) is "just now"; past two weeks, the day (UTC, as handoffctl prints dates).
    public static func age(_ then: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(then)
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(Int(seconds / 60)) min ago"
        case ..<86_400: return "\(Int(seconds / 3600)) h ago"
        case ..<(2 * 86_400): return "yesterday"
        case ..<(14 * 86_400): return "\(Int(seconds / 86_400)) days ago"
        default: return String(ISODate.string(then).prefix(10))
        }
    }

    /// A KRunner match: (id, text, icon, type, relevance, properties). Type 100 is
    /// Plasma::QueryMatch::ExactMatch, 70 PossibleMatch; relevance 0..1 from the rank order.
    public static func krunnerMatch(_ hit: SearchHit, position: Int, of count: Int, now: Date) -> BusValue {
        let relevance = count <= 1 ? 1.0 : 1.0 - Double(position) / Double(count) * 0.5
        return .structure([
            .string(hit.id), .string(hit.title), .string(icon(hit)), .int32(position == 0 ? 100 : 70), .double(relevance),
            .vardict([("subtext", .string(describe(hit, now: now)))])
        ])
    }

    static func icon(_ hit: SearchHit) -> String {
        switch hit.kind {
        case "remote": "network-workgroup"
        case "scene": "window-new"
        case "book": "accessories-dictionary"
        case "character": "avatar-default"
        default: "document-open-recent"
        }
    }
}
