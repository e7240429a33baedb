import Foundation
import HandoffConfig
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffTestSupport
import HawkNotes
import Testing
@testable import HandoffDaemon

/// Hawk Notes is one app on handoffd: it declares its types in its own file, and handoffd starts
/// it to continue one (`hawknotes --background`), which routes it to the book and character in a
/// window's saved state, as an open window would.
@Suite(.serialized, .timeLimit(.minutes(1))) struct HawkNotesAsAnAppTests {
    static let shipped = TestHostSet.repositoryRoot.appendingPathComponent("config/apps/org.handoffd.HawkNotes.app").path

    @Test func theShippedFileDeclaresWhatTheAppContinues() throws {
        let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
        let app = try AppFile.parse(text, id: "org.handoffd.HawkNotes", file: Self.shipped).get()
        #expect(app.name == "Hawk Notes" && app.launch == .command(["hawknotes", "--background"]))
        #expect(app.types.sorted { $0.type < $1.type } == HawkNotes.declarations.sorted { $0.type < $1.type })
    }

    @Test func handoffdStartsHawkNotesWhichRoutesToTheCharacter() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hn-apps-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let network = FakeNetwork()
        let a = try await LoopbackDaemon("alpha", on: network)
        let b = try await LoopbackDaemon("beta", on: network) { $0.appDirectories = [dir] }
        a.trust.pin(TrustedPeer(identity: b.identity.identity, name: "beta", pairedAt: Date(), advertisingKey: b.trust.ownAdvertisingKey()))
        b.trust.pin(TrustedPeer(identity: a.identity.identity, name: "alpha", pairedAt: Date(), advertisingKey: a.trust.ownAdvertisingKey()))
        // The shipped file, its Exec= this build's hawknotes on beta's socket.
        let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
            .replacingOccurrences(
                of: "Exec=hawknotes --background", with: "Exec=\(BuiltProducts.path("hawknotes")) --background --socket \(b.control.path)")
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/org.handoffd.HawkNotes.app"))
        try await withStopping(a, b) {
            b.daemon.apps.reloadIfChanged()
            let published = try await runCommandOffPool([
                BuiltProducts.path("hawknotes"), "publish", "--character", "Lady Beatrice", "--json", "--socket", a.control.path
            ])
            let id = try #require(
                published.output.split(separator: "\"").first { UUID(uuidString: String($0)) != nil }.map(String.init), "\(published.output)")
            let report = try #require(try await b.request("continue", ["peer": "alpha", "activity": .string(id)])?.dictionaryValue)
            #expect(report["outcome"] == "continued" && report["handler"] == "hawknotes", "\(report)")
            #expect(report["title"] == "Viewing Lady Beatrice in The Burning Swift")
            let scene = try #require(report["scene"]?.stringValue)
            let shown = try #require(try await b.request("scene", ["scene": .string(scene)])?.dictionaryValue)
            #expect(shown["content"] == .string("b|E34747BE-30DC-4DD8-B191-BC6C56B9B9A3::c|08D82D60-6977-42AA-9C22-AB1A07AE8A19"), "\(shown)")
            #expect(shown["role"] == "hawknotes" && shown["title"] == "Viewing Lady Beatrice in The Burning Swift")
        }
    }
}
