import HandoffCommandLine
import HandoffControl

struct Send: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Push one of this machine's current activities to a paired machine, which continues it."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "The activity's id.") var activity: String
    @Option(help: "The machine to send it to.") var to: String

    func run() throws {
        let request = SendRequest(activity: try parseID(activity, "activity"), to: to)
        try reportOutcome(try options.performOnce(request), options: options)
    }
}
