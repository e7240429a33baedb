import HandoffControl
import Testing

@testable import HandoffDaemon

/// The daemon serves exactly the operations of `ControlOperationTable.all`, each once: an
/// operation added to the table without a route, or routed without being in the table, fails here.
@Suite struct RoutesTests {
    @Test func everyOperationInTheTableHasARouteAndNothingElseDoes() {
        #expect(Set(DaemonControl.routes.table.keys) == Set(ControlOperationTable.names))
        #expect(ControlOperationTable.names.count == Set(ControlOperationTable.names).count)
    }

    @Test func operationsTakeEffectInTheirPlace() {
        #expect(DaemonControl.routes[op: ContinueRequest.name]?.place == .overlapping)
        #expect(DaemonControl.routes[op: RefreshRequest.name]?.place == .atOnce)
        #expect(DaemonControl.routes[op: HandledRequest.name]?.place == .atOnce)
        #expect(DaemonControl.routes[op: PublishRequest.name]?.place == .inTurn)
    }
}
