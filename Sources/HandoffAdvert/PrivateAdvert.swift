@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffDiscovery
import HandoffCore

/// The private advert's TXT: what anyone on the network reads is a format version and
/// opaque bytes that change with every record:
///   v  the format (2; the discovery layer adds it, HandoffTXT)
///   n  the record's random salt (16 bytes, base64url)
///   m  the recognition tag: 8 bytes of HMAC under a key derived from our advertising key and `n`
///   b  one sealed blob of a fixed size: the advert's sequence number and up to four activity
///      tokens, padded, so that neither the clock nor the number of activities shows
/// A paired machine holds our advertising key (it came over the link, and it is rotated at every
/// unpair): it finds whose record this is by checking the tag under each paired peer's key, then
/// opens the blob. Nothing stable, counted or clocked is in the clear, and no two records share a
/// field but `v`.
public enum PrivateAdvert {
    public static let formatVersion = HandoffTXT.version
    public static let tagBytes = 8
    /// The most activities one advert carries (the daemon advertises at most this many).
    public static let maxTokens = 4
    public static let tokenBytes = 24
    /// Sequence (8), token count (1), the tokens, padding: always this long before sealing.
    public static let plainBytes = 8 + 1 + maxTokens * tokenBytes

    /// What the blob carries.
    public struct Contents: Sendable, Equatable {
        /// Grows with every record this machine publishes (readable only by paired machines,
        /// which keep the newest when two records coexist).
        public var sequence: UInt64
        public var tokens: [AdvertTXT.Token]

        public init(sequence: UInt64, tokens: [AdvertTXT.Token]) {
            self.sequence = sequence
            self.tokens = Array(tokens.prefix(PrivateAdvert.maxTokens))
        }
    }

    /// A record whose every field but `v` is new: a fresh salt gives a fresh tag and blob.
    public static func record(_ contents: Contents, key: AdvertisingKey, salt: [UInt8] = AdvertisingKey.randomSalt()) throws(TXTError)
        -> TXTRecord
    {
        var plain = withUnsafeBytes(of: contents.sequence.bigEndian) { Array($0) } + [UInt8(contents.tokens.count)]
        for token in contents.tokens { plain += token.bytes }
        plain += [UInt8](repeating: 0, count: plainBytes - plain.count)
        let box = try! ChaChaPoly.seal(plain, using: sealKey(key, salt: salt), nonce: zeroNonce, authenticating: Array(formatVersion.utf8))
        return try TXTRecord([
            .init("n", AdvertTXT.base64url(salt)),
            .init("m", AdvertTXT.base64url(tag(Recogniser.tagKey(key), salt: salt))),
            .init("b", AdvertTXT.base64url(Array(box.ciphertext) + Array(box.tag)))
        ])
    }

    /// Finds whose record an advert is among the paired peers' advertising keys (by identity id),
    /// and opens it. Each key's tag HMAC is keyed once, here (its inner and outer hash states):
    /// checking a record then costs one HMAC of the salt per key tried, and the seal key is
    /// derived only for the key whose tag matched. A hub restarted among 49 peers recognises
    /// their 49 adverts at once (docs/ARCHITECTURE.md, "Private adverts": what that cost).
    public struct Recogniser: Sendable {
        private let candidates: [(peerID: PeerID, key: AdvertisingKey, tagger: HMAC<SHA256>)]

        public init(keys: [(peerID: PeerID, key: AdvertisingKey)]) {
            candidates = keys.map { ($0.peerID, $0.key, HMAC<SHA256>(key: Self.tagKey($0.key))) }
        }

        /// Whose record this is, and what it says; nil for a machine we are not paired with, or
        /// whose current key we do not hold. `preferring`: the peer whose key is tried first (the
        /// one that recognised this advert's name before: a rewrite keeps the name), a hint only.
        public func recognise(_ txt: TXTRecord, preferring preferred: PeerID? = nil) -> (peerID: PeerID, contents: Contents)? {
            guard let salt = txt["n"].flatMap(AdvertTXT.unbase64url), salt.count == AdvertisingKey.saltBytes,
                let tag = txt["m"].flatMap(AdvertTXT.unbase64url), tag.count == tagBytes,
                let sealed = txt["b"].flatMap(AdvertTXT.unbase64url), sealed.count == plainBytes + 16
            else { return nil }
            let matches = { (c: (peerID: PeerID, key: AdvertisingKey, tagger: HMAC<SHA256>)) in
                constantTimeEqual(PrivateAdvert.tag(c.tagger, salt: salt), tag)
            }
            let hinted = preferred.flatMap { p in candidates.first { $0.peerID == p } }.flatMap { matches($0) ? $0 : nil }
            guard let match = hinted ?? candidates.first(where: { $0.peerID != preferred && matches($0) }),
                let box = try? ChaChaPoly.SealedBox(nonce: zeroNonce, ciphertext: sealed.dropLast(16), tag: sealed.suffix(16)),
                let opened = try? ChaChaPoly.open(box, using: sealKey(match.key, salt: salt), authenticating: Array(formatVersion.utf8)),
                let contents = Contents(plain: Array(opened))
            else { return nil }
            return (match.peerID, contents)
        }

        static func tagKey(_ key: AdvertisingKey) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key.key), info: info("tag", key), outputByteCount: 32)
        }
    }

    /// Recognises with a one-off `Recogniser` (tests; Peers keeps one for its paired keys).
    public static func recognise(_ txt: TXTRecord, keys: [(peerID: PeerID, key: AdvertisingKey)]) -> (peerID: PeerID, contents: Contents)? {
        Recogniser(keys: keys).recognise(txt)
    }

    /// The blob's key: new for every record (its salt is), derived from the advertising key,
    /// its generation included.
    static func sealKey(_ key: AdvertisingKey, salt: [UInt8]) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key.key), salt: salt, info: info("seal", key), outputByteCount: 32)
    }

    static func info(_ purpose: String, _ key: AdvertisingKey) -> [UInt8] {
        Array("handoffd-private-advert-2-\(purpose)".utf8) + withUnsafeBytes(of: key.generation.bigEndian) { Array($0) }
    }

    /// The seal key is new for every record (its salt is), so one nonce is enough.
    static let zeroNonce = try! ChaChaPoly.Nonce(data: [UInt8](repeating: 0, count: 12))

    /// The recognition tag of one record: it changes with the salt, and only a holder of the
    /// advertising key can compute it.
    static func tag(_ key: SymmetricKey, salt: [UInt8]) -> [UInt8] {
        tag(HMAC<SHA256>(key: key), salt: salt)
    }

    /// The same from an HMAC already keyed (a copy: the keyed state is not changed).
    static func tag(_ keyed: HMAC<SHA256>, salt: [UInt8]) -> [UInt8] {
        var mac = keyed
        mac.update(data: salt)
        return Array(mac.finalize().prefix(tagBytes))
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension PrivateAdvert.Contents {
    public init?(plain: [UInt8]) {
        guard plain.count == PrivateAdvert.plainBytes else { return nil }
        let count = Int(plain[8])
        guard count <= PrivateAdvert.maxTokens else { return nil }
        var tokens: [AdvertTXT.Token] = []
        for i in 0..<count {
            let start = 9 + i * PrivateAdvert.tokenBytes
            guard let token = AdvertTXT.Token(bytes: Array(plain[start..<start + PrivateAdvert.tokenBytes])) else { return nil }
            tokens.append(token)
        }
        // The padding is zeros: anything else is not a record of ours.
        guard plain[(9 + count * PrivateAdvert.tokenBytes)...].allSatisfy({ $0 == 0 }) else { return nil }
        self.init(sequence: plain[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, tokens: tokens)
    }
}
