import Foundation
import GRDB
import HandoffLink

/// The trust store in SQLite. Each change is one transaction, so kill -9 at any moment leaves
/// either the old or the new set of peers, never a half-written one.
public final class SQLiteTrustStore: TrustStore, Sendable {
    private let db: StateDatabase

    public init(database: StateDatabase) { db = database }

    public func peer(withKey publicKey: [UInt8]) throws -> TrustedPeer? {
        try db.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM peer WHERE id = ?", arguments: [PeerIdentity(publicKey: publicKey).id]).map(Self.peer)
        }
    }

    public func peers() throws -> [TrustedPeer] {
        try db.pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM peer ORDER BY name").map(Self.peer) }
    }

    public func pin(_ peer: TrustedPeer) throws {
        try db.pool.write { db in
            try db.execute(sql: """
                INSERT INTO peer (id, publicKey, name, pairedAt, advertisingGeneration, advertisingKey) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, pairedAt = excluded.pairedAt,
                    advertisingGeneration = excluded.advertisingGeneration, advertisingKey = excluded.advertisingKey
                """, arguments: [peer.identity.id, Data(peer.identity.publicKey), peer.name, peer.pairedAt.timeIntervalSince1970,
                                 peer.advertisingKey.map { Int64($0.generation) }, peer.advertisingKey.map { Data($0.key) }])
        }
    }

    public func unpin(id: String, rotatingTo newKey: AdvertisingKey) throws {
        try db.pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO pendingUnpair (id, publicKey) SELECT id, publicKey FROM peer WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM peer WHERE id = ?", arguments: [id])
            try Self.storeOwn(newKey, db)
        }
    }

    public func pendingUnpairs() throws -> [PeerIdentity] {
        try db.pool.read { db in
            try Data.fetchAll(db, sql: "SELECT publicKey FROM pendingUnpair").map { PeerIdentity(publicKey: Array($0)) }
        }
    }

    public func unpairDelivered(id: String) throws {
        try db.pool.write { db in try db.execute(sql: "DELETE FROM pendingUnpair WHERE id = ?", arguments: [id]) }
    }

    public func setAdvertisingKey(_ key: AdvertisingKey?, ofPeer id: String) throws {
        try db.pool.write { db in
            try db.execute(sql: "UPDATE peer SET advertisingGeneration = ?, advertisingKey = ? WHERE id = ?",
                           arguments: [key.map { Int64($0.generation) }, key.map { Data($0.key) }, id])
        }
    }

    public func ownAdvertisingKey() throws -> AdvertisingKey {
        try db.pool.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT generation, key FROM ownKey WHERE name = 'advertising'") {
                return AdvertisingKey(generation: UInt32(row["generation"] as Int64), key: Array(row["key"] as Data))
            }
            let key = AdvertisingKey.random(generation: 1)
            try Self.storeOwn(key, db)
            return key
        }
    }

    private static func storeOwn(_ key: AdvertisingKey, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO ownKey (name, generation, key) VALUES ('advertising', ?, ?)",
                       arguments: [Int64(key.generation), Data(key.key)])
    }

    private static func peer(_ row: Row) -> TrustedPeer {
        let adv: AdvertisingKey? = (row["advertisingKey"] as Data?).map {
            AdvertisingKey(generation: UInt32(row["advertisingGeneration"] as Int64? ?? 0), key: Array($0))
        }
        return TrustedPeer(identity: PeerIdentity(publicKey: Array(row["publicKey"] as Data)), name: row["name"],
                           pairedAt: Date(timeIntervalSince1970: row["pairedAt"]), advertisingKey: adv)
    }
}
