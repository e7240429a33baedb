import HandoffCommandLine
import HandoffControl

struct Unpair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpair",
        abstract: "Forget a paired machine; it is told, and this machine's advertising key is rotated."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "The machine to forget (name or fingerprint).") var peer: String

    func run() throws {
        try options.run(UnpairRequest(peer: peer)) { r in
            print("Unpaired \(r.peer.terminalSafe) (\(r.fingerprint)); advertising key generation \(r.advertisingGeneration.map(String.init) ?? "")")
        }
    }
}
