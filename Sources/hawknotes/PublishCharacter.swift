import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClient
import HandoffControl
import HandoffCore
import HawkNotes

/// `hawknotes publish --character NAME`: makes "viewing NAME" current without a window, kept
/// until resigned (as `handoffctl publish` keeps its own): for scripts and the demo, which show a
/// person at a character on one machine.
struct PublishCharacter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish", abstract: "Make \"viewing a character\" current on this machine, without a window; kept until resigned.")

    @Option(help: "The character (its name or id).") var character: String
    @Option(help: "Its title (default: \"Viewing CHARACTER in BOOK\").") var title: String?
    @Option(help: "Expires after this many seconds.") var expires: Double?
    @Flag(help: "Print the answer as JSON.") var json = false
    /// hawknotes' own --socket, --library and --scene (the window it belongs to: one current
    /// activity per window).
    @ParentCommand var app: HawkNotesCommand

    func run() async throws {
        let books = try HawkNotesCommand.loadLibrary(app.library)
        let wanted = character.lowercased()
        guard
            let (book, c) = books.books.lazy.flatMap({ b in b.characters.map { (b, $0) } })
                .first(where: { $0.1.name.lowercased() == wanted || $0.1.id.canonicalString.lowercased() == wanted })
        else { throw HawkNotesCommand.fail("no character '\(character)' in the library", code: 64) }
        var activity = HawkNotes.characterDetailActivity(c, in: book)
        if let title { activity.title = title }
        if let expires { activity.expirationDate = Date().addingTimeInterval(expires) }
        var sceneID: UUID?
        if let scene = app.scene {
            guard let id = UUID(uuidString: scene) else { throw HawkNotesCommand.fail("--scene \(scene): not a scene id", code: 64) }
            sceneID = id
        }
        // What a person searches for, as Apple's samples mark theirs.
        activity.isEligibleForSearch = true
        do throws(ClientError) {
            let client = try await HandoffClient.connect(socketPath: HawkNotesCommand.socketPath(app.socket))
            defer { Task { await client.close() } }
            let published = try await client.perform(PublishRequest(activity: activity, scene: sceneID, keep: true))
            if json {
                print(String(decoding: JSONWriter.pretty(published.object), as: UTF8.self))
            } else {
                print("Published \(published.activity.canonicalString) (\(activity.type.rawValue), \(published.bytes) bytes)")
            }
        } catch {
            throw HawkNotesCommand.fail("could not publish: \(error.description)", code: error == .connectionLost ? 3 : 1)
        }
    }
}
