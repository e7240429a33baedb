import Foundation
import HandoffAdvert
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffProtocol

/// What a paired peer declared in its `hello`: the activity types it continues. A type it did not
/// declare is not offered to it (not listed, not pushed).
struct PeerCapabilities: Sendable, Equatable {
    let device: String
    let types: Set<String>
}

/// A paired peer's current activities as this machine last learnt them, and what tells whether
/// they are still what the peer offers.
struct RemoteActivities: Sendable, Equatable {
    var items: [ActivitySummary] = []
    /// The session the items came over (a `changed` push or a list answer): while it stays open,
    /// the peer pushes every change on it.
    var session: ObjectIdentifier?
    /// What the peer's advert offers (sealed tokens opened with its key): activity and version,
    /// of the types this machine declares.
    var advertised: Set<String>?

    /// The items are what the advert says.
    var matchesAdvert: Bool { advertised == Set(items.map { Self.key($0.activityID, UInt32(truncatingIfNeeded: $0.version)) }) }

    static func key(_ id: UUID, _ version: UInt32) -> String { "\(id.uuidString)/\(version)" }
}

/// Whether avahi-daemon is reachable, and the name our advert got.
enum AvahiState: Equatable {
    case unknown
    case up(advertisedAs: String?)
    case down

    var isUp: Bool { if case .up = self { true } else { false } }
}

/// A listed advert that a paired peer's key recognised (PrivateAdvert).
struct AdvertRecognition: Equatable {
    let peerID: String
    /// The sealed sequence of the record held: an older record that still lingers is not taken.
    var sequence: UInt64
    /// When it was recognised, in this directory's count: after a rotation whose goodbye was
    /// lost, the newer advert of a peer wins.
    var order: UInt64
}

/// The peers this machine knows of and what it knows about them: Avahi's listing, when to dial
/// and ping them, declared types and activities. Pure state, changed only by `Peers`.
struct PeerDirectory {
    /// By advertised instance name (random for private adverts): every handoffd advert listed,
    /// recognised or not.
    private(set) var discovered: [String: DiscoveredPeer] = [:]
    /// By instance name: the adverts a paired peer's key recognised.
    private(set) var recognised: [String: AdvertRecognition] = [:]
    private var recognitions: UInt64 = 0
    var dialer = PeerDialer()
    /// By identity id: when the current session was last pinged, and pings out now.
    var lastPing: [String: Date] = [:]
    var pinging: Set<String> = []
    /// By identity id: where the peer said, in its hello, that its link listens.
    var told: [String: [PeerEndpoint]] = [:]
    /// Configured addresses, and the paired peer found at each.
    var staticOwner: [PeerEndpoint: String] = [:]
    /// By identity id.
    var capabilities: [String: PeerCapabilities] = [:]
    /// By identity id.
    var remote: [String: RemoteActivities] = [:]
    var avahi = AvahiState.unknown
    /// Each discovery source's listing, merged by instance name.
    var sources = MergedPeerTable()
    /// Unicast DNS-SD, when configured: working, or why not.
    var wideArea: WideAreaStatus?

    /// Returns true when the peer is new.
    @discardableResult
    mutating func listed(_ peer: DiscoveredPeer) -> Bool {
        let isNew = discovered[peer.name] == nil
        discovered[peer.name] = peer
        return isNew
    }

    /// Returns the peer whose advert it was, if it was recognised.
    @discardableResult
    mutating func withdrawn(_ name: String) -> String? {
        discovered[name] = nil
        return recognised.removeValue(forKey: name)?.peerID
    }

    /// A listed advert's record was recognised as `peerID`'s. False when it is older than the
    /// record already held for that advert (two records coexist for a moment after an update).
    mutating func recognise(_ name: String, peerID: String, sequence: UInt64) -> Bool {
        if let held = recognised[name], held.peerID == peerID, sequence < held.sequence { return false }
        recognitions += 1
        recognised[name] = AdvertRecognition(peerID: peerID, sequence: sequence, order: recognitions)
        return true
    }

    /// The advert's record is no paired peer's (any more: the peer was unpaired, or rotated its key).
    mutating func unrecognised(_ name: String) { recognised[name] = nil }

    /// The listed advert of this paired peer: the one recognised last.
    func listing(peerID: String) -> DiscoveredPeer? {
        recognised.filter { $0.value.peerID == peerID }.max { $0.value.order < $1.value.order }.flatMap { discovered[$0.key] }
    }

    /// A pairing advert (the name shown while that machine's pairing window is open).
    func pairingListing(named name: String) -> DiscoveredPeer? {
        discovered[name].flatMap { $0.txt[Advert.pairingKey] == "1" ? $0 : nil }
    }

    var pairingListings: [DiscoveredPeer] {
        discovered.values.filter { $0.txt[Advert.pairingKey] == "1" && recognised[$0.name] == nil }.sorted { $0.name < $1.name }
    }

    /// The advert's sealed tokens, opened with our copy of the peer's advertising key: what it
    /// offers of the types we declare (`declared`: their type hashes).
    mutating func advertRead(_ tokens: [AdvertTXT.Token], peerID: String, declared: Set<[UInt8]>) {
        let advertised = Set(tokens.filter { declared.contains($0.typeHash) }.map { RemoteActivities.key($0.activityID, $0.version) })
        remote[peerID, default: RemoteActivities()].advertised = advertised
    }

    /// The peer's activities, as it pushed or listed them on `session`.
    mutating func learnt(_ items: [ActivitySummary], peerID: String, session: ObjectIdentifier?) {
        remote[peerID, default: RemoteActivities()].items = items
        remote[peerID]?.session = session
    }

    /// What we hold of a peer's activities, if it is still what the peer offers: the session they
    /// came over is the one open now, or the advert says the same.
    func fresh(_ peerID: String, openSession: ObjectIdentifier?) -> [ActivitySummary]? {
        guard let r = remote[peerID] else { return nil }
        if let s = r.session, s == openSession { return r.items }
        return r.matchesAdvert ? r.items : nil
    }

    /// A peer unpaired or gone: nothing of what it said is kept.
    mutating func forget(peerID: String) {
        recognised = recognised.filter { $0.value.peerID != peerID }
        capabilities[peerID] = nil
        remote[peerID] = nil
        told[peerID] = nil
        lastPing[peerID] = nil
        staticOwner = staticOwner.filter { $0.value != peerID }
    }

    /// Pings are due on sessions not pinged for `interval`, one at a time per peer.
    mutating func duePings(among connected: Set<String>, at now: Date, interval: TimeInterval) -> [String] {
        let due = connected.filter { !pinging.contains($0) && (lastPing[$0].map { now.timeIntervalSince($0) >= interval } ?? true) }.sorted()
        for id in due {
            pinging.insert(id)
            lastPing[id] = now
        }
        return due
    }
}
