#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffDiscovery

/// The one update that makes the zone hold our desired adverts and nothing else of ours, as a
/// pure function of what we want, what we last wrote, and the names we may have left there
/// (`RecordLedger`): old names go (a rotation, a withdrawn advert, a crash's leftovers), current
/// ones are written when new, changed, or due for renewal.
struct ZonePlan: Equatable {
    var deleting: [RecordDeletion] = []
    var adding: [String] = []
    /// The slots whose records this update writes (their renewal starts again).
    var written: [AdvertSlot] = []
    /// Ledger entries this update deletes (forgotten once it succeeds).
    var stale: Set<RecordLedger.Entry> = []

    var isEmpty: Bool { deleting.isEmpty && adding.isEmpty }

    static func make(
        targets: [AdvertSlot: ZoneAdvert], inZone: [AdvertSlot: ZoneAdvert], ledger: Set<RecordLedger.Entry>,
        renewedAt: [AdvertSlot: Date], now: Date, renewInterval: TimeInterval
    ) -> ZonePlan {
        var plan = ZonePlan()
        plan.stale = ledger.subtracting(targets.values.map(entry))
        for e in plan.stale.sorted(by: { $0.instance < $1.instance }) {
            plan.deleting += ZoneAdvert.removal(service: e.service, instance: e.instance, host: e.host)
        }
        for slot in AdvertSlot.allCases {
            guard let t = targets[slot] else { continue }
            let renewDue = renewedAt[slot].map { now.timeIntervalSince($0) >= renewInterval } ?? true
            guard inZone[slot] != t || renewDue else { continue }
            plan.deleting += t.replacing
            plan.adding += t.records
            plan.written.append(slot)
        }
        return plan
    }

    static func entry(_ z: ZoneAdvert) -> RecordLedger.Entry {
        RecordLedger.Entry(service: z.serviceName, instance: z.instanceName, host: z.hostName)
    }
}
