/// The advertiser's desired state and what it takes to reach it, as a pure state machine. The
/// desired advert lives here, in Swift, so that it can be replayed onto a new Avahi client after
/// avahi-daemon restarts, and renamed after a collision. The executor (Avahi or the fake) performs
/// the actions and feeds back what Avahi reports.
public struct AdvertiserMachine: Sendable {
    public enum Action: Sendable, Equatable {
        /// Add the service to the entry group (creating the group if there is none).
        case addService(name: String, port: UInt16, txt: TXTRecord)
        case commit
        case updateTXT(name: String, txt: TXTRecord)
        /// Withdraw the records but keep the group (collisions: Avahi's per-group holdoff then
        /// stops a rename loop).
        case resetGroup
        /// Withdraw the records and free the group. A new advert gets a fresh group: Avahi holds
        /// off a group's commits for 60 s after 15 of them, which reuse across publish/withdraw
        /// cycles would hit.
        case discardGroup
        case emit(DiscoveryEvent)
    }

    public private(set) var desired: ServiceAdvert?
    /// The name asked of Avahi: the desired one, or Avahi's alternative after a collision.
    public private(set) var nameInUse: String?
    /// The full TXT as published, with `v`.
    public private(set) var publishedTXT: TXTRecord?
    public private(set) var isClientRunning = false
    /// The service is in an entry group (registering or established).
    public private(set) var groupActive = false
    /// The group is committed and Avahi is still probing its names. A TXT changed now waits for
    /// the group to be established: Avahi hears its own probes back and compares their records
    /// with the group's, so a TXT replaced between a probe and its echo reads as another host
    /// holding the name (a collision, and the advert renamed `NAME #2`: seen with TXT rewrites
    /// every second).
    public private(set) var registering = false
    /// The full TXT the group holds (as added, or as last updated).
    private var committedTXT: TXTRecord?
    /// An advert that withdraws on a collision (`ServiceAdvert.onCollision`) lost its name:
    /// withdrawn until the caller publishes another.
    public private(set) var collided = false
    private let alternativeName: @Sendable (String) -> String

    public init(alternativeName: @escaping @Sendable (String) -> String) {
        self.alternativeName = alternativeName
    }

    public mutating func publish(_ advert: ServiceAdvert) throws(DiscoveryError) -> [Action] {
        let txt = try compose(advert.txt)
        if desired?.instanceName != advert.instanceName || collided { nameInUse = advert.instanceName }
        collided = false
        desired = advert
        publishedTXT = txt
        guard isClientRunning else { return [] }
        let reset: [Action] = groupActive ? [.discardGroup] : []
        return reset + add(name: nameInUse!, port: advert.port, txt: txt)
    }

    public mutating func updateTXT(_ txt: TXTRecord) throws(DiscoveryError) -> [Action] {
        guard var d = desired else { return [] }
        let full = try compose(txt)
        d.txt = txt
        desired = d
        publishedTXT = full
        guard isClientRunning, groupActive, !registering, let name = nameInUse else { return [] }
        committedTXT = full
        return [.updateTXT(name: name, txt: full)]
    }

    public mutating func withdraw() -> [Action] {
        desired = nil
        nameInUse = nil
        publishedTXT = nil
        registering = false
        collided = false
        guard groupActive else { return [] }
        groupActive = false
        return [.discardGroup]
    }

    /// The Avahi server reached RUNNING: replay the desired advert.
    public mutating func clientBecameRunning() -> [Action] {
        var actions: [Action] = isClientRunning ? [] : [.emit(.avahiUp)]
        isClientRunning = true
        if let d = desired, let txt = publishedTXT, let name = nameInUse, !groupActive, !collided {
            actions += add(name: name, port: d.port, txt: txt)
        }
        return actions
    }

    /// The server is re-registering its host name (REGISTERING or COLLISION state): our records
    /// must be withdrawn now and added again once it is RUNNING.
    public mutating func serverNotRunning() -> [Action] {
        isClientRunning = false
        registering = false
        guard groupActive else { return [] }
        groupActive = false
        return [.resetGroup]
    }

    /// The client is gone (daemon stopped, D-Bus lost); its entry group died with it.
    public mutating func clientLost(reason: String) -> [Action] {
        let wasUp = isClientRunning
        isClientRunning = false
        groupActive = false
        registering = false
        return wasUp ? [.emit(.avahiDown(reason: reason))] : []
    }

    /// The group's names are ours: the advert is out, and a TXT that changed while Avahi probed
    /// goes out now.
    public mutating func groupEstablished() -> [Action] {
        guard let name = nameInUse, groupActive else { return [] }
        registering = false
        var actions: [Action] = [.emit(.published(name: name))]
        if let txt = publishedTXT, txt != committedTXT {
            committedTXT = txt
            actions.append(.updateTXT(name: name, txt: txt))
        }
        return actions
    }

    /// Another host (or a local client) holds our name: take Avahi's alternative and keep it, or
    /// withdraw (`CollisionPolicy.withdraw`) until the caller publishes another name.
    public mutating func collision() -> [Action] {
        guard let d = desired, let name = nameInUse, let txt = publishedTXT else { return [] }
        if d.onCollision == .withdraw {
            collided = true
            registering = false
            guard groupActive else { return [] }
            groupActive = false
            // Reset, not freed: this runs inside the group's own callback.
            return [.resetGroup]
        }
        let next = alternativeName(name)
        nameInUse = next
        return [.resetGroup] + add(name: next, port: d.port, txt: txt)
    }

    /// The service added to the group and committed: Avahi probes its names from now on.
    private mutating func add(name: String, port: UInt16, txt: TXTRecord) -> [Action] {
        groupActive = true
        registering = true
        committedTXT = txt
        return [.addService(name: name, port: port, txt: txt), .commit]
    }

    public mutating func groupFailed(code: Int32, message: String) -> [Action] {
        [.emit(.failure(.avahi(code: code, message: message, during: "registering the service")))]
    }

    private func compose(_ txt: TXTRecord) throws(DiscoveryError) -> TXTRecord {
        do throws(TXTError) { return try HandoffTXT.compose(txt) } catch { throw .txt(error) }
    }
}
