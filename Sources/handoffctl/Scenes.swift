import HandoffCommandLine

struct Scenes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenes", abstract: "List the scenes (windows) handoffd keeps state for (as `scene list`)."
    )
    @OptionGroup var options: ClientOptions

    func run() async throws { try await SceneCommand.List.show(options) }
}
