/// A paired or pairing machine's id: the SHA-256 of its long-term public key, in hex
/// (`PeerIdentity.id`). The key of every lookup of a peer; not its name (which a person chooses
/// and two machines may share) and not its fingerprint (the id's first 8 bytes, shown to people).
public struct PeerID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }
    public static func < (a: PeerID, b: PeerID) -> Bool { a.rawValue < b.rawValue }
}
