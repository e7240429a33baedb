/// The first frame of every connection, in clear: magic, link protocol version and mode. It is
/// also the Noise prologue, so a peer that tampers with it breaks the handshake.
public enum LinkMode: UInt8, Sendable {
    case session = 1
    case pairing = 2
}

public struct LinkPreamble: Sendable, Equatable {
    public static let magic: [UInt8] = Array("HOFF".utf8)
    public static let currentVersion: UInt8 = 1

    public let version: UInt8
    public let mode: LinkMode

    public init(mode: LinkMode, version: UInt8 = LinkPreamble.currentVersion) {
        self.mode = mode
        self.version = version
    }

    public var bytes: [UInt8] { Self.magic + [version, mode.rawValue] }

    public init(parsing bytes: [UInt8]) throws(LinkError) {
        guard bytes.count == 6, Array(bytes.prefix(4)) == Self.magic, let mode = LinkMode(rawValue: bytes[5]) else { throw .badPreamble }
        guard bytes[4] == Self.currentVersion else { throw .unsupportedVersion(bytes[4]) }
        self.init(mode: mode, version: bytes[4])
    }
}

/// Why a responder declined to pair before any handshake, sent as a 2-byte clear frame.
public enum PairingRefusal: UInt8, Error, Sendable, Equatable, CustomStringConvertible {
    case notAccepting = 1
    case busy = 2
    case lockedOut = 3

    static let marker: UInt8 = 0xFF
    var frame: [UInt8] { [Self.marker, rawValue] }

    public var description: String {
        switch self {
        case .notAccepting: "the other machine is not accepting pairing; run `handoffctl pair --accept` there first"
        case .busy: "the other machine is pairing with someone else; try again in a moment"
        case .lockedOut: "the other machine locked pairing after three failures; wait 5 minutes"
        }
    }
}
