import Foundation
import HandoffDiscovery
import HandoffLink

/// This machine's one DNS-SD advert: published once the link listens (its port is in the SRV
/// record), its TXT rewritten when the advertised activities change, withdrawn at shutdown.
/// Owned by `Activities`; the sealed tokens are described in AdvertTXT.
struct Advert {
    enum Phase: Equatable {
        /// Not published yet: the link's port is not known.
        case unpublished
        case published(port: Int)
        case withdrawn
    }

    let discovery: any Discovery
    let trustStore: any TrustStore
    let instanceName: String
    let fingerprint: String
    private(set) var phase = Phase.unpublished
    /// What the TXT says now (id -> version), to notice when an activity expires.
    private var sealed: [UUID: UInt64] = [:]

    init(discovery: any Discovery, trustStore: any TrustStore, instanceName: String, fingerprint: String) {
        self.discovery = discovery
        self.trustStore = trustStore
        self.instanceName = instanceName
        self.fingerprint = fingerprint
    }

    mutating func publish(port: Int, advertised: [CurrentActivities.Entry]) throws {
        try discovery.publish(try ServiceAdvert(instanceName: instanceName, port: UInt16(port), txt: record(advertised)))
        phase = .published(port: port)
    }

    /// A new TXT for the current set; nothing before the advert is published or after it is withdrawn.
    mutating func update(advertised: [CurrentActivities.Entry]) throws {
        guard case .published = phase else { return }
        try discovery.updateTXT(try record(advertised))
    }

    /// True when the TXT no longer says what is advertised (an activity expired since).
    func isStale(_ advertised: [CurrentActivities.Entry]) -> Bool {
        Dictionary(uniqueKeysWithValues: advertised.map { ($0.activity.id, $0.activity.version) }) != sealed
    }

    mutating func withdraw() {
        guard phase != .withdrawn else { return }
        phase = .withdrawn
        discovery.shutdown()
    }

    private mutating func record(_ advertised: [CurrentActivities.Entry]) throws -> TXTRecord {
        sealed = Dictionary(uniqueKeysWithValues: advertised.map { ($0.activity.id, $0.activity.version) })
        let tokens = advertised.map { AdvertTXT.Token(activityID: $0.activity.id, type: $0.activity.type.rawValue, version: $0.activity.version) }
        return try AdvertTXT.record(tokens: tokens, key: try trustStore.ownAdvertisingKey(), fingerprint: fingerprint)
    }
}
