import ArgumentParser

struct Resign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop offering an activity (resignCurrent); peers stop seeing it.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "The activity's id.") var activity: String

    func run() async throws {
        try await options.run("resign", ["activity": .string(activity)]) { _ in print("Resigned \(activity)") }
    }
}
