import Foundation
@testable import HandoffAdvert
import HandoffDiscovery

import Testing
import HandoffCore

/// The private record's codec. What a stranger reads changes entirely
/// with every record; a paired machine recognises it by key and opens it.
@Suite struct PrivateAdvertTests {
    static let tokens = [
        AdvertTXT.Token(activityID: UUID(), type: "org.hawknotes.bookDetail", version: 3),
        AdvertTXT.Token(activityID: UUID(), type: "org.hawknotes.characterDetail", version: 1)
    ]

    @Test func aPairedMachineRecognisesAndOpensTheRecord() throws {
        let ours = AdvertisingKey.random(generation: 4), other = AdvertisingKey.random(generation: 1)
        let txt = try PrivateAdvert.record(.init(sequence: 42, tokens: Self.tokens), key: ours)
        let keys: [(peerID: PeerID, key: AdvertisingKey)] = [("carol", other), ("alice", ours)]
        let found = try #require(PrivateAdvert.recognise(txt, keys: keys))
        #expect(found.peerID == "alice")
        #expect(found.contents == .init(sequence: 42, tokens: Self.tokens))
    }

    /// The hint (the peer that recognised the advert's name before) is only an order: a wrong or
    /// unknown one still finds the right key, and a right one does not make a stranger's record
    /// or another peer's pass.
    @Test func aPreferredPeerIsTriedFirstAndDecidesNothing() throws {
        let alice = AdvertisingKey.random(generation: 2), carol = AdvertisingKey.random(generation: 1)
        let recogniser = PrivateAdvert.Recogniser(keys: [("carol", carol), ("alice", alice)])
        let txt = try PrivateAdvert.record(.init(sequence: 7, tokens: Self.tokens), key: alice)
        for hint in ["alice", "carol", "nobody", nil] as [PeerID?] {
            let found = try #require(recognisedBy(recogniser, txt, hint))
            #expect(found.peerID == "alice")
            #expect(found.contents == .init(sequence: 7, tokens: Self.tokens))
        }
        let stranger = try PrivateAdvert.record(.init(sequence: 1, tokens: []), key: .random(generation: 1))
        #expect(recognisedBy(recogniser, stranger, "alice") == nil)
        // Alice's tag with another blob: the tag picks the key, the seal still decides.
        var forged = try PrivateAdvert.record(.init(sequence: 8, tokens: []), key: alice)
        forged = try TXTRecord([.init("n", try #require(forged["n"])), .init("m", try #require(forged["m"])), .init("b", try #require(stranger["b"]))]
        )
        #expect(recognisedBy(recogniser, forged, "alice") == nil)
    }

    private func recognisedBy(_ r: PrivateAdvert.Recogniser, _ txt: TXTRecord, _ hint: PeerID?) -> (peerID: PeerID, contents: PrivateAdvert.Contents)?
    {
        r.recognise(txt, preferring: hint)
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
