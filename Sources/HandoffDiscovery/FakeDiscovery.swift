import Foundation

/// The in-memory `Discovery`: runs the same `AdvertiserMachine` and `PeerTable` as the Avahi
/// implementation against a `FakeNetwork`, and can simulate avahi-daemon going away and coming
/// back. For unit tests of the logic above discovery; never the only test of it.
public final class FakeDiscovery: Discovery, @unchecked Sendable {
    public let hostName: String
    /// The address peers resolve this host to: a real one when a test connects to what it finds.
    public let address: String
    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let network: FakeNetwork
    private let lock = NSLock()
    private var machine: AdvertiserMachine
    private var table = PeerTable()
    private var avahiRunning = false
    private var stopped = false

    public init(network: FakeNetwork, hostName: String, address: String? = nil, avahiRunning: Bool = true) {
        self.network = network
        self.hostName = hostName
        self.address = address ?? "fake:\(hostName)"
        (events, continuation) = AsyncStream.makeStream()
        machine = AdvertiserMachine(initialSequence: 0, alternativeName: fakeAlternativeServiceName)
        if avahiRunning { setAvahiRunning(true) }
    }

    public var peers: [DiscoveredPeer] { lock.withLock { table.peers } }
    /// The name our advert holds now, if it is established.
    public var nameInUse: String? { lock.withLock { machine.groupActive ? machine.nameInUse : nil } }

    public func publish(_ advert: ServiceAdvert) throws(DiscoveryError) {
        let actions = try lockedThrowing { () throws(DiscoveryError) in
            if stopped { throw DiscoveryError.stopped }
            return try machine.publish(advert)
        }
        execute(actions)
    }

    public func updateTXT(_ txt: TXTRecord) throws(DiscoveryError) {
        let actions = try lockedThrowing { () throws(DiscoveryError) in
            if stopped { throw DiscoveryError.stopped }
            return try machine.updateTXT(txt)
        }
        execute(actions)
    }

    public func withdraw() { execute(lock.withLock { machine.withdraw() }) }

    public func shutdown() {
        withdraw()
        lock.withLock { stopped = true }
        network.detach(self)
        continuation.finish()
    }

    /// Simulates avahi-daemon stopping (adverts gone, peers forgotten) or starting again.
    public func setAvahiRunning(_ running: Bool) {
        if running {
            let existing = network.attach(self)
            let actions = lock.withLock { () -> [AdvertiserMachine.Action] in
                avahiRunning = true
                return machine.clientBecameRunning()
            }
            execute(actions)
            for (name, reg) in existing where reg.owner != ObjectIdentifier(self) { networkResolved(name: name, registration: reg) }
        } else {
            network.detach(self)
            let (actions, removed) = lock.withLock {
                avahiRunning = false
                return (machine.clientLost(reason: "avahi-daemon stopped"), table.removeAll())
            }
            execute(actions)
            for e in removed { continuation.yield(e) }
        }
    }

    private func lockedThrowing<T>(_ body: () throws(DiscoveryError) -> T) throws(DiscoveryError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func execute(_ actions: [AdvertiserMachine.Action]) {
        for action in actions {
            switch action {
            case .addService(let name, let port, let txt):
                if !network.register(name: name, owner: self, port: port, txt: txt) {
                    execute(lock.withLock { machine.collision() })
                    return
                }
            case .commit:
                execute(lock.withLock { machine.groupEstablished() })
            case .updateTXT(let name, let txt):
                network.updateTXT(name: name, owner: self, txt: txt)
            case .resetGroup, .discardGroup:
                network.unregister(owner: self)
            case .emit(let event):
                continuation.yield(event)
            }
        }
    }

    func networkResolved(name: String, registration r: FakeNetwork.Registration) {
        let key = PeerTable.InstanceKey(name: name, interfaceIndex: network.fakeInterfaceIndex, protocolFamily: 0)
        let address = PeerAddress(address: r.address, interfaceIndex: network.fakeInterfaceIndex, family: .ipv4)
        let events = lock.withLock {
            avahiRunning ? table.resolved(key, hostName: r.host, address: address, port: r.port, txt: r.txt.strings, isOwn: false) : []
        }
        for e in events { continuation.yield(e) }
    }

    func networkTXT(name: String, txt: TXTRecord) {
        let events = lock.withLock { avahiRunning ? table.txtSeen(name: name, strings: txt.strings) : [] }
        for e in events { continuation.yield(e) }
    }

    func networkRemoved(name: String) {
        let key = PeerTable.InstanceKey(name: name, interfaceIndex: network.fakeInterfaceIndex, protocolFamily: 0)
        let events = lock.withLock { avahiRunning ? table.removed(key) : [] }
        for e in events { continuation.yield(e) }
    }
}
