#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffDiscovery
import HandoffLink

/// This machine's DNS-SD adverts. The private one is published once the link listens (its port
/// is in the SRV record), its TXT rewritten at the random moments of `AdvertSchedule` (never when
/// the activities change: open sessions are told at once, and the advert's timing must not say
/// when the person did something), replaced as a whole at each rotation (withdrawn at once, the
/// new one announced after a random gap), and withdrawn at shutdown; the pairing one exists only
/// while the pairing window is open. Owned by `Activities`; the format is in PrivateAdvert.
struct Advert {
    enum Phase: Equatable {
        /// Not published yet: the link's port is not known.
        case unpublished
        case published(port: Int)
        /// Between a rotation's withdrawal of the old advert and the new one's announcement.
        case rotating(port: Int, announceAt: ContinuousClock.Instant)
        case withdrawn
    }

    /// What a turn of `due(at:advertised:)` did, for the log.
    enum Change: Equatable {
        case rewrote
        case announced(name: String)
    }

    let discovery: any Discovery
    let trustStore: any TrustStore
    /// Shown only in the pairing advert.
    let deviceName: String
    private(set) var rotation: AdvertRotation
    private(set) var schedule: AdvertSchedule
    private(set) var phase = Phase.unpublished
    private(set) var pairingPublished = false

    init(
        discovery: any Discovery, trustStore: any TrustStore, deviceName: String, rotationInterval: Duration,
        rewriteInterval: Duration = .seconds(30), owned: OwnedNames? = nil, now: ContinuousClock.Instant = .now
    ) {
        rotation = AdvertRotation(owned: owned, key: try? trustStore.ownAdvertisingKey())
        self.discovery = discovery
        self.trustStore = trustStore
        self.deviceName = deviceName
        schedule = AdvertSchedule(rewriteMean: rewriteInterval, rotationMean: rotationInterval, now: now)
    }

    /// The current name; during a rotation's gap, the name that will be announced.
    var instanceName: String { rotation.instanceName }

    private var port: Int? {
        switch phase {
        case .published(let port), .rotating(let port, _): port
        case .unpublished, .withdrawn: nil
        }
    }

    mutating func publish(port: Int, advertised: [CurrentActivities.Entry]) throws {
        var advert = try ServiceAdvert(instanceName: rotation.instanceName, port: UInt16(port), txt: record(advertised), hostName: rotation.hostName)
        advert.onCollision = .withdraw
        try discovery.publish(advert)
        phase = .published(port: port)
    }

    func rotationDue(at now: ContinuousClock.Instant) -> Bool { schedule.isRotationDue(at: now) }

    /// Another host claimed the advert's name (or Avahi's own echo did): it is withdrawn, not
    /// renamed `NAME #2` (untagged, so every machine would resolve it; a zone would keep the
    /// name asked for; a stranger could follow it until the next rotation). It is to be rotated.
    var collided: Bool {
        guard case .published = phase else { return false }
        return discovery.collided
    }

    /// When the run loop must look again at the latest.
    var nextEvent: ContinuousClock.Instant {
        if case .rotating(_, let at) = phase { return min(at, schedule.nextEvent) }
        return schedule.nextEvent
    }

    /// What is due at `now`: the new advert's announcement after a rotation's gap, or a rewrite
    /// of the TXT with what is advertised now (changed or not: every record looks alike).
    mutating func due(at now: ContinuousClock.Instant, advertised: [CurrentActivities.Entry]) throws -> Change? {
        if case .rotating(let port, let at) = phase, now >= at {
            schedule.rewrote(at: now)
            try publish(port: port, advertised: advertised)
            return .announced(name: rotation.instanceName)
        }
        guard schedule.isRewriteDue(at: now) else { return nil }
        schedule.rewrote(at: now)
        guard case .published = phase else { return nil }
        try discovery.updateTXT(try record(advertised))
        return .rewrote
    }

    /// A new name, a new sequence and new salts: the old instance is withdrawn now (peers see its
    /// goodbye) and the new one announced after the schedule's gap.
    mutating func rotate(at now: ContinuousClock.Instant = .now) {
        rotation.rotate(key: try? trustStore.ownAdvertisingKey())
        let announceAt = schedule.rotated(at: now)
        guard let port else { return }
        discovery.withdraw(slot: .main)
        phase = .rotating(port: port, announceAt: announceAt)
    }

    /// Publishes the pairing advert (the device name, `p=1`) while the window is open, and
    /// withdraws it when it closes.
    mutating func pairingWindow(open: Bool) throws {
        guard let port, open != pairingPublished else { return }
        if open {
            try discovery.publish(
                try ServiceAdvert(
                    instanceName: deviceName, port: UInt16(port), txt: try TXTRecord([.init(AdvertTXT.pairingKey, "1")]),
                    hostName: rotation.newName()),
                slot: .pairing)
        } else {
            discovery.withdraw(slot: .pairing)
        }
        pairingPublished = open
    }

    mutating func withdraw() {
        guard phase != .withdrawn else { return }
        phase = .withdrawn
        pairingPublished = false
        discovery.shutdown()
    }

    private mutating func record(_ advertised: [CurrentActivities.Entry]) throws -> TXTRecord {
        let tokens = advertised.map { AdvertTXT.Token(activityID: $0.activity.id, type: $0.activity.type.rawValue, version: $0.activity.version) }
        return try PrivateAdvert.record(.init(sequence: rotation.nextSequence(), tokens: tokens), key: try trustStore.ownAdvertisingKey())
    }
}
