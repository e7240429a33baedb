import Testing
@testable import HandoffDiscovery

@Suite struct AdvertiserMachineTests {
    typealias A = AdvertiserMachine.Action
    func machine() -> AdvertiserMachine { AdvertiserMachine(alternativeName: fakeAlternativeServiceName) }
    func advert(_ name: String = "alpha", txt: TXTRecord = .empty) -> ServiceAdvert { try! ServiceAdvert(instanceName: name, port: 7000, txt: txt) }
    func full(_ txt: TXTRecord = .empty) -> TXTRecord { try! HandoffTXT.compose(txt) }

    @Test func publishWaitsForTheClient() throws {
        var m = machine()
        #expect(try m.publish(advert()).isEmpty)
        #expect(m.clientBecameRunning() == [.emit(.avahiUp), .addService(name: "alpha", port: 7000, txt: full()), .commit])
        #expect(m.groupEstablished() == [.emit(.published(name: "alpha"))])
    }

    @Test func publishWhileRunning() throws {
        var m = machine()
        #expect(m.clientBecameRunning() == [.emit(.avahiUp)])
        #expect(try m.publish(advert()) == [.addService(name: "alpha", port: 7000, txt: full()), .commit])
        // A second publish replaces the first in the same group.
        #expect(try m.publish(advert("beta")) == [.discardGroup, .addService(name: "beta", port: 7000, txt: full()), .commit])
    }

    @Test func txtUpdatesInPlace() throws {
        var m = machine()
        _ = m.clientBecameRunning()
        _ = try m.publish(advert())
        _ = m.groupEstablished()
        let txt = try TXTRecord(["tok": "1"])
        #expect(try m.updateTXT(txt) == [.updateTXT(name: "alpha", txt: full(txt))])
        #expect(m.desired?.txt == txt)
    }

    /// Avahi compares the echo of its own probe with the group's records: a TXT replaced while
    /// it probes reads as another host's, a collision. Changes wait for the group's names, the
    /// last one goes out then, and none if the TXT ended where it began.
    @Test func aTXTChangedWhileAvahiProbesWaitsForTheNames() throws {
        var m = machine()
        _ = m.clientBecameRunning()
        _ = try m.publish(advert())
        #expect(m.registering)
        #expect(try m.updateTXT(try TXTRecord(["tok": "1"])).isEmpty)
        #expect(try m.updateTXT(try TXTRecord(["tok": "2"])).isEmpty)
        #expect(m.groupEstablished() == [.emit(.published(name: "alpha")), .updateTXT(name: "alpha", txt: full(try TXTRecord(["tok": "2"])))])
        #expect(!m.registering)
        #expect(try m.updateTXT(try TXTRecord(["tok": "3"])) == [.updateTXT(name: "alpha", txt: full(try TXTRecord(["tok": "3"])))])
        // A collision probes again: the same holds for the new name.
        _ = m.collision()
        #expect(try m.updateTXT(try TXTRecord(["tok": "4"])).isEmpty)
        #expect(try m.updateTXT(try TXTRecord(["tok": "3"])).isEmpty)
        #expect(m.groupEstablished() == [.emit(.published(name: "alpha #2"))])
        // So does a new advert, and a replay on a new client.
        _ = try m.publish(advert("beta"))
        #expect(try m.updateTXT(.empty).isEmpty)
        _ = m.clientLost(reason: "x")
        _ = m.clientBecameRunning()
        #expect(m.registering)
        #expect(try m.updateTXT(try TXTRecord(["tok": "5"])).isEmpty)
    }

    @Test func tooLargeTXTIsATypedErrorAndChangesNothing() throws {
        var m = machine()
        _ = m.clientBecameRunning()
        _ = try m.publish(advert())
        let big = try TXTRecord(["a": String(repeating: "x", count: 250), "b": String(repeating: "x", count: 144)])
        let e = #expect(throws: DiscoveryError.self) { try m.updateTXT(big) }
        guard case .txt(.recordTooLarge)? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
        #expect(m.publishedTXT == full())
    }

    @Test func collisionTakesTheAlternativeNameAndKeepsIt() throws {
        var m = machine()
        _ = m.clientBecameRunning()
        _ = try m.publish(advert())
        #expect(m.collision() == [.resetGroup, .addService(name: "alpha #2", port: 7000, txt: full()), .commit])
        #expect(m.collision() == [.resetGroup, .addService(name: "alpha #3", port: 7000, txt: full()), .commit])
        #expect(m.groupEstablished() == [.emit(.published(name: "alpha #3"))])
        // The taken name survives a TXT update and a reconnect.
        #expect(try m.updateTXT(.empty) == [.updateTXT(name: "alpha #3", txt: full())])
        _ = m.clientLost(reason: "x")
        #expect(m.clientBecameRunning() == [.emit(.avahiUp), .addService(name: "alpha #3", port: 7000, txt: full()), .commit])
    }

    /// A private advert's name is not to be kept as `NAME #2`: it withdraws and waits for a new
    /// name; a client that comes back does not bring the lost name back either.
    @Test func anAdvertThatWithdrawsOnCollisionWaitsForANewName() throws {
        var m = machine()
        _ = m.clientBecameRunning()
        var advert = advert("x7")
        advert.onCollision = .withdraw
        _ = try m.publish(advert)
        #expect(m.collision() == [.resetGroup])
        #expect(m.collided && !m.groupActive && !m.registering)
        #expect(try m.updateTXT(.empty).isEmpty)
        _ = m.clientLost(reason: "x")
        #expect(m.clientBecameRunning() == [.emit(.avahiUp)])
        advert = self.advert("y8")
        advert.onCollision = .withdraw
        #expect(try m.publish(advert) == [.addService(name: "y8", port: 7000, txt: full()), .commit])
        #expect(!m.collided)
        // The same name again (a caller that insists) is asked for again, not its `#2`.
        _ = m.collision()
        #expect(try m.publish(advert) == [.addService(name: "y8", port: 7000, txt: full()), .commit])
    }

    @Test func disconnectReplaysTheDesiredStateOnANewClient() throws {
        var m = machine()
        _ = m.clientBecameRunning()
        _ = try m.publish(advert())
        #expect(m.clientLost(reason: "Daemon connection failed") == [.emit(.avahiDown(reason: "Daemon connection failed"))])
        #expect(!m.groupActive)
        // Updates while down are kept and go out with the re-publication.
        let txt = try TXTRecord(["tok": "9"])
        #expect(try m.updateTXT(txt).isEmpty)
        #expect(m.clientLost(reason: "again").isEmpty)
        #expect(m.clientBecameRunning() == [.emit(.avahiUp), .addService(name: "alpha", port: 7000, txt: full(txt)), .commit])
    }

    @Test func hostNameReRegistrationResetsThenReplays() throws {
        var m = machine()
        _ = m.clientBecameRunning()
        _ = try m.publish(advert())
        #expect(m.serverNotRunning() == [.resetGroup])
        #expect(m.clientBecameRunning() == [.emit(.avahiUp), .addService(name: "alpha", port: 7000, txt: full()), .commit])
    }

    @Test func withdraw() throws {
        var m = machine()
        _ = m.clientBecameRunning()
        _ = try m.publish(advert())
        #expect(m.withdraw() == [.discardGroup])
        #expect(m.withdraw().isEmpty)
        #expect(m.collision().isEmpty)
        #expect(try m.updateTXT(.empty).isEmpty)
        _ = m.clientLost(reason: "x")
        #expect(m.clientBecameRunning() == [.emit(.avahiUp)])
    }

    @Test func everyNewAdvertGetsAFreshGroup() throws {
        // Avahi holds a group's commits off for 60 s after 15; a publish/withdraw cycle must not reuse one.
        var m = machine()
        _ = m.clientBecameRunning()
        for i in 0..<20 {
            let actions = try m.publish(advert("n\(i)"))
            #expect(!actions.contains(.resetGroup))
            #expect(m.withdraw() == [.discardGroup])
        }
    }

    @Test func alternativeNames() {
        #expect(fakeAlternativeServiceName("a") == "a #2")
        #expect(fakeAlternativeServiceName("a #2") == "a #3")
        #expect(fakeAlternativeServiceName("a #x") == "a #x #2")
    }
}
