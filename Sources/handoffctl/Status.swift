import HandoffCommandLine
import HandoffControl

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show this machine's handoffd: identity, advert, counts.")
    @OptionGroup var options: ClientOptions

    func run() throws {
        try options.run(StatusRequest()) { status in
            printFields(
                status.propertyList,
                order: [
                    "device", "fingerprint", "advertisedAs", "avahi", "avahiProblem", "port", "peersListed", "peersPaired",
                    "peersPresent", "wideArea", "activities", "scenes", "pairingLocked", "uptimeSeconds", "pid"
                ])
        }
    }
}
