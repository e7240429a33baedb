import Foundation
import HandoffAdvert
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffTestSupport
import Testing
@testable import HandoffDaemon

/// Which listed advert is whose rests on the paired keys alone.
@Suite struct AdvertRecognitionTests {
    @Test func anOlderRecordOfTheSameAdvertIsNotTaken() {
        var d = ListedAdverts()
        let first = d.recognise("x7", peerID: "p", sequence: 5)
        let older = d.recognise("x7", peerID: "p", sequence: 4)
        let newer = d.recognise("x7", peerID: "p", sequence: 6)
        #expect(first && !older && newer)
        #expect(d.recognised["x7"]?.sequence == 6)
    }

    @Test func aPeersNewestAdvertIsItsListing() {
        var d = ListedAdverts()
        let old = DiscoveredPeer(name: "old", hostName: "h1.local", port: 1, addresses: [], txt: .empty)
        let new = DiscoveredPeer(name: "new", hostName: "h2.local", port: 2, addresses: [], txt: .empty)
        d.listed(old)
        d.listed(new)
        // The new advert is recognised after the old one (its goodbye was lost): it wins.
        _ = d.recognise("old", peerID: "p", sequence: 9)
        _ = d.recognise("new", peerID: "p", sequence: 1)
        #expect(d.listing(peerID: "p")?.name == "new")
        let owner = d.withdrawn("new")
        #expect(owner == "p")
        #expect(d.listing(peerID: "p")?.name == "old")
        d.unrecognised("old")
        #expect(d.listing(peerID: "p") == nil)
        // A pairing advert is told by its `p=1`; a private one is never a pairing advert.
        d.listed(DiscoveredPeer(name: "beta", hostName: "b.local", port: 3, addresses: [], txt: try! TXTRecord(["v": "2", "p": "1"])))
        #expect(d.pairingListing(named: "beta") != nil && d.pairingListing(named: "old") == nil)
        #expect(d.pairingListings.map(\.name) == ["beta"])
    }
}

/// Over the in-memory discovery: a paired peer's advert is listed once its key is held, and a
/// stranger's is never shown.
@Suite(.serialized, .timeLimit(.minutes(1))) struct AdvertRecognitionDaemonTests {
    @Test func anAdvertIsRecognisedOnlyWithThePeersKey() async throws {
        let network = FakeNetwork()
        let a = try await LoopbackDaemon("alpha", on: network)
        let b = try await LoopbackDaemon("beta", on: network)
        let c = try await LoopbackDaemon("gamma", on: network)
        try await withStopping(a, b, c) {
            // alpha trusts beta but holds no key of beta's yet (no session has brought it).
            a.trust.pin(TrustedPeer(identity: b.identity.identity, name: "beta", pairedAt: Date()))
            try await waitUntil("alpha sees both adverts", timeout: 5) { a.discovery.peers.count == 2 }
            #expect(await a.daemon.peers.discovered("beta") == nil)
            // Nothing recognised, nothing followed: discovery watches no stranger's TXT.
            #expect(a.discovery.followed.isEmpty)
            // Without beta's key, alpha would not resolve beta's advert (a real discovery; the fake
            // resolves everything and says what it was told).
            let betaAdvert = try #require(b.discovery.nameInUse)
            try await waitUntil("alpha's discovery is told what to resolve", timeout: 5) { !a.discovery.wants(betaAdvert) }
            // Strangers are not shown by any name; beta is shown as paired, not listed.
            let names = try #require(try await a.request("peers")?.arrayValue).compactMap { $0.dictionaryValue?["name"]?.stringValue }
            #expect(names == ["beta"])
            // beta's key arrives (as over a session): its advert is recognised; gamma's is still no one's.
            a.trust.setAdvertisingKey(b.trust.ownAdvertisingKey(), ofPeer: b.identity.identity.id)
            try await waitUntil("alpha recognises beta's advert", timeout: 5) { await a.daemon.peers.discovered("beta") != nil }
            #expect(await a.daemon.peers.discovered("beta")?.name == b.discovery.nameInUse)
            // Only the recognised advert's TXT is followed: watching every advert on a link is
            // N x N queriers.
            #expect(a.discovery.wants(betaAdvert))
            try await waitUntil("alpha follows beta's advert", timeout: 5) { a.discovery.followed == [betaAdvert] }
            // A paired peer whose key we hold is listed only by its own advert: a key that is not
            // gamma's recognises nothing of gamma's.
            a.trust.pin(TrustedPeer(identity: c.identity.identity, name: "gamma", pairedAt: Date(), advertisingKey: .random(generation: 1)))
            let view = try #require(try await a.request("peers")?.arrayValue?.first { $0.dictionaryValue?["name"] == "gamma" })
            #expect(view.dictionaryValue?["listed"] == .bool(false))
        }
    }
}

/// Right after `pair`, the machine just paired was listed twice for a second: paired, and by its
/// pairing advert, which lingers until mDNS withdraws it. Not a second row; another machine with
/// the same name elsewhere still is.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PairedMachinesPairingAdvertTests {
    @Test func aPairedMachinesPairingAdvertIsNotASecondRow() async throws {
        let network = FakeNetwork()
        let a = try await LoopbackDaemon("alpha", on: network)
        let b = try await LoopbackDaemon("beta", on: network)
        try await withStopping(a, b) {
            a.trust.pin(TrustedPeer(identity: b.identity.identity, name: "beta", pairedAt: Date()))
            a.trust.setAdvertisingKey(b.trust.ownAdvertisingKey(), ofPeer: b.identity.identity.id)
            try await waitUntil("alpha recognises beta's advert", timeout: 5) { await a.daemon.peers.discovered("beta") != nil }
            let pairing = try TXTRecord([.init(AdvertTXT.pairingKey, "1")])
            try b.discovery.publish(try ServiceAdvert(instanceName: "beta", port: 7340, txt: pairing, hostName: "b-pairing"), slot: .pairing)
            let elsewhere = FakeDiscovery(network: network, hostName: "other", address: "192.0.2.9")
            elsewhere.start()
            try elsewhere.publish(try ServiceAdvert(instanceName: "beta", port: 7340, txt: pairing, hostName: "o-pairing"), slot: .main)
            func rows() async throws -> [(String, Bool)] {
                try #require(try await a.request("peers")?.arrayValue).compactMap {
                    guard let d = $0.dictionaryValue, let name = d["name"]?.stringValue, case .bool(let paired)? = d["paired"] else { return nil }
                    return (name, paired)
                }
            }
            // Both pairing adverts are listed by alpha (one under a renamed instance: same name).
            try await waitUntil("alpha lists both pairing adverts", timeout: 5) { await a.daemon.peers.listing.pairingListings.count == 2 }
            let listed = try await rows()
            #expect(listed.filter { $0.0 == "beta" && $0.1 }.count == 1, "\(listed)")
            let unpaired = listed.filter { !$0.1 }
            #expect(unpaired.count == 1, "only the other machine's: \(listed)")
            let other = try #require(try await a.request("peers")?.arrayValue?.first { $0.dictionaryValue?["paired"] == .bool(false) })
            #expect(other.dictionaryValue?["addresses"]?.arrayValue == [.string("192.0.2.9")], "\(other)")
            elsewhere.shutdown()
        }
    }
}

/// A device name that unpaired machines would take for a tagged advert name is warned about at start.
@Suite struct DeviceNameNoticeTests {
    @Test func aNameShapedLikeATaggedAdvertIsWarnedAbout() throws {
        let notice = try #require(Daemon.deviceNameNotice("abcdefghijklmnop4tajml"))
        #expect(notice.contains("handoffctl pair HOST[:PORT]") && notice.contains("device_name"))
        #expect(Daemon.deviceNameNotice("Mira's laptop") == nil)
        #expect(Daemon.deviceNameNotice("abcdefghijklmnop") == nil)
    }
}
