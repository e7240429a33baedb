import Foundation
import HandoffAdvert
import HandoffCore
import HandoffTestSupport
import Testing
@testable import HandoffLink
@testable import HandoffState

@Suite struct TrustStoreTests {
    @Test func pinnedPeersSurviveReopening() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bob = IdentityKey().identity
        let adv = AdvertisingKey.random(generation: 4)
        do {
            let store = try SQLiteTrustStore(database: try StateDatabase(directory: dir))
            try store.pin(TrustedPeer(identity: bob, name: "Bob's desk", pairedAt: Date(timeIntervalSince1970: 1_000), advertisingKey: adv))
        }
        let store = try SQLiteTrustStore(database: try StateDatabase(directory: dir))
        let peer = try #require(try store.peer(withKey: bob.publicKey))
        #expect(peer.name == "Bob's desk" && peer.advertisingKey == adv && peer.pairedAt == Date(timeIntervalSince1970: 1_000))
        #expect(try store.peers().map(\.identity) == [bob])
        #expect(try store.peer(withKey: IdentityKey().identity.publicKey) == nil)
    }

    @Test func unpinRotatesOurAdvertisingKeyInOneTransaction() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteTrustStore(database: try StateDatabase(directory: dir))
        let first = try store.ownAdvertisingKey()
        #expect(try store.ownAdvertisingKey() == first)
        let bob = IdentityKey().identity, carol = IdentityKey().identity
        try store.pin(TrustedPeer(identity: bob, name: "b", pairedAt: Date()))
        try store.pin(TrustedPeer(identity: carol, name: "c", pairedAt: Date()))
        let next = first.rotated()
        try store.unpin(id: bob.id, rotatingTo: next)
        #expect(try store.peers().map(\.identity) == [carol])
        #expect(try store.ownAdvertisingKey() == next)
        // Bob is remembered until he has been told, across a reopen.
        #expect(try SQLiteTrustStore(database: try StateDatabase(directory: dir)).pendingUnpairs() == [bob])
        try store.unpairDelivered(id: bob.id)
        #expect(try store.pendingUnpairs().isEmpty)
        // What Bob still holds no longer opens what we advertise.
        let sealed = try store.ownAdvertisingKey().seal([1, 2, 3], salt: [UInt8](repeating: 5, count: 16), index: 0)
        #expect(first.open(sealed, salt: [UInt8](repeating: 5, count: 16), index: 0) == nil)
        #expect(next.open(sealed, salt: [UInt8](repeating: 5, count: 16), index: 0) == [1, 2, 3])
    }

    @Test func databaseFileIsPrivate() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try StateDatabase(directory: dir)
        let attrs = try FileManager.default.attributesOfItem(atPath: db.path)
        #expect((attrs[.posixPermissions] as? Int) == 0o600)
        let mode = try db.database.read { try $0.value("PRAGMA journal_mode")?.string }
        #expect(mode == "wal")
        let sync = try db.database.read { try $0.value("PRAGMA synchronous")?.int64 }
        #expect(sync == 2)  // FULL
    }
}

@Suite struct IdentityKeyTests {
    @Test func madeOnceWithMode0600AndReloaded() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try IdentityKey.loadOrCreate(in: dir)
        let path = dir.appendingPathComponent(IdentityKey.fileName).path
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        #expect(try IdentityKey.loadOrCreate(in: dir).identity == first.identity)
        #expect(first.identity.fingerprint.count == 19)
        #expect(first.identity.id.rawValue.count == 64)
    }

    @Test func readableByOthersIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try IdentityKey.loadOrCreate(in: dir)
        let path = dir.appendingPathComponent(IdentityKey.fileName).path
        chmod(path, 0o644)
        let e = #expect(throws: LinkError.self) { try IdentityKey.loadOrCreate(in: dir) }
        guard case .identity(let why)? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
        #expect(why.contains("chmod 600"))
    }

    @Test func corruptKeyFileIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(IdentityKey.fileName).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3]), attributes: [.posixPermissions: 0o600]))
        #expect(throws: LinkError.self) { try IdentityKey.loadOrCreate(in: dir) }
    }
}

/// The addresses exempt from the pre-authentication limits are persisted, expire,
/// and go with the peer's pairing.
@Suite struct RememberedAddressTests {
    @Test func persistedExpiringAndForgottenOnUnpair() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bob = IdentityKey().identity, carol = IdentityKey().identity
        let now = Date()
        do {
            let store = try SQLiteTrustStore(database: try StateDatabase(directory: dir))
            try store.pin(TrustedPeer(identity: bob, name: "Bob", pairedAt: now))
            try store.pin(TrustedPeer(identity: carol, name: "Carol", pairedAt: now))
            try store.rememberAddress("192.0.2.1", ofPeer: bob.id, at: now)
            try store.rememberAddress("192.0.2.9", ofPeer: carol.id, at: now.addingTimeInterval(-40 * 86_400))
            // Not paired: nothing to remember.
            try store.rememberAddress("192.0.2.66", ofPeer: IdentityKey().identity.id, at: now)
        }
        let store = try SQLiteTrustStore(database: try StateDatabase(directory: dir))
        let since = now.addingTimeInterval(-SQLiteTrustStore.addressMemory)
        #expect(store.rememberedAddresses(since: since) == ["192.0.2.1"])
        try store.unpin(id: bob.id, rotatingTo: .random(generation: 9))
        #expect(store.rememberedAddresses(since: .distantPast) == ["192.0.2.9"])
        #expect(try SQLiteTrustStore(database: try StateDatabase(directory: dir)).rememberedAddresses(since: .distantPast) == ["192.0.2.9"])
    }
}

/// Each paired peer's last-known endpoints, newest first, persisted, bounded, and
/// forgotten with the peer.
@Suite struct RememberedEndpointTests {
    @Test func newestFirstPersistedBoundedAndForgottenOnUnpair() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bob = IdentityKey().identity
        let t0 = Date()
        do {
            let store = try SQLiteTrustStore(database: try StateDatabase(directory: dir))
            try store.pin(TrustedPeer(identity: bob, name: "Bob", pairedAt: t0))
            for i in 0..<10 { try store.rememberEndpoint(PeerEndpoint(host: "192.0.2.\(i)", port: 7340), ofPeer: bob.id, at: t0 + Double(i)) }
            // Not paired: nothing is kept.
            try store.rememberEndpoint(PeerEndpoint(host: "192.0.2.66", port: 7340), ofPeer: IdentityKey().identity.id, at: t0)
        }
        let store = try SQLiteTrustStore(database: try StateDatabase(directory: dir))
        let kept = store.endpoints(ofPeer: bob.id)
        #expect(kept.count == SQLiteTrustStore.endpointsKept)
        #expect(kept.first == PeerEndpoint(host: "192.0.2.9", port: 7340))
        #expect(!kept.contains(PeerEndpoint(host: "192.0.2.0", port: 7340)))
        // Seen again much later: it moves to the front.
        try store.rememberEndpoint(PeerEndpoint(host: "192.0.2.3", port: 7340), ofPeer: bob.id, at: t0 + 3_600)
        #expect(store.endpoints(ofPeer: bob.id).first == PeerEndpoint(host: "192.0.2.3", port: 7340))
        try store.unpin(id: bob.id, rotatingTo: .random(generation: 2))
        #expect(store.endpoints(ofPeer: bob.id).isEmpty)
        #expect(try SQLiteTrustStore(database: try StateDatabase(directory: dir)).endpoints(ofPeer: bob.id).isEmpty)
    }

    @Test func endpointsParse() {
        #expect(PeerEndpoint(parsing: "192.0.2.1", defaultPort: 7340) == PeerEndpoint(host: "192.0.2.1", port: 7340))
        #expect(PeerEndpoint(parsing: "host.example:80", defaultPort: 7340) == PeerEndpoint(host: "host.example", port: 80))
        #expect(PeerEndpoint(parsing: "[fe80::1%eth0]:7341", defaultPort: 7340) == PeerEndpoint(host: "fe80::1%eth0", port: 7341))
        #expect(PeerEndpoint(parsing: "2001:db8::1", defaultPort: 7340) == PeerEndpoint(host: "2001:db8::1", port: 7340))
        #expect(PeerEndpoint(host: "2001:db8::1", port: 7340).description == "[2001:db8::1]:7340")
        for bad in ["", ":7340", "host:0", "host:x", "[::1", "[::1]x", "a b"] {
            #expect(PeerEndpoint(parsing: bad, defaultPort: 7340) == nil, "\(bad)")
        }
        // `pair NAME` waits for a pairing advert only for a name, never for an address.
        for address in ["192.0.2.1", "192.0.2.1:7340", "2001:db8::1", "[fe80::1%eth0]:7341"] {
            #expect(PeerEndpoint.isAddressLiteral(address), "\(address)")
        }
        for name in ["beta", "laptop.example:7340", "alices-laptop", "1.2.3"] { #expect(!PeerEndpoint.isAddressLiteral(name), "\(name)") }
    }
}
