#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// A link-local network in memory: the fakes attached to it see each other's adverts. Deliveries
/// are computed under the network's lock and made after it is released, so a fake may call back.
public final class FakeNetwork: @unchecked Sendable {
    struct Registration {
        let owner: ObjectIdentifier
        let host: String
        let address: String
        let port: UInt16
        var txt: TXTRecord
    }

    private let lock = ThreadLock()
    private var members: [ObjectIdentifier: FakeDiscovery] = [:]
    private var registrations: [String: Registration] = [:]

    public init() {}

    func attach(_ member: FakeDiscovery) -> [(String, Registration)] {
        lock.withLock {
            members[ObjectIdentifier(member)] = member
            return registrations.map { ($0.key, $0.value) }
        }
    }

    func detach(_ member: FakeDiscovery) {
        _ = lock.withLock { members.removeValue(forKey: ObjectIdentifier(member)) }
        unregister(owner: member)
    }

    /// False when another member holds the name (a collision).
    func register(name: String, owner: FakeDiscovery, port: UInt16, txt: TXTRecord) -> Bool {
        let id = ObjectIdentifier(owner)
        let others: [FakeDiscovery]? = lock.withLock {
            if let r = registrations[name], r.owner != id { return nil }
            registrations[name] = Registration(owner: id, host: owner.hostName, address: owner.address, port: port, txt: txt)
            return members.values.filter { $0 !== owner }
        }
        guard let others else { return false }
        let reg = Registration(owner: id, host: owner.hostName, address: owner.address, port: port, txt: txt)
        for m in others { m.networkResolved(name: name, registration: reg) }
        return true
    }

    func updateTXT(name: String, owner: FakeDiscovery, txt: TXTRecord) {
        let others: [FakeDiscovery] = lock.withLock {
            guard registrations[name]?.owner == ObjectIdentifier(owner) else { return [] }
            registrations[name]?.txt = txt
            return members.values.filter { $0 !== owner }
        }
        for m in others { m.networkTXT(name: name, txt: txt) }
    }

    /// Withdraws the owner's registrations: all of them, or the one under `name`.
    func unregister(owner: FakeDiscovery, name: String? = nil) {
        let id = ObjectIdentifier(owner)
        let (names, others): ([String], [FakeDiscovery]) = lock.withLock {
            let names = registrations.filter { $0.value.owner == id && (name == nil || $0.key == name) }.map(\.key)
            for n in names { registrations[n] = nil }
            return (names, members.values.filter { $0 !== owner })
        }
        for m in others { for n in names { m.networkRemoved(name: n) } }
    }

    /// The one interface of this network.
    let fakeInterfaceIndex: Int32 = 2
}
