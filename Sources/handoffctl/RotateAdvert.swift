import HandoffCommandLine
import HandoffControl

struct RotateAdvert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-advert",
        abstract: "Give this machine's advert a new random name and new material now (it also rotates by itself)."
    )
    @OptionGroup var options: ClientOptions

    func run() throws {
        try options.run(RotateAdvertRequest()) { r in print("The advert is now \(r.name)") }
    }
}
