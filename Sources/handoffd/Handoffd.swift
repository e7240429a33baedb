import Dispatch
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAvahi
import HandoffAsync
import HandoffConfig
import HandoffContent
import HandoffDaemon
import HandoffLink
import HandoffState
import HandoffCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The entry point. Synchronous, with the main thread parked until the daemon stops: an async
/// `main` ends the main thread in `dispatch_main`, whose `pthread_exit` unwinds its stack through
/// the binary's unwind tables (`_Unwind_ForcedUnwind`), which then stay resident (~0.4 MiB of
/// handoffd's idle RSS). Nothing in handoffd runs on the main actor.
@main
enum HandoffdMain {
    static func main() {
        // First, while this is the only thread: every thread started later inherits the mask.
        let stopSignals = StopSignals.take()
        let options: DaemonArguments
        do throws(DaemonArguments.Failure) {
            switch try DaemonArguments.parse(Array(CommandLine.arguments.dropFirst())) {
            case .run(let o): options = o
            case .help:
                print(DaemonArguments.help, terminator: "")
                return
            case .version:
                print("handoffd \(ProductVersion.current)")
                return
            }
        } catch {
            StandardStreams.error("\(error)\n")
            exit(64)  // EX_USAGE, as swift-argument-parser exits for a bad command line
        }
        // One event loop, whatever the number of cores: NIO would start one thread per core
        // (sixteen on many laptops), and a daemon's sockets carry little. With one, a channel's
        // work never hops to another loop: bench-throughput, one sitting on 2 cores, control
        // operations 24.3k/24.6k -> 27.3k/26.2k a second (8 clients), continues unchanged.
        NIOSingletons.groupLoopCountSuggestion = 1
        EventLoopJobs.routeEveryTask(name: "handoffd")
        let stopped = DispatchSemaphore(value: 0)
        let status = Mutex<Int32>(0)
        // Detached: a task made here would belong to the main actor, whose queue nobody drains.
        Task.detached {
            let code = await Handoffd(options: options, stopSignals: stopSignals).run()
            status.withLock { $0 = code }
            stopped.signal()
        }
        stopped.wait()
        exit(status.withLock { $0 })
    }
}

/// `handoffd`: loads the configuration, opens the stores, and runs the daemon's services until
/// SIGTERM or SIGINT.
struct Handoffd {
    let options: DaemonArguments
    /// The signalfd of SIGTERM and SIGINT (`StopSignals`), or nil: ServiceLifecycle reads them.
    let stopSignals: Int32?

    /// The exit status: 0 after a clean stop or a valid --check-config, 1 when handoffd cannot
    /// start or stopped on an error (the log says why).
    func run() async -> Int32 {
        let settings: Settings
        do { settings = try Settings.load(options) } catch {
            // Before logging is set up: the journal still gets it as an error (`<3>`).
            let prefix = JournalLogHandler.stderrIsJournal() ? "<\(JournalLogHandler.priority(.critical))>" : ""
            StandardStreams.error("\(prefix)handoffd: \(error)\n")
            return 1
        }
        if options.checkConfig {
            print(
                "\(settings.source): valid; \(settings.configuration.activityTypes.types.count) activity types declared besides the installed apps' (`handoffctl apps`)"
            )
            return 0
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
            var services = try await runner.services().map { ServiceGroupConfiguration.ServiceConfiguration(service: NamedService($0)) }
            let configuration: ServiceGroupConfiguration
            if let stopSignals {
                // Its end (a signal read) is the group's graceful shutdown.
                services.append(
                    .init(
                        service: NamedService(StopSignals(descriptor: stopSignals, farewell: runner.farewell, logger: logger)),
                        successTerminationBehavior: .gracefullyShutdownGroup))
                configuration = .init(services: services, logger: logger)
            } else {
                configuration = .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            }
            let group = ServiceGroup(configuration: configuration)
            try await group.run()
            return 0
        } catch let error as StartupError {
            logger.critical("handoffd cannot start", metadata: ["error": "\(error)"])
        } catch let error as DaemonStartError {
            logger.critical("handoffd cannot start", metadata: ["error": "\(error)"])
        } catch {
            logger.critical("handoffd stopped on an error", metadata: ["error": "\(error)"])
        }
        return 1
    }
}
