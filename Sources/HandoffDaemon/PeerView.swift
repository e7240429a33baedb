import Foundation
import HandoffCore
import HandoffDiscovery
import HandoffLink

/// A peer as the control operations see it: discovered, paired, or both.
struct PeerView: Sendable {
    let name: String
    let trusted: TrustedPeer?
    let discovered: DiscoveredPeer?
    let present: Bool
    let connected: Bool

    var fingerprint: String? { trusted?.identity.fingerprint ?? discovered?.txt["fp"] }

    /// Where to open a session: IPv4 first.
    var address: (host: String, port: Int)? {
        guard let d = discovered, let a = d.addresses.first(where: { $0.family == .ipv4 }) ?? d.addresses.first else { return nil }
        return (a.address, Int(d.port))
    }

    var propertyList: PropertyListValue {
        var d: [String: PropertyListValue] = [
            "name": .string(name), "paired": .bool(trusted != nil), "present": .bool(present),
            "listed": .bool(discovered != nil), "connected": .bool(connected)
        ]
        if let fingerprint { d["fingerprint"] = .string(fingerprint) }
        if let discovered {
            d["addresses"] = .array(discovered.addresses.map { .string($0.description) })
            d["port"] = .integer(Int64(discovered.port))
        }
        if let trusted { d["pairedName"] = .string(trusted.name) }
        return .dictionary(d)
    }
}
