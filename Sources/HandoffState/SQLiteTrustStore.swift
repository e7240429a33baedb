import HandoffAdvert
import HandoffCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffLink
import Synchronization

/// The trust store in SQLite. Each change is one transaction, so kill -9 at any moment leaves
/// either the old or the new set of peers, never a half-written one.
///
/// Reads are served from a copy in memory: they sit on every handshake, request and TXT update,
/// and handoffd is the database's only writer. The copy changes only after a write committed.
public final class SQLiteTrustStore: TrustStore, Sendable {
    private let db: SQLiteDatabase
    private let cache: Mutex<Cache>

    struct Cache {
        var peers: [PeerID: TrustedPeer] = [:]
        var pending: [PeerID: PeerIdentity] = [:]
        var own: AdvertisingKey?
        var addresses: [PeerID: [String: Date]] = [:]
        var endpoints: [PeerID: [PeerEndpoint: Date]] = [:]
    }

    public init(database: StateDatabase) throws {
        db = database.database
        let loaded = try db.read { db in
            var c = Cache()
            for row in try db.rows("SELECT * FROM peer") {
                let p = try Self.peer(row)
                c.peers[p.identity.id] = p
            }
            for row in try db.rows("SELECT publicKey FROM pendingUnpair") {
                let id = PeerIdentity(publicKey: try Self.required(row[0].bytes, "pendingUnpair.publicKey"))
                c.pending[id.id] = id
            }
            for row in try db.rows("SELECT peerID, address, seenAt FROM peerAddress") {
                guard let peer = row[0].string.map({ PeerID($0) }), let address = row[1].string, let seen = row[2].double else { continue }
                c.addresses[peer, default: [:]][address] = Date(timeIntervalSince1970: seen)
            }
            for row in try db.rows("SELECT peerID, host, port, seenAt FROM peerEndpoint") {
                guard let peer = row[0].string.map({ PeerID($0) }), let host = row[1].string, let port = row[2].int64, let seen = row[3].double else {
                    continue
                }
                c.endpoints[peer, default: [:]][PeerEndpoint(host: host, port: Int(port))] = Date(timeIntervalSince1970: seen)
            }
            if let row = try db.rows("SELECT generation, key FROM ownKey WHERE name = 'advertising'").first,
                let generation = row[0].int64, let key = row[1].bytes
            {
                c.own = AdvertisingKey(generation: UInt32(truncatingIfNeeded: generation), key: key)
            }
            return c
        }
        cache = Mutex(loaded)
    }

    /// A column the schema declares NOT NULL, read back.
    private static func required<T>(_ value: T?, _ column: String) throws -> T {
        guard let value else { throw SQLiteError(code: 11, message: "\(column) is missing or of the wrong type", sql: nil) }
        return value
    }

    /// Writes, then (only if it committed) applies the same change to the copy; one writer at a time.
    private func write(_ change: (SQLiteConnection) throws -> Void, then apply: (inout Cache) -> Void) throws {
        try cache.withLock { c in
            try db.write { try change($0) }
            apply(&c)
        }
    }

    public func peer(withKey publicKey: [UInt8]) throws -> TrustedPeer? {
        try peer(withID: PeerIdentity(publicKey: publicKey).id)
    }

    public func peer(withID id: PeerID) throws -> TrustedPeer? { cache.withLock { $0.peers[id] } }

    public func peers() throws -> [TrustedPeer] {
        cache.withLock { $0.peers.values.sorted { $0.name < $1.name } }
    }

    public func pin(_ peer: TrustedPeer) throws {
        try write(
            { db in
                try db.execute(
                    """
                    INSERT INTO peer (id, publicKey, name, pairedAt, advertisingGeneration, advertisingKey) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name, pairedAt = excluded.pairedAt,
                        advertisingGeneration = excluded.advertisingGeneration, advertisingKey = excluded.advertisingKey
                    """,
                    [
                        peer.identity.id, peer.identity.publicKey, peer.name, peer.pairedAt.timeIntervalSince1970,
                        peer.advertisingKey.map { Int64($0.generation) }, peer.advertisingKey.map { $0.key }
                    ])
            }, then: { $0.peers[peer.identity.id] = peer })
    }

    public func unpin(id: PeerID, rotatingTo newKey: AdvertisingKey) throws {
        try write(
            { db in
                try db.execute(
                    "INSERT OR REPLACE INTO pendingUnpair (id, publicKey) SELECT id, publicKey FROM peer WHERE id = ?", [id])
                try db.execute("DELETE FROM peerAddress WHERE peerID = ?", [id])
                try db.execute("DELETE FROM peerEndpoint WHERE peerID = ?", [id])
                try db.execute("DELETE FROM peer WHERE id = ?", [id])
                try Self.storeOwn(newKey, db)
            },
            then: { c in
                if let p = c.peers.removeValue(forKey: id) { c.pending[id] = p.identity }
                c.addresses[id] = nil
                c.endpoints[id] = nil
                c.own = newKey
            })
    }

    public func pendingUnpairs() throws -> [PeerIdentity] { cache.withLock { Array($0.pending.values) } }

    public func unpairDelivered(id: PeerID) throws {
        try write(
            { db in try db.execute("DELETE FROM pendingUnpair WHERE id = ?", [id]) },
            then: { $0.pending[id] = nil })
    }

    public func setAdvertisingKey(_ key: AdvertisingKey?, ofPeer id: PeerID) throws {
        // The same key again (every session sends it) needs no write.
        if cache.withLock({ $0.peers[id]?.advertisingKey == key }) { return }
        try write(
            { db in
                try db.execute(
                    "UPDATE peer SET advertisingGeneration = ?, advertisingKey = ? WHERE id = ?",
                    [key.map { Int64($0.generation) }, key.map { $0.key }, id])
            }, then: { $0.peers[id]?.advertisingKey = key })
    }

    public func rememberAddress(_ address: String, ofPeer id: PeerID, at: Date) throws {
        let (fresh, evict) = cache.withLock { cache -> (Bool, [String]) in
            guard cache.peers[id] != nil else { return (true, []) }
            if let seen = cache.addresses[id]?[address], at.timeIntervalSince(seen) < Self.addressRefresh { return (true, []) }
            var next = cache.addresses[id] ?? [:]
            next[address] = at
            return (false, Self.oldestAddresses(in: next))
        }
        if fresh { return }
        try write(
            { db in
                try db.execute(
                    "INSERT OR REPLACE INTO peerAddress (peerID, address, seenAt) VALUES (?, ?, ?)",
                    [id, address, at.timeIntervalSince1970])
                for a in evict { try db.execute("DELETE FROM peerAddress WHERE peerID = ? AND address = ?", [id, a]) }
            },
            then: { c in
                c.addresses[id, default: [:]][address] = at
                for a in evict { c.addresses[id]?[a] = nil }
            })
    }

    public func rememberedAddresses(since: Date) -> Set<String> {
        cache.withLock { cache in Set(cache.addresses.values.flatMap { $0.filter { $0.value >= since }.keys }) }
    }

    public func rememberEndpoint(_ endpoint: PeerEndpoint, ofPeer id: PeerID, at: Date) throws {
        let (fresh, evict) = cache.withLock { cache -> (Bool, [PeerEndpoint]) in
            guard cache.peers[id] != nil else { return (true, []) }
            let known = cache.endpoints[id] ?? [:]
            if let seen = known[endpoint], at.timeIntervalSince(seen) < Self.endpointRefresh { return (true, []) }
            var next = known
            next[endpoint] = at
            return (false, Self.oldest(beyond: Self.endpointsKept, in: next))
        }
        if fresh { return }
        try write(
            { db in
                try db.execute(
                    "INSERT OR REPLACE INTO peerEndpoint (peerID, host, port, seenAt) VALUES (?, ?, ?, ?)",
                    [id, endpoint.host, endpoint.port, at.timeIntervalSince1970])
                for e in evict {
                    try db.execute(
                        "DELETE FROM peerEndpoint WHERE peerID = ? AND host = ? AND port = ?", [id, e.host, e.port])
                }
            },
            then: { c in
                c.endpoints[id, default: [:]][endpoint] = at
                for e in evict { c.endpoints[id]?[e] = nil }
            })
    }

    public func endpoints(ofPeer id: PeerID) -> [PeerEndpoint] {
        cache.withLock { cache in Self.newestFirst(cache.endpoints[id] ?? [:]) }
    }

    public func ownAdvertisingKey() throws -> AdvertisingKey {
        try cache.withLock { cache in
            if let own = cache.own { return own }
            let key = AdvertisingKey.random(generation: 1)
            try db.write { try Self.storeOwn(key, $0) }
            cache.own = key
            return key
        }
    }

    private static func storeOwn(_ key: AdvertisingKey, _ db: SQLiteConnection) throws {
        try db.execute(
            "INSERT OR REPLACE INTO ownKey (name, generation, key) VALUES ('advertising', ?, ?)",
            [Int64(key.generation), key.key])
    }

    private static func peer(_ row: SQLRow) throws -> TrustedPeer {
        let adv = row["advertisingKey"].bytes.map {
            AdvertisingKey(generation: UInt32(truncatingIfNeeded: row["advertisingGeneration"].int64 ?? 0), key: $0)
        }
        return TrustedPeer(
            identity: PeerIdentity(publicKey: try required(row["publicKey"].bytes, "peer.publicKey")),
            name: try required(row["name"].string, "peer.name"),
            pairedAt: Date(timeIntervalSince1970: try required(row["pairedAt"].double, "peer.pairedAt")), advertisingKey: adv)
    }
}
