import ArgumentParser
import Foundation
import HandoffControl
import HandoffCore

struct Continue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Continue a paired machine's activity here: fetch it, dispatch it, tell the other machine the outcome.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "The machine that offers the activity.") var peer: String
    @Argument(help: "The activity's id (see `handoffctl activities --remote`).") var activity: String
    @Option(help: "Land in this scene (made if new) instead of the one the selector picks.") var scene: String?

    func run() async throws {
        let request = ContinueRequest(peer: peer, activity: try parseID(activity, "activity"), scene: try scene.map { try parseID($0, "--scene") })
        try reportOutcome(try await options.withClient { try await options.perform($0, request) }, options: options)
    }
}

/// Prints a continuation's outcome; a failure exits 2.
func reportOutcome(_ r: ContinuationReport, options: ClientOptions) throws {
    if options.json {
        options.printJSON(r.propertyList)
    } else if r.failed {
        FileHandle.standardError.write(Data("handoffctl: not continued (\(r.code ?? "")): \((r.message ?? "").terminalSafe)\n".utf8))
    } else {
        switch r.step ?? "" {
        case "scene":
            let character = r.character.map { " > \($0)" } ?? ""
            print("Continued in scene \(r.scene?.uuidString ?? ""): \(r.book ?? "")\(character)".terminalSafe)
        case "app": print("Continued by \((r.handler ?? "").terminalSafe)")
        case "exec": print("Continued by command \((r.handler ?? "").terminalSafe)")
        case "webpage": print("Opened \((r.url ?? "").terminalSafe)")
        default: print("Continued")
        }
    }
    if r.failed { throw ExitCode(ExitStatus.continuationFailed) }
}
