import Foundation
import HandoffDiscovery
import HandoffLink

/// What a paired peer declared in its `hello`: the activity types it continues. A type it did not
/// declare is not offered to it (not listed, not pushed).
struct PeerCapabilities: Sendable, Equatable {
    let device: String
    let types: Set<String>
}

/// A paired peer's current activities as this machine last learnt them, and whether that is still
/// what the peer offers.
struct RemoteActivities: Sendable, Equatable {
    var items: [ActivitySummary]
    /// Kept current by the peer's `changed` pushes while a session is open, or confirmed by the
    /// sealed tokens of its advert; stale once the advert says something else.
    var fresh: Bool
}

/// Whether avahi-daemon is reachable, and the name our advert got.
enum AvahiState: Equatable {
    case unknown
    case up(advertisedAs: String?)
    case down

    var isUp: Bool { if case .up = self { true } else { false } }
}

/// The peers this machine knows of and what it knows about them: Avahi's listing, link presence,
/// declared types and activities. Pure state, changed only by `Peers`.
struct PeerDirectory {
    /// By advertised instance name.
    private(set) var discovered: [String: DiscoveredPeer] = [:]
    var presence = PeerPresence()
    /// By identity id.
    var capabilities: [String: PeerCapabilities] = [:]
    /// By identity id.
    var remote: [String: RemoteActivities] = [:]
    var avahi = AvahiState.unknown

    /// Returns true when the peer is new.
    mutating func listed(_ peer: DiscoveredPeer) -> Bool {
        let isNew = discovered[peer.name] == nil
        discovered[peer.name] = peer
        presence.listedByAvahi(peer.name)
        return isNew
    }

    mutating func withdrawn(_ name: String) {
        discovered[name] = nil
        presence.removedByAvahi(name)
    }

    /// The listed instance that advertises this identity.
    func listing(fingerprint: String) -> DiscoveredPeer? { discovered.values.first { $0.txt["fp"] == fingerprint } }

    /// The advert's sealed tokens, opened with our copy of the peer's advertising key, decide
    /// whether what we hold of its activities is still what it offers.
    mutating func advertRead(_ reading: AdvertTXT.Reading, peerID: String) {
        guard let tokens = reading.tokens, var known = remote[peerID] else { return }
        let advertised = Set(tokens.map { "\($0.activityID.uuidString)/\($0.version)" })
        let held = Set(known.items.map { "\($0.activityID.uuidString)/\(UInt32(truncatingIfNeeded: $0.version))" })
        known.fresh = advertised == held
        remote[peerID] = known
    }

    /// A peer unpaired or gone: nothing of what it said is kept.
    mutating func forget(peerID: String) {
        capabilities[peerID] = nil
        remote[peerID] = nil
    }
}
