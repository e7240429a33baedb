#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import CHandoffShims
import HandoffAsync
import HandoffClient
import HandoffControl
import HandoffCore

/// The session agent of the shared clipboard (docs/CLIPBOARD.md): started with the graphical
/// session, it owns the display's clipboard connection and is a client of handoffd like any app.
/// A copy here is offered through handoffd; a paired machine's offer makes it the owner of this
/// display's clipboard, and a paste fetches the bytes then.
///   handoff-clipboard-agent [--primary]
@main
struct ClipboardAgent {
    /// A paste waits at most this long for the other machine's bytes; the pasting app then gets
    /// nothing rather than hanging.
    static let pasteWithin = Duration.seconds(5)

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("--help") || arguments.contains("-h") {
            StandardStreams.output(
                "usage: handoff-clipboard-agent [--primary]\n  Shares this session's clipboard through handoffd (docs/CLIPBOARD.md).\n")
            exit(0)
        }
        // Copies and pastes are up to 16 MiB: their buffers go back to the system when done.
        handoff_return_large_allocations(256 * 1024)
        let environment = ProcessInfo.processInfo.environment
        let socket = environment["HANDOFF_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? HandoffClient.defaultSocketPath
        let displayName = environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["DISPLAY"] ?? ""
        guard SingleInstance.take(display: displayName, socket: socket, environment: environment) else {
            log("another agent shares this display's clipboard with this handoffd already")
            exit(0)
        }
        let (display, problem) = DisplayChoice.open(environment: environment, primary: arguments.contains("--primary"), limit: 256 << 20)
        if let problem { log("no clipboard to share: \(problem)") }
        await AgentSession(display: display, problem: problem, socket: socket).run()
    }
}

func log(_ text: String) { StandardStreams.error("handoff-clipboard-agent: \(text)\n") }
