import HandoffControl

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
    public static func gnomeMeta(_ hit: SearchHit) -> BusValue {
        .vardict([
            ("id", .string(hit.id)), ("name", .string(hit.title)),
            ("description", .string(hit.peer.map { "On \($0) · \(hit.detail)" } ?? hit.detail)),
            ("gicon", .string(icon(hit)))
        ])
    }

    /// A KRunner match: (id, text, icon, type, relevance, properties). Type 100 is
    /// Plasma::QueryMatch::ExactMatch, 70 PossibleMatch; relevance 0..1 from the rank order.
    public static func krunnerMatch(_ hit: SearchHit, position: Int, of count: Int) -> BusValue {
        let relevance = count <= 1 ? 1.0 : 1.0 - Double(position) / Double(count) * 0.5
        return .structure([
            .string(hit.id), .string(hit.title), .string(icon(hit)), .int32(position == 0 ? 100 : 70), .double(relevance),
            .vardict([("subtext", .string(hit.peer.map { "On \($0) · \(hit.detail)" } ?? hit.detail))])
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
