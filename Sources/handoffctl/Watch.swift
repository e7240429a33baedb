import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffClient
import HandoffControl
import HandoffCore

struct Watch: AsyncParsableCommand {
    static let tasksOnTheEventLoop = true
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print handoffd's events as they happen (peers, activities, continuations)."
    )
    @OptionGroup var options: ClientOptions
    @Option(help: "Exit after this many events.") var count: Int?
    @Option(help: "Only events of this name (such as userActivityWasContinued); --count counts these.") var event: String?

    func run() async throws {
        try await options.withClient { client in try await watch(client) }
    }

    private func watch(_ client: HandoffClient) async throws {
        _ = try await options.perform(client, WatchRequest())
        var seen = 0
        for await event in client.events where self.event == nil || event.name == self.event {
            if options.json {
                var d = event.fields
                d["event"] = .string(event.name)
                print(JSONValue.text(.dictionary(d)))
            } else {
                print(event.name + " " + event.fields.keys.sorted().map { "\($0)=\(event.fields[$0]!.text)" }.joined(separator: " "))
            }
            fflush(nil)
            seen += 1
            if let count, seen >= count { return }
        }
        throw Self.lost("watch")
    }

    /// The events ended before the count: handoffd closed the connection (it stopped or
    /// restarted). Exit 3 saying so, not 0 as if the command had ended well: a script reading
    /// the events could not tell a stopped daemon from a `--count` reached.
    static func lost(_ command: String) -> ExitCode {
        failure(
            "handoffd closed the connection (it stopped or restarted), so nothing more comes here; check `systemctl status handoffd`, and run `handoffctl \(command)` again once it is back",
            code: ExitStatus.daemon)
    }
}
