import HandoffCore
import Testing

/// The address a zone advert lists: the one this machine sends from toward the server.
@Suite struct InterfaceAddressesTests {
    @Test func theSourceTowardAnAddressIsTheRoutingTablesChoice() {
        #expect(InterfaceAddresses.source(toward: "127.0.0.1") == "127.0.0.1")
        #expect(InterfaceAddresses.source(toward: "127.0.0.53") == "127.0.0.1")
        #expect(InterfaceAddresses.source(toward: "::1").map { $0 == "::1" } ?? true, "IPv6 loopback, when the host has IPv6")
        #expect(InterfaceAddresses.source(toward: "not an address") == nil)
        #expect(InterfaceAddresses.source(toward: "") == nil)
    }
}
