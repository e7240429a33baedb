import Foundation
import HandoffCore
import HandoffDiscovery
import HandoffLink
import Testing
@testable import HandoffDaemon

@Suite struct CurrentActivitiesTests {
    func activity(_ type: String = "org.hawknotes.bookDetail") -> UserActivity { UserActivity(type: try! ActivityType(type)) }
    let now = Date(timeIntervalSinceReferenceDate: 1_000)

    @Test func onePerSceneAtMostFour() {
        var c = CurrentActivities()
        let scenes = (0..<5).map { _ in UUID() }
        let acts = scenes.map { _ in activity() }
        for (a, s) in zip(acts, scenes).prefix(4) {
            let dropped = c.becomeCurrent(a, scene: s, at: now)
            #expect(dropped.isEmpty)
        }
        // A fifth scene pushes out the oldest.
        let pushedOut = c.becomeCurrent(acts[4], scene: scenes[4], at: now)
        #expect(pushedOut == [acts[0].id])
        #expect(c.entries.count == 4)
        // A new activity in a scene replaces that scene's.
        let next = activity()
        let replaced = c.becomeCurrent(next, scene: scenes[2], at: now)
        #expect(replaced == [acts[2].id])
        #expect(c.entries.map(\.activity.id) == [acts[1].id, acts[3].id, acts[4].id, next.id])
        let first = c.remove(next.id), second = c.remove(next.id)
        #expect(first && !second)
    }

    @Test func expiredAndIneligibleAreNotAdvertised() {
        var c = CurrentActivities()
        var expired = activity()
        expired.expirationDate = now
        var hidden = activity()
        hidden.isEligibleForHandoff = false
        let fine = activity()
        c.becomeCurrent(expired, scene: UUID(), at: now)
        c.becomeCurrent(hidden, scene: UUID(), at: now)
        c.becomeCurrent(fine, scene: UUID(), at: now)
        #expect(c.advertised(at: now).map(\.activity.id) == [fine.id])
        let gone = c.removeExpired(at: now)
        #expect(gone == [expired.id])
        #expect(c.entries.count == 2)
    }

    @Test func updatesKeepTheSlot() {
        var c = CurrentActivities()
        var a = activity()
        c.becomeCurrent(a, scene: nil, at: now)
        a.title = "v2"
        let updated = c.update(a, at: now)
        #expect(updated)
        #expect(c.entry(id: a.id)?.activity.version == a.version)
        let stranger = c.update(activity(), at: now)
        #expect(!stranger)
    }
}

@Suite struct AdvertTXTTests {
    let key = AdvertisingKey.random(generation: 3)
    let fingerprint = IdentityKey().identity.fingerprint

    func tokens(_ n: Int) -> [AdvertTXT.Token] {
        (0..<n).map { AdvertTXT.Token(activityID: UUID(), type: "org.hawknotes.characterDetail", version: UInt64($0 + 1)) }
    }

    @Test func pairedPeersReadTheTokens() throws {
        let t = tokens(4)
        let record = try AdvertTXT.record(tokens: t, key: key, fingerprint: fingerprint)
        let reading = AdvertTXT.read(record, key: key)
        #expect(reading.tokens == t)
        #expect(reading.fingerprint == fingerprint && reading.keyGeneration == 3 && reading.protocolVersion == 1)
    }

    @Test func fitsTheDiscoveryLimitsWithTheLayersOwnKeys() throws {
        let record = try AdvertTXT.record(tokens: tokens(4), key: key, fingerprint: fingerprint)
        let full = try HandoffTXT.compose(record, sequence: UInt64(Date().timeIntervalSince1970 * 1000))
        #expect(full.byteCount <= TXTRecord.maxRecordBytes)
    }

    @Test func strangersAndOldKeysLearnNothing() throws {
        let t = tokens(2)
        let record = try AdvertTXT.record(tokens: t, key: key, fingerprint: fingerprint)
        #expect(AdvertTXT.read(record, key: nil).tokens == nil)
        #expect(AdvertTXT.read(record, key: AdvertisingKey.random(generation: 3)).tokens == nil)
        #expect(AdvertTXT.read(record, key: key.rotated()).tokens == nil)
        // Nothing in the record names the activities or their types.
        let text = record.description
        for token in t { #expect(!text.contains(token.activityID.uuidString)) }
        #expect(!text.contains("hawknotes"))
    }

    /// Issue 11, item 6: the nonce came from the wall clock, so a clock stepped back across a
    /// restart repeated (key, nonce) and a clock before 1970 trapped. Records now carry a random
    /// salt: two records never share one whatever the clock does, and none holds a clock value.
    @Test func saltsAreRandomAndNeverRepeat() throws {
        var seen = Set<String>()
        for _ in 0..<2_000 {
            let record = try AdvertTXT.record(tokens: tokens(1), key: key, fingerprint: fingerprint)
            let n = try #require(record["n"])
            #expect(UInt64(n) == nil)
            #expect(AdvertTXT.unbase64url(n)?.count == AdvertisingKey.saltBytes)
            #expect(seen.insert(n).inserted)
        }
        // The same token under the same key, sealed twice, never gives the same ciphertext.
        let t = tokens(1)
        let a = try AdvertTXT.record(tokens: t, key: key, fingerprint: fingerprint)
        let b = try AdvertTXT.record(tokens: t, key: key, fingerprint: fingerprint)
        #expect(a["t0"] != b["t0"])
        #expect(AdvertTXT.read(a, key: key).tokens == t && AdvertTXT.read(b, key: key).tokens == t)
    }
}
