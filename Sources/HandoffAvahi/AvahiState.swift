import HandoffDiscovery

/// Our adverts' entry groups, one per slot (guarded by the poll lock; each slot's state machine
/// has a lock of its own: `AvahiDiscovery.machines`).
struct AvahiPublishing {
    var groups: [AdvertSlot: OpaquePointer] = [:]
    /// The slot whose group avahi_entry_group_new is creating (its first callback comes before
    /// the pointer is returned).
    var creatingGroup: AdvertSlot?
}

/// The service browser, what it lists, and each instance's resolver and TXT record browser
/// (guarded by the poll lock).
struct AvahiBrowsing {
    var browser: OpaquePointer?
    var table = PeerTable()
    var lookups: [PeerTable.InstanceKey: AvahiDiscovery.Lookup] = [:]
    var recordBrowsers: [OpaquePointer: PeerTable.InstanceKey] = [:]
    /// The instance names whose TXT is watched (`Discovery.follow`).
    var followed: Set<String> = []
    /// Which instances are resolved (`Discovery.resolve(only:)`).
    var wanted: NameInterest = { _ in true }
}

/// Reaching avahi-daemon: timers, the problem last reported, the reconnect backoff, shutdown
/// (guarded by the poll lock).
struct AvahiConnection {
    var timers: [OpaquePointer: AvahiDiscovery.TimerPurpose] = [:]
    var reportedProblem: String?
    /// Delay before the next attempt to reach the system bus: doubles up to 10 s, reset on success.
    var reconnectDelayMs: UInt32 = 500
    var stopped = false
    /// The client's first making is scheduled (`beginClient`).
    var clientBegun = false
    /// Calls into libavahi-client that callers asked for, to be made on the poll thread
    /// (`AvahiDiscovery.onPollThread`), in order.
    var deferred: [() -> Void] = []
}
