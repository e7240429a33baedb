import Foundation
import HandoffCore
import HandoffDiscovery
import HandoffTestSupport
import Testing
@testable import HandoffDaemon

/// `status` says why Avahi is down and where to look: it said only "down", the why was in the
/// journal (no system bus, avahi-daemon stopped).
@Suite(.serialized, .timeLimit(.minutes(1))) struct StatusAvahiTests {
    func status(_ a: LoopbackDaemon) async throws -> [String: PropertyListValue] {
        try await a.request("status")?.dictionaryValue ?? [:]
    }

    @Test func whyAvahiIsDownIsInTheStatus() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork(), avahiRunning: false)
        try await withStopping(a) {
            var s = try await status(a)
            #expect(s["avahi"] == "down")
            #expect(s["avahiProblem"]?.stringValue?.hasPrefix("no answer from avahi-daemon yet") == true, "\(s)")
            a.discovery.setAvahiRunning(true)
            try await waitUntil("avahi up", timeout: 5) { try await status(a)["avahi"] == "up" }
            #expect(try await status(a)["avahiProblem"] == nil)
            a.discovery.setAvahiRunning(false)
            try await waitUntil("avahi down", timeout: 5) { try await status(a)["avahi"] == "down" }
            s = try await status(a)
            let problem = s["avahiProblem"]?.stringValue ?? ""
            #expect(problem.hasPrefix("avahi-daemon stopped;") && problem.contains("`systemctl status avahi-daemon`"), "\(s)")
        }
    }
}
