import HandoffControl
import HandoffCore

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's answers to control requests; the server knows nothing of what they do.
public protocol ControlOperations: Sendable {
    /// Performs a request where its `place` puts it among the client's others: `turn` has ended
    /// already, except for an `overlapping` one, which waits for it before it changes anything.
    func perform(_ request: ControlRequest, from client: ControlClient, after turn: ControlTurn) async -> Result<PropertyListValue?, ControlError>
    /// The same, for every door: an answer may carry a descriptor (a stream's socket), which the
    /// socket passes with SCM_RIGHTS and D-Bus as a `h`.
    func performPassing(_ request: ControlRequest, from client: ControlClient, after turn: ControlTurn) async -> Result<
        (PropertyListValue?, OwnedDescriptor?), ControlError
    >
    /// Where the request takes effect among the client's others (it is answered in its place).
    func place(of request: ControlRequest) -> ControlPlace
    /// The client went away (its live handlers and watches end with it).
    func disconnected(_ client: ControlClient) async
    /// The client's connection closed while a request of its may still be running: what it
    /// waits for (a `pair --accept`) ends now, not at its deadline. `disconnected` follows.
    func connectionClosing(_ client: ControlClient)
}

/// Where a client's events go: its control-socket connection, or its name on the bus. Each
/// door bounds what a client may leave unread in its own way.
public protocol EventOutlet: AnyObject, Sendable {
    func send(event name: String, _ fields: [String: PropertyListValue])
    /// An event that carries an activity under `activity`: a door that writes text writes it
    /// from the activity's fields (a push's `continue`); the others take its property list.
    func send(event name: String, _ fields: [String: PropertyListValue], activity: UserActivity)
}

extension EventOutlet {
    public func send(event name: String, _ fields: [String: PropertyListValue], activity: UserActivity) {
        send(event: name, fields.merging(["activity": activity.propertyList]) { $1 })
    }
}

/// What a control operation can see of the client that sent it, and how to send it events.
/// Whatever door it came through, an operation sees the same: its uid and pid, and an outlet.
public struct ControlClient: Sendable {
    public let uid: uid_t
    public let pid: pid_t
    public let outlet: any EventOutlet

    public init(uid: uid_t, pid: pid_t, outlet: any EventOutlet) {
        self.uid = uid
        self.pid = pid
        self.outlet = outlet
    }

    /// Identifies this client (for what it registered, and questions asked of it).
    public var key: ObjectIdentifier { ObjectIdentifier(outlet) }

    /// Sends an event to this client (for `watch` and live handlers).
    public func send(event name: String, _ fields: [String: PropertyListValue] = [:]) { outlet.send(event: name, fields) }

    /// Sends an event that carries an activity (a live handler's `continue`).
    public func send(event name: String, _ fields: [String: PropertyListValue], activity: UserActivity) {
        outlet.send(event: name, fields, activity: activity)
    }
}

extension ControlOperations {
    public func performPassing(_ request: ControlRequest, from client: ControlClient, after turn: ControlTurn) async -> Result<
        (PropertyListValue?, OwnedDescriptor?), ControlError
    > {
        await perform(request, from: client, after: turn).map { ($0, nil) }
    }

    /// A request that waits for no other: a D-Bus call, or one the daemon makes of itself.
    public func perform(_ request: ControlRequest, from client: ControlClient) async -> Result<PropertyListValue?, ControlError> {
        await perform(request, from: client, after: .now)
    }

    public func performPassing(_ request: ControlRequest, from client: ControlClient) async -> Result<
        (PropertyListValue?, OwnedDescriptor?), ControlError
    > {
        await performPassing(request, from: client, after: .now)
    }

    public func place(of request: ControlRequest) -> ControlPlace { .inTurn }
}
