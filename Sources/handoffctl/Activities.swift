import HandoffCommandLine
import HandoffControl
import HandoffCore

struct Activities: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activities",
        abstract: "List this machine's current activities, or (--remote) those of paired machines."
    )
    @OptionGroup var options: ClientOptions

    @Flag(help: "List the activities paired machines offer (as last told, else asked over the link now).")
    var remote = false

    @Option(help: "Only this paired machine's activities (implies --remote).")
    var peer: String?

    func run() throws {
        let isRemote = remote || peer != nil
        try options.run(ActivitiesRequest(remote: remote, peer: peer)) { listing in
            var t =
                isRemote
                ? Table("PEER", "ACTIVITY", "TYPE", "VERSION", "WHEN", "TITLE") : Table("ACTIVITY", "TYPE", "VERSION", "WHEN", "STATE", "TITLE")
            for a in listing.items {
                let title = (a.title ?? "").terminalSafe
                // When it last changed, on its machine's clock (an older peer does not say).
                let when = a.updated.map(tableWhen) ?? ""
                if isRemote {
                    t.add((a.peer ?? "").terminalSafe, a.activity.canonicalString, a.type.terminalSafe, String(a.version), when, title)
                } else {
                    let state = a.expired == true ? "expired" : (a.eligible == true ? "advertised" : "local")
                    t.add(a.activity.canonicalString, a.type.terminalSafe, String(a.version), when, state, title)
                }
            }
            t.print(
                empty: isRemote ? "No paired machine offers an activity right now." : "No current activities. Publish one with `handoffctl publish`.")
        }
    }
}
