import HandoffAdvert
import Testing

/// Advert names that the DNS server can tell belong to one zone key.
@Suite struct OwnedNamesTests {
    let key = OwnedNames(secret: Array(0..<32))
    let other = OwnedNames(secret: [UInt8](repeating: 0, count: 32))

    /// The vector docs/DEPLOYMENT.md gives and packaging/handoff-zone-policy.py --self-test checks:
    /// the server's policy and handoffd must compute the same tag.
    @Test func theTagMatchesTheServersPolicy() {
        #expect(key.owns("abcdefghijtzdefl"))
        #expect(key.owns("ABCDEFGHIJTZDEFL"), "DNS names compare without case")
        #expect(!other.owns("abcdefghijtzdefl"))
    }

    @Test func eachNameIsNewAndOnlyItsKeyOwnsIt() {
        var names: Set<String> = []
        for _ in 0..<500 {
            let name = key.make()
            #expect(names.insert(name).inserted)
            #expect(name.count == 16 && name.allSatisfy { $0.isLowercase || ("2"..."7").contains($0) })
            #expect(key.owns(name))
            #expect(!other.owns(name))
        }
        // Random names of the same shape are almost never owned (2^-30 each).
        #expect(!(0..<500).contains { _ in key.owns(AdvertRotation.randomName()) })
        #expect(!key.owns("short") && !key.owns("abcdefghijtzdef1") && !key.owns("abcdefghij-zdefl"))
    }

    /// To anyone without the key a tag is as random as the rest: every character of the last six
    /// is spread over the 32 letters and digits.
    @Test func tagsLookRandom() {
        var counts = [Character: Int]()
        for _ in 0..<3_200 { for c in key.make().suffix(6) { counts[c, default: 0] += 1 } }
        #expect(counts.count == 32)
        #expect(counts.values.allSatisfy { (400...800).contains($0) }, "\(counts)")
    }

    @Test func aRotationWithAZoneKeyKeepsOwnedNames() {
        var r = AdvertRotation(owned: key)
        #expect(key.owns(r.instanceName) && key.owns(r.hostName))
        r.rotate(key: nil)
        #expect(key.owns(r.instanceName) && key.owns(r.hostName) && key.owns(r.newName()))
    }
}
