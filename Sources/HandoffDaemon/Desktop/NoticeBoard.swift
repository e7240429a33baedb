#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which "continue from alpha" notifications should be on the desktop (docs/DBUS.md,
/// "Notifications"), as a value: told what each paired machine offers and what the person did
/// with a notification, it says what to show, update or close. One notification per machine,
/// for the activity it made current last, updated in place (replaces_id) as the person moves on.
/// An activity the person dismissed or continued is not shown again.
struct NoticeBoard: Sendable, Equatable {
    /// What a machine offers, newest last (its list's order).
    struct Offer: Sendable, Equatable {
        var activity: UUID
        var type: String
        var title: String
    }

    struct Shown: Sendable, Equatable {
        var offer: Offer
        /// The notification server's id, once it answered.
        var id: UInt32?
    }

    enum Decision: Sendable, Equatable {
        case nothing
        /// Show (or update in place, `replaces` != 0) this offer.
        case show(Offer, replaces: UInt32)
        case close(UInt32)
    }

    /// Types never notified about (desktop.notifications_off_for).
    let quietTypes: Set<String>
    private(set) var shown: [String: Shown] = [:]
    /// Activities the person dismissed or continued; bounded, oldest forgotten first.
    private(set) var seen: [UUID] = []
    static let maxSeen = 512

    init(quietTypes: Set<String>) { self.quietTypes = quietTypes }

    /// What `peer` offers now (newest last): what to do on the desktop.
    mutating func offers(_ offers: [Offer], from peer: String) -> Decision {
        let newest = offers.last { !quietTypes.contains($0.type) && !seen.contains($0.activity) }
        let current = shown[peer]
        guard let newest else {
            shown[peer] = nil
            return current?.id.map(Decision.close) ?? .nothing
        }
        if let current, current.offer == newest { return .nothing }
        shown[peer] = Shown(offer: newest, id: current?.id)
        return .show(newest, replaces: current?.id ?? 0)
    }

    /// The activity was continued here some other way (the app, `handoffctl continue`): its
    /// notification closes, and it is not shown again, as when continued from the notification.
    mutating func continuedHere(_ activity: UUID, from peer: String) -> Decision {
        remember(activity)
        guard let s = shown[peer], s.offer.activity == activity else { return .nothing }
        shown[peer] = nil
        // Not yet answered with an id: `showing` then finds it withdrawn and closes it.
        return s.id.map(Decision.close) ?? .nothing
    }

    private mutating func remember(_ activity: UUID) {
        guard !seen.contains(activity) else { return }
        seen.append(activity)
        if seen.count > Self.maxSeen { seen.removeFirst(seen.count - Self.maxSeen) }
    }

    /// The machine went away: its notification closes (it cannot be continued now).
    mutating func gone(_ peer: String) -> Decision { offers([], from: peer) }

    /// The server answered a show with its id. False if the offer was replaced or withdrawn
    /// meanwhile (then the caller closes `id`, unless it is still the one shown).
    mutating func showing(_ offer: Offer, from peer: String, id: UInt32) -> Bool {
        guard shown[peer]?.offer == offer else { return shown.values.contains { $0.id == id } }
        shown[peer]?.id = id
        return true
    }

    /// The person acted on notification `id` (dismissed it, or chose Continue): not shown again.
    /// Returns the peer and offer it was for.
    mutating func ended(_ id: UInt32) -> (peer: String, offer: Offer)? {
        guard let (peer, s) = shown.first(where: { $0.value.id == id }) else { return nil }
        shown[peer] = nil
        remember(s.offer.activity)
        return (peer, s.offer)
    }

    /// The notification's body. A server that reads bodies as markup ("body-markup": GNOME
    /// Shell, Plasma, dunst) would make markup of the machine's name, which the machine chose: a
    /// paired machine named `<a href="https://…">beta</a>` put a link in the desktop's
    /// notification. Escaped there; as it is for a server that shows text as text (escapes would
    /// show). The summary, the activity's title, is plain text by the specification.
    static func body(from peer: String, markup: Bool) -> String {
        let text = "continue from \(peer)"
        guard markup else { return text }
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}
