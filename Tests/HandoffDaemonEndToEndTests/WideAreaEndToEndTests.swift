import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

/// Discovery across a router. Two subnets joined by a router namespace that forwards
/// unicast only; the router runs BIND 9 with a dynamic zone (unicast DNS-SD) or an Avahi
/// reflector; one handoffd on each subnet.
@Suite(
    .serialized, .timeLimit(.minutes(5)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct WideAreaEndToEndTests {
    /// alpha on host 1, beta on host 2, each told to use the router's named with `key`; TXT
    /// rewrites every second unless `quickRewrites` is false (each rewrite writes the advert's
    /// records again, list entry included).
    static func daemons(_ hosts: TestHostSet, quickRewrites: Bool = true, key: (Int) throws -> String) throws -> (DaemonHost, DaemonHost) {
        var made: [DaemonHost] = []
        for (i, name) in [(1, "alpha"), (2, "beta")] {
            let dir = "/tmp/handoffd-e2e/\(hosts.host(i))-key"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            hosts.removeOnTearDown(dir)
            let keyFile = dir + "/wide-area.key"
            try key(i).write(toFile: keyFile, atomically: false, encoding: .utf8)
            chmod(keyFile, 0o600)
            var config =
                DaemonHost.hawkNotesTypes + """
                    wide_area:
                      domain: handoff.test
                      server: \(try hosts.routerAddress(i))
                      key_file: \(keyFile)
                      poll_seconds: 1

                    """
            // TXT rewrites every second: a rewrite while Avahi probed once renamed the advert
            // `NAME #2` (a collision with its own probe), which then never reached the zone.
            if quickRewrites { config += "advert_rewrite_seconds: 1\n" }
            made.append(try DaemonHost(hosts, i, name: name, config: config))
        }
        return (made[0], made[1])
    }

    /// The instance names the zone lists under _handoff._tcp, asked from host i with dig.
    static func zoneInstances(_ hosts: TestHostSet, from i: Int) throws -> Set<String> {
        let out = try hosts.run(i, ["dig", "@\(try hosts.routerAddress(i))", "_handoff._tcp.handoff.test", "PTR", "+short", "+time=1", "+tries=2"])
        return Set(out.split(separator: "\n").compactMap { $0.split(separator: ".").first.map(String.init) })
    }

    /// The daemon's current advert name once the zone lists it (a daemon that just started may
    /// rotate once more while its addresses settle).
    static func advertInZone(_ hosts: TestHostSet, _ host: DaemonHost, not old: String? = nil) async throws -> String {
        var name: String?
        do {
            // A start may rotate once; the new advert comes after a gap of up to 11 s.
            try await waitUntil("\(host.name)'s advert is in the zone", timeout: 20) {
                name = try await host.advertName()
                guard let name, name != old else { return false }
                return try zoneInstances(hosts, from: host.index).contains(name)
            }
        } catch {
            let named = (try? String(contentsOfFile: "/run/handoff-testhosts/\(hosts.name)/router/named/named.log", encoding: .utf8)) ?? ""
            print(
                "\(host.name)'s advert \(name ?? "-") (not \(old ?? "-")); the zone lists \((try? zoneInstances(hosts, from: host.index)) ?? [])\n"
                    + "\(host.name)'s log:\n\(host.log)\nnamed's log (end):\n\(named.split(separator: "\n").suffix(40).joined(separator: "\n"))")
            throw error
        }
        return name!
    }

    /// Routed hosts, named on the router, alpha and beta started with its key.
    static func startWithZone() async throws -> (TestHostSet, DaemonHost, DaemonHost) {
        let hosts = try TestHostSet(count: 2, routed: true)
        do {
            try hosts.named("start")
            let key = try hosts.namedKey()
            let (a, b) = try daemons(hosts) { _ in key }
            try await a.start()
            try await b.start()
            return (hosts, a, b)
        } catch {
            hosts.tearDown()
            throw error
        }
    }

    /// Records anyone with the zone key can write: an SRV with port 0 and target "." and one
    /// whose target lies outside the zone, each listed under _handoff._tcp.
    static func writeHostileRecords(_ hosts: TestHostSet, from i: Int) throws {
        let dir = "/tmp/handoffd-e2e/\(hosts.host(i))-key"
        let script = dir + "/hostile.nsupdate"
        let zone = "_handoff._tcp.handoff.test"
        try """
        server \(try hosts.routerAddress(i))
        zone handoff.test
        update add bad-port.\(zone) 60 SRV 0 0 0 .
        update add bad-port.\(zone) 60 TXT "v=2"
        update add \(zone) 60 PTR bad-port.\(zone)
        update add bad-target.\(zone) 60 SRV 0 0 7340 evil.example.
        update add bad-target.\(zone) 60 TXT "v=2"
        update add \(zone) 60 PTR bad-target.\(zone)
        send

        """.write(toFile: script, atomically: false, encoding: .utf8)
        _ = try hosts.run(i, ["nsupdate", "-k", dir + "/wide-area.key", script])
    }

    @Test func peersOnTwoSubnetsFindEachOtherThroughTheZone() async throws {
        let (hosts, a, b) = try await Self.startWithZone()
        defer { hosts.tearDown() }
        _ = try await Self.advertInZone(hosts, a)
        let ok = "ok (\(try hosts.routerAddress(1)))"
        try await waitUntil("alpha's status says the zone works", timeout: 5) { try await a.request("status")?["wideArea"] == ok }

        // Whoever holds the zone key writes records that cannot be followed:
        // an SRV with port 0 and target "." (its lookup is refused) and one pointing outside the
        // zone. Each is skipped on its own; discovery and the status go on (before, the whole
        // browse failed on every poll).
        try Self.writeHostileRecords(hosts, from: 1)
        try await waitUntil("the zone lists the hostile records", timeout: 5) {
            try Self.zoneInstances(hosts, from: 1).isSuperset(of: ["bad-port", "bad-target"])
        }
        try await waitUntil("alpha skipped them", timeout: 10) { a.log.contains("a zone record cannot be read; skipped") }
        #expect(try await a.request("status")?["wideArea"] == ok)

        // By name: beta's pairing advert reaches alpha through the zone, and says so.
        let acceptOnBeta = try b.ctlProcess(["pair", "--accept", "--json", "--timeout", "10"])
        do {
            try await waitUntil("alpha lists beta's pairing advert, found by the zone", timeout: 10) {
                try await a.peer("beta")?.dictionaryValue?["foundBy"]?.arrayValue == ["zone"]
            }
        } catch {
            print("alpha's peers: \(String(describing: try await a.request("peers")))\nalpha's log:\n\(a.log)\nbeta's log:\n\(b.log)")
            throw error
        }
        acceptOnBeta.signal(SIGTERM)
        _ = acceptOnBeta.waitForExit(timeout: 5)
        try await waitUntil("the pairing advert leaves the zone with the window", timeout: 15) { try await a.peer("beta") == nil }
        do { try await pair(a, b) } catch {
            print("pairing failed; alpha's log:\n\(a.log)\nbeta's log:\n\(b.log)\nthe zone lists: \(try Self.zoneInstances(hosts, from: 1))")
            throw error
        }
        try await waitUntilListedBothWays(a, b)
        let activity = try a.hawknotes(["publish", "--character", "Mira Thale", "--json"])
        let id = try #require(jsonField(activity.output, "activity"))
        let continued = try b.ctl(["continue", "alpha", id])
        #expect(continued.status == 0 && continued.output.contains("Mira Thale"), "\(continued.output)")

        // SIGTERM: alpha's records leave the zone; beta's stay.
        let alphaName = try await Self.advertInZone(hosts, a)
        let betaName = try await Self.advertInZone(hosts, b)
        a.stop()
        let left = try Self.zoneInstances(hosts, from: 2)
        #expect(!left.contains(alphaName) && left.contains(betaName), "\(left)")
        let srv = try hosts.run(2, ["dig", "@\(try hosts.routerAddress(2))", "\(alphaName)._handoff._tcp.handoff.test", "SRV", "+short"])
        #expect(srv.isEmpty, "alpha's SRV is still there: \(srv)")
        try await waitUntil("beta unlists alpha", timeout: 10) { try await b.peer("alpha")?["listed"] == "false" }
    }

    @Test func aKilledDaemonLeavesNoDuplicateAndAnOutageHealsByItself() async throws {
        let (hosts, a, b) = try await Self.startWithZone()
        defer { hosts.tearDown() }
        _ = try await Self.advertInZone(hosts, b)
        // Alpha's name read last, just before the kill: a start may rotate once while the
        // addresses settle, and beta's wait above can take seconds (CI failed here once with
        // alpha's name read first: it had rotated by the kill).
        let first = try await Self.advertInZone(hosts, a)

        // SIGKILL leaves alpha's records; the next start removes them before adding its own.
        a.kill9()
        #expect(try Self.zoneInstances(hosts, from: 1).contains(first))
        try await a.start()
        let second = try await Self.advertInZone(hosts, a, not: first)
        try await waitUntil("alpha's old advert is gone", timeout: 10) { try !Self.zoneInstances(hosts, from: 1).contains(first) }
        #expect(try Self.zoneInstances(hosts, from: 1).count == 2)

        // named away for 30 s, while alpha's advert rotates: each side says so, keeps running,
        // and the zone catches up by itself once named is back.
        try hosts.named("stop")
        let outage = ContinuousClock.now
        try await waitUntil("alpha reports the server gone", timeout: 10) {
            try await a.request("status")?["wideArea"]?.hasPrefix("failing: the DNS server") == true
        }
        let rotated = try #require(jsonField(try a.ctl(["rotate-advert", "--json"]).output, "name"))
        #expect(try await a.request("status")?["avahi"] == "up")
        // The outage is the scenario's input: it lasts 30 s whatever happens meanwhile.
        try await Task.sleep(until: outage + .seconds(30))
        try hosts.named("start")
        // Alpha's advert as it is then: the one rotate-advert named, unless alpha had a reason of
        // its own to rotate again meanwhile (a collision, new addresses: its log says which).
        do {
            try await waitUntil("alpha's rotated advert reaches the zone", timeout: 40) {
                guard let current = try await a.advertName(), current != second else { return false }
                let now = try Self.zoneInstances(hosts, from: 1)
                return now.contains(current) && !now.contains(second)
            }
        } catch {
            let named = (try? String(contentsOfFile: "/run/handoff-testhosts/\(hosts.name)/router/named/named.log", encoding: .utf8)) ?? ""
            print(
                "alpha's advert \((try? await a.advertName()) ?? "-") (rotated to \(rotated), from \(second)); the zone lists \((try? Self.zoneInstances(hosts, from: 1)) ?? [])\n"
                    + "alpha's status: \(String(describing: try? await a.request("status")))\nalpha's log:\n\(a.log)\n"
                    + "named's log (end):\n\(named.split(separator: "\n").suffix(40).joined(separator: "\n"))")
            throw error
        }
        if let current = try await a.advertName(), current != rotated {
            print(
                "alpha rotated again after rotate-advert (\(rotated) -> \(current)):\n"
                    + a.log.split(separator: "\n").filter { $0.contains("advert rotated") }.joined(separator: "\n"))
        }
        try await waitUntil("alpha reports the server back", timeout: 10) { try await a.request("status")?["wideArea"]?.hasPrefix("ok") == true }
        #expect(a.log.contains("unicast DNS-SD works again"))
    }

    @Test func aWrongOrExposedKeySaysSo() async throws {
        let hosts = try TestHostSet(count: 2, routed: true)
        defer { hosts.tearDown() }
        try hosts.named("start")
        let key = try hosts.namedKey()
        // The right key name with another secret.
        let wrong = """
            key "handoff-key" {
            \talgorithm hmac-sha256;
            \tsecret "Wb9r0Vf7m2Bq4HjyQ8pM1mX0n3kT4Yq7m4B8rJk2c5Q=";
            };
            """
        let (a, _) = try Self.daemons(hosts) { $0 == 1 ? wrong : key }
        try await a.start()
        try await waitUntil("alpha says the key was rejected", timeout: 10) {
            try await a.request("status")?["wideArea"]?.contains("rejected TSIG key 'handoff-key'") == true
        }
        #expect(a.log.contains("rejected TSIG key 'handoff-key'"))
        // mDNS goes on.
        #expect(try await a.request("status")?["avahi"] == "up")

        // A key file others may read: the mode stays off, and says where and what to do.
        a.stop()
        let keyFile = "/tmp/handoffd-e2e/\(hosts.host(1))-key/wide-area.key"
        chmod(keyFile, 0o644)
        try await a.start()
        var status = ""
        try await waitUntil("alpha's status says why unicast DNS-SD is off", timeout: 5) {
            status = try await a.request("status")?["wideArea"] ?? ""
            return status != "starting"
        }
        #expect(status.contains(keyFile) && status.contains("chmod 600"), "\(status)")
    }

    @Test func anAvahiReflectorJoinsTheSubnets() async throws {
        let hosts = try TestHostSet(count: 2, routed: true)
        defer { hosts.tearDown() }
        try hosts.reflector("start")
        let a = try DaemonHost(hosts, 1, name: "alpha"), b = try DaemonHost(hosts, 2, name: "beta")
        try await a.start()
        try await b.start()
        try await pair(a, b)
        try await waitUntilListedBothWays(a, b)
        // What came through the reflector holds no link-local address of the other subnet.
        for (host, peer) in [(a, "beta"), (b, "alpha")] {
            let addresses = try await host.peer(peer)?.dictionaryValue?["addresses"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(!addresses.isEmpty && !addresses.contains { $0.lowercased().contains("fe80") }, "\(peer): \(addresses)")
        }
    }
}
