import HandoffAsync
import HandoffCommandLine
import HandoffCore
import NIOCore
#if canImport(Glibc)
    import Glibc
#endif

/// The entry point: options every command takes may also come before the command
/// (`handoffctl --socket P status`); they are moved after it for the parser.
@main
enum HandoffctlMain {
    /// Synchronous: a one-shot command (`status`, `send`, ...) runs on the main thread with a
    /// blocking request, and no thread is started. Commands that wait on events (watch, pair,
    /// streams, live handlers) are `AsyncParsableCommand`s and run on Swift's concurrency pool.
    static func main() {
        let arguments = GlobalOptions.movedAfterCommand(Array(CommandLine.arguments.dropFirst()))
        EarlyConnection.open(for: arguments)
        let command: any ParsableCommand
        do { command = try Handoffctl.parseAsRoot(arguments) } catch { Handoffctl.exit(withError: error) }
        guard type(of: command).runsAsynchronously, let waiting = command as? any AsyncParsableCommand else {
            var now = command
            do { try now.run() } catch { Handoffctl.exit(withError: error) }
            return
        }
        // A command that waits on events needs one event loop: NIO would start one thread per
        // core (sixteen on many laptops) before the first byte is written. (Set here, not for the
        // one-shot commands: touching NIO's singletons took them 0.13 ms.)
        NIOSingletons.groupLoopCountSuggestion = 1
        // watch and handle: each event printed from the thread that read it. On Swift's pool, the
        // event's task woke a pool thread first, a step that cost as much as the daemon's own part
        // of a stop signal's news (SIGTERM -> peerAbsent, Benchmarks/scripts/bench-presence.sh).
        if type(of: waiting).tasksOnTheEventLoop { EventLoopJobs.routeEveryTask(name: "handoffctl") }
        nonisolated(unsafe) var running = waiting
        // Detached (a task made here would belong to the main actor), and the main thread parked
        // until the command exits the process: `dispatchMain()` ends the main thread with
        // `pthread_exit`, whose forced unwind had libgcc sort every unwind entry of this static
        // binary first: 36 ms of CPU in every such command (perf, on `publish` when it was
        // one). handoffd parks its main thread the same way. Nothing here runs on the main actor
        // or the main queue.
        Task.detached {
            do { try await running.run() } catch { Handoffctl.exit(withError: error) }
            Handoffctl.exit()
        }
        while true { pause() }
    }
}

enum GlobalOptions {
    // Arrays, not sets: a Set<String> is the first Hashable conformance this process looks up,
    // a search through every conformance record of the binary (60 µs of a 1 ms start).
    static let withValue = ["--socket"]
    static let flags = ["--json"]

    /// `[--socket P] [--json] command args` -> `command args --socket P --json` (before any `--`).
    static func movedAfterCommand(_ args: [String]) -> [String] {
        var leading: [String] = []
        var i = 0
        while i < args.count {
            let a = args[i]
            if withValue.contains(a), i + 1 < args.count {
                leading += [a, args[i + 1]]
                i += 2
            } else if flags.contains(a) || withValue.contains(where: { a.hasPrefix($0 + "=") }) {
                leading.append(a)
                i += 1
            } else {
                break
            }
        }
        guard !leading.isEmpty else { return args }
        var rest = Array(args[i...])
        if let end = rest.firstIndex(of: "--") { rest.insert(contentsOf: leading, at: end) } else { rest += leading }
        return rest
    }
}

/// `handoffctl`: drives the local handoffd over its control socket.
struct Handoffctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoffctl",
        abstract: "Control handoffd: peers, pairing, activities, continuation, scenes and the library.",
        discussion: """
            Every command talks to the local handoffd over its control socket \
            (/run/handoffd/control.sock, or --socket, or $HANDOFF_SOCKET) and accepts --json.

            Exit status:
              0   success
              1   handoffd refused the request (the message says why and what to do)
              2   a continuation or push reached the other machine and failed there
              3   handoffd is not running, or this user may not use its socket
              64  wrong usage (an unknown option, a missing argument)
            """,
        version: "handoffctl \(ProductVersion.current)",
        subcommands: [
            Status.self, Peers.self, Pair.self, Unpair.self, Trust.self, RotateAdvert.self, Activities.self, Publish.self, Resign.self,
            Invalidate.self, Continue.self, Send.self, Handle.self, Scenes.self, SceneCommand.self, Watch.self,
            Connect.self, Disconnect.self, Search.self, StreamCommand.self, SendFile.self, Receive.self, Apps.self, Clipboard.self
        ])
}
