#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

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
    private let lock = ThreadLock()
    private var slots: FakeSlots
    private var table = PeerTable()
    private var avahiRunning = false
    private var stopped = false
    private var followedNames: Set<String> = []
    private var interest: NameInterest = { _ in true }

    public init(network: FakeNetwork, hostName: String, address: String? = nil, avahiRunning: Bool = true) {
        self.network = network
        self.hostName = hostName
        self.address = address ?? "fake:\(hostName)"
        (events, continuation) = AsyncStream.makeStream()
        slots = FakeSlots(
            machines: Dictionary(
                uniqueKeysWithValues: AdvertSlot.allCases.map { ($0, AdvertiserMachine(alternativeName: fakeAlternativeServiceName)) }))
        if avahiRunning { setAvahiRunning(true) }
    }

    public var peers: [DiscoveredPeer] { lock.withLock { table.peers } }
    public var sources: [AsyncStream<DiscoveryEvent>] { [events] }
    /// The name our advert holds now, if it is established.
    public var nameInUse: String? { nameInUse(.main) }
    public var collided: Bool { lock.withLock { slots.machines[.main]!.collided } }
    public func nameInUse(_ slot: AdvertSlot) -> String? {
        lock.withLock { slots.machines[slot]!.groupActive ? slots.machines[slot]!.nameInUse : nil }
    }

    public func publish(_ advert: ServiceAdvert, slot: AdvertSlot) throws(DiscoveryError) {
        let actions = try lockedThrowing { () throws(DiscoveryError) in
            if stopped { throw DiscoveryError.stopped }
            return try slots.machines[slot]!.publish(advert)
        }
        execute(actions, slot: slot)
    }

    public func updateTXT(_ txt: TXTRecord) throws(DiscoveryError) {
        let actions = try lockedThrowing { () throws(DiscoveryError) in
            if stopped { throw DiscoveryError.stopped }
            return try slots.machines[.main]!.updateTXT(txt)
        }
        execute(actions, slot: .main)
    }

    /// What the reader follows (the fake reports every TXT change anyway; tests read this).
    public var followed: Set<String> { lock.withLock { followedNames } }
    public func follow(_ names: Set<String>) { lock.withLock { followedNames = names } }
    /// The fake resolves every instance (tests read what it was told).
    public func resolve(only wanted: @escaping NameInterest) { lock.withLock { interest = wanted } }
    public func wants(_ name: String) -> Bool { lock.withLock { interest }(name) }

    /// What Avahi reports when another host's probe or answer claims a published name (or its
    /// own probe's echo, with records changed since: `AdvertiserMachine.registering`).
    public func collide(slot: AdvertSlot = .main) {
        execute(lock.withLock { slots.machines[slot]!.collision() }, slot: slot)
        if slot == .main, let action = lock.withLock({ collisionAction }) { action() }
    }

    public func whenCollided(_ action: @escaping @Sendable () -> Void) { lock.withLock { collisionAction = action } }
    private var collisionAction: (@Sendable () -> Void)?

    public func withdraw(slot: AdvertSlot) { execute(lock.withLock { slots.machines[slot]!.withdraw() }, slot: slot) }

    /// When `start()` was first called (ContinuousClock), for tests of who starts discovery when.
    public var startedAt: ContinuousClock.Instant? { lock.withLock { firstStart } }
    private var firstStart: ContinuousClock.Instant?

    public func start() { lock.withLock { if firstStart == nil { firstStart = .now } } }

    public func shutdown() {
        for slot in AdvertSlot.allCases { withdraw(slot: slot) }
        lock.withLock { stopped = true }
        network.detach(self)
        continuation.finish()
    }

    /// Simulates avahi-daemon stopping (adverts gone, peers forgotten) or starting again.
    public func setAvahiRunning(_ running: Bool) {
        if running {
            let existing = network.attach(self)
            for slot in AdvertSlot.allCases {
                let actions = lock.withLock { () -> [AdvertiserMachine.Action] in
                    avahiRunning = true
                    return slots.machines[slot]!.clientBecameRunning()
                }
                execute(actions, slot: slot)
            }
            for (name, reg) in existing where reg.owner != ObjectIdentifier(self) { networkResolved(name: name, registration: reg) }
        } else {
            network.detach(self)
            let (actions, removed) = lock.withLock {
                avahiRunning = false
                slots.registered = [:]
                return (slots.machines[.main]!.clientLost(reason: "avahi-daemon stopped"), table.removeAll())
            }
            _ = lock.withLock { slots.machines[.pairing]!.clientLost(reason: "avahi-daemon stopped") }
            execute(actions, slot: .main)
            for e in removed { continuation.yield(e) }
        }
    }

    private func lockedThrowing<T>(_ body: () throws(DiscoveryError) -> T) throws(DiscoveryError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func execute(_ actions: [AdvertiserMachine.Action], slot: AdvertSlot) {
        for action in actions {
            switch action {
            case .addService(let name, let port, let txt):
                if !network.register(name: name, owner: self, port: port, txt: txt) {
                    execute(lock.withLock { slots.machines[slot]!.collision() }, slot: slot)
                    return
                }
                lock.withLock { slots.registered[slot] = name }
            case .commit:
                execute(lock.withLock { slots.machines[slot]!.groupEstablished() }, slot: slot)
            case .updateTXT(let name, let txt):
                network.updateTXT(name: name, owner: self, txt: txt)
            case .resetGroup, .discardGroup:
                if let name = lock.withLock({ slots.registered.removeValue(forKey: slot) }) { network.unregister(owner: self, name: name) }
            case .emit(let event):
                if slot == .main { continuation.yield(event) }
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

/// Each advert slot's state machine, and the name it holds on the fake network.
struct FakeSlots {
    var machines: [AdvertSlot: AdvertiserMachine]
    var registered: [AdvertSlot: String] = [:]
}
