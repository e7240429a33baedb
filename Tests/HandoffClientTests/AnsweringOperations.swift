import HandoffControl
import HandoffCore
import NIOConcurrencyHelpers

@testable import HandoffDaemon

/// What the client's tests ask the daemon's control server: `echo` answers its value, `big` and
/// `long` far larger answers than a request may be (a long list, one line of 300 KiB), `poke` an
/// event, `slow` an answer after `ms` milliseconds; anything else is refused as unknown.
struct AnsweringOperations: ControlOperations {
    static let slowStarted = NIOLockedValueBox(0)
    func perform(_ request: ControlRequest, from client: ControlClient, after turn: ControlTurn) async -> Result<PropertyListValue?, ControlError> {
        switch request.op {
        case "echo": return .success(request.arguments["value"])
        case "big": return .success(.array((0..<3000).map { ["n": .integer(Int64($0)), "s": "x"] }))
        case "long": return .success(.string(String(repeating: "y", count: 300 * 1024)))
        case "poke":
            client.send(event: "poked", ["by": .integer(Int64(client.uid))])
            return .success(nil)
        case "slow":
            Self.slowStarted.withLockedValue { $0 += 1 }
            try? await Task.sleep(for: .milliseconds(request.arguments["ms"]?.integerValue ?? 0))
            return .success("slow")
        default: return .failure(.unknownOp(request.op))
        }
    }
    func disconnected(_ client: ControlClient) async {}
    func connectionClosing(_ client: ControlClient) {}
}
