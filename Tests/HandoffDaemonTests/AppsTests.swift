import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffTestSupport
import Testing
@testable import HandoffDaemon

/// Apps bring their own types (docs/APPS.md): a declaration file added, changed or removed while
/// handoffd runs is read again; an app that is not running is started to continue its type.
@Suite(.serialized, .timeLimit(.minutes(1))) struct AppsTests {
    static func directory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func reading() throws -> UserActivity {
        var a = UserActivity(type: try ActivityType("org.example.reading.item"), title: "An article")
        try a.addUserInfoEntries(["url": "https://example.org/a"])
        return a
    }

    @Test func aFileAddedWhileRunningDeclaresItsTypesAndAProblemIsNamed() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork()) { $0.appDirectories = [dir] }
        try await withStopping(a) {
            let refused = await #expect(throws: ClientError.self) { try await a.request("publish", ["activity": try Self.reading().propertyList]) }
            #expect(refused?.description.contains("install the app that declares it (`handoffctl apps`") == true, "\(String(describing: refused))")
            try Data("[Handoff App]\nName=Reading List\nExec=/bin/true\n[Activity org.example.reading.item]\nRequiredKeys=url\n".utf8)
                .write(to: URL(fileURLWithPath: dir + "/org.example.ReadingList.app"))
            try Data("[Handoff App]\nName=Broken\nColour=red\n[Activity org.example.broken]\n".utf8).write(
                to: URL(fileURLWithPath: dir + "/org.example.Broken.app"))
            _ = try await waitUntil("the app's type is declared", timeout: 15) {
                (try? await a.request("publish", ["activity": try Self.reading().propertyList])) != nil
            }
            let listed = try await a.request("apps")?.arrayValue?.compactMap(\.dictionaryValue) ?? []
            let app = try #require(listed.first { $0["app"] == "org.example.ReadingList" })
            #expect(app["name"] == "Reading List" && app["types"] == ["org.example.reading.item"] && app["launch"] == "/bin/true")
            let broken = try #require(listed.first { $0["app"] == "org.example.Broken" })
            #expect(
                broken["name"] == nil
                    && broken["problems"] == [
                        .string("\(dir)/org.example.Broken.app:3: unknown key Colour= in [Handoff App] (Name, Exec, DBusActivatable)")
                    ])
            // Removed: the type is no longer declared.
            try FileManager.default.removeItem(atPath: dir + "/org.example.ReadingList.app")
            _ = try await waitUntil("the type goes with its app", timeout: 15) {
                (try? await a.request("publish", ["activity": try Self.reading().propertyList])) == nil
            }
        }
    }

    /// Continued on beta with no app running there: beta starts the app its file names (here
    /// `handoffctl handle`, which registers for the type and takes one offer), and the
    /// continuation is the app's.
    @Test func anAppThatIsNotRunningIsStartedToContinue() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let network = FakeNetwork()
        let a = try await LoopbackDaemon("alpha", on: network) { $0.appDirectories = [dir] }
        let b = try await LoopbackDaemon("beta", on: network) { $0.appDirectories = [dir] }
        a.trust.pin(TrustedPeer(identity: b.identity.identity, name: "beta", pairedAt: Date(), advertisingKey: b.trust.ownAdvertisingKey()))
        b.trust.pin(TrustedPeer(identity: a.identity.identity, name: "alpha", pairedAt: Date(), advertisingKey: a.trust.ownAdvertisingKey()))
        let exec = "\(BuiltProducts.path("handoffctl")) --socket \(b.control.path) handle org.example.reading.item --name reading-list --count 1"
        try Data("[Handoff App]\nName=Reading List\nExec=\(exec)\n[Activity org.example.reading.item]\n".utf8)
            .write(to: URL(fileURLWithPath: dir + "/org.example.ReadingList.app"))
        try await withStopping(a, b) {
            a.daemon.apps.reloadIfChanged()
            b.daemon.apps.reloadIfChanged()
            let activity = try Self.reading()
            _ = try await a.request("publish", ["activity": activity.propertyList])
            let report = try #require(
                try await b.request("continue", ["peer": "alpha", "activity": .string(activity.id.canonicalString)])?.dictionaryValue)
            #expect(report["outcome"] == "continued" && report["handler"] == "reading-list", "\(report)")
        }
    }

    @Test func anAppThatDoesNotRegisterIsNamedWithItsFile() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("[Handoff App]\nName=Sleepy\nExec=/bin/true\n[Activity org.example.reading.item]\n".utf8)
            .write(to: URL(fileURLWithPath: dir + "/org.example.Sleepy.app"))
        let d = try await LoopbackDaemon("alpha", on: FakeNetwork()) { $0.appDirectories = [dir] }
        try await withStopping(d) {
            let live = LiveHandlerRegistry()
            var dispatcher = Dispatcher(declared: d.daemon.apps.declared, execHandlers: [], opener: ["/bin/true"], live: live)
            dispatcher.apps = d.daemon.apps
            let started = ContinuousClock.now
            let outcome = await dispatcher.dispatch(try Self.reading())
            guard case .failed(.handlerFailed(_, let reason)) = outcome else { return #expect(Bool(false), "\(outcome)") }
            #expect(
                reason.contains(
                    "Sleepy was started to continue it (/bin/true) and did not register for it within 10 s; see \(dir)/org.example.Sleepy.app"),
                "\(reason)")
            #expect(ContinuousClock.now - started >= Apps.registerWithin)
        }
    }
}
