#if canImport(Glibc)
    import Glibc  // log(3), for the exponential draws
#endif

/// When the private advert changes, chosen so that its timing says nothing about the person.
/// An observer who watches one advert must not see when an activity becomes current,
/// and must not link an old name to its successor by when one leaves and the other comes.
///
/// - **Rewrites** (a new TXT with the current sealed state, whether or not it changed) come at the
///   events of a Poisson process: the waits are exponential with mean `rewriteMean`, drawn
///   independently of everything the person does. Memoryless, so that nothing about the next
///   rewrite follows from the last one, and the schedule after a rotation is independent of the one
///   before (a fixed period would carry a phase across it).
/// - **Lifetimes** of a name are drawn uniformly in [½, 1½] × `rotationMean`: a fixed lifetime
///   would tie a new name's birth to the old one's.
/// - **A rotation** withdraws the old advert at once and announces the new one after a gap drawn
///   uniformly in [1 s, 1 s + rewriteMean / 3]: never in the same second, never at a fixed distance.
///
/// Pure state (the caller passes the clock's readings and a random source).
public struct AdvertSchedule: Sendable {
    public let rewriteMean: Duration
    public let rotationMean: Duration
    public private(set) var nextRewrite: ContinuousClock.Instant
    public private(set) var rotationDue: ContinuousClock.Instant

    public init<R: RandomNumberGenerator>(
        rewriteMean: Duration = .seconds(30), rotationMean: Duration = .seconds(900), now: ContinuousClock.Instant, using random: inout R
    ) {
        self.rewriteMean = rewriteMean
        self.rotationMean = rotationMean
        nextRewrite = now + Self.exponential(mean: rewriteMean, using: &random)
        rotationDue = now + Self.lifetime(mean: rotationMean, using: &random)
    }

    public init(rewriteMean: Duration = .seconds(30), rotationMean: Duration = .seconds(900), now: ContinuousClock.Instant = .now) {
        var random = SystemRandomNumberGenerator()
        self.init(rewriteMean: rewriteMean, rotationMean: rotationMean, now: now, using: &random)
    }

    public func isRewriteDue(at now: ContinuousClock.Instant) -> Bool { now >= nextRewrite }
    public func isRotationDue(at now: ContinuousClock.Instant) -> Bool { now >= rotationDue }

    /// The rewrite due was made: the next one, an exponential wait after `now`.
    public mutating func rewrote<R: RandomNumberGenerator>(at now: ContinuousClock.Instant, using random: inout R) {
        nextRewrite = now + Self.exponential(mean: rewriteMean, using: &random)
    }

    public mutating func rewrote(at now: ContinuousClock.Instant) {
        var random = SystemRandomNumberGenerator()
        rewrote(at: now, using: &random)
    }

    /// A rotation starts now (due, or for a reason: an unpair, new addresses, a request): the new
    /// name's lifetime is drawn; the answer is when to announce it.
    public mutating func rotated<R: RandomNumberGenerator>(at now: ContinuousClock.Instant, using random: inout R) -> ContinuousClock.Instant {
        rotationDue = now + Self.lifetime(mean: rotationMean, using: &random)
        return now + Self.gap(rewriteMean: rewriteMean, using: &random)
    }

    public mutating func rotated(at now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        var random = SystemRandomNumberGenerator()
        return rotated(at: now, using: &random)
    }

    /// The earliest of the moments this schedule waits for.
    public var nextEvent: ContinuousClock.Instant { min(nextRewrite, rotationDue) }

    // MARK: - The draws

    /// An exponential wait: -mean × ln(U), U uniform in (0, 1].
    public static func exponential<R: RandomNumberGenerator>(mean: Duration, using random: inout R) -> Duration {
        let u = 1 - Double.random(in: 0..<1, using: &random)
        return seconds(-log(u) * seconds(of: mean))
    }

    public static func lifetime<R: RandomNumberGenerator>(mean: Duration, using random: inout R) -> Duration {
        seconds(seconds(of: mean) * Double.random(in: 0.5...1.5, using: &random))
    }

    public static func gap<R: RandomNumberGenerator>(rewriteMean: Duration, using random: inout R) -> Duration {
        seconds(1 + seconds(of: rewriteMean) / 3 * Double.random(in: 0...1, using: &random))
    }

    static func seconds(of d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func seconds(_ s: Double) -> Duration { .nanoseconds(Int64((s * 1e9).rounded())) }
}
