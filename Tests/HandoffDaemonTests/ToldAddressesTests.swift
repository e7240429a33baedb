import HandoffCore
import Testing
@testable import HandoffDaemon

/// What a hostile peer's hello could make us dial.
@Suite struct ToldAddressesTests {
    let local = [
        InterfaceAddress(text: "192.168.7.20", interfaceIndex: 2, isIPv6: false, prefixLength: 24),
        InterfaceAddress(text: "2001:db8::20", interfaceIndex: 2, isIPv6: true, prefixLength: 64)
    ]

    @Test func onlyUnicastLiteralsThatAreNotOursAreDialled() {
        let told = [
            "192.168.7.31", "localhost", "127.0.0.1", "::1", "224.0.0.251", "255.255.255.255", "192.168.7.255", "0.0.0.0", "::",
            "192.168.7.20", "2001:db8::20", "ff02::fb", "fe80::1", "169.254.3.4", "::ffff:127.0.0.1", "2001:db8::31", "evil.example",
            "10.0.0.1:22", "192.168.7.31"
        ]
        let usable = ToldAddresses.usable(told, port: 7340, sessionOnLoopback: false, local: local)
        #expect(usable.map(\.host) == ["192.168.7.31", "2001:db8::31"])
        #expect(usable.allSatisfy { $0.port == 7340 })
    }

    @Test func loopbackOnlyWhenTheSessionIsOnLoopback() {
        #expect(ToldAddresses.usable(["127.0.0.1", "::1"], port: 7340, sessionOnLoopback: true, local: local).map(\.host) == ["127.0.0.1", "::1"])
        #expect(ToldAddresses.usable(["127.0.0.1"], port: 7340, sessionOnLoopback: false, local: local).isEmpty)
    }

    @Test func portZeroIsNoPort() {
        #expect(ToldAddresses.usable(["192.168.7.31"], port: 0, sessionOnLoopback: false, local: local).isEmpty)
    }
}

/// A peer cannot make us dial new addresses without bound, hello after hello.
@Suite struct ToldBudgetTests {
    func endpoints(_ range: ClosedRange<Int>) -> [PeerEndpoint] { range.map { PeerEndpoint(host: "192.168.9.\($0)", port: 7340) } }

    @Test func atMostSixteenNewAddressesAMinutePerPeer() {
        var b = ToldBudget()
        let first = b.admit(endpoints(1...16), peerID: "p", at: 100)
        #expect(first.taken.count == 16 && first.refused == 0)
        // The next hello, a second later, names 16 others: refused; the ones already taken pass.
        let second = b.admit(endpoints(9...24), peerID: "p", at: 101)
        #expect(second.taken == endpoints(9...16))
        #expect(second.refused == 8)
        // Another peer has a budget of its own.
        #expect(b.admit(endpoints(17...20), peerID: "q", at: 101).taken.count == 4)
        // A minute after the first ones were taken, new ones may come again.
        let later = b.admit(endpoints(17...32), peerID: "p", at: 160)
        #expect(later.taken == endpoints(17...32))
    }

    @Test func forgettingAPeerClearsItsBudget() {
        var b = ToldBudget()
        _ = b.admit(endpoints(1...16), peerID: "p", at: 0)
        b.forget(peerID: "p")
        #expect(b.admit(endpoints(17...20), peerID: "p", at: 1).refused == 0)
    }
}
