#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore
import HandoffProtocol

/// The shared clipboard of one machine, as values: this machine's copy with its bytes, the offer
/// each paired machine made, and whose content the clipboard holds now. The newest copy on any
/// machine wins (by arrival here, never by comparing clocks). Every change returns the actions
/// its shell carries out; nothing here does I/O.
public struct ClipboardBook: Sendable {
    /// This machine's copy, offered to the paired machines.
    public struct LocalCopy: Sendable {
        public let offer: ClipboardOffer
        public let items: [ClipboardItem]
        public let expires: ContinuousClock.Instant
    }

    /// A paired machine's offer as heard.
    public struct HeardOffer: Sendable {
        public let offer: ClipboardOffer
        public let peerName: String
        public let expires: ContinuousClock.Instant
    }

    /// Whose content this machine's clipboard holds.
    public enum Owner: Sendable, Equatable {
        case nobody
        case local(offerID: UUID)
        case peer(PeerID, offerID: UUID)
    }

    public enum Action: Sendable, Equatable {
        /// Tell the paired machines that take offers (present, clipboard shared, not refused).
        case announce(ClipboardOffer)
        /// Tell them the offer may no longer be pasted.
        case withdraw(offerID: UUID)
        /// The clipboard's owner or offers changed: tell this machine's agent and watchers.
        case changed
    }

    public private(set) var settings: ClipboardSettings
    public private(set) var local: LocalCopy?
    public private(set) var heard: [PeerID: HeardOffer] = [:]
    public private(set) var owner: Owner = .nobody
    /// Offers go out at most once per `announceInterval`: a flood of copies (a script, a
    /// clipboard manager) sends the first at once and then the newest at each interval's end.
    private var announcing = Announcing.idle

    enum Announcing: Sendable {
        case idle
        case quietUntil(ContinuousClock.Instant, pending: ClipboardOffer?)
    }

    public static let announceInterval = Duration.milliseconds(50)

    public init(settings: ClipboardSettings) { self.settings = settings }

    /// A copy on this machine. Refused (and not offered) by the rules; the same content as the
    /// offer out already only lives longer.
    public mutating func copy(
        _ items: [ClipboardItem], id: UUID, at date: Date, now: ContinuousClock.Instant
    ) throws(ClipboardRefusal) -> (offer: ClipboardOffer, actions: [Action]) {
        guard settings.enabled else { throw .off }
        let shared = try ClipboardRules.shared(items, limit: settings.maxBytes)
        let hash = ClipboardRules.hash(shared)
        if heard.values.contains(where: { $0.offer.hash == hash }) { throw .fromPeer }
        if let local, local.offer.hash == hash {
            self.local = LocalCopy(offer: local.offer, items: local.items, expires: now + settings.lifetime)
            let changed = owner != .local(offerID: local.offer.id)
            owner = .local(offerID: local.offer.id)
            return (local.offer, changed ? announce(local.offer, now: now) + [.changed] : [])
        }
        let offer = ClipboardOffer(
            id: id, items: shared.map { OfferedItem(type: $0.type, size: UInt64($0.bytes.count)) }, hash: hash, copiedAt: date)
        local = LocalCopy(offer: offer, items: shared, expires: now + settings.lifetime)
        owner = .local(offerID: offer.id)
        return (offer, announce(offer, now: now) + [.changed])
    }

    private mutating func announce(_ offer: ClipboardOffer, now: ContinuousClock.Instant) -> [Action] {
        if case .quietUntil(let until, _) = announcing, now < until {
            announcing = .quietUntil(until, pending: offer)
            return []
        }
        announcing = .quietUntil(now + Self.announceInterval, pending: nil)
        return [.announce(offer)]
    }

    /// A paired machine's offer. Ignored while off, from a refused machine, or past the bounds;
    /// else it replaces that machine's earlier one and this machine's clipboard holds it.
    public mutating func heard(_ offer: ClipboardOffer, from peer: PeerID, name: String, now: ContinuousClock.Instant) -> [Action] {
        guard settings.enabled, !settings.refused(name), offer.size <= UInt64(settings.maxBytes),
            offer.items.allSatisfy({ ClipboardType.shared.contains($0.type) })
        else { return [] }
        heard[peer] = HeardOffer(offer: offer, peerName: name, expires: now + settings.lifetime)
        owner = .peer(peer, offerID: offer.id)
        // Our own copy was overtaken: a paste there now means this content, not ours.
        guard let local else { return [.changed] }
        self.local = nil
        return [.withdraw(offerID: local.offer.id), .changed]
    }

    /// The machine withdrew its offer, or went (unpaired, absent, its session closed for good).
    public mutating func dropped(_ peer: PeerID, offerID: UUID? = nil) -> [Action] {
        guard let held = heard[peer], offerID == nil || held.offer.id == offerID else { return [] }
        heard[peer] = nil
        if case .peer(peer, _) = owner { owner = .nobody }
        return [.changed]
    }

    /// Drops what expired, and sends the offer a flood held back once its interval is over.
    public mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        if case .quietUntil(let until, let pending) = announcing, now >= until {
            announcing = .idle
            if let pending, local?.offer.id == pending.id { actions += announce(pending, now: now) }
        }
        if let local, local.expires <= now {
            self.local = nil
            if owner == .local(offerID: local.offer.id) { owner = .nobody }
            actions += [.withdraw(offerID: local.offer.id), .changed]
        }
        for (peer, held) in heard where held.expires <= now {
            heard[peer] = nil
            if case .peer(peer, _) = owner { owner = .nobody }
            if !actions.contains(.changed) { actions.append(.changed) }
        }
        return actions
    }

    /// The next moment `tick` has something to do (for the shell's timer).
    public var nextTick: ContinuousClock.Instant? {
        var moments = [local?.expires].compactMap { $0 } + heard.values.map(\.expires)
        if case .quietUntil(let until, .some) = announcing { moments.append(until) }
        return moments.min()
    }

    /// Turns sharing on or off; off withdraws this machine's offer and forgets every other.
    public mutating func setEnabled(_ enabled: Bool) -> [Action] {
        settings.enabled = enabled
        guard !enabled else { return [] }
        var actions: [Action] = []
        if let local { actions.append(.withdraw(offerID: local.offer.id)) }
        let hadAny = local != nil || !heard.isEmpty
        local = nil
        heard = [:]
        owner = .nobody
        return hadAny ? actions + [.changed] : actions
    }

    public mutating func replaceSettings(_ new: ClipboardSettings) -> [Action] {
        let actions = setEnabled(new.enabled)
        settings = new
        heard = heard.filter { !new.refused($0.value.peerName) }
        return actions
    }

    /// The bytes a paired machine asks for: only of this machine's live offer, only of a type it
    /// names, only to a machine that may have them.
    public func serve(
        offerID: UUID, type: ClipboardType, to name: String, now: ContinuousClock.Instant
    ) -> Result<[UInt8], ClipboardServeFailure> {
        guard settings.enabled else { return .failure(.off) }
        guard !settings.refused(name) else { return .failure(.refused) }
        guard let local, local.offer.id == offerID, local.expires > now else { return .failure(.noOffer) }
        guard let item = local.items.first(where: { $0.type == type }) else { return .failure(.noType) }
        return .success(item.bytes)
    }

    /// The offer a paste takes: the named machine's (nil: whoever's content the clipboard holds,
    /// this machine's own included), if it is still live.
    public func pasteSource(peer: PeerID?, now: ContinuousClock.Instant) -> PasteSource? {
        if let peer {
            guard let held = heard[peer], held.expires > now else { return nil }
            return .peer(peer, held.offer)
        }
        switch owner {
        case .nobody: return nil
        case .local(let id):
            guard let local, local.offer.id == id, local.expires > now else { return nil }
            return .local(local)
        case .peer(let peer, _):
            guard let held = heard[peer], held.expires > now else { return nil }
            return .peer(peer, held.offer)
        }
    }

    public enum PasteSource: Sendable {
        case local(LocalCopy)
        case peer(PeerID, ClipboardOffer)

        public var offer: ClipboardOffer {
            switch self {
            case .local(let copy): copy.offer
            case .peer(_, let offer): offer
            }
        }
    }
}

/// Why a paired machine's fetch is not served.
public enum ClipboardServeFailure: Error, Sendable, Equatable {
    case off, refused, noOffer, noType

    public var code: FailureCode {
        switch self {
        case .off: .clipboardOff
        case .refused: .clipboardOff
        case .noOffer: .clipboardNoOffer
        case .noType: .clipboardNoType
        }
    }

    public var message: String {
        switch self {
        case .off: "the shared clipboard is off on that machine"
        case .refused: "that machine does not share its clipboard with this one (clipboard.refuse_from)"
        case .noOffer: "that copy is no longer offered (expired, replaced by a newer copy, or withdrawn)"
        case .noType: "that copy has no such type"
        }
    }
}
