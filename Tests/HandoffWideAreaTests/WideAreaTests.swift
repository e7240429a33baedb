import Foundation
import HandoffDiscovery
import Testing
@testable import HandoffWideArea

@Suite struct TSIGKeyTests {
    static let keygen = """
        key "handoff-key" {
        \talgorithm hmac-sha256;
        \tsecret "Wb9r0Vf7m2Bq4HjyQ8pM1mX0n3kT4Yq7m4B8rJk2c5Q=";
        };
        """

    @Test func readsTsigKeygenOutput() throws {
        let key = try TSIGKey.parse(Self.keygen, path: "/k")
        #expect(key == TSIGKey(name: "handoff-key", algorithm: "hmac-sha256", secret: "Wb9r0Vf7m2Bq4HjyQ8pM1mX0n3kT4Yq7m4B8rJk2c5Q="))
        // Comments, another layout and an unquoted name are fine too.
        let other = try TSIGKey.parse(
            "# from named.conf\n/* the site key */ key site.key { secret \"Wb9r0Vf7m2Bq4HjyQ8pM1mX0n3kT4Yq7m4B8rJk2c5Q=\"; algorithm HMAC-SHA512; }; // end",
            path: "/k")
        #expect(other.name == "site.key" && other.algorithm == "hmac-sha512")
        // Comment markers inside quotes are the secret's own (base64 may hold "//": 1 key in 150).
        let slashes = try TSIGKey.parse(
            "key \"k#1\" { algorithm hmac-sha256; /* a * b */ secret \"U//PmITUFJGv2QIrXZRzA7G+3ebW+TTJUL2duOtaBXg=\"; }; # end", path: "/k")
        #expect(slashes == TSIGKey(name: "k#1", algorithm: "hmac-sha256", secret: "U//PmITUFJGv2QIrXZRzA7G+3ebW+TTJUL2duOtaBXg="))
        // An unclosed block comment hides the rest.
        #expect(throws: WideAreaError.self) { try TSIGKey.parse("/* " + Self.keygen, path: "/k") }
    }

    @Test func badKeysSayWhat() {
        let cases: [(String, String)] = [
            ("", "no `key"),
            ("key \"k\" { secret \"Wb9r0Vf7m2Bq4HjyQ8pM1mX0n3kT4Yq7m4B8rJk2c5Q=\"; };", "has no algorithm"),
            ("key \"k\" { algorithm hmac-md5; secret \"Wb9r0Vf7m2Bq4HjyQ8pM1mX0n3kT4Yq7m4B8rJk2c5Q=\"; };", "uses hmac-md5"),
            ("key \"k\" { algorithm hmac-sha256; secret \"c2hvcnQ=\"; };", "no secret of at least 16 bytes")
        ]
        for (text, reason) in cases {
            let e = #expect(throws: WideAreaError.self) { try TSIGKey.parse(text, path: "/etc/handoffd/k") }
            #expect(e?.description.contains(reason) == true, "\(String(describing: e))")
            #expect(e?.description.contains("/etc/handoffd/k") == true)
        }
    }

    @Test func theFileMustBeOursAndPrivate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("key").path
        try Self.keygen.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        let open = #expect(throws: WideAreaError.self) { try TSIGKey.load(path: path) }
        #expect(open?.description.contains("chmod 600 \(path)") == true, "\(String(describing: open))")
        chmod(path, 0o600)
        #expect(try TSIGKey.load(path: path).name == "handoff-key")
        let missing = #expect(throws: WideAreaError.self) { try TSIGKey.load(path: path + ".none") }
        #expect(missing?.description.contains("tsig-keygen") == true)
    }
}

@Suite struct ZoneAdvertTests {
    let txt = try! TXTRecord([.init("v", "2"), .init("n", "a\"b\\c"), .init("m", "x y")])

    @Test func recordsAsZoneFileText() {
        let z = ZoneAdvert(zone: "handoff.test", instance: "q7abc", host: "h2xyz", port: 7340, txt: txt, addresses: ["10.0.0.1", "2001:db8::1"])
        #expect(z.serviceName == "_handoff._tcp.handoff.test.")
        #expect(
            z.records == [
                "_handoff._tcp.handoff.test. 120 IN PTR q7abc._handoff._tcp.handoff.test.",
                "q7abc._handoff._tcp.handoff.test. 120 IN SRV 0 0 7340 h2xyz.handoff.test.",
                #"q7abc._handoff._tcp.handoff.test. 120 IN TXT "v=2" "n=a\"b\\c" "m=x y""#,
                "h2xyz.handoff.test. 120 IN A 10.0.0.1",
                "h2xyz.handoff.test. 120 IN AAAA 2001:db8::1"
            ])
        // Removing it touches our names only: the shared PTR name loses just our record.
        #expect(
            z.removal == [
                .record("_handoff._tcp.handoff.test. 0 IN PTR q7abc._handoff._tcp.handoff.test."),
                .name("q7abc._handoff._tcp.handoff.test."), .name("h2xyz.handoff.test.")
            ])
    }

    @Test func labelsAndStringsRoundTrip() {
        // A pairing advert's instance is the device name: spaces, dots, UTF-8.
        for name in ["alices-laptop", "Küche 2.OG", "a.b", "x\\y"] {
            let escaped = DNSText.label(name)
            #expect(!escaped.contains(" ") && !escaped.contains("."), "\(escaped)")
            #expect(DNSText.firstLabel(of: escaped + "._handoff._tcp.z.", under: "_handoff._tcp.z.") == name)
        }
        #expect(DNSText.firstLabel(of: "a.b._handoff._tcp.z.", under: "_handoff._tcp.z.") == nil)
        #expect(DNSText.firstLabel(of: "a._other._tcp.z.", under: "_handoff._tcp.z.") == nil)
        #expect(DNSText.bytes(#""n=a\"b\\c""#) == Array(#"n=a"b\c"#.utf8))
        #expect(DNSText.bytes(#""\255\000x""#) == [255, 0, UInt8(ascii: "x")])
    }
}

@Suite struct ZoneListingTests {
    func peer(_ name: String, _ txt: [(String, String)] = [("v", "2"), ("n", "1")]) -> DiscoveredPeer {
        DiscoveredPeer(name: name, hostName: "h.z.", port: 7340, addresses: [], txt: try! TXTRecord(txt.map { TXTRecord.Entry($0.0, $0.1) }))
    }

    @Test func readingsBecomeEvents() {
        var l = ZoneListing()
        #expect(l.read(["a": peer("a")]) == [.peerAppeared(peer("a"))])
        #expect(l.read(["a": peer("a")]).isEmpty)
        #expect(l.read(["a": peer("a", [("v", "2"), ("n", "2")])]) == [.peerChanged(peer("a", [("v", "2"), ("n", "2")]))])
        // Something else under our service type is named once and never listed.
        let other = peer("b", [("txtvers", "1")])
        #expect(l.read(["a": peer("a", [("v", "2"), ("n", "2")]), "b": other]) == [.foreignService(name: "b", reason: "no v")])
        #expect(l.read(["a": peer("a", [("v", "2"), ("n", "2")]), "b": other]).isEmpty)
        #expect(l.read([:]) == [.peerRemoved(name: "a")])
    }
}

@Suite struct MergedPeerTableTests {
    func peer(_ name: String, _ address: String, _ n: String = "1") -> DiscoveredPeer {
        DiscoveredPeer(
            name: name, hostName: "h", port: 7340, addresses: [PeerAddress(address: address, interfaceIndex: 0, family: .ipv4)],
            txt: try! TXTRecord(["v": "2", "n": n]))
    }

    @Test func aPeerFoundBothWaysIsOnePeer() {
        var t = MergedPeerTable()
        #expect(t.apply(.peerAppeared(peer("a", "10.0.0.1")), from: 0) == [.peerAppeared(peer("a", "10.0.0.1"))])
        // The zone lists it too, with another address: one peer, both addresses.
        guard case .peerChanged(let both)? = t.apply(.peerAppeared(peer("a", "10.1.0.1", "2")), from: 1).first else {
            Issue.record("no change")
            return
        }
        #expect(both.addresses.map(\.address) == ["10.0.0.1", "10.1.0.1"] && both.txt["n"] == "2")
        #expect(t.peers.count == 1)
        // Gone from the link: still listed by the zone.
        guard case .peerChanged(let zoneOnly)? = t.apply(.peerRemoved(name: "a"), from: 0).first else {
            Issue.record("no change")
            return
        }
        #expect(zoneOnly.addresses.map(\.address) == ["10.1.0.1"])
        #expect(t.apply(.peerRemoved(name: "a"), from: 1) == [.peerRemoved(name: "a")])
        #expect(t.apply(.peerRemoved(name: "a"), from: 1).isEmpty)
        // Other events pass through.
        #expect(t.apply(.avahiUp, from: 0) == [.avahiUp])
    }
}

/// The one update that brings the zone to what we want.
@Suite struct ZonePlanTests {
    let t0 = Date(timeIntervalSinceReferenceDate: 1_000)
    func advert(_ instance: String, n: String = "1") -> ZoneAdvert {
        ZoneAdvert(zone: "z", instance: instance, host: "h" + instance, port: 7340, txt: try! TXTRecord(["v": "2", "n": n]), addresses: ["10.0.0.1"])
    }

    @Test func aFirstPublishAddsAndACrashsLeftoversGo() {
        let leftover = RecordLedger.Entry(service: "_handoff._tcp.z.", instance: "old._handoff._tcp.z.", host: "hold.z.")
        let a = advert("new")
        let plan = ZonePlan.make(targets: [.main: a], inZone: [:], ledger: [leftover], renewedAt: [:], now: t0, renewInterval: 300)
        #expect(plan.stale == [leftover])
        #expect(plan.deleting == ZoneAdvert.removal(service: leftover.service, instance: leftover.instance, host: leftover.host) + a.replacing)
        #expect(plan.adding == a.records && plan.written == [.main])
    }

    @Test func nothingChangedIsNoUpdateUntilTheRenewal() {
        let a = advert("x")
        let ledger: Set = [ZonePlan.entry(a)]
        let quiet = ZonePlan.make(targets: [.main: a], inZone: [.main: a], ledger: ledger, renewedAt: [.main: t0], now: t0 + 299, renewInterval: 300)
        #expect(quiet.isEmpty)
        let renewal = ZonePlan.make(
            targets: [.main: a], inZone: [.main: a], ledger: ledger, renewedAt: [.main: t0], now: t0 + 300, renewInterval: 300)
        #expect(renewal.adding == a.records && renewal.stale.isEmpty)
        // A new TXT: the instance's records are replaced.
        let b = advert("x", n: "2")
        let txt = ZonePlan.make(targets: [.main: b], inZone: [.main: a], ledger: ledger, renewedAt: [.main: t0], now: t0 + 1, renewInterval: 300)
        #expect(txt.deleting == b.replacing && txt.adding == b.records)
    }

    @Test func aRotationAndAClosedWindowDeleteTheOldNames() {
        let old = advert("old"), new = advert("new"), pairing = advert("beta")
        let ledger: Set = [ZonePlan.entry(old), ZonePlan.entry(pairing)]
        let plan = ZonePlan.make(
            targets: [.main: new], inZone: [.main: old, .pairing: pairing], ledger: ledger, renewedAt: [.main: t0, .pairing: t0],
            now: t0 + 1, renewInterval: 300)
        #expect(plan.stale == ledger)
        #expect(Set(plan.deleting.map { "\($0)" }).isSuperset(of: (old.removal + pairing.removal).map { "\($0)" }))
        #expect(plan.adding == new.records && plan.written == [.main])
        // At stop, nothing is wanted: everything of ours goes.
        let stop = ZonePlan.make(targets: [:], inZone: [.main: new], ledger: [ZonePlan.entry(new)], renewedAt: [:], now: t0, renewInterval: 300)
        #expect(stop.deleting == new.removal && stop.adding.isEmpty)
    }
}

/// libldns is loaded only when wide_area is set (CLDNS's loader): a machine without it gets a
/// message that names the package.
@Suite struct LDNSLoadingTests {
    @Test func aMissingLibrarySaysWhatToInstall() {
        let e = WideAreaError.library(reason: "libldns.so.3: cannot open shared object file: No such file or directory")
        #expect(e.description.contains("apt install libldns3") && e.description.contains("libldns.so.3: cannot open"))
    }

    @Test func theLibraryLoadsOnceForEveryClient() throws {
        // Two clients: the second finds the functions already there (the loader runs once).
        let key = try TSIGKey.parse(TSIGKeyTests.keygen, path: "/k")
        _ = try DNSClient(server: "127.0.0.1:5399", key: key)
        _ = try DNSClient(server: "[::1]:5399", key: key)
    }
}
