import HandoffCore

/// One side of a continuation stream, as pure state (docs/PROTOCOL.md, "Continuation streams"):
/// what our app wrote that the peer has not acknowledged (kept, to resend after a resume), what
/// we received and delivered to our app, both half-closes, and whether a session carries it now.
/// The daemon feeds it what happens and carries out the actions it returns; it does no I/O.
///
/// Frames to the peer are pulled, not pushed: the session asks for the next one (`nextOutgoing`)
/// when it has room, so a stream never has more than one frame on its way out and nothing a peer
/// says makes copies (a resume moves where the next frame starts; an ack wanted many times is
/// one ack, with the latest figures, when the session asks).
///
/// Bounds, whatever the peer says: we hold at most `window` bytes received and not yet delivered
/// (more is a violation that resets the stream), at most `maxRetain` plus one read of our app's
/// bytes unacknowledged (we stop reading our app at the peer's window, capped there), and one
/// resume per session (a second is a violation).
public struct StreamMachine: Sendable {
    public struct Settings: Sendable, Equatable {
        /// What we let the peer have outstanding toward us (our receive buffer).
        public var window: Int
        /// The largest data frame body.
        public var maxPayload: Int
        /// The most of our app's bytes we keep for the peer, whatever window it grants.
        public var maxRetain: Int

        public init(window: Int = 2 << 20, maxPayload: Int = 65_000, maxRetain: Int = 4 << 20) {
            self.window = window
            self.maxPayload = maxPayload
            self.maxRetain = maxRetain
        }
    }

    public enum Action: Sendable, Equatable {
        /// A frame to write at once, outside the stream's turn: only the reset that ends it.
        case send(StreamFrame)
        /// Hand these bytes to our app, then call `delivered(_:)` with their count as it takes them.
        case deliver(ArraySlice<UInt8>)
        /// Every byte of the peer's direction reached our app: half-close our app's input.
        case endAppOutput
        /// The stream ended in error (reported to our app; nothing more happens).
        case failed(code: FailureCode, message: String)
    }

    /// The next frame for the peer: a small one whole, or a data frame as the range of retained
    /// bytes it carries (`retained(from:count:)`), which the session copies once into its buffer.
    public enum Outgoing: Sendable, Equatable {
        case frame(StreamFrame)
        case data(offset: UInt64, count: Int)
    }

    /// Where our direction's end stands. A resume from a peer that did not get our fin takes
    /// `finSent` back to `appEnded`, and the fin goes again.
    enum OutEnd: Sendable, Equatable {
        case open
        /// Our app half-closed: a fin follows the last byte.
        case appEnded
        case finSent
        case finAcked
    }

    /// Where the peer's direction's end stands.
    enum InEnd: Sendable, Equatable {
        case open
        /// The peer's fin came after `at` bytes; our app has not had them all yet.
        case finAt(UInt64)
        /// Every byte and the end reached our app.
        case delivered(UInt64)
    }

    /// Where the peer stands in resuming on the session we ride now.
    enum PeerResume: Sendable, Equatable {
        /// The stream opened on this session: nothing to resume (one is still allowed).
        case notExpected
        /// A new session: nothing of ours is sent until the peer says where it stands.
        case awaited
        /// It did: a second resume on this session is a violation.
        case received
    }

    /// The session under the stream, and what is owed on it.
    enum Session: Sendable, Equatable {
        case detached
        /// `resumeOwed`: our resume is due on this session; `ackOwed`: an ack, sent with the
        /// figures of the moment the session asks for it.
        case attached(resumeOwed: Bool, ackOwed: Bool, peer: PeerResume)
    }

    public let id: UInt64
    public let settings: Settings

    // Our direction: app -> peer. Offsets count bytes from the start of the stream.
    public private(set) var acked: UInt64 = 0
    public private(set) var sent: UInt64 = 0
    public private(set) var peerWindow: UInt64
    private var retained = RetainedBytes()
    private(set) var outEnd = OutEnd.open

    // The peer's direction: peer -> app.
    public private(set) var received: UInt64 = 0
    public private(set) var delivered: UInt64 = 0
    private var lastAck: UInt64 = 0
    private(set) var inEnd = InEnd.open

    private(set) var session: Session
    /// Why the stream ended in error; nil while it runs.
    public private(set) var failure: (code: FailureCode, message: String)?

    public init(id: UInt64, settings: Settings = Settings(), peerWindow: UInt64, attached: Bool = true) {
        self.id = id
        self.settings = settings
        self.peerWindow = min(peerWindow, UInt64(settings.maxRetain))
        session = attached ? .attached(resumeOwed: false, ackOwed: false, peer: .notExpected) : .detached
    }

    public var attached: Bool { if case .attached = session { true } else { false } }
    public var appInputEnded: Bool { outEnd != .open }
    public var finSent: Bool { outEnd == .finSent || outEnd == .finAcked }
    public var finAcked: Bool { outEnd == .finAcked }
    /// Where the peer's direction ends, once its fin came.
    public var finAt: UInt64? {
        switch inEnd {
        case .open: nil
        case .finAt(let at), .delivered(let at): at
        }
    }
    public var finDelivered: Bool { if case .delivered = inEnd { true } else { false } }
    /// Nothing of ours is sent until the peer says where it stands (after a new session).
    private var awaitingResume: Bool { if case .attached(_, _, .awaited) = session { true } else { false } }

    /// An ack is owed on the session now.
    private mutating func oweAck() {
        if case .attached(let resume, _, let peer) = session { session = .attached(resumeOwed: resume, ackOwed: true, peer: peer) }
    }

    /// Where both directions stand, for logs.
    public var summary: String {
        "out: read \(readEnd) sent \(sent) acked \(acked) window \(peerWindow)\(appInputEnded ? " ended" : "")\(finAcked ? " fin-acked" : "")"
            + "; in: received \(received) delivered \(delivered)\(finAt.map { " end \($0)" } ?? "")"
            + "; \(attached ? "attached" : "detached")\(awaitingResume ? " awaiting-resume" : "")"
    }

    /// The offset just past the last byte our app wrote.
    public var readEnd: UInt64 { retained.end }
    /// Bytes of our app's we hold until the peer acknowledges them.
    public var retainedBytes: UInt64 { readEnd - acked }
    /// What holding them costs (the buffer's capacity).
    public var retainedCapacity: Int { retained.capacity }
    /// Bytes received and not yet delivered to our app.
    public var undelivered: UInt64 { received - delivered }
    /// Whether to read more from our app now (else wait for an ack).
    public var mayReadFromApp: Bool { failure == nil && !appInputEnded && readEnd - acked < peerWindow }
    /// Both directions ended and were acknowledged: the stream is over, cleanly.
    public var isFinished: Bool { failure == nil && finAcked && finDelivered }
    public var hasFailed: Bool { failure != nil }

    /// Whether `nextOutgoing` has a frame now.
    public var wantsToSend: Bool {
        guard case .attached(let resumeOwed, let ackOwed, let peer) = session, failure == nil else { return false }
        if resumeOwed || ackOwed { return true }
        guard peer != .awaited else { return false }
        return sent < min(readEnd, acked + peerWindow) || (outEnd == .appEnded && sent == readEnd)
    }

    // MARK: - Our app

    /// Bytes our app wrote: kept until acknowledged, sent within the peer's window.
    public mutating func fromApp(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !appInputEnded else { return }
        retained.append(bytes)
    }

    public mutating func fromApp(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { fromApp($0) }
    }

    /// Our app half-closed its end (or closed it): a fin follows the last byte.
    public mutating func appEnded() {
        guard failure == nil, outEnd == .open else { return }
        outEnd = .appEnded
    }

    /// `count` bytes of a `deliver` reached our app.
    public mutating func delivered(_ count: Int) -> [Action] {
        guard failure == nil else { return [] }
        delivered += UInt64(count)
        if case .finAt(let at) = inEnd, delivered == at {
            inEnd = .delivered(at)
            oweAck()
            return [.endAppOutput]
        }
        if delivered - lastAck >= UInt64(max(1, settings.window / 4)) { oweAck() }
        return []
    }

    /// The peer's window as it accepted (or opened) the stream.
    public mutating func peerGranted(window: UInt64) {
        peerWindow = min(window, UInt64(settings.maxRetain))
    }

    /// The stream ends here in error (our app is gone, the resume deadline passed, ...).
    public mutating func fail(code: FailureCode, message: String) -> [Action] {
        guard failure == nil else { return [] }
        failure = (code, message)
        var out: [Action] = []
        if attached { out.append(.send(.reset(stream: id, code: code.rawValue, message: message))) }
        out.append(.failed(code: code, message: message))
        return out
    }

    // MARK: - The session under it

    /// The session dropped: nothing is sent until another one is attached.
    public mutating func detach() {
        session = .detached
    }

    /// A new session to the peer: we owe it where we stand in its direction (a resume, then an
    /// ack of what we delivered), and send nothing of ours until it says where it stands.
    public mutating func attach() {
        guard failure == nil else { return }
        session = .attached(resumeOwed: true, ackOwed: true, peer: .awaited)
    }

    /// The next frame for the peer, or nil when nothing is due (or the window is full).
    public mutating func nextOutgoing() -> Outgoing? {
        guard case .attached(let resumeOwed, let ackOwed, let peer) = session, failure == nil else { return nil }
        if resumeOwed {
            session = .attached(resumeOwed: false, ackOwed: ackOwed, peer: peer)
            let finReceived: UInt64 = (finAt != nil && received == finAt) ? 1 : 0
            return .frame(.resume(stream: id, offset: received + finReceived))
        }
        if ackOwed {
            session = .attached(resumeOwed: false, ackOwed: false, peer: peer)
            lastAck = delivered
            return .frame(.ack(stream: id, offset: delivered + (finDelivered ? 1 : 0), window: UInt32(clamping: settings.window)))
        }
        guard peer != .awaited else { return nil }
        let limit = min(readEnd, acked + peerWindow)
        if sent < limit {
            let count = Int(min(limit - sent, UInt64(settings.maxPayload)))
            defer { sent += UInt64(count) }
            return .data(offset: sent, count: count)
        }
        if outEnd == .appEnded, sent == readEnd {
            outEnd = .finSent
            return .frame(.fin(stream: id, offset: readEnd))
        }
        return nil
    }

    /// The bytes a `.data` outgoing carries, as a view of what is retained.
    public func retained(from offset: UInt64, count: Int) -> ArraySlice<UInt8> {
        retained.bytes(from: offset, count: count)
    }

    // MARK: - The peer

    public mutating func fromPeer(_ frame: StreamFrame) -> [Action] {
        guard failure == nil else { return [] }
        switch frame {
        case .data(_, let offset, let bytes):
            return data(at: offset, bytes[...])
        case .ack(_, let offset, let window):
            let limit = sent + (finSent ? 1 : 0)
            guard offset <= limit else { return violation("acknowledged byte \(offset), but only \(limit) were sent") }
            // An older ack (from a session that ended) says nothing new.
            guard offset >= acked else { return [] }
            acked = min(offset, readEnd)
            if outEnd == .finSent, offset == readEnd + 1 { outEnd = .finAcked }
            retained.drop(before: acked)
            peerWindow = min(UInt64(window), UInt64(settings.maxRetain))
            return []
        case .fin(_, let offset):
            guard offset >= received, finAt == nil || finAt == offset else {
                return violation("the end at byte \(offset) contradicts what was received (\(received))")
            }
            if finDelivered { return [] }
            if delivered == offset {
                inEnd = .delivered(offset)
                oweAck()
                return [.endAppOutput]
            }
            inEnd = .finAt(offset)
            return []
        case .reset(_, let code, let message):
            failure = (FailureCode(code), message)
            return [.failed(code: FailureCode(code), message: message)]
        case .resume(_, let offset):
            if case .attached(_, _, .received) = session { return violation("a second resume on one session") }
            let limit = readEnd + (finSent ? 1 : 0)
            guard offset >= acked, offset <= limit else {
                return violation("resume from byte \(offset), outside what is unacknowledged (\(acked)...\(limit))")
            }
            if case .attached(let resumeOwed, let ackOwed, _) = session {
                session = .attached(resumeOwed: resumeOwed, ackOwed: ackOwed, peer: .received)
            }
            sent = min(offset, readEnd)
            // The peer has our fin (its resume counts it), or wants it again.
            if offset > readEnd, outEnd == .appEnded { outEnd = .finSent } else if offset <= readEnd, outEnd == .finSent { outEnd = .appEnded }
            return []
        }
    }

    /// What became of a data frame's bytes.
    public enum Arrival: Sendable, Equatable {
        /// Deliver them to our app, less the first `skip` (we had those: a resend that crossed
        /// our resume).
        case new(skip: Int)
        /// We had every one of them.
        case repeated
        /// They broke the protocol: the stream is reset (the actions say so).
        case violated([Action])
    }

    /// A data frame of `count` bytes at `offset` arrived: counted as received, to be delivered.
    /// The daemon copies the new ones from where they lie to its app (`data(at:_:)` for a frame
    /// in hand).
    public mutating func arrived(dataAt offset: UInt64, count: Int) -> Arrival {
        guard failure == nil else { return .repeated }
        guard count > 0 else { return .violated(violation("a data frame without bytes")) }
        let end = offset + UInt64(count)
        if let finAt, end > finAt { return .violated(violation("bytes past the end (\(finAt))")) }
        guard offset <= received else { return .violated(violation("a gap: byte \(offset) came before byte \(received)")) }
        guard end > received else { return .repeated }
        let skip = Int(received - offset)
        guard end - delivered <= UInt64(settings.window) else {
            return .violated(violation("more than the window (\(settings.window) bytes) unacknowledged"))
        }
        received = end
        return .new(skip: skip)
    }

    /// The bytes of a data frame at `offset`: those we do not have yet are delivered.
    public mutating func data(at offset: UInt64, _ bytes: ArraySlice<UInt8>) -> [Action] {
        switch arrived(dataAt: offset, count: bytes.count) {
        case .new(let skip): return [.deliver(bytes.dropFirst(skip))]
        case .repeated: return []
        case .violated(let actions): return actions
        }
    }

    /// The peer broke the protocol: the stream is reset on both sides.
    private mutating func violation(_ why: String) -> [Action] {
        fail(code: .streamProtocol, message: "the peer broke the stream protocol: \(why)")
    }
}
