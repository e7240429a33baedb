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
    /// The session bounds (docs/SECURITY.md, "Bounds on a session").
    public var sessions = SessionLimits()

    public init() {}
}

/// What one authenticated session, and all of them together, may hold of ours. A paired machine
/// is trusted with what it says, never with how much or how fast.
public struct SessionLimits: Sendable, Equatable {
    /// Sessions open with one peer at once; a newer one past this closes that peer's oldest.
    public var perPeer = 4
    /// Sessions open in all; past this a new one is closed at once. Well below LimitNOFILE (1024).
    public var total = 256
    /// Inbound messages decrypted and waiting for the daemon: past `inboundHigh` the socket is not
    /// read until the daemon has taken them down to `inboundLow` (NIO's back-pressure).
    public var inboundLow = 2
    public var inboundHigh = 8
    /// How long one write may wait for the peer to take it; then the session closes as `stalled`.
    public var writeDeadline: TimeAmount = .seconds(5)
    /// Bytes written but not yet taken by the peer's socket; past this the session closes as
    /// `stalled` at once.
    public var maxPendingBytes = 1 << 20
    /// Writes not yet taken by the peer's socket, whatever their size; past this the session
    /// closes as `stalled` at once (a peer that does not read, made to be answered many times).
    public var maxPendingWrites = 1_024
    /// Stream frames are written only while less than this waits for the peer's socket (well
    /// under `maxPendingBytes`, whatever the number of streams: one frame at most goes past it).
    public var streamHighWater = 256 << 10

    public init() {}
}
