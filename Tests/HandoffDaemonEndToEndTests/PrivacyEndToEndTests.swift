import Foundation
import HandoffAdvert
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

/// What a stranger on the network reads of our adverts. Two paired handoffd and a
/// third, unpaired test host that browses `_handoff._tcp` with python3-zeroconf (not Avahi, not
/// handoffd), over several rotations shortened by configuration.
@Suite(
    .serialized, .timeLimit(.minutes(5)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct PrivacyEndToEndTests {
    /// Rotations every 4 s on average; rewrites every second on average, which makes a rotation's
    /// gap between the old advert's goodbye and the new one's announcement 1 to 1.33 s.
    static let config = DaemonHost.hawkNotesTypes + "advert_rotation_seconds: 4\nadvert_rewrite_seconds: 1\n"
    static let quickRewrites = DaemonHost.hawkNotesTypes + "advert_rewrite_seconds: 1\n"

    @Test func aStrangerLearnsNothingAcrossRotationsWhilePairedPeersFollowThem() async throws {
        let hosts = try TestHostSet(count: 3)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha", config: Self.config), b = try DaemonHost(hosts, 2, name: "beta", config: Self.config)
        let stranger = try Stranger(hosts, 3)
        try await a.start()
        try await b.start()
        try await pair(a, b)
        let published = try a.hawknotes(["publish", "--character", "Mira Thale", "--json"])
        let id = try #require(jsonField(published.output, "activity"))
        // The pairing adverts are gone with the windows: from here on, only private adverts.
        try await waitUntil("the pairing adverts withdrawn", timeout: 10) { !stranger.listed.contains("beta") }
        let from = stranger.lineCount

        // Three rotations of alpha's advert: beta follows each, and lists alpha's activity.
        var names: [String] = []
        for round in 1...3 {
            let before = try await a.advertName()
            try await waitUntil("alpha's advert rotates (\(round))", timeout: 10) { try await a.advertName().map { $0 != before } ?? false }
            let now = try #require(try await a.advertName())
            names.append(now)
            try await waitUntil("beta follows alpha's advert \(now)", timeout: 10) { try await b.peer("alpha")?["advert"] == now }
            let listed = try b.ctl(["activities", "--peer", "alpha", "--json"])
            #expect(listed.status == 0 && listed.output.contains(id), "round \(round): \(listed.output)")
            #expect(try await isPresent(b, "alpha"), "round \(round): the session did not survive the rotation")
        }
        // Continue works right after a rotation.
        let before = try await a.advertName()
        try await waitUntil("alpha's advert rotates again", timeout: 10) { try await a.advertName().map { $0 != before } ?? false }
        let continued = try b.ctl(["continue", "alpha", id])
        #expect(continued.status == 0 && continued.output.contains("Mira Thale"), "\(continued.output)")
        // Let the stranger resolve the last rotation too.
        let last = try #require(try await a.advertName())
        try await waitUntil("the stranger resolves \(last)", timeout: 10) { stranger.records(from: from).contains { $0.name == last } }

        let records = stranger.records(from: from)
        let instances = Set(records.map(\.name))
        // Both machines rotated at least three times each while the stranger watched.
        #expect(instances.count >= 6, "the stranger saw \(instances.sorted())")
        #expect(Set(names).isSubset(of: instances))

        // No field of an advert equals a field of another advert (another rotation, or the other
        // machine): the instance name, the SRV target and each TXT value but the format version.
        // The port (the configured peer port) and the addresses stay, as docs/PRIVACY.md says.
        // (An empty value is a field the stranger's resolution did not get, not a shared one.)
        var owner: [String: String] = [:]
        for r in records {
            for value in [r.name, r.server] + r.txt.filter({ $0.key != "v" }).map(\.value) where !value.isEmpty {
                if let first = owner[value], first != r.name {
                    Issue.record("'\(value)' appears in the adverts \(first) and \(r.name)")
                }
                owner[value] = owner[value] ?? r.name
            }
            #expect(r.txt["v"] == "2")
            #expect(Set(r.txt.keys) == ["v", "n", "m", "b"], "\(r.txt)")
        }
        // Nothing names the machines, their keys or the activity; no number grows.
        let fingerprints = [try await a.fingerprint(), try await b.fingerprint()]
        let secrets =
            ["alpha", "beta", hosts.host(1), hosts.host(2), "Mira", "Thale", "hawknotes", "characterDetail", id, id.lowercased()] + fingerprints
        // The names and the TXT keys are text; the TXT values are base64url of random bytes, so a
        // secret would be there as bytes (its letters in the base64 text are chance: "Mira" once
        // turned up in a blob of 160 random characters).
        for r in records {
            let text = ([r.name, r.server] + r.txt.map(\.key)).joined(separator: " ")
            let blobs = r.txt.filter { $0.key != "v" }.map { Self.base64url($0.value) }
            #expect(blobs.count == 3 && blobs.allSatisfy { !$0.isEmpty }, "\(r.txt)")
            for secret in secrets {
                #expect(!text.localizedCaseInsensitiveContains(secret), "'\(secret)' in \(text)")
                for blob in blobs { #expect(!blob.contains(Data(secret.utf8)), "'\(secret)' in a TXT value of \(r.name)") }
            }
            for (key, value) in r.txt where key != "v" { #expect(UInt64(value) == nil, "\(key)=\(value) is a number") }
            #expect(!r.server.hasPrefix(hosts.host(1)) && !r.server.hasPrefix(hosts.host(2)), "SRV target \(r.server)")
        }
        print("privacy: the stranger saw \(instances.count) adverts in \(records.count) records; none shares a field")
    }

    /// base64url (no padding) to bytes; empty if it is not.
    static func base64url(_ text: String) -> Data {
        var b = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b.count % 4 != 0 { b += "=" }
        return Data(base64Encoded: b) ?? Data()
    }

    @Test func theFormerPeerCannotRecogniseAnAdvertAfterAnUnpair() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha", config: Self.config), b = try DaemonHost(hosts, 2, name: "beta", config: Self.config)
        try await a.start()
        try await b.start()
        try await pair(a, b)
        let oldName = try #require(try await a.advertName())
        // beta stops first: it misses the unpair, and keeps alpha's old advertising key.
        try await waitUntil("beta recognises alpha's advert", timeout: 10) { try await b.peer("alpha")?["advert"] != nil }
        b.stop()
        let unpaired = try a.ctl(["unpair", "beta"])
        #expect(unpaired.status == 0, "\(unpaired.output)")
        // alpha rotates at once (a new key, a new name): its old advert is gone.
        try await waitUntil("alpha's advert rotates at the unpair", timeout: 5) { try await a.advertName().map { $0 != oldName } ?? false }
        // beta, back with the old key, still trusts alpha until alpha tells it, and sees alpha's
        // adverts through two rotations: it recognises none.
        let mark = b.log.count
        try await b.start()
        var seen: Set<String> = []
        try await waitUntil("alpha rotates twice while beta is up", timeout: 20) {
            let view = try await b.peer("alpha")
            #expect(view?["listed"] != "true", "beta recognised alpha's advert after the unpair: \(String(describing: view))")
            if let name = try await a.advertName() { seen.insert(name) }
            return seen.count >= 3
        }
        #expect(!b.log.dropFirst(mark).contains("paired peer's advert recognised"), "\(b.log.dropFirst(mark))")
    }

    /// A laptop that joins another network must not carry its advert there: a new address rotates
    /// it at once, whatever the interval (15 minutes here, the default).
    @Test func anAddressChangeRotatesTheAdvert() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts, configA: Self.quickRewrites)
        try await waitUntil("beta recognises alpha's advert", timeout: 10) { try await b.peer("alpha")?["advert"] != nil }
        let before = try #require(try await a.advertName())
        _ = try hosts.readdress(1, to: 101)
        try await waitUntil("alpha's advert rotates", timeout: 5) { try await a.advertName().map { $0 != before } ?? false }
        let after = try #require(try await a.advertName())
        try await waitUntil("beta follows alpha's advert \(after)", timeout: 10) { try await b.peer("alpha")?["advert"] == after }
        #expect(a.log.contains("advert.reason=addresses-changed"), "\(a.log)")
    }

    /// docs/PRIVACY.md tells how to stop avahi-daemon publishing the system host name: handoffd's
    /// adverts then resolve through their own random host names, pairing by name included.
    @Test func withAvahisHostRecordsOffPeersStillPairAndContinue() async throws {
        let hosts = try TestHostSet(count: 3)
        defer { hosts.tearDown() }
        for i in 1...2 { try hosts.avahi(i, "no-host-records") }
        let stranger = try Stranger(hosts, 3)
        let (a, b) = try await startPaired(hosts)
        try await waitUntilListedBothWays(a, b)
        let published = try a.hawknotes(["publish", "--character", "Mira Thale", "--json"])
        let id = try #require(jsonField(published.output, "activity"))
        let continued = try b.ctl(["continue", "alpha", id])
        #expect(continued.status == 0 && continued.output.contains("Mira Thale"), "\(continued.output)")
        // The stranger resolves the adverts to addresses through their random host names only.
        let name = try #require(try await a.advertName())
        try await waitUntil("the stranger resolves alpha's advert", timeout: 10) {
            stranger.records(from: 0).contains { $0.name == name && !$0.addresses.isEmpty }
        }
        let hostQuery = try hosts.run(3, ["/usr/bin/avahi-resolve", "-n", "\(hosts.host(1)).local"])
        #expect(!hostQuery.contains(try hosts.address(1)), "alpha's host name still resolves: \(hostQuery)")
    }

    @Test func thePairingAdvertIsOutOnlyWhileTheWindowIsOpen() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let b = try DaemonHost(hosts, 2, name: "beta", config: Self.config)
        let stranger = try Stranger(hosts, 1)
        try await b.start()
        try await waitUntil("the stranger sees beta's private advert", timeout: 10) { !stranger.records(from: 0).isEmpty }
        #expect(!stranger.listed.contains("beta"))

        let accept = try b.ctlProcess(["pair", "--accept", "--json", "--timeout", "4"])
        let opened = ContinuousClock.now
        try await waitUntil("the pairing advert appears", timeout: 5) { stranger.listed.contains("beta") }
        let pairing = try #require(stranger.records(from: 0).last { $0.name == "beta" })
        #expect(pairing.txt == ["v": "2", "p": "1"])
        // The window closes (nobody paired): the advert goes with it.
        #expect(accept.waitForExit(timeout: 10) != 0)
        try await waitUntil("the pairing advert is withdrawn", timeout: 5) { !stranger.listed.contains("beta") }
        let open = ContinuousClock.now - opened
        #expect(open < .seconds(8), "the pairing advert stayed \(open)")
        // The private advert is still there, under another name. (It rotates every 4 s here: between
        // one name's withdrawal and the next one's resolution the stranger lists nothing, so this
        // waits for it, with a deadline, instead of looking once.)
        try await waitUntil("the stranger lists beta's private advert", timeout: 8) { !stranger.listed.isEmpty }
    }
    /// A stranger announces the name of alpha's advert as its own (no probe, as a hostile machine
    /// may): Avahi on alpha reports a collision. alpha rotates to a new random name instead of
    /// keeping Avahi's `NAME #2`, which is untagged (every machine would resolve it), differs
    /// from what a zone holds, and would stay until the next rotation.
    @Test func aStrangerClaimingTheAdvertsNameMakesItRotateNotRenameToNumberTwo() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha", config: Self.quickRewrites)
        try await a.start()
        try await waitUntil("alpha advertises", timeout: 10) { try await a.advertName() != nil }
        let first = try #require(try await a.advertName())
        let script = TestHostSet.repositoryRoot.appendingPathComponent("Tests/Rigs/name-squatter.py").path
        let squatter = try hosts.spawn(2, "/usr/bin/python3", [script, first, try hosts.address(2)])
        defer { squatter.stop() }
        guard squatter.waitForLine(timeout: 10, { $0 == "announced" }) != nil else {
            Issue.record("the squatter did not announce: \(squatter.output)")
            return
        }
        try await waitUntil("alpha advertises under a new random name", timeout: 15) {
            guard let now = try await a.advertName() else { return false }
            return now != first && AdvertNameTag.isTagged(now)
        }
        #expect(a.log.contains("advert.reason=collision"), "alpha's log says why:\n\(a.log)")
        #expect(!a.log.contains(first + " #2"), "the lost name was taken as '\(first) #2':\n\(a.log)")
    }
}

/// The unpaired third machine: Tests/Rigs/stranger-browse.py (python3-zeroconf) in a test host.
final class Stranger: @unchecked Sendable {
    struct Record {
        let name: String
        let server: String
        let txt: [String: String]
        let addresses: [String]
    }

    let child: ChildProcess

    init(_ hosts: TestHostSet, _ index: Int) throws {
        let script = TestHostSet.repositoryRoot.appendingPathComponent("Tests/Rigs/stranger-browse.py").path
        child = try hosts.spawn(index, "/usr/bin/python3", [script])
        guard child.waitForJSON(timeout: 10, { $0.event == "browsing" }) != nil else {
            throw TimedOut(what: "the stranger's browser to start (is python3-zeroconf installed? scripts/install-deps.sh)")
        }
    }

    deinit { child.stop() }

    var lineCount: Int { child.output.count }

    /// Every advert resolved from line `from` on.
    func records(from: Int) -> [Record] {
        child.output.dropFirst(from).compactMap { JSONLine($0) }.filter { $0.event == "added" || $0.event == "updated" }.compactMap {
            guard let name = $0.string("name") else { return nil }
            return Record(
                name: name, server: $0.string("server") ?? "", txt: $0["txt"] as? [String: String] ?? [:],
                addresses: $0["addresses"] as? [String] ?? [])
        }
    }

    /// The instance names listed now: added and not removed since.
    var listed: Set<String> {
        var names: Set<String> = []
        for line in child.output.compactMap({ JSONLine($0) }) {
            guard let name = line.string("name") else { continue }
            if line.event == "added" || line.event == "updated" { names.insert(name) } else if line.event == "removed" { names.remove(name) }
        }
        return names
    }
}

extension DaemonHost {
    /// The instance name of this machine's private advert now.
    func advertName() async throws -> String? { try await request("status")?["advertisedAs"] }

    func fingerprint() async throws -> String { try await request("status")?["fingerprint"] ?? "" }
}
