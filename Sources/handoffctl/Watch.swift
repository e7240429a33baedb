import ArgumentParser
import Foundation
import HandoffControl
import HandoffCore

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print handoffd's events as they happen (peers, activities, continuations).")
    @OptionGroup var options: ClientOptions
    @Option(help: "Exit after this many events.") var count: Int?

    func run() async throws {
        let client = try await options.connect()
        _ = await options.request(client, "watch")
        var seen = 0
        for await event in client.events {
            if options.json {
                var d = event.fields
                d["event"] = .string(event.name)
                print(JSONValue.text(.dictionary(d)))
            } else {
                print(event.name + " " + event.fields.keys.sorted().map { "\($0)=\(event.fields[$0]!.text)" }.joined(separator: " "))
            }
            fflush(nil)
            seen += 1
            if let count, seen >= count { break }
        }
        await client.close()
    }
}
