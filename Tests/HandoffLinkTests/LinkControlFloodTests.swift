import Foundation
import HandoffAdvert
import HandoffTestSupport
import Testing
@testable import HandoffLink

/// Link-control messages from a paired peer that turned hostile.
@Suite(.serialized, .timeLimit(.minutes(1))) struct LinkControlFloodTests {
    /// Two advertising keys sent alternately, 1.46 M in 10 s, once queued a synchronous SQLite
    /// transaction each on an unbounded queue. Now the latest wins and is written at most once a
    /// second: 5,000 keys cost a handful of writes, and the last key sent is the one kept.
    @Test func aFloodOfAdvertisingKeysIsCoalesced() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B")
        pinEachOther(a, b)
        async let accepted = firstSession(a)
        let session = try await b.endpoint.connect(host: "127.0.0.1", port: a.port, expecting: a.identity)
        _ = try #require(await accepted)
        let keys = [AdvertisingKey.random(generation: 7), AdvertisingKey.random(generation: 8)]
        let started = ContinuousClock.now
        for i in 0..<5_000 { try await session.sendControl(.advertisingKey(keys[i % 2])) }
        let last = keys[4_999 % 2]
        try await waitUntil("A stored the last key B sent", timeout: 10) {
            a.store.peer(withKey: b.identity.publicKey)?.advertisingKey == last
        }
        let took = ContinuousClock.now - started
        print("5,000 advertising keys from one peer in \(took): \(a.store.advertisingKeyWrites) writes")
        // One write at once, then at most one a second for as long as the flood (and its last key) lasted.
        #expect(a.store.advertisingKeyWrites <= Int(took.components.seconds) + 3)
    }

    @Test func keyWritesAreCoalescedAndPaced() {
        var w = PendingKeyWrites()
        let t0 = ContinuousClock.now
        let k1 = AdvertisingKey.random(generation: 1), k2 = AdvertisingKey.random(generation: 2)
        let r7 = w.offer(k1, from: "p", at: t0)
        #expect(r7 == .zero)
        let r8 = w.offer(k2, from: "p", at: t0)
        #expect(r8 == nil, "one write scheduled: the latest key waits in its slot")
        let r9 = w.take("p", at: t0)
        #expect(r9 == k2)
        let r10 = w.written("p")
        #expect(!r10)
        #expect(w.offer(k1, from: "p", at: t0 + .milliseconds(200)) == .milliseconds(800), "at most one write a second")
    }

    /// A machine paired with us and with C holds C's advertising key: claimed as its own, its
    /// adverts would pass for C's. It is refused; B keeps its own key.
    @Test func anotherPeersAdvertisingKeyIsRefused() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B"), c = try await Node.start("C")
        pinEachOther(a, b)
        pinEachOther(a, c)
        let cKey = AdvertisingKey.random(generation: 3)
        a.store.setAdvertisingKey(cKey, ofPeer: c.identity.id)
        async let accepted = firstSession(a)
        let session = try await b.endpoint.connect(host: "127.0.0.1", port: a.port, expecting: a.identity)
        _ = try #require(await accepted)
        // B's own key (sent as the session opens) is stored first: a key that arrives before the
        // write of the one pending replaces it (the latest wins), and B's claim would then leave
        // A holding no key of B's at all, not the one it had.
        try await waitUntil("A stored the key B sent as the session opened", timeout: 10) {
            a.store.peer(withKey: b.identity.publicKey)?.advertisingKey == b.store.ownAdvertisingKey()
        }
        try await session.sendControl(.advertisingKey(cKey))
        try await waitUntil("A refused B's claim", timeout: 10) { a.endpoint.refusedKeyClaims == 1 }
        #expect(a.store.peer(withKey: b.identity.publicKey)?.advertisingKey == b.store.ownAdvertisingKey(), "B keeps the key it had")
        // B's own key is taken.
        let own = AdvertisingKey.random(generation: 1)
        try await session.sendControl(.advertisingKey(own))
        try await waitUntil("A stored B's own key", timeout: 10) { a.store.peer(withKey: b.identity.publicKey)?.advertisingKey == own }
        #expect(a.store.peer(withKey: b.identity.publicKey)?.advertisingKey == own)
        #expect(a.store.peer(withKey: c.identity.publicKey)?.advertisingKey == cKey)
    }
}

func firstSession(_ node: Node) async -> LinkSession? {
    for await s in node.endpoint.sessions { return s }
    return nil
}
