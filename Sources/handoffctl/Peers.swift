import ArgumentParser

struct Peers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List other handoffd machines: listed on the network, paired, present (answering on the link).")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await options.run("peers") { result in
            var t = Table("NAME", "FINGERPRINT", "PAIRED", "PRESENT", "ADDRESS")
            for p in result?.arrayValue ?? [] {
                let first = p.dictionaryValue?["addresses"]?.arrayValue?.first?.stringValue
                t.add(p["name"], p["fingerprint"], p["paired"], p["present"], first.map { "\($0):\(p["port"])" } ?? "-")
            }
            t.print(empty: "No peers yet: is handoffd running on another machine of this network?")
        }
    }
}
