#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffCore
import HandoffProtocol

/// Which of the addresses a peer's hello lists we may dial later. A paired peer is trusted with
/// what it is, not with where it sends us: it once named 127.0.0.1, multicast and broadcast
/// addresses, host names and our own addresses, all dialled at every backoff step. Only unicast
/// IP literals are taken, never ours, never loopback unless the session itself runs on loopback
/// (a test, or two instances on one machine), never link-local (they need a zone the peer cannot
/// know). Pure: the caller gives our addresses.
enum ToldAddresses {
    static func usable(_ told: [String], port: Int, sessionOnLoopback: Bool, local: [InterfaceAddress]) -> [PeerEndpoint] {
        let ours = Set(local.map(\.bare))
        var out: [PeerEndpoint] = []
        for text in told.prefix(Hello.maxAddresses) {
            guard (1...65_535).contains(port), let kind = classify(text), !ours.contains(text) else { continue }
            switch kind {
            case .unicast: break
            case .loopback where sessionOnLoopback: break
            default: continue
            }
            // A subnet's broadcast address is no host: the last address of a local IPv4 network.
            if local.contains(where: { isBroadcast(text, of: $0) }) { continue }
            let e = PeerEndpoint(host: text, port: port)
            if !out.contains(e) { out.append(e) }
        }
        return out
    }

    enum Kind: Equatable { case unicast, loopback, linkLocal, multicast, broadcast, unspecified }

    /// nil for anything that is not an IP literal (names, zones, ports, junk).
    static func classify(_ text: String) -> Kind? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let a = UInt32(bigEndian: v4.s_addr)
            switch a >> 24 {
            case 0: return .unspecified
            case 127: return .loopback
            case 224...239: return .multicast
            case 240...255: return a == 0xffff_ffff ? .broadcast : .unspecified
            default: return a >> 16 == 0xa9fe ? .linkLocal : .unicast
            }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let b = withUnsafeBytes(of: v6) { Array($0) }
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b.dropLast().allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if b[0] == 0xff { return .multicast }
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }
        // An IPv4-mapped address is judged as the IPv4 address it carries.
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff {
            return classify(b[12...].map(String.init).joined(separator: "."))
        }
        return .unicast
    }

    static func isBroadcast(_ text: String, of local: InterfaceAddress) -> Bool {
        guard !local.isIPv6, let prefix = local.prefixLength, prefix < 31, let a = InterfaceAddress.ipv4(text),
            let mine = InterfaceAddress.ipv4(local.bare)
        else { return false }
        let host = ~UInt32(0) >> UInt32(prefix)
        return a & ~host == mine & ~host && a & host == host
    }
}
