import ArgumentParser

struct SceneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "scene", abstract: "One scene's saved state.",
                                                    subcommands: [Show.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a scene: tab, navigation, storage, current activity.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The scene's id.") var scene: String

        func run() async throws {
            try await options.run("scene", ["scene": .string(scene)]) { result in
                printFields(result, order: ["scene", "book", "character", "navigation", "content", "role", "created", "updated", "currentActivity", "storage"])
            }
        }
    }
}
