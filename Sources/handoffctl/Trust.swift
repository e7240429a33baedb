import ArgumentParser

struct Trust: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the paired machines whose keys this machine trusts.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await options.run("trust") { result in
            var t = Table("NAME", "FINGERPRINT", "PAIRED AT")
            for p in result?.arrayValue ?? [] { t.add(p["name"], p["fingerprint"], p["pairedAt"]) }
            t.print(empty: "No paired machines. Pair with `handoffctl pair --accept` here and `handoffctl pair <name>` there.")
        }
    }
}
