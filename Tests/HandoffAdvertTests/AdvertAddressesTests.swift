@testable import HandoffAdvert
import HandoffCore
import HandoffDiscovery
import Testing

/// An advert that came through an Avahi reflector carries the other link's IPv6
/// link-local addresses, which mean nothing here.
@Suite struct AdvertAddressesTests {
    let local = [InterfaceAddress(text: "10.221.5.1", interfaceIndex: 2, isIPv6: false, prefixLength: 24)]
    let v4near = PeerAddress(address: "10.221.5.7", interfaceIndex: 2, family: .ipv4)
    let v4far = PeerAddress(address: "10.222.5.1", interfaceIndex: 2, family: .ipv4)
    let ll = PeerAddress(address: "fe80::1c2:3ff:fe04:506", interfaceIndex: 2, family: .ipv6)
    let global = PeerAddress(address: "2001:db8::7", interfaceIndex: 2, family: .ipv6)

    @Test func linkLocalAddressesOfAnotherLinkAreLeftOut() {
        #expect(AdvertAddresses.usable([v4near, ll], local: local) == [v4near, ll])
        #expect(AdvertAddresses.usable([v4far, ll, global], local: local) == [v4far, global])
        // Only IPv6: nothing says it is another link's.
        #expect(AdvertAddresses.usable([ll], local: local) == [ll])
        #expect(AdvertAddresses.isLinkLocal(PeerAddress(address: "febf::1", interfaceIndex: 1, family: .ipv6)))
        #expect(!AdvertAddresses.isLinkLocal(PeerAddress(address: "fec0::1", interfaceIndex: 1, family: .ipv6)))
        #expect(!AdvertAddresses.isLinkLocal(global))
    }

    @Test func aLinkLocalAddressIsDialledWithItsInterface() {
        #expect(AdvertAddresses.endpoint(ll, port: 7340) == PeerEndpoint(host: "fe80::1c2:3ff:fe04:506%2", port: 7340))
        #expect(AdvertAddresses.endpoint(v4near, port: 7340) == PeerEndpoint(host: "10.221.5.7", port: 7340))
        #expect(local[0].sameIPv4Network(as: "10.221.5.200") && !local[0].sameIPv4Network(as: "10.221.6.1"))
    }
}
