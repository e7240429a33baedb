#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffDiscovery
import HandoffLink

/// This machine's DNS-SD adverts. The private one is published once the link listens (its port
/// is in the SRV record), its TXT rewritten when the advertised activities change, replaced as a
/// whole at each rotation, and withdrawn at shutdown; the pairing one exists only while the
/// pairing window is open. Owned by `Activities`; the format is in PrivateAdvert.
struct Advert {
    enum Phase: Equatable {
        /// Not published yet: the link's port is not known.
        case unpublished
        case published(port: Int)
        case withdrawn
    }

    let discovery: any Discovery
    let trustStore: any TrustStore
    /// Shown only in the pairing advert.
    let deviceName: String
    private(set) var rotation: AdvertRotation
    private(set) var phase = Phase.unpublished
    private(set) var pairingPublished = false
    /// What the TXT says now (id -> version), to notice when an activity expires.
    private var sealed: [UUID: UInt64] = [:]

    init(discovery: any Discovery, trustStore: any TrustStore, deviceName: String, rotationInterval: Duration) {
        self.discovery = discovery
        self.trustStore = trustStore
        self.deviceName = deviceName
        rotation = AdvertRotation(interval: rotationInterval)
    }

    var instanceName: String { rotation.instanceName }

    mutating func publish(port: Int, advertised: [CurrentActivities.Entry]) throws {
        try discovery.publish(
            try ServiceAdvert(instanceName: rotation.instanceName, port: UInt16(port), txt: record(advertised), hostName: rotation.hostName))
        phase = .published(port: port)
    }

    /// A new TXT for the current set; nothing before the advert is published or after it is withdrawn.
    mutating func update(advertised: [CurrentActivities.Entry]) throws {
        guard case .published = phase else { return }
        try discovery.updateTXT(try record(advertised))
    }

    func rotationDue(at now: ContinuousClock.Instant) -> Bool { rotation.isDue(at: now) }

    /// A new name, a new sequence and new salts: the old instance is withdrawn (peers see its
    /// goodbye) and the new one published.
    mutating func rotate(advertised: [CurrentActivities.Entry], at now: ContinuousClock.Instant = .now) throws {
        rotation.rotate(at: now)
        guard case .published(let port) = phase else { return }
        try publish(port: port, advertised: advertised)
    }

    /// True when the TXT no longer says what is advertised (an activity expired since).
    func isStale(_ advertised: [CurrentActivities.Entry]) -> Bool {
        Dictionary(uniqueKeysWithValues: advertised.map { ($0.activity.id, $0.activity.version) }) != sealed
    }

    /// Publishes the pairing advert (the device name, `p=1`) while the window is open, and
    /// withdraws it when it closes.
    mutating func pairingWindow(open: Bool) throws {
        guard case .published(let port) = phase, open != pairingPublished else { return }
        if open {
            try discovery.publish(
                try ServiceAdvert(
                    instanceName: deviceName, port: UInt16(port), txt: try TXTRecord([.init(AdvertTXT.pairingKey, "1")]),
                    hostName: AdvertRotation.randomName()),
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
        sealed = Dictionary(uniqueKeysWithValues: advertised.map { ($0.activity.id, $0.activity.version) })
        let tokens = advertised.map { AdvertTXT.Token(activityID: $0.activity.id, type: $0.activity.type.rawValue, version: $0.activity.version) }
        return try PrivateAdvert.record(.init(sequence: rotation.nextSequence(), tokens: tokens), key: try trustStore.ownAdvertisingKey())
    }
}
