#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The activities that supportsContinuationStreams continued on this machine (by our user, or
/// pushed by a peer), with the peer each came from: only their apps may ask for a stream, and
/// only with that peer. Bounded like ServedFetches (the oldest go first; an entry lapses after
/// `lifetime`). Pure state, kept by Streams; the caller passes the time.
struct ContinuedHere {
    static let capacity = 1_024
    static let lifetime: TimeInterval = 600

    struct From: Equatable {
        let peerID: String
        let fingerprint: String
        let at: Date
    }

    private var entries: [UUID: From] = [:]

    mutating func note(_ activityID: UUID, peerID: String, fingerprint: String, at now: Date) {
        if entries.count >= Self.capacity {
            entries = entries.filter { now.timeIntervalSince($0.value.at) < Self.lifetime }
            if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.at < $1.value.at })?.key { entries[oldest] = nil }
        }
        entries[activityID] = From(peerID: peerID, fingerprint: fingerprint, at: now)
    }

    func from(_ activityID: UUID, at now: Date) -> From? {
        guard let e = entries[activityID], now.timeIntervalSince(e.at) < Self.lifetime else { return nil }
        return e
    }
}
