import CHandoffShims
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffAvahi
import HandoffBus
import HandoffAsync
import HandoffConfig
import HandoffCore
import HandoffDiscovery
import HandoffDaemon
import HandoffLink
import HandoffState
import HandoffWideArea
import Logging
import ServiceLifecycle

/// handoffd assembled from its configuration: the stores opened, the components built, and the
/// services to run in order (DaemonRunner.services). Shutdown runs them down in reverse: the
/// readiness service and the control socket first, the scenes' last writes and the stores last.
final class DaemonRunner: Sendable {
    let daemon: Daemon
    let control: ControlServer
    /// The D-Bus door, when a bus is configured and could be joined.
    let bus: BusDoor?
    let database: StateDatabase
    let notifier = SystemdNotifier()
    /// The goodbye to the peers: the last service, and started at once by a stop signal.
    let farewell: Farewell
    let logger: Logger

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
            sceneStore = SQLiteSceneStore(database: scenes)
        } catch {
            throw StartupError.state("cannot open the scene database in \(c.stateDirectory): \(error)")
        }
        let link: AvahiDiscovery
        // Its client is made once the first dials have ended (Peers.run: why).
        do { link = try AvahiDiscovery(startingClient: false, logger: logger) } catch { throw StartupError.state("\(error)") }
        var discovery: any Discovery = link
        var zoneKey: TSIGKey?
        if let w = c.wideArea {
            let (zone, key) = Self.wideArea(w, stateDirectory: c.stateDirectory, logger: logger)
            discovery = CombinedDiscovery([link, zone])
            zoneKey = key
        }
        var parts = DaemonParts(
            configuration: c, identity: identity,
            trustStore: try SQLiteTrustStore(database: database), sceneStore: sceneStore,
            discovery: discovery, searchIndex: c.desktop.search ? SQLiteSearchIndex() : nil, logger: logger)
        parts.zoneKeySecret = zoneKey.flatMap { Data(base64Encoded: $0.secret).map { [UInt8]($0) } }
        daemon = try Daemon(parts: parts)
        control = ControlServer(
            path: c.runtimeDirectory + "/control.sock", maxClients: c.control.maxClients,
            maxLine: c.control.maxLineBytes, operations: daemon.operations, logger: logger)
        bus = Self.busDoor(c.desktop.bus, operations: daemon.operations, logger: logger)
        farewell = Farewell(daemon: daemon)
        self.logger = logger
    }

    /// The D-Bus door on the configured bus. A bus that is not there, or a name another process
    /// owns, leaves it off (the control socket serves everything) and says why in the log.
    static func busDoor(_ choice: DesktopSettings.Bus, operations: any ControlOperations, logger: Logger) -> BusDoor? {
        let kind: BusKind
        switch choice {
        case .off: return nil
        case .system: kind = .system
        case .session: kind = .session
        case .auto:
            guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else { return nil }
            kind = .session
        }
        do throws(BusFailure) { return try BusDoor(kind, operations: operations, logger: logger) } catch {
            // Asked for by name, its absence is an error; `auto` only takes a bus that is there.
            logger.log(level: choice == .auto ? .notice : .error, "the D-Bus API is off", metadata: ["error": "\(error.message)"])
            return nil
        }
    }

    /// The prelude (link listening, advert published, control socket bound), then the services
    /// in start order.
    func services() async throws -> [any Service] {
        try await daemon.prepare()
        try await control.start()
        var desktop: [any Service] = []
        if let bus {
            let d = daemon.configuration.desktop
            do throws(BusFailure) {
                try await bus.start(desktopSearch: d.search)
                desktop.append(bus)
                // Apps declared with DBusActivatable= are started by the bus (docs/APPS.md).
                if bus.connection.kind == .session { daemon.apps.setBusActivator(bus.activate) }
                if d.notifications {
                    desktop.append(
                        DesktopNotices(connection: bus.connection, operations: daemon.operations, quietTypes: d.notificationsOffFor, logger: logger))
                }
            } catch {
                logger.log(level: d.bus == .auto ? .notice : .error, "the D-Bus API is off", metadata: ["error": "\(error.message)"])
                await bus.connection.close()
            }
        }
        return [StateStores(database: database)] + daemon.services
            + [control] + desktop + [Readiness(daemon: daemon, notifier: notifier, socket: control.path, logger: logger), farewell]
    }

    /// Unicast DNS-SD in the configured zone; a key file that fails its checks leaves it off
    /// (mDNS goes on), saying why in the log and in `handoffctl status`.
    static func wideArea(_ w: WideAreaConfiguration, stateDirectory: String, logger: Logger) -> (any Discovery, TSIGKey?) {
        let key: TSIGKey
        do { key = try TSIGKey.load(path: w.keyFile) } catch {
            logger.error("unicast DNS-SD is off", metadata: ["error": "\(error)"])
            return (UnavailableWideArea(reason: error.description), nil)
        }
        var settings = WideAreaDiscovery.Settings(
            domain: w.domain, server: w.server, key: key, ledgerPath: stateDirectory + "/wide-area-names",
            addresses: {
                // Link-local addresses mean nothing off the link.
                (InterfaceAddresses.current() ?? []).map(\.bare).filter { !$0.lowercased().hasPrefix("fe80") && !$0.hasPrefix("169.254.") }
            })
        settings.pollInterval = TimeInterval(w.pollSeconds)
        logger.info("unicast DNS-SD on", metadata: ["dns.domain": "\(w.domain)", "dns.server": "\(w.server)", "dns.key": "\(key.name)"])
        return (WideAreaDiscovery(settings: settings, logger: logger), key)
    }

    static func makeDirectory(_ path: String, mustBeWritable: Bool = true) throws {
        if !FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StartupError.directory(path, error.fileErrorText)
            }
        }
        guard !mustBeWritable || access(path, W_OK) == 0 else { throw StartupError.directory(path, "it is not writable by uid \(geteuid())") }
        // An existing directory someone else owns or may write to could hand us their files.
        do throws(LinkError) { try PrivateFiles.checkDirectory(path) } catch { throw StartupError.state(error.description) }
    }

}

/// The trust store's database, closed once everything above it has stopped.
struct StateStores: Service {
    let database: StateDatabase

    func run() async throws {
        try? await gracefulShutdown()
        database.close()
    }
}

/// READY once the control socket is up (and the Avahi client, or 5 s without it); then, once a
/// second, each component's actor is asked to answer before the watchdog ping, so that systemd
/// restarts a daemon whose actor is stuck. STOPPING at shutdown.
struct Readiness: Service {
    let daemon: Daemon
    let notifier: SystemdNotifier
    let socket: String
    let logger: Logger

    func run() async throws {
        // Without avahi-daemon handoffd still serves its control socket and publishes as soon as
        // avahi-daemon appears.
        let avahi = await daemon.waitForAvahi(timeout: .seconds(5))
        notifier.notify("READY=1\nSTATUS=" + (avahi ? "advertising" : "waiting for avahi-daemon"))
        logger.info("ready", metadata: ["control.socket": "\(socket)", "avahi.up": "\(avahi)"])
        // Start-up is over: the binary's pages only it touched go back (docs/PERFORMANCE.md, "Memory").
        let released = handoff_release_startup_pages()
        logger.debug("start-up pages released", metadata: ["bytes": "\(released)"])
        let nap = Nap()
        await withGracefulShutdownHandler {
            // Without a watchdog nobody reads the beat: nothing runs until shutdown. With one, a
            // beat every quarter of WatchdogSec (7.5 s for the unit's 30), twice as often as
            // systemd asks; it beat every second, a wake-up a second of an idle daemon's life.
            guard let interval = notifier.watchdogInterval else {
                while !nap.hasEnded && !Task.isCancelled { await nap.sleep(for: .seconds(3600)) }
                return
            }
            while !nap.hasEnded && !Task.isCancelled {
                // Each component's actor answers, or systemd sees no beat and restarts the daemon.
                await daemon.heartbeat()
                notifier.notify("WATCHDOG=1")
                await nap.sleep(for: interval / 2)
            }
        } onGracefulShutdown: {
            nap.end()
        }
        notifier.notify("STOPPING=1")
    }
}

/// A service under its type's name. ServiceLifecycle names each service it is given with
/// `"\(service)"`, and a type that does not describe itself is described by reflecting every
/// field, and theirs (the daemon, its logger, ...), each field's type looked up in the
/// runtime's conformance records: 1-1.5 ms of the start, before the restarted daemon's first
/// handshake (docs/PERFORMANCE.md).
struct NamedService: Service, CustomStringConvertible {
    let description: String
    let service: any Service

    init(_ service: any Service) {
        description = _typeName(type(of: service), qualified: false)
        self.service = service
    }

    func run() async throws { try await service.run() }
}
