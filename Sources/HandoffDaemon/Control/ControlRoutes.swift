import HandoffControl
import HandoffCore

/// How the daemon serves one control operation: where it takes effect among the client's
/// requests, and the work, from the decoded request to the encoded result. Every door (the
/// control socket, D-Bus) reaches it through `DaemonControl.perform`.
struct ControlRoute: Sendable {
    typealias Serve = @Sendable (DaemonControl, ControlRequest, ControlClient, ControlTurn) async throws(ControlError) -> PropertyListValue?
    let place: ControlPlace
    let serve: Serve
}

/// The daemon's operations by name, registered once each (a router, as hummingbird's): adding an
/// operation is its type in HandoffControl, its line here, its D-Bus method and its subcommand.
/// `RoutesTests` fails while these and `ControlOperationTable.all` differ.
struct ControlRoutes: Sendable {
    private(set) var table: [String: ControlRoute] = [:]

    /// Serves `Op`: its request decoded (each problem naming its argument), `body` run, its result
    /// encoded; any error answers with its own code (ControlFailure).
    mutating func on<Op: ControlOperation>(
        _: Op.Type, place: ControlPlace = .inTurn,
        _ body: @escaping @Sendable (DaemonControl, Op, ControlClient, ControlTurn) async throws -> Op.Result
    ) {
        precondition(table[Op.name] == nil, "\(Op.name) is routed twice")
        table[Op.name] = ControlRoute(place: place) { control, request, client, turn throws(ControlError) in
            let op = try Op(request: request)
            do { return try await body(control, op, client, turn).propertyList } catch { throw ControlError(error) }
        }
    }

    /// An operation served by a route written out in full (one that answers with a descriptor).
    mutating func on(_ name: String, place: ControlPlace = .inTurn, _ serve: @escaping ControlRoute.Serve) {
        precondition(table[name] == nil, "\(name) is routed twice")
        table[name] = ControlRoute(place: place, serve: serve)
    }

    subscript(op op: String) -> ControlRoute? { table[op] }
}
