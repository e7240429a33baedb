import HandoffCommandLine
import HandoffControl

struct Invalidate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invalidate", abstract: "End an activity for good (invalidate); connected peers are told at once."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "The activity's id.") var activity: String

    func run() throws {
        try options.run(InvalidateRequest(activity: try parseID(activity, "activity"))) { _ in print("Invalidated \(activity)") }
    }
}
