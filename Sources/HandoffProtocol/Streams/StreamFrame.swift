/// One frame of a continuation stream (docs/PROTOCOL.md, "Continuation streams"): carried as a
/// link message of kind 0x02 on the peer's session, beside the peer messages, so that a stream
/// costs no handshake of its own and never outlives the pairing. A fixed binary layout, not the
/// canonical encoding: every byte of a transfer passes through it.
///
///     u8 type | u64 stream (big-endian) | u64 offset (big-endian) | body
///
/// `data` (1): body = the bytes at `offset` of the sender's direction (1 ... maxPayload bytes).
/// `ack` (2): the sender of the ack has delivered `offset` bytes to its app (its fin counts as
///   one more), body = u32 window: the other side may have up to offset + window outstanding.
/// `fin` (3): the sender's direction ends after `offset` bytes (the app half-closed it).
/// `reset` (4): the stream ends in error; body = u8 code length, code, message (UTF-8).
/// `resume` (5): after a new session: the sender has received `offset` bytes and wants the rest.
public enum StreamFrame: Sendable, Equatable {
    case data(stream: UInt64, offset: UInt64, bytes: [UInt8])
    case ack(stream: UInt64, offset: UInt64, window: UInt32)
    case fin(stream: UInt64, offset: UInt64)
    case reset(stream: UInt64, code: String, message: String)
    case resume(stream: UInt64, offset: UInt64)

    public static let headerBytes = 17
    /// The type byte of a data frame (a sender writes its head itself, beside the bytes).
    public static let dataType: UInt8 = 1
    /// Codes and messages of a reset are cut to these many bytes.
    public static let maxCodeBytes = 64
    public static let maxMessageBytes = 512

    public var stream: UInt64 {
        switch self {
        case .data(let s, _, _), .ack(let s, _, _), .fin(let s, _), .reset(let s, _, _), .resume(let s, _): s
        }
    }

    public var bytes: [UInt8] { encoded(prefix: nil) }

    /// The frame's bytes after `prefix` (the link's message kind), in one allocation.
    public func encoded(prefix: UInt8?) -> [UInt8] {
        let (head, body) = parts(prefix: prefix)
        return body.isEmpty ? head : head + body
    }

    /// The frame as its head (`prefix`, then everything but a data frame's bytes) and its body (a
    /// data frame's bytes, shared, not copied; empty otherwise): a sender writes both into its
    /// buffer, so that a data frame's bytes are copied once on their way to the session.
    public func parts(prefix: UInt8?) -> (head: [UInt8], body: [UInt8]) {
        var out: [UInt8] = []
        if let prefix { out.append(prefix) }
        func put(_ type: UInt8, _ offset: UInt64) {
            out.reserveCapacity(Self.headerBytes + 1)
            out.append(type)
            Self.append(stream, to: &out)
            Self.append(offset, to: &out)
        }
        switch self {
        case .data(_, let offset, let bytes):
            put(1, offset)
            return (out, bytes)
        case .ack(_, let offset, let window):
            put(2, offset)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: window >> UInt32(shift))) }
        case .fin(_, let offset):
            put(3, offset)
        case .reset(_, let code, let message):
            put(4, 0)
            let c = Array(code.utf8.prefix(Self.maxCodeBytes))
            out.append(UInt8(c.count))
            out += c
            out += Array(message.utf8.prefix(Self.maxMessageBytes))
        case .resume(_, let offset):
            put(5, offset)
        }
        return (out, [])
    }

    /// Reads a frame; nil for one that is malformed (the caller resets that stream, or ignores
    /// an unknown type, which a newer peer may send).
    public init(decoding b: some Collection<UInt8>) throws(StreamFrameError) {
        // Read in place: a data frame's body is copied once, into the frame (every byte of a
        // transfer passes here).
        guard b.count >= Self.headerBytes else { throw .short }
        var i = b.startIndex
        let type = b[i]
        var stream: UInt64 = 0
        var offset: UInt64 = 0
        for k in 0..<16 {
            i = b.index(after: i)
            if k < 8 { stream = stream << 8 | UInt64(b[i]) } else { offset = offset << 8 | UInt64(b[i]) }
        }
        let body = b[b.index(after: i)...]
        switch type {
        case 1:
            guard !body.isEmpty else { throw .malformed("a data frame without bytes") }
            self = .data(stream: stream, offset: offset, bytes: Array(body))
        case 2:
            guard body.count == 4 else { throw .malformed("an ack's window is 4 bytes") }
            let w = body.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            self = .ack(stream: stream, offset: offset, window: w)
        case 3:
            guard body.isEmpty else { throw .malformed("a fin carries no bytes") }
            self = .fin(stream: stream, offset: offset)
        case 4:
            let rest = Array(body)
            guard let n = rest.first.map(Int.init), rest.count >= 1 + n, n <= Self.maxCodeBytes, rest.count - 1 - n <= Self.maxMessageBytes
            else { throw .malformed("a reset's code and message") }
            let code = String(decoding: rest.dropFirst().prefix(n), as: UTF8.self)
            let message = String(decoding: rest.dropFirst(1 + n), as: UTF8.self)
            self = .reset(stream: stream, code: code, message: message)
        case 5:
            guard body.isEmpty else { throw .malformed("a resume carries no bytes") }
            self = .resume(stream: stream, offset: offset)
        case let t:
            throw .unknownType(t)
        }
    }

    /// A data frame's stream, offset and bytes, read in place (every byte of a transfer passes
    /// here: its bytes are not copied into a frame); nil for any other frame, which
    /// `init(decoding:)` reads.
    public static func data<C: Collection<UInt8>>(in b: C) -> (stream: UInt64, offset: UInt64, bytes: C.SubSequence)? {
        guard b.count > headerBytes, b.first == dataType else { return nil }
        var stream: UInt64 = 0
        var offset: UInt64 = 0
        var i = b.index(after: b.startIndex)
        for k in 0..<16 {
            if k < 8 { stream = stream << 8 | UInt64(b[i]) } else { offset = offset << 8 | UInt64(b[i]) }
            i = b.index(after: i)
        }
        return (stream, offset, b[i...])
    }

    static func append(_ v: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

}

public enum StreamFrameError: Error, Sendable, Equatable {
    case short
    case malformed(String)
    case unknownType(UInt8)
}
