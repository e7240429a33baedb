import Testing
@testable import HandoffDiscovery

@Suite struct PeerTableTests {
    let v4 = PeerTable.InstanceKey(name: "alpha", interfaceIndex: 2, protocolFamily: 0)
    let v6 = PeerTable.InstanceKey(name: "alpha", interfaceIndex: 2, protocolFamily: 1)
    let a4 = PeerAddress(address: "10.0.0.1", interfaceIndex: 2, family: .ipv4)
    let a6 = PeerAddress(address: "fe80::1", interfaceIndex: 2, family: .ipv6)
    func txt(_ seq: UInt64, _ extra: String = "") -> [[UInt8]] {
        (["v=2", "s=\(seq)"] + (extra.isEmpty ? [] : [extra])).map { Array($0.utf8) }
    }

    @Test func appearsOnceResolvedAndMergesFamilies() {
        var t = PeerTable()
        guard case .peerAppeared(let p)? = t.resolved(v4, hostName: "a.local", address: a4, port: 7, txt: txt(1), isOwn: false).first else {
            Issue.record("no appearance")
            return
        }
        #expect(p.addresses == [a4] && p.txt["s"] == "1" && p.port == 7)
        let changed = t.resolved(v6, hostName: "a.local", address: a6, port: 7, txt: txt(1), isOwn: false)
        guard case .peerChanged(let q)? = changed.first else {
            Issue.record("no change")
            return
        }
        #expect(q.addresses == [a4, a6])
        // The same data again changes nothing.
        #expect(t.resolved(v6, hostName: "a.local", address: a6, port: 7, txt: txt(1), isOwn: false).isEmpty)
    }

    @Test func ownServiceIsLeftOut() {
        var t = PeerTable()
        #expect(t.resolved(v4, hostName: "me.local", address: a4, port: 7, txt: txt(1), isOwn: true).isEmpty)
        #expect(t.peers.isEmpty)
        #expect(t.removed(v4).isEmpty)
    }

    /// Which of two coexisting records is newer is sealed inside them: the table reports each
    /// new one and leaves the choice to the layer above (Peers).
    @Test func everyNewRecordIsReported() {
        var t = PeerTable()
        _ = t.resolved(v4, hostName: "a.local", address: a4, port: 7, txt: txt(5, "tok=five"), isOwn: false)
        #expect(t.txtSeen(name: "alpha", strings: txt(5, "tok=five")).isEmpty)
        guard case .peerChanged(let p)? = t.txtSeen(name: "alpha", strings: txt(6, "tok=six")).first else {
            Issue.record("no change")
            return
        }
        #expect(p.txt["tok"] == "six")
        guard case .peerChanged(let q)? = t.txtSeen(name: "alpha", strings: txt(5, "tok=five")).first else {
            Issue.record("no change")
            return
        }
        #expect(q.txt["tok"] == "five")
        // A record that is not a handoffd one does not replace ours; a TXT for an unknown peer is dropped.
        #expect(t.txtSeen(name: "alpha", strings: [Array("v=1".utf8)]).isEmpty)
        #expect(t.txtSeen(name: "ghost", strings: txt(9)).isEmpty)
    }

    @Test func removalIsReportedWhenTheLastInstanceGoes() {
        var t = PeerTable()
        _ = t.resolved(v4, hostName: "a.local", address: a4, port: 7, txt: txt(1), isOwn: false)
        _ = t.resolved(v6, hostName: "a.local", address: a6, port: 7, txt: txt(1), isOwn: false)
        guard case .peerChanged(let p)? = t.removed(v6).first else {
            Issue.record("no change")
            return
        }
        #expect(p.addresses == [a4])
        #expect(t.removed(v4) == [.peerRemoved(name: "alpha")])
        #expect(t.peers.isEmpty)
        #expect(t.removed(v4).isEmpty)
    }

    @Test func foreignPublishersAreReportedOnceAndKeptOut() {
        var t = PeerTable()
        let garbage = [Array("hello".utf8), [0xFF, 0xFE]]
        #expect(
            t.resolved(v4, hostName: "x.local", address: a4, port: 9, txt: garbage, isOwn: false)
                == [.foreignService(name: "alpha", reason: "no v")])
        #expect(t.resolved(v6, hostName: "x.local", address: a6, port: 9, txt: garbage, isOwn: false).isEmpty)
        #expect(t.peers.isEmpty && t.isForeign("alpha"))
        #expect(t.removed(v4).isEmpty && t.removed(v6).isEmpty)
        #expect(!t.isForeign("alpha"))
    }

    @Test func avahiLossForgetsEveryone() {
        var t = PeerTable()
        _ = t.resolved(v4, hostName: "a.local", address: a4, port: 7, txt: txt(1), isOwn: false)
        _ = t.resolved(
            PeerTable.InstanceKey(name: "beta", interfaceIndex: 2, protocolFamily: 0), hostName: "b.local", address: a4, port: 7, txt: txt(1),
            isOwn: false)
        #expect(t.removeAll() == [.peerRemoved(name: "alpha"), .peerRemoved(name: "beta")])
        #expect(t.peers.isEmpty)
    }
}
