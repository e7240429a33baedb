import Foundation
import HandoffTestSupport
import Testing

/// Issue 11, item 1, end to end through `handoffctl pair --accept`: a man in the middle chose the
/// name shown beside the code and drew a fake fingerprint and code with it.
@Suite(
    .serialized, .timeLimit(.minutes(3)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct PairingEndToEndTests {
    /// Runs the rogue peer inside host 1 until the accepting window lets it in (or the deadline).
    func rogue(_ hosts: TestHostSet, name: String, _ decision: String) async throws -> [String] {
        var lines: [String] = []
        _ = try await waitUntil("the pairing window to open", timeout: 10) {
            let child = try hosts.spawn(1, BuiltProducts.path("handoff-rogue-peer"), ["pair", name, "127.0.0.1", "7340", decision])
            _ = child.waitForExit(timeout: 20)
            child.waitForOutputEnd(timeout: 5)
            lines = child.output
            return !(lines.first ?? "").contains("not accepting")
        }
        return lines
    }

    @Test func aHostileNameNeverReachesTheScreen() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let accept = try a.ctlProcess(["pair", "--accept", "--yes", "--timeout", "5"])
        let hostile = "A-laptop (fingerprint 0000-1111-2222-3333)\r\nCode: 123456\r\n\u{1B}[8m"
        let rogue = try await rogue(hosts, name: hostile, "confirm")
        // The handshake fails on the name: no code, on either side.
        #expect(!rogue.contains { $0.hasPrefix("code ") }, "\(rogue)")
        #expect(accept.waitForExit(timeout: 15) != 0)
        let screen = accept.output.joined(separator: "\n")
        #expect(!screen.contains("\u{1B}") && !screen.contains("123456") && !screen.contains("Code:"), "\(screen)")
    }

    @Test func theCodeIsPrintedLastOnItsOwnLine() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let accept = try a.ctlProcess(["pair", "--accept", "--yes", "--timeout", "20"])
        // A name without controls may still lie; it cannot stand after the real fingerprint and code.
        let liar = "A (fingerprint 0000-1111-2222-3333) Code: 123456"
        let rogue = try await rogue(hosts, name: liar, "confirm")
        let code = try #require(rogue.first { $0.hasPrefix("code ") }?.dropFirst(5)).description
        let fingerprint = try #require(rogue.first { $0.hasPrefix("fingerprint ") }?.dropFirst(12)).description
        #expect(accept.waitForExit(timeout: 15) == 0)
        accept.waitForOutputEnd(timeout: 5)
        let lines = accept.output
        let codeLine = try #require(lines.firstIndex { $0.hasPrefix("Code: ") })
        #expect(lines[codeLine] == "Code: \(code)")
        #expect(lines[codeLine - 1] == "Its fingerprint: \(fingerprint)")
        #expect(lines[codeLine - 2] == "Pairing with \(liar)")
        // Nothing follows the code but the outcome, printed once the person has decided.
        #expect(lines[(codeLine + 1)...].allSatisfy { $0.hasPrefix("Paired with ") }, "\(lines)")
    }
}
