import ArgumentParser
import HandoffCore

struct Activities: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List this machine's current activities, or (--remote) those of paired machines.")
    @OptionGroup var options: ClientOptions

    @Flag(help: "List the activities paired machines offer (asked over the link now).")
    var remote = false

    @Option(help: "Only this paired machine's activities (implies --remote).")
    var peer: String?

    func run() async throws {
        var args: [String: PropertyListValue] = [:]
        if remote { args["remote"] = true }
        if let peer { args["peer"] = .string(peer) }
        let isRemote = remote || peer != nil
        try await options.run("activities", args) { result in
            var t = isRemote ? Table("PEER", "ACTIVITY", "TYPE", "VERSION", "TITLE") : Table("ACTIVITY", "TYPE", "VERSION", "STATE", "TITLE")
            for a in result?.arrayValue ?? [] {
                if isRemote {
                    t.add(a["peer"], a["activity"], a["type"], a["version"], a["title"])
                } else {
                    let state = a["expired"] == "yes" ? "expired" : (a["eligible"] == "yes" ? "advertised" : "local")
                    t.add(a["activity"], a["type"], a["version"], state, a["title"])
                }
            }
            t.print(empty: isRemote ? "No paired machine offers an activity right now." : "No current activities. Publish one with `handoffctl publish`.")
        }
    }
}
