import NIOCore

public struct LinkConfiguration: Sendable {
    /// Largest frame accepted or sent; also the largest Noise message.
    public var maxFrame = FrameDecoder.defaultMaxFrame
    public var handshakeTimeout: TimeAmount = .seconds(10)
    public var maxUnauthenticated = 8
    public var maxUnauthenticatedPerSource = 2
    public var maxUnauthenticatedPerPrefix = 4
    public var maxUnauthenticatedExempt = 16
    public var pairingWindow: TimeAmount = .seconds(120)

    public init() {}
}
