import ArgumentParser
import HandoffControl

struct Peers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List other handoffd machines: listed on the network, paired, present (answering on the link).")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await options.run(PeersRequest()) { peers in
            var t = Table("NAME", "FINGERPRINT", "PAIRED", "PRESENT", "ADDRESS")
            for p in peers.items {
                let address = p.addresses.first.map { "\($0):\(p.port ?? 0)" } ?? "-"
                t.add(p.name.terminalSafe, p.fingerprint ?? "", yes(p.paired), yes(p.present), address.terminalSafe)
            }
            t.print(empty: "No peers yet: is handoffd running on another machine of this network?")
        }
    }
}
