import Foundation
import HandoffAsync
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffDiscovery
import Testing
@testable import HandoffDaemon

/// One API, complete on both doors: every control operation (`ControlOperationTable.all`) is served on
/// the control socket, and has a D-Bus method (HandoffInterfaceTests): an operation added to one
/// door and not the other fails one of them.
@Suite(.serialized, .timeLimit(.minutes(1))) struct DoorParityTests {
    @Test func everyControlOperationIsServedOnTheSocket() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            for name in ControlOperationTable.names {
                // A value no operation takes for `timeout`: those that would wait (a pairing
                // window) refuse it at once; the rest answer or refuse as they do.
                let answer = await Timeout.race(.seconds(5)) { () -> String in
                    do {
                        _ = try await a.request(name, ["timeout": PropertyListValue.string("not a number")])
                        return "answered"
                    } catch let error as ClientError {
                        return "\(error.code): \(error.description)"
                    } catch {
                        return "\(error)"
                    }
                }
                #expect(answer != nil, "\(name) did not answer within 5 s")
                #expect(answer?.hasPrefix("unknown-op") == false, "\(name): \(answer ?? "")")
            }
        }
    }
}
