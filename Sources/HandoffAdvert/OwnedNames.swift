@preconcurrency import Crypto

/// Advert names that a DNS server can tell belong to one machine's zone key, and that nobody else
/// can link. With `wide_area:` each machine may hold a zone key of its own; a
/// name is then 10 random characters and a 6-character tag, the first 30 bits of
/// HMAC-SHA256(zone key secret, "handoffd zone name v1:" + those 10), in the same 32 letters and
/// digits as every advert name. The server's policy (packaging/handoff-zone-policy.py, BIND's
/// `external` rule) recomputes the tag under each key it knows: an update signed with key A that
/// touches a name tagged under key B is refused. To anyone without the key the tag is as random
/// as the rest, and each name is new: nothing links two of them.
public struct OwnedNames: Sendable {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
    static let context = Array("handoffd zone name v1:".utf8)
    private let key: SymmetricKey

    /// `secret`: the zone key's secret, as its key file holds it (decoded from base64).
    public init(secret: [UInt8]) { key = SymmetricKey(data: secret) }

    /// A new name: 10 random characters and their tag.
    public func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let nonce = String((0..<10).map { _ in Self.alphabet[Int(generator.next(upperBound: UInt32(Self.alphabet.count)))] })
        return nonce + tag(nonce)
    }

    /// Whether `label` (the first label of a DNS name, any case) carries this key's tag: its
    /// characters 11-16, after the 10 they tag. A private advert's name may go on with the
    /// paired peers' tag (`AdvertNameTag`: 22 characters), which the zone's policy ignores.
    public func owns(_ label: String) -> Bool {
        let lower = label.lowercased()
        guard lower.count == 16 || lower.count == 22, lower.allSatisfy({ Self.alphabet.contains($0) }) else { return false }
        return String(lower.dropFirst(10).prefix(6)) == tag(String(lower.prefix(10)))
    }

    /// The first 30 bits of the MAC, as 6 characters of 5 bits.
    func tag(_ nonce: String) -> String {
        AdvertNameTag.base32Tag(Array(HMAC<SHA256>.authenticationCode(for: Self.context + Array(nonce.utf8), using: key)))
    }
}
