/// Limits applied to every decode (and encode, so that we never produce what a peer would refuse).
public struct CodecLimits: Sendable, Equatable {
    /// Containers nested deeper than this are refused. The top-level value is depth 1.
    public var maxDepth: Int
    /// Total number of values (scalars and containers) in one input.
    public var maxValues: Int
    /// Size of the whole encoding in bytes.
    public var maxBytes: Int
    /// Bytes of one dictionary key. Keys are hashed, and hashing a Swift string normalises it:
    /// a long run of combining marks costs quadratic time (32 KiB of them: 0.2 s a hash).
    public var maxKeyBytes: Int

    public init(maxDepth: Int = 16, maxValues: Int = 4_096, maxBytes: Int = 256 * 1024, maxKeyBytes: Int = 1_024) {
        self.maxDepth = maxDepth
        self.maxValues = maxValues
        self.maxBytes = maxBytes
        self.maxKeyBytes = maxKeyBytes
    }

    public static let `default` = CodecLimits()
}
