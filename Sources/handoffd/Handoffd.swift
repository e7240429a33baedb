import ArgumentParser
import Dispatch
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAvahi
import HandoffConfig
import HandoffContent
import HandoffDaemon
import HandoffLink
import HandoffState
import HandoffCore
import Logging
import NIOCore
import NIOPosix
import CExecutorHook
import ServiceLifecycle

/// The entry point. Synchronous, with the main thread parked until the daemon stops: an async
/// `main` ends the main thread in `dispatch_main`, whose `pthread_exit` unwinds its stack through
/// the binary's unwind tables (`_Unwind_ForcedUnwind`), which then stay resident (~0.4 MiB of
/// handoffd's idle RSS). Nothing in handoffd runs on the main actor.
@main
enum HandoffdMain {
    static func main() {
        var parsed: any ParsableCommand
        do { parsed = try Handoffd.parseAsRoot() } catch { Handoffd.exit(withError: error) }
        guard let daemon = parsed as? Handoffd else {
            do { try parsed.run() } catch { Handoffd.exit(withError: error) }
            return
        }
        // One event loop, whatever the number of cores: NIO would start one thread per core
        // (sixteen on many laptops), and a daemon's sockets carry little. With one, a channel's
        // work never hops to another loop: bench-throughput, one sitting on 2 cores, control
        // operations 24.3k/24.6k -> 27.3k/26.2k a second (8 clients), continues unchanged.
        NIOSingletons.groupLoopCountSuggestion = 1
        EventLoopJobs.routeEveryTask()
        let stopped = DispatchSemaphore(value: 0)
        // Detached: a task made here would belong to the main actor, whose queue nobody drains.
        Task.detached {
            do { try await daemon.run() } catch { Handoffd.exit(withError: error) }
            stopped.signal()
        }
        stopped.wait()
    }
}

/// `handoffd`: loads the configuration, opens the stores, and runs the daemon's services until
/// SIGTERM or SIGINT.
struct Handoffd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoffd",
        abstract: "Handoff and state restoration daemon: advertises activities over DNS-SD and continues them from paired machines.",
        discussion:
            "Exit status: 0 after a clean stop or a valid --check-config; 1 when the configuration, the state directory or the identity key is unusable (the message says which and how to fix it)."
    )

    static let defaultConfigPath = "/etc/handoffd/handoffd.yaml"

    @Option(help: "The configuration file. A missing file at the default path means built-in defaults.")
    var config: String = Handoffd.defaultConfigPath

    @Flag(help: "A missing --config file means built-in defaults too (the user unit's ~/.config/handoffd/handoffd.yaml).")
    var configOptional = false

    @Flag(help: "Check the configuration and the library, report the first error with its key, and exit.")
    var checkConfig = false

    @Option(help: "Overrides state_directory (identity key, trust store, scenes).")
    var stateDirectory: String?

    @Option(help: "Overrides runtime_directory (the control socket).")
    var runtimeDirectory: String?

    @Option(help: "Overrides device_name.")
    var deviceName: String?

    @Option(help: "Overrides peer_port (0 picks a free port).")
    var peerPort: Int?

    func run() async throws {
        let settings: Settings
        do { settings = try Settings.load(self) } catch {
            // Before logging is set up: the journal still gets it as an error (`<3>`).
            let prefix = JournalLogHandler.stderrIsJournal() ? "<\(JournalLogHandler.priority(.critical))>" : ""
            StandardStreams.error("\(prefix)handoffd: \(error)\n")
            throw ExitCode.failure
        }
        if checkConfig {
            print(
                "\(settings.source): valid; library \(settings.libraryPath) with \(settings.library.books.count) books; \(settings.configuration.activityTypes.types.count) declared activity types"
            )
            return
        }
        let level = Logger.Level(rawValue: settings.configuration.logLevel) ?? .info
        let journal = JournalLogHandler.stderrIsJournal()
        LoggingSystem.bootstrap { label in
            if journal { return JournalLogHandler(label: label, level: level) }
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "handoffd")
        do {
            let runner = try DaemonRunner(settings: settings, logger: logger)
            let group = ServiceGroup(
                configuration: .init(
                    services: try await runner.services().map { .init(service: NamedService($0)) },
                    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        } catch let error as StartupError {
            logger.critical("handoffd cannot start", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        } catch let error as DaemonStartError {
            logger.critical("handoffd cannot start", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        } catch {
            logger.critical("handoffd stopped on an error", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }
    }
}

/// Every task of handoffd runs on its one event loop thread instead of Dispatch's pool: a message
/// read on the loop, the actors that handle it and the answer written back then share one thread,
/// where each step from the loop to a pool thread and back woke a thread (a quarter of the
/// daemon's CPU at continue load was the kernel's scheduler, perf). Blocking work stays off it:
/// SQLite writes run on their own queue, Avahi and the control socket's accept on their threads.
enum EventLoopJobs {
    nonisolated(unsafe) private static var executor: (any SerialExecutor)?

    static func routeEveryTask() {
        executor = MultiThreadedEventLoopGroup.singleton.any().executor
        let routed = handoff_route_global_jobs { job in
            guard let job else { return }
            EventLoopJobs.executor!.enqueue(ExecutorJob(unsafeBitCast(job, to: UnownedJob.self)))
        }
        if routed != 0 {
            let text = "handoffd: tasks run on Swift's own threads (another hook was set first)\n"
            _ = text.withCString { write(2, $0, strlen($0)) }
        }
    }
}
