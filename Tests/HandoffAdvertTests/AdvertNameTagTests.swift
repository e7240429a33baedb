import HandoffAdvert
import Testing

/// A private advert's name ends with a tag its paired peers' keys recognise, so that a
/// machine resolves only its paired peers' adverts.
@Suite struct AdvertNameTagTests {
    let key = AdvertisingKey(generation: 1, key: Array(0..<32))
    let other = AdvertisingKey(generation: 1, key: [UInt8](repeating: 7, count: 32))

    /// The vector docs/PROTOCOL.md gives (HMAC-SHA256 of "handoffd advert name v1:abcdefghijklmnop"
    /// under the key 0x00..0x1f, its first 30 bits in the advert alphabet).
    @Test func theVector() {
        #expect(AdvertNameTag.name(prefix: "abcdefghijklmnop", key: key) == "abcdefghijklmnop4tajml")
        #expect(AdvertNameTag.matches("abcdefghijklmnop4tajml", key: key))
        #expect(AdvertNameTag.matches("ABCDEFGHIJKLMNOP4TAJML", key: key), "DNS names compare without case")
        #expect(!AdvertNameTag.matches("abcdefghijklmnop4tajml", key: other))
        #expect(!AdvertNameTag.matches("abcdefghijklmnop4tajmm", key: key))
    }

    @Test func onlyTheNamesShapeCountsAsTagged() {
        #expect(AdvertNameTag.isTagged("abcdefghijklmnop4tajml"))
        #expect(!AdvertNameTag.isTagged("abcdefghijklmnop"), "an older handoffd's name")
        #expect(!AdvertNameTag.isTagged("Mira's laptop"), "a pairing advert")
        #expect(!AdvertNameTag.isTagged("abcdefghijklmnop4taj-l"))
    }

    /// A machine resolves untagged names and those its paired peers' keys tag; none of a stranger's.
    @Test func theInterestWantsPairedPeersAndUntaggedNames() {
        let interest = AdvertNameInterest(keys: [other, key])
        let stranger = AdvertisingKey.random(generation: 1)
        var rotation = AdvertRotation(key: key)
        #expect(interest.wants(rotation.instanceName))
        rotation.rotate(key: stranger)
        #expect(!interest.wants(rotation.instanceName))
        #expect(interest.wants("Mira's laptop") && interest.wants(AdvertRotation.randomName()))
        #expect(!AdvertNameInterest(keys: []).wants(rotation.instanceName))
        // 30-bit tags: a stranger's names are almost never wanted (2^-30 per key each).
        #expect(
            !(0..<500).contains { _ in
                rotation.rotate(key: stranger)
                return interest.wants(rotation.instanceName)
            })
    }

    /// Each rotation is a new name under the same key, all tagged; nothing repeats.
    @Test func rotatedNamesAreNewAndTagged() {
        var rotation = AdvertRotation(key: key)
        var seen: Set<String> = []
        for _ in 0..<200 {
            #expect(seen.insert(rotation.instanceName).inserted)
            #expect(AdvertNameTag.matches(rotation.instanceName, key: key))
            rotation.rotate(key: key)
        }
    }

    /// With a zone key too, the zone's tag stays at characters 11-16 (what its policy reads) and
    /// the paired peers' tag follows.
    @Test func aZoneOwnedNameCarriesBothTags() {
        let zone = OwnedNames(secret: Array(0..<32))
        var rotation = AdvertRotation(owned: zone, key: key)
        for _ in 0..<50 {
            #expect(rotation.instanceName.count == 22)
            #expect(zone.owns(rotation.instanceName))
            #expect(AdvertNameTag.matches(rotation.instanceName, key: key))
            rotation.rotate(key: key)
        }
        #expect(zone.owns("abcdefghijtzdefl4tajml") && !zone.owns("abcdefghijtzdeflx"))
    }
}
