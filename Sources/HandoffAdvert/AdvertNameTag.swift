@preconcurrency import Crypto

/// Private advert names that a paired machine can pick out before resolving them.
/// Resolving an instance costs queries every machine on the link must read; resolving every
/// advert to try the keys on its TXT made a link of N machines resolve N x N adverts after each
/// round of rotations (2,450 at N = 50, which saturated the avahi-daemons for a minute). So a
/// private advert's name is its 16 random characters (`AdvertRotation`, or `OwnedNames` with a
/// zone key) followed by a 6-character tag: the first 30 bits of
/// HMAC-SHA256(advertising key, "handoffd advert name v1:" + the 16), in the same 32 letters and
/// digits. A machine resolves a tagged name only when one of its paired peers' advertising keys
/// gives that tag; the key is only ever given to paired peers, so to anyone else the tag is as
/// random as the rest of a name that is new at each rotation. A name without a tag (a pairing
/// advert, an older handoffd) is resolved as before.
public enum AdvertNameTag {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
    static let context = Array("handoffd advert name v1:".utf8)
    /// Characters before the tag.
    public static let prefixLength = 16
    public static let tagLength = 6

    /// `prefix` and its tag under `key`.
    public static func name(prefix: String, key: AdvertisingKey) -> String { prefix + tag(prefix, key: key) }

    /// Whether `name` has the shape of a tagged private advert name (22 of the 32 characters).
    public static func isTagged(_ name: String) -> Bool {
        name.count == prefixLength + tagLength && name.lowercased().allSatisfy { alphabet.contains($0) }
    }

    /// Whether `name` is tagged under `key`.
    public static func matches(_ name: String, key: AdvertisingKey) -> Bool {
        guard isTagged(name) else { return false }
        let lower = name.lowercased()
        return String(lower.suffix(tagLength)) == tag(String(lower.prefix(prefixLength)), key: key)
    }

    static func tag(_ prefix: String, key: AdvertisingKey) -> String {
        let mac = Array(HMAC<SHA256>.authenticationCode(for: context + Array(prefix.utf8), using: SymmetricKey(data: key.key)))
        return base32Tag(mac)
    }

    /// The first 30 bits of a MAC as 6 characters of 5 bits (also `OwnedNames`' tag).
    static func base32Tag(_ mac: [UInt8]) -> String {
        let bits = UInt64(mac[0]) << 24 | UInt64(mac[1]) << 16 | UInt64(mac[2]) << 8 | UInt64(mac[3])
        return String((0..<6).map { i in alphabet[Int((bits >> (27 - 5 * UInt64(i))) & 31)] })
    }
}

/// Which names to resolve: untagged ones, and tagged ones under one of the paired peers' keys.
public struct AdvertNameInterest: Sendable, Equatable {
    let keys: [AdvertisingKey]

    public init(keys: [AdvertisingKey]) { self.keys = keys }

    public func wants(_ name: String) -> Bool {
        !AdvertNameTag.isTagged(name) || keys.contains { AdvertNameTag.matches(name, key: $0) }
    }
}
