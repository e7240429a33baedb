import Foundation
import NIOCore
import Testing
@testable import HandoffLink

/// Four addresses holding two connections each locked out every pairing, and an
/// address where a paired peer once authenticated was exempt from every limit for the life of the
/// process (2,000 handshakes from it exhausted the descriptors).
@Suite(.serialized, .timeLimit(.minutes(1))) struct PreAuthenticationTests {
    @Test func onePrefixCannotTakeEverySlot() async throws {
        let b = try await Node.start("B")
        var held: [Channel] = []
        for source in ["127.0.9.1", "127.0.9.2", "127.0.9.3", "127.0.9.4"] { held.append(try await rawConnect(to: b.port, from: source)) }
        #expect(await eventually(2) { b.endpoint.unauthenticatedConnections == 4 })
        // A fifth address of the same /24 is refused; another /24 still gets a slot.
        let sameNet = try await rawConnect(to: b.port, from: "127.0.9.5")
        let otherNet = try await rawConnect(to: b.port, from: "127.0.10.1")
        #expect(await eventually(2) { !sameNet.isActive })
        #expect(await eventually(2) { b.endpoint.unauthenticatedConnections == 5 })
        #expect(otherNet.isActive)
        for h in held + [otherNet] { try? await h.close() }
    }

    @Test func knownAddressesHaveACapAndEndWithThePairing() async throws {
        let b = try await Node.start("B") {
            $0.maxUnauthenticatedExempt = 3
            $0.maxUnauthenticated = 2
        }
        let a = try await Node.start("A")
        pinEachOther(a, b)
        _ = try await a.endpoint.connect(host: "127.0.0.1", port: b.port, expecting: b.identity)
        #expect(await eventually(2) { b.store.rememberedAddresses(since: .distantPast) == ["127.0.0.1"] })
        // From the remembered address: 3 exempt, then 2 counted, then refused.
        var held: [Channel] = []
        for _ in 0..<6 { held.append(try await rawConnect(to: b.port, from: "127.0.0.1")) }
        #expect(await eventually(2) { held.filter(\.isActive).count == 5 })
        for h in held { try? await h.close() }
        // Unpaired: the address is forgotten with the peer.
        try await b.endpoint.unpair(a.identity)
        #expect(b.store.rememberedAddresses(since: .distantPast).isEmpty)
    }

    @Test func prefixes() {
        #expect(ConnectionLimiter.prefix(of: "192.0.2.77") == "192.0.2.0/24")
        #expect(ConnectionLimiter.prefix(of: "2001:db8:1:2:3:4:5:6") == "20:1:d:b8:0:1:0:2/64")
        #expect(ConnectionLimiter.prefix(of: "fe80::1%veth0") == ConnectionLimiter.prefix(of: "fe80::2"))
    }
}
