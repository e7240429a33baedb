#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffConfig
import HandoffControl
import HandoffCore
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The installed apps (docs/APPS.md): their declaration files, read at start and again when one
/// is added, changed or removed; the types they declare go into `declared` with the built-in
/// ones and the configuration's. A file with a problem is left out and named, with its line, in
/// the log and in `handoffctl apps`.
public final class Apps: Service, Sendable {
    /// How often the directories are looked at (a stat of each and of each file), on the event
    /// loop's timer: Task.sleep's timer woke Dispatch's threads (7 threads idle instead of 5), and
    /// a look a second was most of an idle daemon's wake-ups.
    static let lookEvery: Duration = .seconds(5)
    private let directories: [String]
    /// This handoffd's control socket, told to the apps it starts.
    let controlSocket: String
    /// What is declared besides the apps: handoffd's own types and the configuration's.
    private let declaredHere: (builtIn: [ActivityTypeDeclaration], local: [ActivityTypeDeclaration])
    let declared: DeclaredTypes
    private let state: NIOLockedValueBox<(installed: InstalledApps, signature: [String])>
    /// Called when the declared types changed (Peers says hello again on every session).
    let onTypesChanged = NIOLockedValueBox<(@Sendable () async -> Void)?>(nil)
    let activator = NIOLockedValueBox<BusActivator?>(nil)
    private let events: ControlEvents
    private let logger: Logger
    private let nap = Nap()

    init(configuration: HandoffConfiguration, builtIn: [ActivityTypeDeclaration], events: ControlEvents, logger: Logger) {
        directories = configuration.appDirectories
        controlSocket = configuration.runtimeDirectory + "/control.sock"
        declaredHere = (builtIn, configuration.localActivityTypes)
        self.events = events
        self.logger = logger
        let signature = InstalledApps.signature(of: directories)
        let installed = InstalledApps.load(from: directories, builtIn: builtIn)
        declared = DeclaredTypes(installed.declaredTypes(builtIn: builtIn, local: configuration.localActivityTypes))
        state = NIOLockedValueBox((installed, signature))
        report(installed)
    }

    public var installed: InstalledApps { state.withLockedValue { $0.installed } }

    public func run() async throws {
        let nap = self.nap
        await withGracefulShutdownHandler {
            while !nap.hasEnded && !Task.isCancelled {
                await nap.sleep(for: Self.lookEvery)
                if !nap.hasEnded { self.reloadIfChanged() }
            }
        } onGracefulShutdown: {
            nap.end()
        }
    }

    /// Reads the files again if the directories changed since the last look.
    func reloadIfChanged() {
        let signature = InstalledApps.signature(of: directories)
        guard signature != state.withLockedValue({ $0.signature }) else { return }
        let installed = InstalledApps.load(from: directories, builtIn: declaredHere.builtIn)
        let before = declared.names
        declared.replace(installed.declaredTypes(builtIn: declaredHere.builtIn, local: declaredHere.local))
        state.withLockedValue { $0 = (installed, signature) }
        if declared.names != before, let tell = onTypesChanged.withLockedValue({ $0 }) { Task { await tell() } }
        report(installed)
        events.broadcast("appsChanged", ["count": .integer(Int64(installed.apps.count)), "problems": .integer(Int64(installed.problems.count))])
    }

    private func report(_ installed: InstalledApps) {
        logger.info(
            "apps read", metadata: ["app.count": "\(installed.apps.count)", "app.types": "\(installed.apps.reduce(0) { $0 + $1.types.count })"])
        for problem in installed.problems { logger.warning("an app's declaration is not used: \(problem)") }
    }
}

extension InstalledApps {
    /// `apps`: each app, then each file that could not be used, with its problems.
    var listing: [AppInfo] {
        var byFile: [String: [String]] = [:]
        for p in problems { byFile[p.file, default: []].append(p.description) }
        var items = apps.map {
            AppInfo(
                app: $0.id, name: $0.name, file: $0.file, types: $0.types.map(\.type.rawValue), launch: $0.launch?.description,
                problems: byFile.removeValue(forKey: $0.file) ?? [])
        }
        for (file, said) in byFile.sorted(by: { $0.key < $1.key }) {
            let name = (file.split(separator: "/").last.map(String.init) ?? file)
            items.append(
                AppInfo(app: String(name.dropLast(InstalledApps.suffix.count)), name: nil, file: file, types: [], launch: nil, problems: said))
        }
        return items
    }
}
