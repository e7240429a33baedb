#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffDiscovery

/// What `WideAreaDiscovery` keeps of its own records in the zone (on its queue only).
struct ZonePublishing {
    var desired: [AdvertSlot: ServiceAdvert] = [:]
    var inZone: [AdvertSlot: ZoneAdvert] = [:]
    var renewedAt: [AdvertSlot: Date] = [:]
    /// The names this machine may have left in the zone, kept across crashes.
    var ledger: RecordLedger
    var nextUpdate = Date.distantPast
    var backoff: TimeInterval = 1
    /// Why the last update failed (nil once one works).
    var updateProblem: String?
}

/// What `WideAreaDiscovery` reads of the zone (on its queue only).
struct ZoneBrowsing {
    var resolved: [String: DiscoveredPeer] = [:]
    var listing = ZoneListing()
    var polls = 0
    /// Why the last reading of the zone failed (nil once one works).
    var browseProblem: String?
    /// Instances whose records could not be read, said once each while they stay.
    var badInstances: Set<String> = []
}
