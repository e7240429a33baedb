/// How large an encoded activity may be. Apple advises keeping Handoff payloads under 3 KB;
/// beyond the hard limit an activity is refused.
public struct ActivitySizePolicy: Sendable, Equatable {
    public var warnAbove: Int
    public var hardLimit: Int

    /// The largest activity a link frame of `frameBytes` can carry: the frame less the AEAD tag,
    /// the message kind byte and the peer message's envelope (64 bytes).
    public static func largestFitting(frameBytes: Int) -> Int { frameBytes - 16 - 1 - 64 }

    /// The default hard limit: what the largest frame (65,535 bytes, the largest Noise message) carries.
    public static let defaultHardLimit = largestFitting(frameBytes: 65_535)

    public init(warnAbove: Int = 3 * 1024, hardLimit: Int = ActivitySizePolicy.defaultHardLimit) {
        self.warnAbove = warnAbove
        self.hardLimit = hardLimit
    }

    public static let `default` = ActivitySizePolicy()
}

/// The measured size of an activity, and whether it earns a warning.
public struct ActivitySize: Sendable, Equatable {
    public let bytes: Int
    public let isAboveWarning: Bool
}

extension UserActivity {
    /// Measures the canonical encoding. Above `policy.hardLimit` it throws an error that states both
    /// the size and the limit; above `policy.warnAbove` the result says so, for the caller to log.
    public func measureSize(policy: ActivitySizePolicy = .default) throws(ActivityError) -> ActivitySize {
        // Encode with room above the hard limit so that the error can report the real size.
        let limits = CodecLimits(
            maxDepth: CodecLimits.default.maxDepth,
            maxValues: CodecLimits.default.maxValues,
            maxBytes: Int.max)
        let size: Int
        do { size = try encoded(limits: limits).count } catch {
            throw .payloadCorrupt("the activity cannot be encoded: \(error)")
        }
        if size > policy.hardLimit { throw .tooLarge(size: size, limit: policy.hardLimit) }
        return ActivitySize(bytes: size, isAboveWarning: size > policy.warnAbove)
    }
}
