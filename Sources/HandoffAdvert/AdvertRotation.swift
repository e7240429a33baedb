#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When the private advert changes as a whole (issue 15): a new random instance name and SRV
/// host name, a new sequence, new salts. Every `interval`, at every unpair and when the machine's addresses
/// change, so that nothing an observer saw before a rotation links to what it sees after. Pure
/// state, kept by the daemon with its advert.
public struct AdvertRotation: Sendable {
    public enum Reason: String, Sendable {
        case interval, unpaired
        case addressesChanged = "addresses-changed"
        case requested
    }

    public let interval: Duration
    public private(set) var instanceName: String
    /// The SRV record's target (under .local), published with this machine's addresses: the
    /// system host name is not in the advert.
    public private(set) var hostName: String
    public private(set) var rotatedAt: ContinuousClock.Instant
    /// Sealed in each record, so that a paired machine keeps the newest of two records that
    /// coexist for a while; it starts again at every rotation (the name is new too).
    private var sequence: UInt64 = 0

    public init(interval: Duration = .seconds(15 * 60), now: ContinuousClock.Instant = .now) {
        self.interval = interval
        instanceName = Self.randomName()
        hostName = Self.randomName()
        rotatedAt = now
    }

    public func isDue(at now: ContinuousClock.Instant) -> Bool { now - rotatedAt >= interval }

    public mutating func rotate(at now: ContinuousClock.Instant) {
        instanceName = Self.randomName()
        hostName = Self.randomName()
        rotatedAt = now
        sequence = 0
    }

    /// The sequence number of the next record.
    public mutating func nextSequence() -> UInt64 {
        sequence += 1
        return sequence
    }

    /// 16 letters and digits (80 random bits): no host name, nothing that repeats.
    public static func randomName() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] })
    }
}
