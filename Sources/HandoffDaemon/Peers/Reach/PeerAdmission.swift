import HandoffCore
/// How much a paired peer may make us do at once: at most `maxInFlight` of its requests served at
/// a time on one session, and pushes (dispatches, exec children, scene writes) within a token
/// bucket. Pure state, kept by PeerLinks.
struct PeerAdmission {
    static let maxInFlightPerSession = 8
    static let pushBurst = 20
    static let pushesPerSecond = 5.0

    private var inFlight: [ObjectIdentifier: Int] = [:]
    private var pushAllowance: [PeerID: TokenBucket] = [:]

    enum Refusal: Equatable { case busy, rateLimited }

    /// nil if the request may be served now (and counts as in flight until `served`).
    mutating func admit(isPush: Bool, session: ObjectIdentifier, peerID: PeerID) -> Refusal? {
        if inFlight[session, default: 0] >= Self.maxInFlightPerSession { return .busy }
        if isPush {
            var bucket = pushAllowance[peerID] ?? TokenBucket(burst: Self.pushBurst, perSecond: Self.pushesPerSecond)
            let ok = bucket.take()
            pushAllowance[peerID] = bucket
            if !ok { return .rateLimited }
        }
        inFlight[session, default: 0] += 1
        return nil
    }

    mutating func served(session: ObjectIdentifier) {
        if let n = inFlight[session] { inFlight[session] = n > 1 ? n - 1 : nil }
    }

    mutating func closed(session: ObjectIdentifier) { inFlight[session] = nil }

    /// The peer's requests on a session being served now.
    func serving(session: ObjectIdentifier) -> Int { inFlight[session] ?? 0 }
}
