/// The private advert's names: a new random instance name and SRV host name, a new
/// sequence and new salts at every rotation, so that nothing an observer saw before a rotation
/// links to what it sees after. When rotations and rewrites happen is `AdvertSchedule`'s. Pure
/// state, kept by the daemon with its advert.
public struct AdvertRotation: Sendable {
    public enum Reason: String, Sendable {
        case interval, unpaired
        case addressesChanged = "addresses-changed"
        case requested
        /// mDNS renamed the advert (`NAME #2`): another host, or Avahi's own echo, held the name.
        case collision
    }

    public private(set) var instanceName: String
    /// The SRV record's target (under .local), published with this machine's addresses: the
    /// system host name is not in the advert.
    public private(set) var hostName: String
    /// Sealed in each record, so that a paired machine keeps the newest of two records that
    /// coexist for a while; it starts again at every rotation (the name is new too).
    private var sequence: UInt64 = 0

    /// With a zone key of this machine's own, names its server can tell are ours (`OwnedNames`).
    public let owned: OwnedNames?

    /// `key`: this machine's advertising key, whose tag ends the instance name so that paired
    /// machines resolve it and others need not (`AdvertNameTag`).
    public init(owned: OwnedNames? = nil, key: AdvertisingKey? = nil) {
        self.owned = owned
        instanceName = ""
        hostName = ""
        rotate(key: key)
    }

    public mutating func rotate(key: AdvertisingKey?) {
        let prefix = newName()
        instanceName = key.map { AdvertNameTag.name(prefix: prefix, key: $0) } ?? prefix
        hostName = newName()
        sequence = 0
    }

    /// A new name of the same kind (the pairing advert's host name).
    public func newName() -> String { owned?.make() ?? Self.randomName() }

    /// The sequence number of the next record.
    public mutating func nextSequence() -> UInt64 {
        sequence += 1
        return sequence
    }

    /// 16 letters and digits (80 random bits): no host name, nothing that repeats.
    public static func randomName() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] })
    }
}
