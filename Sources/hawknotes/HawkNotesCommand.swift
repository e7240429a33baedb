import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClient
import HandoffContent
import HandoffCore
import HawkNotes
import HawkNotesApp

/// `hawknotes`: the Hawk Notes library app for the terminal (docs/HAWKNOTES.md).
@main
struct HawkNotesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hawknotes",
        abstract: "The Hawk Notes library: books and their characters, a window that comes back where it was, continued across machines.",
        discussion: "Keys: ←/→ book, ↑/↓ move, ⏎ open or write the draft, esc back, n new window, c continue, ? help, q quit.",
        version: "hawknotes \(ProductVersion.current)")

    @Option(help: "The control socket (default: $HANDOFF_SOCKET, else /run/handoffd/control.sock).")
    var socket: String?

    @Option(help: "Open this window (a scene id, as `handoffctl scenes` lists them).")
    var scene: String?

    @Flag(help: "Open a new window (a new scene) instead of the last one.")
    var newWindow = false

    @Option(help: "Open the new window at this content (b|BOOK or b|BOOK::c|CHARACTER).")
    var content: String?

    @Option(help: "The library (default: $HAWKNOTES_LIBRARY, else the installed one, else config/library.json above a build).")
    var library: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let socketPath = socket ?? environment["HANDOFF_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? HandoffClient.defaultSocketPath
        // Found as handoffd finds it: a build's binaries run from the tree find the tree's.
        let libraryPath =
            library ?? environment["HAWKNOTES_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Library.candidates(besideBinaryIn: Library.binaryDirectory).first { FileManager.default.fileExists(atPath: $0) }
            ?? "/usr/share/handoffd/library.json"
        let books: Library
        do { books = try Library(contentsOf: URL(fileURLWithPath: libraryPath)) } catch {
            throw fail("the library cannot be read: \(error.description); install handoffd's library or pass --library FILE", code: 2)
        }
        var sceneID: UUID?
        if let scene {
            guard let id = UUID(uuidString: scene) else { throw fail("--scene \(scene): not a scene id (see `handoffctl scenes`)", code: 64) }
            sceneID = id
        }
        if let content, (try? ContentPath(parsing: content)) == nil {
            throw fail("--content \(content): not b|BOOK or b|BOOK::c|CHARACTER (a content path, as `handoffctl library characters` shows)", code: 64)
        }
        let start = AppStart(scene: sceneID, newWindow: newWindow || content != nil, content: self.content)
        let started: AppDriver?
        do {
            started = try await AppDriver.start(library: books, socketPath: socketPath, start: start)
        } catch let error as AppStartError {
            throw fail(error.description, code: error.exitCode)
        }
        guard let driver = started else { return }
        let status = await driver.run()
        if status != 0 { throw ExitCode(status) }
    }

    private func fail(_ message: String, code: Int32) -> ExitCode {
        StandardStreams.error("hawknotes: \(message)\n")
        return ExitCode(code)
    }
}

/// Which window to open.
struct AppStart: Sendable {
    var scene: UUID?
    var newWindow: Bool
    var content: String?
}

enum AppStartError: Error, CustomStringConvertible {
    case daemon(String)
    case scene(String)
    case terminal(String)

    var description: String {
        switch self {
        case .daemon(let why):
            "handoffd is not reachable (\(why)); start it (`systemctl start handoffd`, or `systemctl --user start handoffd` for your own instance) or point HANDOFF_SOCKET at its socket"
        case .scene(let why): why
        case .terminal(let why): why
        }
    }

    var exitCode: Int32 {
        switch self {
        case .daemon: 3
        case .scene: 1
        case .terminal: 4
        }
    }
}
