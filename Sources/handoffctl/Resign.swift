import HandoffCommandLine
import HandoffControl

struct Resign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resign", abstract: "Stop offering an activity (resignCurrent); peers stop seeing it."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "The activity's id.") var activity: String

    func run() throws {
        try options.run(ResignRequest(activity: try parseID(activity, "activity"))) { _ in print("Resigned \(activity)") }
    }
}
