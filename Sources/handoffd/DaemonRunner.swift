import Foundation
import HandoffAvahi
import HandoffConfig
import HandoffDaemon
import HandoffLink
import HandoffState
import Logging
import ServiceLifecycle

/// The daemon as one service, started in order (stores, link listener, control socket, Avahi)
/// and stopped in reverse: withdraw the advert, close sessions, close the stores.
final class DaemonRunner: Service, Sendable {
    let daemon: Daemon
    let control: ControlServer
    let database: StateDatabase
    let notifier = SystemdNotifier()
    let logger: Logger
    let heartbeat: Heartbeat

    init(settings: Settings, logger: Logger) throws {
        let c = settings.configuration
        let state = URL(fileURLWithPath: c.stateDirectory)
        try Self.makeDirectory(c.stateDirectory)
        try Self.makeDirectory(c.runtimeDirectory)
        let identity: IdentityKey
        do { identity = try IdentityKey.loadOrCreate(in: state) } catch { throw StartupError.state("\(error)") }
        do { database = try StateDatabase(directory: state) } catch {
            throw StartupError.state("cannot open the state database in \(c.stateDirectory): \(error)")
        }
        let sceneStore: SQLiteSceneStore
        do {
            // Scenes have a directory of their own: it may be on other storage, and its damage or a
            // read-only mount never touches the identity or the pairings.
            let sceneDirectory = state.appendingPathComponent("scenes")
            try Self.makeDirectory(sceneDirectory.path, mustBeWritable: false)
            let scenes = try SceneDatabase(directory: sceneDirectory, logger: logger)
            sceneStore = SQLiteSceneStore(database: scenes, library: settings.library)
        } catch {
            throw StartupError.state("cannot open the scene database in \(c.stateDirectory): \(error)")
        }
        let discovery: AvahiDiscovery
        do { discovery = try AvahiDiscovery(logger: logger) } catch { throw StartupError.state("\(error)") }
        let parts = DaemonParts(configuration: c, library: settings.library, identity: identity,
                                trustStore: try SQLiteTrustStore(database: database), sceneStore: sceneStore,
                                discovery: discovery, logger: logger)
        daemon = try Daemon(parts: parts)
        control = ControlServer(path: c.runtimeDirectory + "/control.sock", maxClients: c.control.maxClients,
                                maxLine: c.control.maxLineBytes, operations: daemon, logger: logger)
        self.logger = logger
        heartbeat = Heartbeat(daemon: daemon, notifier: notifier)
    }

    static func makeDirectory(_ path: String, mustBeWritable: Bool = true) throws {
        if !FileManager.default.fileExists(atPath: path) {
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
                throw StartupError.directory(path, "\(error.localizedDescription)")
            }
        }
        guard !mustBeWritable || access(path, W_OK) == 0 else { throw StartupError.directory(path, "it is not writable by uid \(geteuid())") }
        // An existing directory someone else owns or may write to could hand us their files.
        do throws(LinkError) { try PrivateFiles.checkDirectory(path) } catch { throw StartupError.state(error.description) }
    }

    func run() async throws {
        try await daemon.start()
        try await control.start()
        // READY waits for the Avahi client, but not forever: without avahi-daemon handoffd still
        // serves its control socket and publishes as soon as avahi-daemon appears.
        let avahi = await daemon.waitForAvahi(timeout: .seconds(5))
        notifier.notify("READY=1\nSTATUS=" + (avahi ? "advertising" : "waiting for avahi-daemon"))
        logger.info("ready", metadata: ["control.socket": "\(control.path)", "avahi.up": "\(avahi)"])
        try? await gracefulShutdown()
        notifier.notify("STOPPING=1")
        await control.stop()
        await daemon.stop()
        await daemon.flushScenes()
        try? database.pool.close()
    }
}

/// Once a second: the daemon's tick (presence pings, expiries), then the watchdog ping, so that
/// systemd restarts a daemon whose actor is stuck.
struct Heartbeat: Service {
    let daemon: Daemon
    let notifier: SystemdNotifier

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await daemon.tick()
            // The unit's WatchdogSec is far above a second; a ping per tick keeps well inside it.
            if notifier.watchdogInterval != nil { notifier.notify("WATCHDOG=1") }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
        }
    }
}
