import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffControl
import HandoffCore

struct Handle: AsyncParsableCommand {
    static let tasksOnTheEventLoop = true
    static let configuration = CommandConfiguration(
        commandName: "handle",
        abstract: "Be a live handler for activity types: print each continuation offered and accept it (or --decline)."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "Activity types to handle.") var types: [String]
    @Option(help: "The handler's name, reported to both machines.") var name = "handoffctl"
    @Flag(help: "Decline every offer (the daemon then tries its next dispatch step).") var decline = false
    @Option(help: "Exit after this many offers.") var count: Int?

    func run() async throws {
        try await options.withClient { client in
            _ = try await options.perform(client, HandleRequest(types: types, name: name))
            if !options.json { print("Handling \(types.joined(separator: ", ")) as \(name); Ctrl-C to stop") }
            fflush(nil)
            var seen = 0
            for await event in client.events where event.name == "continue" {
                let activity = event.fields["activity"]
                if options.json {
                    options.printJSON(.dictionary(event.fields))
                } else {
                    print("\(decline ? "Declined" : "Continuing") \(activity?["type"] ?? "") \(activity?["id"] ?? ""): \(activity?["title"] ?? "")")
                }
                fflush(nil)
                _ = try await options.perform(client, HandledRequest(token: event.fields["token"]?.stringValue ?? "", accepted: !decline))
                seen += 1
                if let count, seen >= count { return }
            }
            throw Watch.lost("handle")
        }
    }
}
