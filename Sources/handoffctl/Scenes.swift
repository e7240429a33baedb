import ArgumentParser

struct Scenes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the scenes (windows) handoffd keeps state for.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await options.run("scenes") { result in
            var t = Table("SCENE", "BOOK", "CHARACTER", "UPDATED")
            for s in result?.arrayValue ?? [] { t.add(s["scene"], s["book"], s["character"], s["updated"]) }
            t.print(empty: "No scenes yet.")
        }
    }
}
