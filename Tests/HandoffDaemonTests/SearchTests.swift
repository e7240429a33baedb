import Foundation
import HandoffClient
import HandoffConfig
import HandoffContent
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffProtocol
import HandoffState
import HandoffTestSupport
import Logging
import Testing
@testable import HandoffDaemon

/// `search` and `search-open` through the control socket, with two daemons on loopback.
@Suite(.serialized, .timeLimit(.minutes(1))) struct SearchTests {
    static func publish(_ d: LoopbackDaemon, title: String, search: Bool, keywords: [String] = []) async throws -> UUID {
        var a = UserActivity(type: try ActivityType("org.hawknotes.bookDetail"), title: title)
        try a.addUserInfoEntries(["bookID": "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"])
        a.isEligibleForSearch = search
        a.keywords = Set(keywords)
        _ = try await d.request("publish", ["activity": a.propertyList])
        return a.id
    }

    static func hits(_ d: LoopbackDaemon, _ query: String) async throws -> [[String: PropertyListValue]] {
        (try await d.request("search", ["query": .string(query)])?.arrayValue ?? []).compactMap(\.dictionaryValue)
    }

    /// `desktop.search: false`: a search is refused with what to do, and the daemon runs on.
    /// Before, the search service returned at once, and a service that returns ends the group:
    /// handoffd exited as it started ("Service failed(Search)").
    @Test func searchTurnedOffIsRefusedAndTheDaemonRunsOn() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork()) { $0.desktop.search = false }
        let refused = await #expect(throws: ClientError.self) { try await a.request("search", ["query": "beatr"]) }
        #expect(refused?.code == "search-off")
        _ = try await a.request("status")
        let ended = await a.stop()
        #expect(throws: Never.self) { try ended.get() }
    }

    @Test func localActivitiesEligibleForSearch() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        try await withStopping(a, b) {
            let found = try await Self.publish(a, title: "Marginalia", search: true, keywords: ["zephyrine"])
            _ = try await Self.publish(a, title: "Marginalia hidden", search: false)
            try await waitUntil("indexed", timeout: 5) { try await Self.hits(a, "zephyrine").count == 1 }
            #expect(try await Self.hits(a, "margin").map { $0["id"] } == [.string("activity:" + found.uuidString)])
            _ = try await a.request("resign", ["activity": .string(found.uuidString)])
            try await waitUntil("gone once resigned", timeout: 5) { try await Self.hits(a, "margin").isEmpty }
            await #expect(throws: (any Error).self) { try await a.request("search", ["query": "x", "limit": 0]) }
            await #expect(throws: (any Error).self) { try await a.request("search-open", ["result": "nonsense"]) }
        }
    }

    @Test func aPairedMachinesActivitiesAreFoundAndContinued() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        try await withStopping(a, b) {
            _ = try await b.request("connect", ["peer": "alpha"])
            let id = try await Self.publish(a, title: "Lantern watch", search: false)
            var hit: [String: PropertyListValue]?
            try await waitUntil("found on beta", timeout: 10) {
                hit = try await Self.hits(b, "lantern").first { $0["kind"] == "remote" }
                return hit != nil
            }
            #expect(hit?["peer"] == "alpha")
            #expect(hit?["id"] == .string("remote:alpha/" + id.uuidString))
            let report = try await b.request("search-open", ["result": hit!["id"]!])
            #expect(report?.dictionaryValue?["outcome"] == "continued")
            _ = try await a.request("resign", ["activity": .string(id.uuidString)])
            try await waitUntil("gone on beta once resigned on alpha", timeout: 10) {
                try await Self.hits(b, "lantern").allSatisfy { $0["kind"] != "remote" }
            }
        }
    }

    /// handoffd fills the index once its first dials have ended (Search.run); a search that comes
    /// before that fills it first. No service runs here: only the search itself can have filled it.
    @Test func aSearchBeforeTheStartsFillFindsThisMachinesActivities() async throws {
        var c = HandoffConfiguration()
        c.deviceName = "early"
        let index = SQLiteSearchIndex()
        let daemon = try Daemon(
            parts: DaemonParts(
                configuration: c, identity: IdentityKey(), trustStore: InMemoryTrustStore(),
                sceneStore: MemorySceneStore(), discovery: FakeDiscovery(network: FakeNetwork(), hostName: "early", address: "127.0.0.1"),
                searchIndex: index, logger: Logger(label: "test.early")))
        var page = UserActivity(type: WebBrowsing.type, title: "Beatrice's page")
        page.isEligibleForSearch = true
        _ = try await daemon.activities.publish(page, scene: nil, owner: nil)
        #expect(try index.count() == 0)
        let hits = try await daemon.search.search("beatr", limit: 5)
        #expect(hits.first?.kind == "activity" && hits.first?.title == "Beatrice's page")
        #expect(try index.count() > 0)
    }
}
