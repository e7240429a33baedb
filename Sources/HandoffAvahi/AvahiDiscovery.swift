import CAvahi
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffDiscovery
import Logging
import Synchronization

/// Discovery over a real avahi-daemon, through libavahi-client on an AvahiThreadedPoll.
///
/// Threading: Avahi calls back on the poll's thread with the poll's lock held; every public method
/// takes that lock. All mutable state below is touched only under it, which is what makes the
/// class safe to share. Never call a public method from inside an Avahi callback (the lock is not
/// recursive); events leave through an AsyncStream for that reason.
public final class AvahiDiscovery: Discovery, @unchecked Sendable {
    public static let serviceType = "_handoff._tcp"

    public let events: AsyncStream<DiscoveryEvent>
    let continuation: AsyncStream<DiscoveryEvent>.Continuation
    let logger: Logger
    let serviceType: String
    let poll: OpaquePointer
    /// Passed as userdata to every callback; retained until shutdown so callbacks never outlive us.
    var context: UnsafeMutableRawPointer!

    // Guarded by the poll lock.
    var client: OpaquePointer?
    var publishing = AvahiPublishing()
    /// Each advert slot's state machine, under a lock of its own that is never held while calling
    /// into libavahi-client: `publish`, `updateTXT` and `withdraw` answer from it (a refusal is
    /// thrown at once) without the poll lock, which the poll thread holds while it waits for
    /// avahi-daemon over D-Bus. Lock order: the poll lock, then this, then the inbox's.
    let machines: Mutex<[AdvertSlot: AdvertiserMachine]>
    var browsing = AvahiBrowsing()
    var connection = AvahiConnection()
    /// `resolve` and `follow` hand their work to the poll thread through it (AvahiInbox: why).
    let inbox = AvahiInbox()
    var inboxWatch: OpaquePointer?

    struct Lookup {
        let domain: String
        var resolver: OpaquePointer?
        var recordBrowser: OpaquePointer?
        var retryTimer: OpaquePointer?
        var failures = 0
        /// avahi-daemon called the instance ours: it had our name while one of our groups held
        /// that name, probing included. Not resolved until a collision moves our advert off it.
        var judgedOwn = false
    }

    enum TimerPurpose: Equatable {
        case runDeferred
        case reconnect
        case restartBrowser
        case retryResolve(PeerTable.InstanceKey)
    }

    /// Starts the poll thread, and the Avahi client on it at once unless `startingClient` is false
    /// (then `start()` does). If avahi-daemon is not running yet the client waits for it and
    /// publishes as soon as it appears.
    public init(
        serviceType: String = AvahiDiscovery.serviceType, startingClient: Bool = true, logger: Logger = Logger(label: "handoffd.discovery")
    ) throws(DiscoveryError) {
        self.serviceType = serviceType
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream()
        guard let poll = avahi_threaded_poll_new() else {
            throw .avahi(code: -1, message: "out of memory", during: "creating the Avahi poll thread")
        }
        self.poll = poll
        machines = Mutex(
            Dictionary(uniqueKeysWithValues: AdvertSlot.allCases.map { ($0, AdvertiserMachine(alternativeName: avahiAlternativeServiceName)) }))
        context = Unmanaged.passRetained(self).toOpaque()
        // The client is made on the poll thread, as after a failure: avahi_client_new waits for
        // avahi-daemon's answers over D-Bus (1-2 ms at start), which the link's listening and
        // first dials need not wait for (a restarted peer is present sooner). Until it runs,
        // publishing waits as it does for a daemon that is not there yet.
        if startingClient { beginClient() }
        if inbox.fd >= 0, let api = avahi_threaded_poll_get(poll) {
            inboxWatch = api.pointee.watch_new(api, inbox.fd, AVAHI_WATCH_IN, inboxCallback, context)
        }
        if avahi_threaded_poll_start(poll) < 0 {
            Unmanaged<AvahiDiscovery>.fromOpaque(context).release()
            throw .avahi(code: -1, message: "thread start failed", during: "starting the Avahi poll thread")
        }
    }

    public var peers: [DiscoveredPeer] { locked { browsing.table.peers } }
    public var sources: [AsyncStream<DiscoveryEvent>] { [events] }

    /// Makes the Avahi client now, for one made with `startingClient: false`.
    public func start() { locked { if !connection.stopped { beginClient() } } }

    /// The name our advert holds once established; differs from the requested one after a collision.
    public var nameInUse: String? { machines.withLock { $0[.main]!.nameInUse } }
    public var collided: Bool { machines.withLock { $0[.main]!.collided } }
    public func whenCollided(_ action: @escaping @Sendable () -> Void) { collisionAction.withLock { $0 = action } }
    let collisionAction = Mutex<(@Sendable () -> Void)?>(nil)

    /// Avahi reported a collision of `slot`'s name: its machine decides, and the owner of the main
    /// advert hears of it at once.
    func collision(_ slot: AdvertSlot) {
        advance(slot) { $0.collision() }
        // Another machine holds the name now: its instance, flagged ours while our group held
        // that name, is resolved. (Not after a withdrawal of our own: that instance was ours,
        // and its goodbye removes it.)
        lookAgainAtInstancesJudgedOwn()
        if slot == .main, let action = collisionAction.withLock({ $0 }) { action() }
    }

    // The state machines answer at once (a refusal is thrown to the caller); the calls into
    // libavahi-client they ask for wait for avahi-daemon's answer over D-Bus, one round trip each
    // (creating a group, adding a service, committing), so they are made on the poll thread, in
    // order: handoffd calls these from its event loop, which serves the link meanwhile. At start,
    // the advert's publish held the loop 2 ms while a restarted peer's handshake waited; at a
    // restart among 49 peers, taking the poll lock for them held it 31 ms (docs/PERFORMANCE.md).

    public func publish(_ advert: ServiceAdvert, slot: AdvertSlot) throws(DiscoveryError) {
        try advertise(slot) { (m) throws(DiscoveryError) in try m.publish(advert) }
    }

    public func updateTXT(_ txt: TXTRecord) throws(DiscoveryError) {
        try advertise(.main) { (m) throws(DiscoveryError) in try m.updateTXT(txt) }
    }

    public func withdraw(slot: AdvertSlot) {
        try? advertise(slot) { m in m.withdraw() }
    }

    /// Moves the slot's machine and hands the actions it asks for to the poll thread, in the order
    /// of the moves (posted under the machines' lock), through the inbox; or, with no inbox, under
    /// the poll lock as before.
    private func advertise(
        _ slot: AdvertSlot, _ move: (inout AdvertiserMachine) throws(DiscoveryError) -> [AdvertiserMachine.Action]
    ) throws(DiscoveryError) {
        guard inboxWatch != nil else {
            return try lockedThrowing { () throws(DiscoveryError) in
                if connection.stopped { throw .stopped }
                let actions = try machines.withLock { (m) throws(DiscoveryError) in try move(&m[slot]!) }
                onPollThread { self.execute(actions, slot: slot) }
            }
        }
        if inbox.isClosed { throw .stopped }
        try machines.withLock { (m) throws(DiscoveryError) in
            let actions = try move(&m[slot]!)
            guard !actions.isEmpty else { return }
            _ = inbox.post(.advert) { self.execute(actions, slot: slot) }
        }
    }

    // `resolve` and `follow` change what the poll thread's callbacks do, and refuse nothing: they
    // reach the poll thread through the inbox, without the poll lock (AvahiInbox).

    public func resolve(only wanted: @escaping NameInterest) {
        withoutWaiting(.resolve) {
            self.browsing.wanted = wanted
            for key in Array(self.browsing.lookups.keys) where self.browsing.table.peer(named: key.name) == nil { self.startResolver(key) }
        }
    }

    public func follow(_ names: Set<String>) {
        withoutWaiting(.follow) {
            self.browsing.followed = names
            for key in Array(self.browsing.lookups.keys) {
                if !names.contains(key.name) {
                    self.stopRecordBrowser(key)
                } else if self.browsing.table.peer(named: key.name) != nil {
                    self.startRecordBrowser(key)
                }
            }
        }
    }

    /// Runs `work` on the poll thread with the poll lock held, soon, in the order given; through
    /// the inbox, or (no pipe) by taking the lock and queueing it as `onPollThread` does.
    private func withoutWaiting(_ kind: AvahiInbox.Kind, _ work: @escaping @Sendable () -> Void) {
        if inboxWatch != nil {
            _ = inbox.post(kind, work)
        } else {
            locked { if !connection.stopped { onPollThread(work) } }
        }
    }

    /// The inbox's pipe is readable: its work runs here, on the poll thread, the lock held.
    func drainInbox() {
        let work = inbox.take()
        guard !connection.stopped else { return }
        for w in work { w() }
    }

    /// Queues `work` for the poll thread, after what is queued already (the lock is held).
    func onPollThread(_ work: @escaping () -> Void) {
        connection.deferred.append(work)
        if connection.deferred.count == 1 { schedule(.runDeferred, afterMilliseconds: 0) }
    }

    /// One of our own adverts holds this name now.
    func isOwnName(_ name: String) -> Bool { machines.withLock { $0.values.contains { $0.groupActive && $0.nameInUse == name } } }

    /// Moves the slot's machine on the poll thread (the poll lock held) and carries out what it asks.
    func advance(_ slot: AdvertSlot, _ move: (inout AdvertiserMachine) -> [AdvertiserMachine.Action]) {
        execute(machines.withLock { move(&$0[slot]!) }, slot: slot)
    }

    /// Withdraws the advert (avahi sends the goodbye), frees the client and stops the poll thread.
    public func shutdown() {
        let wasRunning: Bool = locked {
            if connection.stopped { return false }
            connection.stopped = true
            // What was queued is moot: everything is withdrawn and freed now, on this thread.
            connection.deferred = []
            inbox.close()
            if let w = inboxWatch { avahi_threaded_poll_get(poll)?.pointee.watch_free(w) }
            for slot in AdvertSlot.allCases { advance(slot) { $0.withdraw() } }
            for t in connection.timers.keys { freeTimeout(t) }
            connection.timers = [:]
            // Freeing the client frees its group, browsers and resolvers too.
            if let client { avahi_client_free(client) }
            client = nil
            publishing.groups = [:]
            browsing.browser = nil
            browsing.lookups = [:]
            browsing.recordBrowsers = [:]
            return true
        }
        guard wasRunning else { return }
        avahi_threaded_poll_stop(poll)
        avahi_threaded_poll_free(poll)
        inbox.closeDescriptor()
        continuation.finish()
        Unmanaged<AvahiDiscovery>.fromOpaque(context).release()
    }

    func emit(_ event: DiscoveryEvent) { continuation.yield(event) }
    func emit(_ events: [DiscoveryEvent]) { for e in events { continuation.yield(e) } }

    func locked<T>(_ body: () -> T) -> T {
        avahi_threaded_poll_lock(poll)
        defer { avahi_threaded_poll_unlock(poll) }
        return body()
    }

    func lockedThrowing<T>(_ body: () throws(DiscoveryError) -> T) throws(DiscoveryError) -> T {
        avahi_threaded_poll_lock(poll)
        defer { avahi_threaded_poll_unlock(poll) }
        return try body()
    }
}

/// Avahi's own renaming rule ("name" -> "name #2").
@Sendable func avahiAlternativeServiceName(_ name: String) -> String {
    guard let alt = avahi_alternative_service_name(name) else { return fakeAlternativeServiceName(name) }
    defer { avahi_free(alt) }
    return String(cString: alt)
}
