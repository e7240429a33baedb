import HandoffAdvert
import HandoffCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A paired machine: its pinned public key, the name the user saw when pairing, and the
/// advertising key it gave us (to read its TXT tokens).
public struct TrustedPeer: Sendable, Equatable {
    public let identity: PeerIdentity
    public var name: String
    public let pairedAt: Date
    public var advertisingKey: AdvertisingKey?

    public init(identity: PeerIdentity, name: String, pairedAt: Date, advertisingKey: AdvertisingKey? = nil) {
        self.identity = identity
        self.name = name
        self.pairedAt = pairedAt
        self.advertisingKey = advertisingKey
    }
}

/// Where pinned keys and advertising keys live. Every change is durable once the call returns,
/// and a crash at any moment leaves either the old or the new state, never half a peer.
/// `HandoffState.SQLiteTrustStore` is the real one; `InMemoryTrustStore` serves unit tests.
public protocol TrustStore: Sendable {
    func peer(withKey publicKey: [UInt8]) throws -> TrustedPeer?
    /// The peer whose `PeerIdentity.id` this is: a session's peer already has it, and deriving
    /// it again from the key (SHA-256, hex) was a third of serving a push (docs/PERFORMANCE.md).
    func peer(withID id: PeerID) throws -> TrustedPeer?
    func peers() throws -> [TrustedPeer]
    func pin(_ peer: TrustedPeer) throws
    /// Removes the peer, replaces our advertising key and remembers to tell the peer, in one
    /// transaction.
    func unpin(id: PeerID, rotatingTo newKey: AdvertisingKey) throws
    /// Peers removed here that have not been told yet.
    func pendingUnpairs() throws -> [PeerIdentity]
    func unpairDelivered(id: PeerID) throws
    func setAdvertisingKey(_ key: AdvertisingKey?, ofPeer id: PeerID) throws
    /// Our own advertising key; made on first use.
    func ownAdvertisingKey() throws -> AdvertisingKey
    /// Notes that a paired peer authenticated from `address`. Forgotten with the peer.
    func rememberAddress(_ address: String, ofPeer id: PeerID, at: Date) throws
    /// Addresses where currently paired peers authenticated at or after `since`.
    func rememberedAddresses(since: Date) -> Set<String>
    /// Notes that the peer's link answered, authenticated, at `endpoint` (or that the peer told
    /// us, on a session, that it listens there). The newest `endpointsKept` are kept; forgotten
    /// with the peer.
    func rememberEndpoint(_ endpoint: PeerEndpoint, ofPeer id: PeerID, at: Date) throws
    /// The peer's last-known endpoints, the most recently seen first.
    func endpoints(ofPeer id: PeerID) -> [PeerEndpoint]
}

extension TrustStore {
    /// How long an address where a peer authenticated stays exempt from the pre-authentication limits.
    public static var addressMemory: TimeInterval { 30 * 86_400 }
    /// Writes only when the address is new or its record is older than this: not one fsync a session.
    public static var addressRefresh: TimeInterval { 86_400 }
    /// An endpoint seen again within this is not written again: its order is already right.
    public static var endpointRefresh: TimeInterval { 600 }
    public static var endpointsKept: Int { 8 }
    /// Addresses a peer authenticated from, kept per peer (the newest): a peer that comes from a
    /// new source address each session once grew the table without end.
    public static var addressesKept: Int { 8 }

    /// The addresses to drop so that `addressesKept` remain: the least recently seen.
    public static func oldestAddresses(in seen: [String: Date]) -> [String] {
        Array(seen.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.dropFirst(addressesKept).map(\.key))
    }

    /// The endpoints to drop so that `limit` remain: the least recently seen.
    public static func oldest(beyond limit: Int, in seen: [PeerEndpoint: Date]) -> [PeerEndpoint] {
        Array(newestFirst(seen).dropFirst(limit))
    }

    public static func newestFirst(_ seen: [PeerEndpoint: Date]) -> [PeerEndpoint] {
        seen.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.description < $1.key.description }.map(\.key)
    }
}

/// The trust store in memory, for unit tests of the logic above it.
public final class InMemoryTrustStore: TrustStore, @unchecked Sendable {
    private let lock = ThreadLock()
    private var byID: [PeerID: TrustedPeer] = [:]
    private var own: AdvertisingKey?
    private var pending: [PeerID: PeerIdentity] = [:]
    private var addresses: [PeerID: [String: Date]] = [:]
    private var endpointsSeen: [PeerID: [PeerEndpoint: Date]] = [:]
    private var keyWrites = 0

    public init() {}

    public func rememberEndpoint(_ endpoint: PeerEndpoint, ofPeer id: PeerID, at: Date) {
        lock.withLock {
            guard byID[id] != nil else { return }
            endpointsSeen[id, default: [:]][endpoint] = at
            for e in Self.oldest(beyond: Self.endpointsKept, in: endpointsSeen[id]!) { endpointsSeen[id]?[e] = nil }
        }
    }

    public func endpoints(ofPeer id: PeerID) -> [PeerEndpoint] { lock.withLock { Self.newestFirst(endpointsSeen[id] ?? [:]) } }

    public func rememberAddress(_ address: String, ofPeer id: PeerID, at: Date) {
        lock.withLock {
            guard byID[id] != nil else { return }
            addresses[id, default: [:]][address] = at
            for a in Self.oldestAddresses(in: addresses[id]!) { addresses[id]?[a] = nil }
        }
    }

    public func rememberedAddresses(since: Date) -> Set<String> {
        lock.withLock { Set(addresses.values.flatMap { $0.filter { $0.value >= since }.keys }) }
    }

    public func peer(withKey publicKey: [UInt8]) -> TrustedPeer? {
        peer(withID: PeerIdentity(publicKey: publicKey).id)
    }
    public func peer(withID id: PeerID) -> TrustedPeer? { lock.withLock { byID[id] } }
    public func peers() -> [TrustedPeer] { lock.withLock { byID.values.sorted { $0.name < $1.name } } }
    public func pin(_ peer: TrustedPeer) { lock.withLock { byID[peer.identity.id] = peer } }
    public func unpin(id: PeerID, rotatingTo newKey: AdvertisingKey) {
        lock.withLock {
            if let p = byID.removeValue(forKey: id) { pending[id] = p.identity }
            addresses[id] = nil
            endpointsSeen[id] = nil
            own = newKey
        }
    }
    public func pendingUnpairs() -> [PeerIdentity] { lock.withLock { Array(pending.values) } }
    public func unpairDelivered(id: PeerID) { _ = lock.withLock { pending.removeValue(forKey: id) } }
    public func setAdvertisingKey(_ key: AdvertisingKey?, ofPeer id: PeerID) {
        lock.withLock {
            keyWrites += 1
            byID[id]?.advertisingKey = key
        }
    }

    /// How many times a peer's advertising key was written (what a flood of keys costs).
    public var advertisingKeyWrites: Int { lock.withLock { keyWrites } }
    public func ownAdvertisingKey() -> AdvertisingKey {
        lock.withLock {
            if let own { return own }
            let k = AdvertisingKey.random(generation: 1)
            own = k
            return k
        }
    }
}
