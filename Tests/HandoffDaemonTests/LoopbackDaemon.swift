import Foundation
import HandoffClient
import HandoffConfig
import HandoffContent
import HawkNotes
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffState
import Logging
import ServiceLifecycle
@testable import HandoffDaemon

let loopbackLibrary = try! Library(
    contentsOf: URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("config/library.json"))

/// A daemon on loopback with in-memory stores, discovered through a `FakeNetwork`, its services
/// run by a ServiceGroup as handoffd runs them, and its control socket.
final class LoopbackDaemon: Sendable {
    let daemon: Daemon
    let discovery: FakeDiscovery
    let control: ControlServer
    let identity: IdentityKey
    let trust = InMemoryTrustStore()
    private let group: ServiceGroup
    private let running: Task<Void, Error>

    init(
        _ name: String, on network: FakeNetwork, avahiRunning: Bool = true, configure: (inout HandoffConfiguration) -> Void = { _ in }
    ) async throws {
        var c = HandoffConfiguration()
        c.deviceName = name
        c.peerPort = 0
        // This machine's own installed apps are not the test's; Hawk Notes' types are declared as
        // a configuration's activity_types would.
        c.appDirectories = []
        c.localActivityTypes = HawkNotes.declarations
        c.activityTypes = try c.activityTypes.adding(HawkNotes.declarations)
        // An app that continues them: a command that succeeds (the tests here are of the link and
        // the doors; Hawk Notes' own routing is the app's, tested with it).
        c.execHandlers = [ExecHandlerBinding(types: HawkNotes.declarations.map(\.type), command: ["/bin/true"], timeoutSeconds: 10)]
        configure(&c)
        identity = IdentityKey()
        discovery = FakeDiscovery(network: network, hostName: name, address: "127.0.0.1", avahiRunning: avahiRunning)
        daemon = try Daemon(
            parts: DaemonParts(
                configuration: c, identity: identity, trustStore: trust,
                sceneStore: MemorySceneStore(), discovery: discovery, searchIndex: c.desktop.search ? SQLiteSearchIndex() : nil,
                logger: Logger(label: "test.\(name)")))
        // A socket file of its own, removed by `stop()`: nothing left in the temporary directory.
        control = ControlServer(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("pl-\(UUID().uuidString.prefix(8)).sock").path,
            operations: daemon.operations)
        try await daemon.prepare(listeningOn: "127.0.0.1")
        try await control.start()
        group = ServiceGroup(services: daemon.services + [control], logger: Logger(label: "test.\(name).services"))
        let group = self.group
        running = Task { try await group.run() }
    }

    /// Shuts the services down in reverse order, as SIGTERM does; how the group ended (it fails
    /// if a service ended on its own before).
    @discardableResult func stop() async -> Result<Void, Error> {
        await group.triggerGracefulShutdown()
        let ended = await running.result
        discovery.shutdown()
        return ended
    }

    /// One request on a connection of its own, closed after it: what it publishes is kept, as
    /// `handoffctl publish` keeps its own (else it would end with the connection).
    func request(_ op: String, _ args: [String: PropertyListValue] = [:]) async throws -> PropertyListValue? {
        var args = args
        if op == "publish", args["keep"] == nil { args["keep"] = true }
        let client = try await HandoffClient.connect(socketPath: control.path)
        do {
            let result = try await client.request(op, args)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }
}

/// Runs `body`, then stops the daemons whatever happened: their sockets and sessions end before
/// the test does.
func withStopping<T>(_ daemons: LoopbackDaemon..., body: () async throws -> T) async throws -> T {
    do {
        let value = try await body()
        for d in daemons { await d.stop() }
        return value
    } catch {
        for d in daemons { await d.stop() }
        throw error
    }
}
