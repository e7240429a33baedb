#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A rate limit: `burst` at once, refilled at `perSecond`. Pure; the caller passes the time.
public struct TokenBucket: Sendable, Equatable {
    public let burst: Double
    public let perSecond: Double
    private var tokens: Double
    private var at: ContinuousClock.Instant?

    public init(burst: Int, perSecond: Double) {
        self.burst = Double(burst)
        self.perSecond = perSecond
        tokens = Double(burst)
    }

    /// Takes one token if there is one.
    public mutating func take(now: ContinuousClock.Instant = .now) -> Bool {
        if let at {
            let d = now - at
            let elapsed = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            tokens = min(burst, tokens + elapsed * perSecond)
        }
        at = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
