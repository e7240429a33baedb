#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffBus
import HandoffBusAPI
import HandoffControl
import HandoffCore
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The D-Bus door (docs/DBUS.md): `org.handoffd.Handoff1` on the session bus (or the system bus),
/// each method one control operation, performed by the same `ControlOperations` the control
/// socket uses. A caller is a client like a socket connection: what it registers (live handlers,
/// watches) ends when its bus name vanishes. Other objects on the same connection (the search
/// providers) are served through `serve(path:interfaces:_:)`.
public final class BusDoor: Service, Sendable {
    public let connection: BusConnection
    let operations: any ControlOperations
    private let allowedUIDs: Set<UInt32>
    private let logger: Logger
    private let clients = NIOLockedValueBox<[String: ControlClient]>([:])
    private let inFlight = NIOLockedValueBox(0)
    /// The desktop search's last results by id, for GNOME Shell's GetResultMetas (bounded).
    private let recentHits = NIOLockedValueBox<[String: SearchHit]>([:])

    /// Calls answered at once; past this a caller gets LimitsExceeded and tries again. A burst of
    /// calls costs a task each, so it is bounded like the control socket's clients.
    public static let maxInFlight = 256
    /// Bus clients with a watch or a handler at once (a socket client costs a descriptor; a bus
    /// client costs a table entry, bounded here).
    public static let maxClients = 256

    public init(_ kind: BusKind, operations: any ControlOperations, allowedUIDs: Set<UInt32> = [geteuid(), 0], logger: Logger) throws(BusFailure) {
        connection = try BusConnection(kind)
        self.operations = operations
        self.allowedUIDs = allowedUIDs
        self.logger = logger
    }

    /// Serves our object (and the desktop's search objects), then owns the name: a call that
    /// activated us finds every object there. Callers that leave the bus end their registrations.
    public func start(desktopSearch: Bool) async throws(BusFailure) {
        try await serve(path: HandoffBusAPI.objectPath, interfaces: [HandoffBusAPI.interface], children: BusDoor.children) { [self] r in
            handoff(r)
        }
        if desktopSearch { try await serveDesktopSearch() }
        connection.onNameVanished { [self] name in
            guard let client = clients.withLockedValue({ $0.removeValue(forKey: name) }) else { return }
            Task { await operations.disconnected(client) }
        }
        try await connection.own(HandoffBusAPI.busName)
        logger.info("D-Bus API on", metadata: ["dbus.bus": "\(connection.kind)", "dbus.name": "\(HandoffBusAPI.busName)"])
    }

    /// The objects below ours, named in its introspection.
    static let children = ["SearchProvider", "Runner"]

    public func run() async throws {
        try? await gracefulShutdown()
        await connection.close()
    }

    /// Serves an object: Introspect from `interfaces`, calls of other interfaces refused, the
    /// rest given to `handle` once the caller is allowed and the calls in flight are bounded.
    public func serve(
        path: String, interfaces: [BusInterface], children: [String] = [], _ handle: @escaping @Sendable (BusRequest) -> Void
    ) async throws(BusFailure) {
        let xml = Introspection.xml(interfaces, children: children)
        try await connection.serve(path: path) { [self] r in
            if r.interface == "org.freedesktop.DBus.Introspectable" && r.member == "Introspect" {
                return connection.reply(r, [.string(xml)])
            }
            guard let uid = r.uid, allowedUIDs.contains(uid) else {
                return connection.fail(
                    r,
                    BusFailure(
                        name: "org.freedesktop.DBus.Error.AccessDenied",
                        message: "uid \(r.uid.map(String.init) ?? "?") may not use handoffd's D-Bus API; run as uid \(geteuid()) or root"))
            }
            guard
                let interface = interfaces.first(where: { $0.name == r.interface })
                    ?? (r.interface.isEmpty ? interfaces.first { $0.method(r.member) != nil } : nil)
            else {
                return connection.fail(
                    r, BusFailure(name: "org.freedesktop.DBus.Error.UnknownInterface", message: "\(path) has no interface '\(r.interface)'"))
            }
            guard let method = interface.method(r.member) else {
                return connection.fail(
                    r, BusFailure(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "\(interface.name) has no method '\(r.member)'"))
            }
            guard r.signature == method.inputSignature else {
                return connection.fail(
                    r, .invalidArguments("\(interface.name).\(method.name) takes (\(method.inputSignature)), not (\(r.signature)); see docs/DBUS.md"))
            }
            if case .failure(let problem) = r.arguments { return connection.fail(r, problem) }
            let admitted = inFlight.withLockedValue { n -> Bool in
                guard n < Self.maxInFlight else { return false }
                n += 1
                return true
            }
            guard admitted else {
                return connection.fail(
                    r,
                    BusFailure(
                        name: "org.freedesktop.DBus.Error.LimitsExceeded",
                        message: "handoffd is answering \(Self.maxInFlight) D-Bus calls already; try again"))
            }
            handle(r)
        }
    }

    /// Ends a call `serve` admitted: its answer, and room for the next.
    public func answer(_ r: BusRequest, _ result: Result<[BusValue], BusFailure>) {
        inFlight.withLockedValue { $0 -= 1 }
        switch result {
        case .success(let values): connection.reply(r, values)
        case .failure(let failure): connection.fail(r, failure)
        }
    }

    /// Performs a control operation for a caller, as that caller.
    public func perform(_ request: ControlRequest, for r: BusRequest) async -> Result<PropertyListValue?, ControlError> {
        guard let client = client(of: r) else {
            return .failure(.failed(code: .tooManyClients, message: "handoffd serves at most \(Self.maxClients) D-Bus clients at once; try again"))
        }
        return await operations.perform(request, from: client)
    }

    /// An `org.handoffd.Handoff1` call: its mapping to a control operation, performed.
    private func handoff(_ r: BusRequest) {
        guard let mapping = HandoffBusAPI.mapping(r.member), case .success(let inputs) = r.arguments else { return }
        Task {
            let request: ControlRequest
            do throws(ControlError) { request = try mapping.request(inputs) } catch { return answer(r, .failure(Self.failure(error))) }
            guard let client = client(of: r) else {
                return answer(
                    r,
                    .failure(
                        Self.failure(
                            .failed(code: .tooManyClients, message: "handoffd serves at most \(Self.maxClients) D-Bus clients at once; try again"))
                    ))
            }
            switch await operations.performPassing(request, from: client) {
            case .success(let (result, nil)): answer(r, .success(mapping.reply(result)))
            case .success(let (result, descriptor?)):
                // The stream's socket goes as the `h` after the result, and is closed here once sent.
                inFlight.withLockedValue { $0 -= 1 }
                connection.reply(r, mapping.reply(result) + [.fd(descriptor.value)]) { descriptor.close() }
            case .failure(let error): answer(r, .failure(Self.failure(error)))
            }
        }
    }

    func remember(_ hits: [SearchHit]) {
        recentHits.withLockedValue { table in
            if table.count + hits.count > 1_024 { table = [:] }
            for h in hits { table[h.id] = h }
        }
    }

    func recalled(_ ids: [String]) -> [SearchHit] { recentHits.withLockedValue { t in ids.compactMap { t[$0] } } }

    /// A control error as a D-Bus error: its code as the name, the same message; a code handoffd
    /// does not document (another machine's) is `...Error.Failed`, the code kept in the message.
    public static func failure(_ error: ControlError) -> BusFailure {
        let known = error.code.isKnown
        let code = String(error.code.rawValue.terminalSafe.prefix(64))
        return BusFailure(name: HandoffBusAPI.errorName(error.code), message: known ? error.description : "\(code): \(error.description)")
    }

    /// The control client a caller is: one per bus name, kept while it is on the bus.
    private func client(of r: BusRequest) -> ControlClient? {
        clients.withLockedValue { table in
            if let c = table[r.sender] { return c }
            guard table.count < Self.maxClients else { return nil }
            let c = ControlClient(
                uid: r.uid ?? 0, pid: r.pid ?? 0, outlet: BusOutlet(connection: connection, destination: r.sender))
            table[r.sender] = c
            return c
        }
    }
}

/// A bus client's events: `Event(name, fields)` signals sent to it alone.
final class BusOutlet: EventOutlet {
    let connection: BusConnection
    let destination: String

    init(connection: BusConnection, destination: String) { (self.connection, self.destination) = (connection, destination) }

    func send(event name: String, _ fields: [String: PropertyListValue]) {
        connection.emit(
            path: HandoffBusAPI.objectPath, interface: HandoffBusAPI.interfaceName, member: HandoffBusAPI.event.name,
            [.string(name), BusValue(.dictionary(fields))], to: destination)
    }
}

extension BusDoor {
    /// Asks the bus to start the service that owns `name` (StartServiceByName): nil once it runs,
    /// else the bus's reason.
    public func activate(_ name: String) async -> String? {
        let answer = await connection.call(
            "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "StartServiceByName",
            [.string(name), .uint32(0)], timeout: .seconds(10))
        switch answer {
        case .success: return nil
        case .failure(let failure): return "the session bus could not start \(name): \(failure.message)"
        }
    }
}
