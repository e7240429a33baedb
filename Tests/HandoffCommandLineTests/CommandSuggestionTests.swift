import Testing
@testable import HandoffCommandLine

/// A mistyped command is named as a command, with the one it most likely meant; `--version` is
/// the root's when it has one.
@Suite struct CommandSuggestionTests {
    static let handoffctl = [
        "status", "peers", "pair", "unpair", "trust", "rotate-advert", "activities", "publish", "resign", "invalidate", "continue", "send",
        "handle", "scenes", "scene", "library", "watch", "connect", "disconnect", "search", "stream", "send-file", "receive"
    ]

    @Test(arguments: [
        ("statu", "status"), ("sttaus", "status"), ("peer", "peers"), ("pari", "pair"), ("continu", "continue"), ("publsh", "publish"),
        ("recieve", "receive"), ("sned", "send"), ("STATUS", "status")
    ])
    func aNearWordNamesItsCommand(_ typed: String, _ meant: String) {
        #expect(CommandSuggestion.nearest(to: typed, among: Self.handoffctl) == meant)
    }

    /// Too far, too short to tell, or as near to two commands: no guess.
    @Test(arguments: ["xyz", "s", "st", "scene-list", "", "frobnicate"])
    func aFarOrAmbiguousWordNamesNone(_ typed: String) {
        #expect(CommandSuggestion.nearest(to: typed, among: Self.handoffctl) == nil)
    }

    @Test func theParserSaysUnknownCommandAndTheGuess() {
        #expect(usageMessage(["psh"]) == "Unknown command 'psh'; did you mean 'push'?")
        #expect(usageMessage(["zzz"]) == "Unknown command 'zzz'")
        #expect(usageMessage(["--bogus"]) == "Unexpected argument '--bogus'")
        // A group takes no option of its own: it says which commands do.
        #expect(usageMessage(["group", "--json"]) == "'group' takes a command before '--json': find")
    }

    @Test func versionIsTheRootsOnly() {
        do { _ = try Versioned.parseAsRoot(["--version"]) } catch CommandLineError.version(let text) {
            #expect(text == "versioned 1.2.3")
        } catch { Issue.record("\(error)") }
        // A root without one: wrong usage, as before.
        #expect(usageMessage(["--version"]) == "Unexpected argument '--version'")
        #expect(HelpText.help([Versioned.self]).contains("--version"))
        #expect(!HelpText.help([Tool.self]).contains("--version"))
    }
}

struct Versioned: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versioned", abstract: "A tool with a version.", version: "versioned 1.2.3", subcommands: [Push.self])
}
