import HandoffCommandLine
import HandoffControl

struct Peers: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers",
        abstract: "List other handoffd machines: listed on the network, paired, present (answering on the link)."
    )
    @OptionGroup var options: ClientOptions

    func run() throws {
        try options.run(PeersRequest()) { peers in
            var t = Table("NAME", "FINGERPRINT", "PAIRED", "PRESENT", "ADDRESS", "FOUND BY")
            for p in peers.items {
                // Where it is dialled (its advert, else where it was last reached): the session's far
                // end is an ephemeral port when the peer opened it. Unpaired: where mDNS lists it.
                let address = p.endpoint ?? p.address ?? p.addresses.first.map { "\($0):\(p.port ?? 0)" } ?? ""
                let found = p.foundBy.isEmpty ? (p.listed && !p.paired ? "mdns" : "") : p.foundBy.joined(separator: ",")
                t.add(p.name.terminalSafe, p.fingerprint ?? "", yes(p.paired), yes(p.present), address.terminalSafe, found)
            }
            // Paired peers are listed even when away, so an empty list means none is paired.
            t.print(
                empty: "No peers: none is paired, and no machine on this network has its pairing window open. To pair one, run "
                    + "`handoffctl pair --accept` on it, then `handoffctl pair NAME` here (or `handoffctl pair HOST` across routers)")
        }
    }
}
