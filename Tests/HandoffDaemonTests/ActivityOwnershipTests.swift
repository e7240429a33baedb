import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffTestSupport
import Testing
@testable import HandoffDaemon

/// An app's activities end with it: the connection that published them closing (the app quit or
/// crashed) resigns them, unless they were published with `keep`. Before, they stayed offered to
/// every paired machine after the app had gone.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ActivityOwnershipTests {
    static func listed(_ d: LoopbackDaemon) async throws -> Set<String> {
        Set((try await d.request("activities")?.arrayValue ?? []).compactMap { $0.dictionaryValue?["activity"]?.stringValue })
    }

    @Test func whatAnAppPublishedEndsWhenItLeavesUnlessKept() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let app = try await HandoffClient.connect(socketPath: a.control.path)
            var gone = UserActivity(type: try ActivityType("org.handoffd.file"), title: "ends with the app")
            var kept = UserActivity(type: try ActivityType("org.handoffd.file"), title: "outlives it")
            try gone.addUserInfoEntries(["name": "gone.txt", "size": 1])
            try kept.addUserInfoEntries(["name": "kept.txt", "size": 1])
            _ = try await app.perform(PublishRequest(activity: gone, scene: UUID()))
            _ = try await app.perform(PublishRequest(activity: kept, scene: UUID(), keep: true))
            #expect(try await Self.listed(a) == [gone.id.canonicalString, kept.id.canonicalString])
            await app.close()
            _ = try await waitUntil("the app's own activity ends with it", timeout: 5) {
                try await Self.listed(a) == [kept.id.canonicalString]
            }
            // The kept one is resigned as any other.
            _ = try await a.request("resign", ["activity": .string(kept.id.canonicalString)])
            #expect(try await Self.listed(a).isEmpty)
        }
    }

    @Test func keepIsReadAndWrittenAsABoolean() throws {
        let request = PublishRequest(activity: UserActivity(type: try ActivityType("org.handoffd.file")), keep: true)
        #expect(request.arguments["keep"] == true)
        #expect(PublishRequest(activity: request.activity).arguments["keep"] == nil)
        let read = try PublishRequest(request: ControlRequest(id: 1, op: PublishRequest.name, arguments: request.arguments))
        #expect(read.keep)
        #expect(throws: ControlError.self) {
            try PublishRequest(
                request: ControlRequest(id: 1, op: PublishRequest.name, arguments: ["activity": request.activity.propertyList, "keep": "yes"]))
        }
    }
}
