import Foundation
import HandoffAdvert
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffTestSupport
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

/// The adverts as this machine publishes them, over the in-memory discovery.
@Suite struct AdvertTests {
    let network = FakeNetwork()

    func advert(
        _ discovery: FakeDiscovery, rotation: Duration = .seconds(900), rewrite: Duration = .seconds(30), now: ContinuousClock.Instant = .now
    ) -> Advert {
        Advert(
            discovery: discovery, trustStore: InMemoryTrustStore(), deviceName: "alices-laptop", rotationInterval: rotation,
            rewriteInterval: rewrite, now: now)
    }

    func entries(_ n: Int) -> [CurrentActivities.Entry] {
        var c = CurrentActivities()
        for _ in 0..<n { c.becomeCurrent(UserActivity(type: try! ActivityType("org.hawknotes.bookDetail")), scene: UUID(), at: Date()) }
        return c.advertised(at: Date())
    }

    @Test func thePrivateAdvertShowsNoNameAndOnlyOpaqueFields() throws {
        let mine = FakeDiscovery(network: network, hostName: "a"), seen = FakeDiscovery(network: network, hostName: "b")
        var a = advert(mine)
        try a.publish(port: 7340, advertised: entries(3))
        let listed = try #require(seen.peers.first)
        #expect(listed.name == a.instanceName && listed.name != "alices-laptop")
        #expect(listed.txt.entries.map(\.key) == ["v", "n", "m", "b"])
        #expect(!listed.txt.description.contains("alices") && !listed.txt.description.contains("hawknotes"))
    }

    @Test func aRotationReplacesEveryFieldAndAnnouncesTheNewNameAfterAGap() throws {
        let mine = FakeDiscovery(network: network, hostName: "a"), seen = FakeDiscovery(network: network, hostName: "b")
        let t0 = ContinuousClock.now
        var a = advert(mine, rotation: .seconds(60), rewrite: .seconds(3), now: t0)
        try a.publish(port: 7340, advertised: entries(1))
        let before = try #require(seen.peers.first)
        #expect(!a.rotationDue(at: t0 + .seconds(29)))
        #expect(a.rotationDue(at: t0 + .seconds(91)))
        let at = t0 + .seconds(91)
        a.rotate(at: at)
        // The old one is gone at once; the new one is not out yet.
        #expect(seen.peers.isEmpty)
        guard case .rotating(_, let announceAt) = a.phase else {
            Issue.record("not rotating: \(a.phase)")
            return
        }
        #expect(announceAt >= at + .seconds(1) && announceAt <= at + .seconds(2))
        #expect(a.nextEvent <= announceAt)
        #expect(try a.due(at: announceAt - .milliseconds(1), advertised: entries(1)) != .announced(name: a.instanceName))
        #expect(try a.due(at: announceAt, advertised: entries(1)) == .announced(name: a.instanceName))
        let after = try #require(seen.peers.first)
        #expect(seen.peers.count == 1)
        #expect(after.name != before.name && after.name == a.instanceName)
        for key in ["n", "m", "b"] { #expect(after.txt[key] != before.txt[key], "\(key) repeated across the rotation") }
        #expect(!a.rotationDue(at: at + .seconds(29)))
    }

    /// Publishing does not touch the TXT: it changes at the schedule's moments only, and each
    /// rewrite is new material whether or not anything changed.
    @Test func theTXTChangesOnlyAtScheduledRewritesWithOrWithoutNews() throws {
        let mine = FakeDiscovery(network: network, hostName: "a"), seen = FakeDiscovery(network: network, hostName: "b")
        let t0 = ContinuousClock.now
        var a = advert(mine, rotation: .seconds(86_400), now: t0)
        try a.publish(port: 7340, advertised: entries(1))
        let first = try #require(seen.peers.first?.txt)
        var now = t0
        var records: Set<String> = [first.description]
        for _ in 0..<20 {
            // Nothing is due before the schedule's moment, whatever changed.
            let before = seen.peers.first?.txt
            #expect(try a.due(at: now, advertised: entries(2)) == nil)
            #expect(seen.peers.first?.txt == before)
            now = a.nextEvent
            #expect(try a.due(at: now, advertised: entries(1)) == .rewrote)
            #expect(records.insert(try #require(seen.peers.first?.txt.description)).inserted, "a rewrite repeated a record")
        }
        // Twenty rewrites with the same content, each one different on the wire.
        #expect(records.count == 21)
        let span = now - t0
        #expect(span > .seconds(150) && span < .seconds(1_800), "20 rewrites took \(span) at a 30 s mean")
    }

    @Test func thePairingAdvertIsOutOnlyWhileTheWindowIsOpen() throws {
        let mine = FakeDiscovery(network: network, hostName: "a"), seen = FakeDiscovery(network: network, hostName: "b")
        var a = advert(mine)
        // Before the link listens there is no port to advertise: nothing.
        try a.pairingWindow(open: true)
        #expect(mine.nameInUse(.pairing) == nil)
        try a.publish(port: 7340, advertised: [])
        try a.pairingWindow(open: true)
        #expect(mine.nameInUse(.pairing) == "alices-laptop")
        let pairing = try #require(seen.peers.first { $0.name == "alices-laptop" })
        #expect(pairing.txt.entries.map(\.key) == ["v", AdvertTXT.pairingKey])
        // The private advert stays as it was.
        #expect(seen.peers.count == 2 && mine.nameInUse == a.instanceName)
        try a.pairingWindow(open: false)
        #expect(mine.nameInUse(.pairing) == nil)
        #expect(seen.peers.map(\.name) == [a.instanceName])
        a.withdraw()
        #expect(seen.peers.isEmpty)
    }

    @Test func theRecordFitsTheDiscoveryLimitsWithFourActivities() throws {
        let record = try PrivateAdvert.record(
            .init(
                sequence: .max, tokens: entries(4).map { AdvertTXT.Token(activityID: $0.activity.id, type: $0.activity.type.rawValue, version: .max) }
            ),
            key: .random(generation: .max))
        #expect(try HandoffTXT.compose(record).byteCount <= TXTRecord.maxRecordBytes)
    }

    /// An advert whose name another host holds (or Avahi's echo of its own probe: it happened) is
    /// withdrawn and rotated, never renamed `NAME #2` (untagged; a zone would keep the other).
    @Test func aCollidedAdvertIsRotatedNotKeptUnderItsNumberTwo() throws {
        let mine = FakeDiscovery(network: network, hostName: "a"), other = FakeDiscovery(network: network, hostName: "b")
        let t0 = ContinuousClock.now
        var a = advert(mine, rewrite: .seconds(3), now: t0)
        // Another host holds the name this advert asks for.
        try other.publish(try ServiceAdvert(instanceName: a.instanceName, port: 7000, txt: .empty))
        try a.publish(port: 7340, advertised: entries(1))
        #expect(mine.nameInUse == nil, "withdrawn, not renamed \(mine.nameInUse ?? "")")
        #expect(a.collided)
        a.rotate(at: t0)
        #expect(!a.collided, "a rotation's gap is no collision")
        guard case .rotating(_, let announceAt) = a.phase else {
            Issue.record("not rotating: \(a.phase)")
            return
        }
        #expect(try a.due(at: announceAt, advertised: entries(1)) == .announced(name: a.instanceName))
        #expect(mine.nameInUse == a.instanceName && !a.collided)
        #expect(AdvertNameTag.isTagged(a.instanceName))
    }
}

/// The daemon rotates a collided advert by itself, as soon as the discovery reports it.
@Suite struct AdvertCollisionDaemonTests {
    /// The collision is acted on when it comes, not at the run loop's next look: with rewrites
    /// 10 minutes apart on average, that look is `Activities.longestPause` (10 s) away.
    @Test func aCollisionIsActedOnAtOnce() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork()) { $0.advertRewriteSeconds = 600 }
        try await withStopping(a) {
            let first = await a.daemon.activities.advertName
            try await waitUntil("alpha's advert is out", timeout: 5) { a.discovery.nameInUse == first }
            try await waitUntil("alpha's run loop pauses", timeout: 5) { a.daemon.activities.isPausing }
            a.discovery.collide()
            try await waitUntil("alpha's advert is rotated", timeout: 3) { await a.daemon.activities.advertName != first }
        }
    }

    @Test func aCollisionRotatesTheAdvert() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork()) { $0.advertRewriteSeconds = 0.5 }
        try await withStopping(a) {
            let first = try #require(a.discovery.nameInUse)
            a.discovery.collide()
            #expect(a.discovery.nameInUse == nil, "withdrawn, not renamed")
            try await waitUntil("alpha's advert is under a new tagged name", timeout: 10) {
                guard let now = a.discovery.nameInUse else { return false }
                return now != first && AdvertNameTag.isTagged(now)
            }
        }
    }
}
