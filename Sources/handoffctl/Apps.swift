import HandoffCommandLine
import HandoffControl
import HandoffCore

/// `handoffctl apps`: the installed apps, the types each continues and how handoffd starts it;
/// a file that could not be used is listed with each problem at its line.
struct Apps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the installed apps, their activity types and how each is started.",
        discussion: "Apps declare themselves with a file in handoffd/apps under the XDG data directories (docs/APPS.md).")
    @OptionGroup var options: ClientOptions

    func run() throws {
        try options.run(AppsRequest()) { apps in
            var t = Table("APP", "NAME", "TYPES", "STARTED BY")
            var problems: [String] = []
            for a in apps.items {
                if let name = a.name {
                    t.add(a.app.terminalSafe, name.terminalSafe, a.types.joined(separator: " ").terminalSafe, (a.launch ?? "-").terminalSafe)
                }
                problems += a.problems
            }
            t.print(empty: "No app is installed (docs/APPS.md says how to declare one).")
            if !problems.isEmpty {
                print("\nNot used:")
                for p in problems { print("  " + p.terminalSafe) }
            }
        }
    }
}
