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
        version: "hawknotes \(ProductVersion.current)",
        subcommands: [PublishCharacter.self])

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

    @Flag(help: "No window: continue Hawk Notes' activities into its saved windows, and exit after 10 s without one (how handoffd starts it).")
    var background = false

    func run() async throws {
        let socketPath = Self.socketPath(socket)
        let books = try Self.loadLibrary(library)
        if background {
            do { _ = try await Background.run(library: books, socketPath: socketPath, idle: .seconds(10)) } catch let error as AppStartError {
                throw Self.fail(error.description, code: error.exitCode)
            }
            return
        }
        var sceneID: UUID?
        if let scene {
            guard let id = UUID(uuidString: scene) else { throw Self.fail("--scene \(scene): not a scene id (see `handoffctl scenes`)", code: 64) }
            sceneID = id
        }
        if let content, (try? ContentPath(parsing: content)) == nil {
            throw Self.fail("--content \(content): not b|BOOK or b|BOOK::c|CHARACTER (a content path)", code: 64)
        }
        let start = AppStart(scene: sceneID, newWindow: newWindow || content != nil, content: self.content)
        let started: AppDriver?
        do {
            started = try await AppDriver.start(library: books, socketPath: socketPath, start: start)
        } catch let error as AppStartError {
            throw Self.fail(error.description, code: error.exitCode)
        }
        guard let driver = started else { return }
        let status = await driver.run()
        if status != 0 { throw ExitCode(status) }
    }

    /// --socket, else $HANDOFF_SOCKET, else handoffd's.
    static func socketPath(_ given: String?) -> String {
        given ?? ProcessInfo.processInfo.environment["HANDOFF_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? HandoffClient.defaultSocketPath
    }

    /// The library: given, else $HAWKNOTES_LIBRARY, else the installed one, else the tree's
    /// above a build (its binaries run from the tree find it).
    static func loadLibrary(_ given: String?) throws -> Library {
        let libraryPath =
            given ?? ProcessInfo.processInfo.environment["HAWKNOTES_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Library.candidates(besideBinaryIn: Library.binaryDirectory).first { FileManager.default.fileExists(atPath: $0) }
            ?? "/usr/share/handoffd/library.json"
        do { return try Library(contentsOf: URL(fileURLWithPath: libraryPath)) } catch {
            throw fail("the library cannot be read: \(error.description); install handoffd's library or pass --library FILE", code: 2)
        }
    }

    static func fail(_ message: String, code: Int32) -> ExitCode {
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
