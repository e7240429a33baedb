import ArgumentParser
import Foundation
import HandoffCore

struct Continue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Continue a paired machine's activity here: fetch it, dispatch it, tell the other machine the outcome.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "The machine that offers the activity.") var peer: String
    @Argument(help: "The activity's id (see `handoffctl activities --remote`).") var activity: String
    @Option(help: "Land in this scene (made if new) instead of the one the selector picks.") var scene: String?

    func run() async throws {
        var args: [String: PropertyListValue] = ["peer": .string(peer), "activity": .string(activity)]
        if let scene { args["scene"] = .string(scene) }
        let client = try await options.connect()
        let result = await options.request(client, "continue", args)
        await client.close()
        reportOutcome(result, json: options.json, options: options)
    }
}

/// Prints a continuation's outcome; a failure exits 2.
func reportOutcome(_ result: PropertyListValue?, json: Bool, options: ClientOptions) {
    let failed = result?["outcome"] == "failed"
    if json {
        options.printJSON(result)
    } else if failed {
        FileHandle.standardError.write(Data("handoffctl: not continued (\(result?["code"] ?? "")): \(result?["message"] ?? "")\n".utf8))
    } else {
        switch result?["step"] ?? "" {
        case "scene":
            let character = result?["character"] ?? ""
            print("Continued in scene \(result?["scene"] ?? ""): \(result?["book"] ?? "")" + (character.isEmpty ? "" : " > \(character)"))
        case "app": print("Continued by \(result?["handler"] ?? "")")
        case "exec": print("Continued by command \(result?["handler"] ?? "")")
        case "webpage": print("Opened \(result?["url"] ?? "")")
        default: print("Continued")
        }
    }
    if failed { exit(ExitStatus.continuationFailed) }
}
