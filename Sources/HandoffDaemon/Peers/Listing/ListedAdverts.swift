#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffDiscovery
import HandoffCore

/// Whether avahi-daemon is reachable, and the name our advert got.
enum AvahiState: Equatable, Sendable {
    case unknown
    case up(advertisedAs: String?)
    /// Why, as the discovery said it.
    case down(String)

    var isUp: Bool { if case .up = self { true } else { false } }
}

/// A listed advert that a paired peer's key recognised (PrivateAdvert).
struct AdvertRecognition: Equatable {
    let peerID: PeerID
    /// The sealed sequence of the record held: an older record that still lingers is not taken.
    var sequence: UInt64
    /// When it was recognised, in this table's count: after a rotation whose goodbye was lost,
    /// the newer advert of a peer wins.
    var order: UInt64
}

/// Every handoffd advert the discovery sources list, and which of them a paired peer's key
/// recognised. Pure state, owned by `PeerListing`.
struct ListedAdverts {
    /// By advertised instance name (random for private adverts): every handoffd advert listed,
    /// recognised or not.
    private(set) var discovered: [String: DiscoveredPeer] = [:]
    /// By instance name: the adverts a paired peer's key recognised.
    private(set) var recognised: [String: AdvertRecognition] = [:]
    private var recognitions: UInt64 = 0
    var avahi = AvahiState.unknown
    /// Each discovery source's listing, merged by instance name.
    var sources = MergedPeerTable()
    /// Unicast DNS-SD, when configured: working, or why not.
    var wideArea: WideAreaStatus?

    /// Returns true when the advert is new.
    @discardableResult
    mutating func listed(_ peer: DiscoveredPeer) -> Bool {
        let isNew = discovered[peer.name] == nil
        discovered[peer.name] = peer
        return isNew
    }

    /// Returns the peer whose advert it was, if it was recognised.
    @discardableResult
    mutating func withdrawn(_ name: String) -> PeerID? {
        discovered[name] = nil
        return recognised.removeValue(forKey: name)?.peerID
    }

    /// A listed advert's record was recognised as `peerID`'s. False when it is older than the
    /// record already held for that advert (two records coexist for a moment after an update).
    mutating func recognise(_ name: String, peerID: PeerID, sequence: UInt64) -> Bool {
        if let held = recognised[name], held.peerID == peerID, sequence < held.sequence { return false }
        recognitions += 1
        recognised[name] = AdvertRecognition(peerID: peerID, sequence: sequence, order: recognitions)
        return true
    }

    /// The advert's record is no paired peer's (any more: the peer was unpaired, or rotated its key).
    mutating func unrecognised(_ name: String) { recognised[name] = nil }

    /// The listed advert of this paired peer: the one recognised last.
    func listing(peerID: PeerID) -> DiscoveredPeer? {
        recognised.filter { $0.value.peerID == peerID }.max { $0.value.order < $1.value.order }.flatMap { discovered[$0.key] }
    }

    /// A pairing advert (the name shown while that machine's pairing window is open).
    func pairingListing(named name: String) -> DiscoveredPeer? {
        discovered[name].flatMap { $0.txt[AdvertTXT.pairingKey] == "1" ? $0 : nil }
    }

    var pairingListings: [DiscoveredPeer] {
        discovered.values.filter { $0.txt[AdvertTXT.pairingKey] == "1" && recognised[$0.name] == nil }.sorted { $0.name < $1.name }
    }

    /// A peer unpaired: none of its adverts is recognised any more.
    mutating func forget(peerID: PeerID) {
        recognised = recognised.filter { $0.value.peerID != peerID }
    }
}
