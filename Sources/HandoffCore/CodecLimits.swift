/// Limits applied to every decode (and encode, so that we never produce what a peer would refuse).
public struct CodecLimits: Sendable, Equatable {
    /// Containers nested deeper than this are refused. The top-level value is depth 1.
    public var maxDepth: Int
    /// Total number of values (scalars and containers) in one input.
    public var maxValues: Int
    /// Size of the whole encoding in bytes.
    public var maxBytes: Int

    public init(maxDepth: Int = 16, maxValues: Int = 4_096, maxBytes: Int = 256 * 1024) {
        self.maxDepth = maxDepth
        self.maxValues = maxValues
        self.maxBytes = maxBytes
    }

    public static let `default` = CodecLimits()
}
