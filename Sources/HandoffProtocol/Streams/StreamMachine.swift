/// One side of a continuation stream, as pure state (docs/PROTOCOL.md, "Continuation streams"):
/// what our app wrote that the peer has not acknowledged (kept, to resend after a resume), what
/// we received and delivered to our app, both half-closes, and whether a session carries it now.
/// The daemon feeds it what happens and carries out the actions it returns; it does no I/O.
///
/// Bounds, whatever the peer says: we hold at most `window` bytes received and not yet delivered
/// (more is a violation that resets the stream), and at most `maxRetain` plus one read of our
/// app's bytes unacknowledged (we stop reading our app at the peer's window, capped there).
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
        case send(StreamFrame)
        /// Write these bytes to our app, then call `delivered(_:)` with their count.
        case deliver([UInt8])
        /// Every byte of the peer's direction reached our app: half-close our app's input.
        case endAppOutput
        /// The stream ended in error (reported to our app; nothing more happens).
        case failed(code: String, message: String)
    }

    public let id: UInt64
    public let settings: Settings

    // Our direction: app -> peer. Offsets count bytes from the start of the stream.
    public private(set) var acked: UInt64 = 0
    public private(set) var readEnd: UInt64 = 0
    public private(set) var sent: UInt64 = 0
    public private(set) var peerWindow: UInt64
    public private(set) var appInputEnded = false
    public private(set) var finSent = false
    public private(set) var finAcked = false
    /// Unacknowledged chunks, oldest first, from `retained[head]`.
    private var retained: [(offset: UInt64, bytes: [UInt8])] = []
    private var head = 0

    // The peer's direction: peer -> app.
    public private(set) var received: UInt64 = 0
    public private(set) var delivered: UInt64 = 0
    public private(set) var finAt: UInt64?
    public private(set) var finDelivered = false
    private var lastAck: UInt64 = 0

    public private(set) var attached: Bool
    /// After a new session, nothing is sent until the peer says where it stands.
    private var awaitingResume = false
    public private(set) var failure: (code: String, message: String)?

    public init(id: UInt64, settings: Settings = Settings(), peerWindow: UInt64, attached: Bool = true) {
        self.id = id
        self.settings = settings
        self.peerWindow = min(peerWindow, UInt64(settings.maxRetain))
        self.attached = attached
    }

    /// Where both directions stand, for logs.
    public var summary: String {
        "out: read \(readEnd) sent \(sent) acked \(acked) window \(peerWindow)\(appInputEnded ? " ended" : "")\(finAcked ? " fin-acked" : "")"
            + "; in: received \(received) delivered \(delivered)\(finAt.map { " end \($0)" } ?? "")"
            + "; \(attached ? "attached" : "detached")\(awaitingResume ? " awaiting-resume" : "")"
    }

    /// Bytes of our app's we hold until the peer acknowledges them.
    public var retainedBytes: UInt64 { readEnd - acked }
    /// Bytes received and not yet delivered to our app.
    public var undelivered: UInt64 { received - delivered }
    /// Whether to read more from our app now (else wait for an ack).
    public var mayReadFromApp: Bool { failure == nil && !appInputEnded && readEnd - acked < peerWindow }
    /// Both directions ended and were acknowledged: the stream is over, cleanly.
    public var isFinished: Bool { failure == nil && finAcked && finDelivered }
    public var hasFailed: Bool { failure != nil }

    // MARK: - Our app

    /// Bytes our app wrote: kept, and sent within the peer's window.
    public mutating func fromApp(_ bytes: [UInt8]) -> [Action] {
        guard failure == nil, !appInputEnded, !bytes.isEmpty else { return [] }
        // The usual read is one payload: kept as it is, not copied.
        if bytes.count <= settings.maxPayload {
            retained.append((readEnd, bytes))
            readEnd += UInt64(bytes.count)
            return pump()
        }
        var i = 0
        while i < bytes.count {
            let end = min(i + settings.maxPayload, bytes.count)
            retained.append((readEnd, Array(bytes[i..<end])))
            readEnd += UInt64(end - i)
            i = end
        }
        return pump()
    }

    /// Our app half-closed its end (or closed it): a fin follows the last byte.
    public mutating func appEnded() -> [Action] {
        guard failure == nil, !appInputEnded else { return [] }
        appInputEnded = true
        return pump()
    }

    /// `count` bytes of a `deliver` reached our app.
    public mutating func delivered(_ count: Int) -> [Action] {
        guard failure == nil else { return [] }
        delivered += UInt64(count)
        var out: [Action] = []
        if let finAt, delivered == finAt, !finDelivered {
            finDelivered = true
            out.append(.endAppOutput)
            out += ack()
        } else if delivered - lastAck >= UInt64(max(1, settings.window / 4)) {
            out += ack()
        }
        return out
    }

    /// The peer's window as it accepted (or opened) the stream.
    public mutating func peerGranted(window: UInt64) -> [Action] {
        peerWindow = min(window, UInt64(settings.maxRetain))
        return pump()
    }

    /// The stream ends here in error (our app is gone, the resume deadline passed, ...).
    public mutating func fail(code: String, message: String) -> [Action] {
        guard failure == nil else { return [] }
        failure = (code, message)
        var out: [Action] = []
        if attached { out.append(.send(.reset(stream: id, code: code, message: message))) }
        out.append(.failed(code: code, message: message))
        return out
    }

    // MARK: - The session under it

    /// The session dropped: nothing is sent until another one is attached.
    public mutating func detach() {
        attached = false
        awaitingResume = true
    }

    /// A new session to the peer: say where we stand in its direction and what we delivered.
    public mutating func attach() -> [Action] {
        guard failure == nil else { return [] }
        attached = true
        let finReceived: UInt64 = (finAt != nil && received == finAt) ? 1 : 0
        return [.send(.resume(stream: id, offset: received + finReceived))] + ack() + pump()
    }

    // MARK: - The peer

    public mutating func fromPeer(_ frame: StreamFrame) -> [Action] {
        guard failure == nil else { return [] }
        switch frame {
        case .data(_, let offset, let bytes):
            return data(at: offset, bytes)
        case .ack(_, let offset, let window):
            let limit = sent + (finSent ? 1 : 0)
            guard offset <= limit else { return violation("acknowledged byte \(offset), but only \(limit) were sent") }
            // An older ack (from a session that ended) says nothing new.
            guard offset >= acked else { return [] }
            acked = min(offset, readEnd)
            if finSent, offset == readEnd + 1 { finAcked = true }
            while head < retained.count, retained[head].offset + UInt64(retained[head].bytes.count) <= acked { head += 1 }
            if head > 64, head * 2 > retained.count {
                retained.removeFirst(head)
                head = 0
            }
            peerWindow = min(UInt64(window), UInt64(settings.maxRetain))
            return pump()
        case .fin(_, let offset):
            guard offset >= received, finAt == nil || finAt == offset else {
                return violation("the end at byte \(offset) contradicts what was received (\(received))")
            }
            finAt = offset
            if delivered == offset, !finDelivered {
                finDelivered = true
                return [.endAppOutput] + ack()
            }
            return []
        case .reset(_, let code, let message):
            failure = (code, message)
            return [.failed(code: code, message: message)]
        case .resume(_, let offset):
            let limit = readEnd + (finSent ? 1 : 0)
            guard offset >= acked, offset <= limit else {
                return violation("resume from byte \(offset), outside what is unacknowledged (\(acked)...\(limit))")
            }
            sent = min(offset, readEnd)
            finSent = offset > readEnd
            awaitingResume = false
            return pump()
        }
    }

    private mutating func data(at offset: UInt64, _ bytes: [UInt8]) -> [Action] {
        let end = offset + UInt64(bytes.count)
        if let finAt, end > finAt { return violation("bytes past the end (\(finAt))") }
        guard offset <= received else { return violation("a gap: byte \(offset) came before byte \(received)") }
        // Bytes we have (a resend that crossed our resume) are dropped.
        guard end > received else { return [] }
        // The usual frame starts where we are: delivered as it is, not copied.
        let fresh = offset == received ? bytes : Array(bytes[Int(received - offset)...])
        guard received + UInt64(fresh.count) - delivered <= UInt64(settings.window) else {
            return violation("more than the window (\(settings.window) bytes) unacknowledged")
        }
        received += UInt64(fresh.count)
        return [.deliver(fresh)]
    }

    /// Sends what the window allows: the unsent kept bytes, then the fin.
    private mutating func pump() -> [Action] {
        guard attached, !awaitingResume, failure == nil else { return [] }
        var out: [Action] = []
        let limit = min(readEnd, acked + peerWindow)
        var i = head
        while sent < limit {
            while i < retained.count, retained[i].offset + UInt64(retained[i].bytes.count) <= sent { i += 1 }
            guard i < retained.count else { break }
            let chunk = retained[i]
            let from = Int(sent - chunk.offset)
            let to = Int(min(limit, chunk.offset + UInt64(chunk.bytes.count)) - chunk.offset)
            out.append(
                .send(.data(stream: id, offset: sent, bytes: from == 0 && to == chunk.bytes.count ? chunk.bytes : Array(chunk.bytes[from..<to]))))
            sent = chunk.offset + UInt64(to)
        }
        if appInputEnded, !finSent, sent == readEnd {
            finSent = true
            out.append(.send(.fin(stream: id, offset: readEnd)))
        }
        return out
    }

    private mutating func ack() -> [Action] {
        guard attached else { return [] }
        lastAck = delivered
        return [.send(.ack(stream: id, offset: delivered + (finDelivered ? 1 : 0), window: UInt32(clamping: settings.window)))]
    }

    /// The peer broke the protocol: the stream is reset on both sides.
    private mutating func violation(_ why: String) -> [Action] {
        fail(code: "stream-protocol", message: "the peer broke the stream protocol: \(why)")
    }
}
