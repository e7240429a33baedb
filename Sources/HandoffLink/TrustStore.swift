import Foundation

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
    func peers() throws -> [TrustedPeer]
    func pin(_ peer: TrustedPeer) throws
    /// Removes the peer and replaces our advertising key in one transaction.
    func unpin(id: String, rotatingTo newKey: AdvertisingKey) throws
    func setAdvertisingKey(_ key: AdvertisingKey?, ofPeer id: String) throws
    /// Our own advertising key; made on first use.
    func ownAdvertisingKey() throws -> AdvertisingKey
}

/// The trust store in memory, for unit tests of the logic above it.
public final class InMemoryTrustStore: TrustStore, @unchecked Sendable {
    private let lock = NSLock()
    private var byID: [String: TrustedPeer] = [:]
    private var own: AdvertisingKey?

    public init() {}

    public func peer(withKey publicKey: [UInt8]) -> TrustedPeer? {
        lock.withLock { byID[PeerIdentity(publicKey: publicKey).id] }
    }
    public func peers() -> [TrustedPeer] { lock.withLock { byID.values.sorted { $0.name < $1.name } } }
    public func pin(_ peer: TrustedPeer) { lock.withLock { byID[peer.identity.id] = peer } }
    public func unpin(id: String, rotatingTo newKey: AdvertisingKey) {
        lock.withLock { byID[id] = nil; own = newKey }
    }
    public func setAdvertisingKey(_ key: AdvertisingKey?, ofPeer id: String) { lock.withLock { byID[id]?.advertisingKey = key } }
    public func ownAdvertisingKey() -> AdvertisingKey {
        lock.withLock {
            if let own { return own }
            let k = AdvertisingKey.random(generation: 1)
            own = k
            return k
        }
    }
}
