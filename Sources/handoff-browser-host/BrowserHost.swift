#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffBrowser
import HandoffClient

/// The native messaging host of handoffd's browser extension (docs/BROWSER.md): the browser
/// starts it when the extension connects and closes its stdin when it goes; it is a client of
/// handoffd like any app.
@main
struct BrowserHost {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let pipes = NativePipes()
        guard BrowserCaller.isAllowed(arguments) else {
            logLine("started by \(arguments.first ?? "nobody"), not by handoffd's extension: stopping")
            pipes.send(.error(code: .permissionDenied, message: "this host serves handoffd's own extension only"))
            exit(1)
        }
        let socket = ProcessInfo.processInfo.environment["HANDOFF_SOCKET"] ?? HandoffClient.defaultSocketPath
        let session = BrowserSession(pipes: pipes, socketPath: socket)
        pipes.startReading()
        let daemon = Task { await session.stayConnected() }
        for await item in pipes.incoming {
            await session.handle(item)
            pipes.handled()
        }
        // The browser closed our stdin: the extension went. Our activities end with us.
        daemon.cancel()
        exit(0)
    }
}
