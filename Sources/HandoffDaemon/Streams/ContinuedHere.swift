#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// The activities that supportsContinuationStreams continued on this machine (by our user, or
/// pushed by a peer), with each peer it came from: only their apps may ask for a stream, and only
/// with a peer that gave it. An activity's id is chosen by the machine that made it and known to
/// every machine it was shown to, so an id alone names no origin: a second machine that pushes
/// the same id is noted beside the first, never over it, and a stream asked for without naming
/// the machine is refused while more than one gave it. Bounded like ServedFetches (the oldest go
/// first; an entry lapses after `lifetime`). Pure state, kept by Streams; the caller passes the time.
struct ContinuedHere {
    static let capacity = 1_024
    /// Machines noted for one id (a peer that pushes an id many times takes one place).
    static let originsPerActivity = 4
    static let lifetime: TimeInterval = 600

    struct From: Equatable {
        let peerID: PeerID
        let fingerprint: String
        let at: Date
    }

    private var entries: [UUID: [From]] = [:]
    private var count = 0

    mutating func note(_ activityID: UUID, peerID: PeerID, fingerprint: String, at now: Date) {
        var list = entries[activityID] ?? []
        if let i = list.firstIndex(where: { $0.peerID == peerID }) {
            list.remove(at: i)
            count -= 1
        } else if list.count >= Self.originsPerActivity {
            list.removeFirst()
            count -= 1
        }
        if count >= Self.capacity { evict(at: now) }
        list.append(From(peerID: peerID, fingerprint: fingerprint, at: now))
        count += 1
        entries[activityID] = list
    }

    /// The machines that gave the activity within `lifetime`, oldest first.
    func origins(of activityID: UUID, at now: Date) -> [From] {
        (entries[activityID] ?? []).filter { now.timeIntervalSince($0.at) < Self.lifetime }
    }

    private mutating func evict(at now: Date) {
        entries = entries.compactMapValues { list in
            let kept = list.filter { now.timeIntervalSince($0.at) < Self.lifetime }
            return kept.isEmpty ? nil : kept
        }
        count = entries.values.reduce(0) { $0 + $1.count }
        while count >= Self.capacity, let oldest = entries.min(by: { $0.value[0].at < $1.value[0].at })?.key {
            entries[oldest]?.removeFirst()
            if entries[oldest]?.isEmpty == true { entries[oldest] = nil }
            count -= 1
        }
    }
}
