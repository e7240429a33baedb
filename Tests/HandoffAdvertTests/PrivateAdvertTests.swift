import Foundation
@testable import HandoffAdvert
import HandoffDiscovery

import Testing

/// Issue 15 (first part): the private record's codec. What a stranger reads changes entirely
/// with every record; a paired machine recognises it by key and opens it.
@Suite struct PrivateAdvertTests {
    static let tokens = [
        AdvertTXT.Token(activityID: UUID(), type: "org.hawknotes.bookDetail", version: 3),
        AdvertTXT.Token(activityID: UUID(), type: "org.hawknotes.characterDetail", version: 1)
    ]

    @Test func aPairedMachineRecognisesAndOpensTheRecord() throws {
        let ours = AdvertisingKey.random(generation: 4), other = AdvertisingKey.random(generation: 1)
        let txt = try PrivateAdvert.record(.init(sequence: 42, tokens: Self.tokens), key: ours)
        let found = try #require(PrivateAdvert.recognise(txt, keys: [("carol", other), ("alice", ours)]))
        #expect(found.peerID == "alice")
        #expect(found.contents == .init(sequence: 42, tokens: Self.tokens))
    }

    @Test func strangersAndFormerPeersRecogniseNothing() throws {
        let ours = AdvertisingKey.random(generation: 4)
        let txt = try PrivateAdvert.record(.init(sequence: 1, tokens: Self.tokens), key: ours)
        #expect(PrivateAdvert.recognise(txt, keys: []) == nil)
        #expect(PrivateAdvert.recognise(txt, keys: [("x", .random(generation: 4))]) == nil)
        // After an unpair the key is rotated: the removed peer's copy no longer works.
        let next = ours.rotated()
        let after = try PrivateAdvert.record(.init(sequence: 2, tokens: []), key: next)
        #expect(PrivateAdvert.recognise(after, keys: [("alice", ours)]) == nil)
        #expect(PrivateAdvert.recognise(after, keys: [("alice", next)])?.contents.sequence == 2)
    }

    @Test func noFieldButTheVersionRepeatsAndTheSizeNeverChanges() throws {
        let key = AdvertisingKey.random(generation: 1)
        var seen: [String: Set<String>] = [:]
        var sizes: Set<Int> = []
        for n in 0...4 {
            // The same contents twice, and every count of activities.
            for _ in 0..<2 {
                let txt = try HandoffTXT.compose(
                    try PrivateAdvert.record(.init(sequence: 7, tokens: Array(repeating: Self.tokens[0], count: n)), key: key))
                sizes.insert(txt.byteCount)
                for k in ["n", "m", "b"] {
                    let value = try #require(txt[k])
                    #expect(seen[k, default: []].insert(value).inserted, "\(k) repeated")
                }
                #expect(txt["v"] == "2")
            }
        }
        #expect(sizes.count == 1, "the record's size tells the number of activities: \(sizes)")
        print("private advert: \(sizes.first!) bytes of TXT")
    }

    @Test func aTamperedRecordIsNotOurs() throws {
        let key = AdvertisingKey.random(generation: 1)
        let txt = try PrivateAdvert.record(.init(sequence: 9, tokens: Self.tokens), key: key)
        // One bit of the sealed bytes flipped (not of the last character, whose low bits are
        // base64 padding that decodes to nothing).
        var bytes = try #require(txt["b"].flatMap(AdvertTXT.unbase64url))
        bytes[40] ^= 0x01
        let blob = AdvertTXT.base64url(bytes)
        let tampered = try TXTRecord([.init("v", "2"), .init("n", txt["n"]!), .init("m", txt["m"]!), .init("b", blob)])
        #expect(PrivateAdvert.recognise(tampered, keys: [("alice", key)]) == nil)
        let old = try TXTRecord([.init("pv", "1"), .init("fp", "aaaa-bbbb-cccc-dddd")])
        #expect(PrivateAdvert.recognise(old, keys: [("alice", key)]) == nil)
    }
}

@Suite struct AdvertRotationTests {
    @Test func everyRotationHasANewNameAndStartsItsSequenceAgain() {
        var r = AdvertRotation()
        var names: Set<String> = [r.instanceName]
        let first = (r.nextSequence(), r.nextSequence())
        #expect(first == (1, 2))
        for _ in 1...50 {
            r.rotate(key: nil)
            #expect(names.insert(r.instanceName).inserted)
            #expect(r.instanceName.count == 16 && r.instanceName.allSatisfy { $0.isLowercase || $0.isNumber })
            let next = r.nextSequence()
            #expect(next == 1)
        }
    }
}
