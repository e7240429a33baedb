import HandoffCommandLine
import HandoffControl
import HandoffCore

struct Trust: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "trust", abstract: "List the paired machines whose keys this machine trusts.")
    @OptionGroup var options: ClientOptions

    func run() throws {
        try options.run(TrustRequest()) { trusted in
            var t = Table("NAME", "FINGERPRINT", "PAIRED AT")
            for p in trusted.items { t.add(p.name.terminalSafe, p.fingerprint, tableDate(p.pairedAt)) }
            t.print(empty: "No paired machines. Pair with `handoffctl pair --accept` here and `handoffctl pair <name>` there.")
        }
    }
}
