import HandoffAdvert
import HandoffCore
import Foundation
import GRDB
import HandoffLink

/// The trust store in SQLite. Each change is one transaction, so kill -9 at any moment leaves
/// either the old or the new set of peers, never a half-written one.
///
/// Reads are served from a copy in memory: they sit on every handshake, request and TXT update,
/// and handoffd is the database's only writer. The copy changes only after a write committed.
public final class SQLiteTrustStore: TrustStore, @unchecked Sendable {
    private let db: StateDatabase
    private let lock = NSLock()
    private var cache: Cache

    struct Cache {
        var peers: [String: TrustedPeer] = [:]
        var pending: [String: PeerIdentity] = [:]
        var own: AdvertisingKey?
        var addresses: [String: [String: Date]] = [:]
        var endpoints: [String: [PeerEndpoint: Date]] = [:]
    }

    public init(database: StateDatabase) throws {
        db = database
        cache = try database.pool.read { db in
            var c = Cache()
            for row in try Row.fetchAll(db, sql: "SELECT * FROM peer") {
                let p = Self.peer(row)
                c.peers[p.identity.id] = p
            }
            for key in try Data.fetchAll(db, sql: "SELECT publicKey FROM pendingUnpair") {
                let id = PeerIdentity(publicKey: Array(key))
                c.pending[id.id] = id
            }
            for row in try Row.fetchAll(db, sql: "SELECT peerID, address, seenAt FROM peerAddress") {
                c.addresses[row["peerID"], default: [:]][row["address"]] = Date(timeIntervalSince1970: row["seenAt"])
            }
            for row in try Row.fetchAll(db, sql: "SELECT peerID, host, port, seenAt FROM peerEndpoint") {
                c.endpoints[row["peerID"], default: [:]][PeerEndpoint(host: row["host"], port: row["port"])] = Date(
                    timeIntervalSince1970: row["seenAt"])
            }
            if let row = try Row.fetchOne(db, sql: "SELECT generation, key FROM ownKey WHERE name = 'advertising'") {
                c.own = AdvertisingKey(generation: UInt32(row["generation"] as Int64), key: Array(row["key"] as Data))
            }
            return c
        }
    }

    /// Writes, then (only if it committed) applies the same change to the copy; one writer at a time.
    private func write(_ change: (Database) throws -> Void, then apply: (inout Cache) -> Void) throws {
        try lock.withLock {
            try db.pool.write { try change($0) }
            apply(&cache)
        }
    }

    public func peer(withKey publicKey: [UInt8]) throws -> TrustedPeer? {
        let id = PeerIdentity(publicKey: publicKey).id
        return lock.withLock { cache.peers[id] }
    }

    public func peers() throws -> [TrustedPeer] {
        lock.withLock { cache.peers.values.sorted { $0.name < $1.name } }
    }

    public func pin(_ peer: TrustedPeer) throws {
        try write(
            { db in
                try db.execute(
                    sql: """
                        INSERT INTO peer (id, publicKey, name, pairedAt, advertisingGeneration, advertisingKey) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET name = excluded.name, pairedAt = excluded.pairedAt,
                            advertisingGeneration = excluded.advertisingGeneration, advertisingKey = excluded.advertisingKey
                        """,
                    arguments: [
                        peer.identity.id, Data(peer.identity.publicKey), peer.name, peer.pairedAt.timeIntervalSince1970,
                        peer.advertisingKey.map { Int64($0.generation) }, peer.advertisingKey.map { Data($0.key) }
                    ])
            }, then: { $0.peers[peer.identity.id] = peer })
    }

    public func unpin(id: String, rotatingTo newKey: AdvertisingKey) throws {
        try write(
            { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO pendingUnpair (id, publicKey) SELECT id, publicKey FROM peer WHERE id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM peerAddress WHERE peerID = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM peerEndpoint WHERE peerID = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM peer WHERE id = ?", arguments: [id])
                try Self.storeOwn(newKey, db)
            },
            then: { c in
                if let p = c.peers.removeValue(forKey: id) { c.pending[id] = p.identity }
                c.addresses[id] = nil
                c.endpoints[id] = nil
                c.own = newKey
            })
    }

    public func pendingUnpairs() throws -> [PeerIdentity] { lock.withLock { Array(cache.pending.values) } }

    public func unpairDelivered(id: String) throws {
        try write(
            { db in try db.execute(sql: "DELETE FROM pendingUnpair WHERE id = ?", arguments: [id]) },
            then: { $0.pending[id] = nil })
    }

    public func setAdvertisingKey(_ key: AdvertisingKey?, ofPeer id: String) throws {
        // The same key again (every session sends it) needs no write.
        if lock.withLock({ cache.peers[id]?.advertisingKey == key }) { return }
        try write(
            { db in
                try db.execute(
                    sql: "UPDATE peer SET advertisingGeneration = ?, advertisingKey = ? WHERE id = ?",
                    arguments: [key.map { Int64($0.generation) }, key.map { Data($0.key) }, id])
            }, then: { $0.peers[id]?.advertisingKey = key })
    }

    public func rememberAddress(_ address: String, ofPeer id: String, at: Date) throws {
        let (fresh, evict) = lock.withLock { () -> (Bool, [String]) in
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
                    sql: "INSERT OR REPLACE INTO peerAddress (peerID, address, seenAt) VALUES (?, ?, ?)",
                    arguments: [id, address, at.timeIntervalSince1970])
                for a in evict { try db.execute(sql: "DELETE FROM peerAddress WHERE peerID = ? AND address = ?", arguments: [id, a]) }
            },
            then: { c in
                c.addresses[id, default: [:]][address] = at
                for a in evict { c.addresses[id]?[a] = nil }
            })
    }

    public func rememberedAddresses(since: Date) -> Set<String> {
        lock.withLock { Set(cache.addresses.values.flatMap { $0.filter { $0.value >= since }.keys }) }
    }

    public func rememberEndpoint(_ endpoint: PeerEndpoint, ofPeer id: String, at: Date) throws {
        let (fresh, evict) = lock.withLock { () -> (Bool, [PeerEndpoint]) in
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
                    sql: "INSERT OR REPLACE INTO peerEndpoint (peerID, host, port, seenAt) VALUES (?, ?, ?, ?)",
                    arguments: [id, endpoint.host, endpoint.port, at.timeIntervalSince1970])
                for e in evict {
                    try db.execute(
                        sql: "DELETE FROM peerEndpoint WHERE peerID = ? AND host = ? AND port = ?", arguments: [id, e.host, e.port])
                }
            },
            then: { c in
                c.endpoints[id, default: [:]][endpoint] = at
                for e in evict { c.endpoints[id]?[e] = nil }
            })
    }

    public func endpoints(ofPeer id: String) -> [PeerEndpoint] {
        lock.withLock { Self.newestFirst(cache.endpoints[id] ?? [:]) }
    }

    public func ownAdvertisingKey() throws -> AdvertisingKey {
        try lock.withLock {
            if let own = cache.own { return own }
            let key = AdvertisingKey.random(generation: 1)
            try db.pool.write { try Self.storeOwn(key, $0) }
            cache.own = key
            return key
        }
    }

    private static func storeOwn(_ key: AdvertisingKey, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO ownKey (name, generation, key) VALUES ('advertising', ?, ?)",
            arguments: [Int64(key.generation), Data(key.key)])
    }

    private static func peer(_ row: Row) -> TrustedPeer {
        let adv: AdvertisingKey? = (row["advertisingKey"] as Data?).map {
            AdvertisingKey(generation: UInt32(row["advertisingGeneration"] as Int64? ?? 0), key: Array($0))
        }
        return TrustedPeer(
            identity: PeerIdentity(publicKey: Array(row["publicKey"] as Data)), name: row["name"],
            pairedAt: Date(timeIntervalSince1970: row["pairedAt"]), advertisingKey: adv)
    }
}
