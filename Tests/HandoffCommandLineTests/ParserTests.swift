import HandoffCommandLine
import Testing

/// A small tree with every kind of declaration handoffctl uses.
struct Shared: ParsableArguments {
    @Option(help: "The control socket.") var socket: String?
    @Flag(help: "JSON.") var json = false
}

struct Tool: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tool", abstract: "A tool.", subcommands: [Push.self, Group.self])
}

struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "push", abstract: "Push an activity to a machine.")
    @OptionGroup var options: Shared
    @Argument(help: "The activity.") var activity: String
    @Option(help: "The machine.") var to: String
    @Option(help: "An entry (repeatable).") var info: [String] = []
    @Option(help: "How many.") var count: Int?
    @Option(help: "The most.") var limit: Int = 20
    @Flag(help: "Hold it.") var needsSave = false

    func validate() throws {
        if to == "nobody" { throw ValidationError("say who to push to") }
    }
}

struct Group: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "group", abstract: "Things in a group.", subcommands: [Find.self])
}

struct Find: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "find", abstract: "Find words.")
    @Argument(parsing: .remaining, help: "The words.") var words: [String] = []
    @Argument(help: "Optional.") var extra: String?
}

func parse(_ words: [String]) throws -> any ParsableCommand { try Tool.parseAsRoot(words) }

/// What a parse threw, as the usage message (nil if it threw something else or nothing).
func usageMessage(_ words: [String]) -> String? {
    do {
        _ = try parse(words)
        return nil
    } catch CommandLineError.usage(_, let message, _) {
        return message
    } catch {
        return nil
    }
}

@Suite struct ParserTests {
    @Test func optionsFlagsPositionalsAndGroupsAreRead() throws {
        let words = ["push", "A1", "--to=beta", "--socket", "/s", "--json", "--info", "a", "--info=b", "--count", "3"]
        let push = try #require(try parse(words) as? Push)
        #expect(push.activity == "A1")
        #expect(push.to == "beta")
        #expect(push.options.socket == "/s")
        #expect(push.options.json)
        #expect(push.info == ["a", "b"])
        #expect(push.count == 3)
        #expect(push.limit == 20, "a default when absent")
        #expect(!push.needsSave)
    }

    @Test func absentOptionalsAreNilAndTheLastOfARepeatedSingleWins() throws {
        let push = try #require(try parse(["push", "--to", "a", "X", "--to", "b", "--limit", "5"]) as? Push)
        #expect(push.to == "b")
        #expect(push.options.socket == nil)
        #expect(push.count == nil)
        #expect(push.limit == 5)
        #expect(push.info == [])
    }

    @Test func afterTheTerminatorEverythingIsPositional() throws {
        let find = try #require(try parse(["group", "find", "lady", "--", "--bea"]) as? Find)
        #expect(find.words == ["lady", "--bea"])
        #expect(find.extra == nil)
        #expect((try parse(["group", "find"]) as? Find)?.words == [])
    }

    @Test func wrongUsageSaysWhat() {
        #expect(usageMessage(["push", "A1"]) == "Missing expected argument '--to <to>'")
        #expect(usageMessage(["push", "--to", "b"]) == "Missing expected argument '<activity>'")
        #expect(usageMessage(["push", "A1", "--to"]) == "Missing value for '--to <to>'")
        #expect(usageMessage(["push", "A1", "--to", "b", "--bogus"]) == "Unknown option '--bogus'")
        #expect(usageMessage(["push", "A1", "--to", "b", "-x"]) == "Unknown option '-x'")
        #expect(usageMessage(["push", "A1", "B2", "--to", "b"]) == "Unexpected argument 'B2'")
        #expect(usageMessage(["push", "A1", "--to", "b", "--count", "many"]) == "The value 'many' is invalid for '--count <count>'")
        #expect(usageMessage(["push", "A1", "--to", "b", "--json=yes"]) == "The option '--json' does not take any value, but 'yes' was specified.")
        #expect(usageMessage(["push", "A1", "--to", "nobody"]) == "say who to push to", "validate's ValidationError is wrong usage")
        #expect(usageMessage(["nosuch"]) == "Unknown command 'nosuch'")
        #expect(usageMessage(["group", "nosuch"]) == "Unknown command 'nosuch'")
    }

    @Test func helpIsAskedForAnywhereBeforeTheTerminator() {
        for words in [["push", "--help"], ["push", "--bogus", "-h"], ["help", "push"], ["group"], []] {
            #expect(throws: CommandLineError.self) { try parse(words) }
            do { _ = try parse(words) } catch CommandLineError.help(let path) {
                let want: any ParsableCommand.Type = words.isEmpty ? Tool.self : words.contains("group") ? Group.self : Push.self
                #expect(path.last.map { ObjectIdentifier($0) } == ObjectIdentifier(want))
            } catch {
                Issue.record("\(words): \(error)")
            }
        }
    }

    @Test func completionScriptsAndToolInfoAreAskedForFromAnyCommand() {
        for words in [["--generate-completion-script", "bash"], ["push", "--generate-completion-script=bash"]] {
            do { _ = try parse(words) } catch CommandLineError.completionScript(let shell) { #expect(shell == "bash") } catch {
                Issue.record("\(words): \(error)")
            }
        }
        do { _ = try parse(["--experimental-dump-help"]) } catch CommandLineError.dumpHelp {} catch { Issue.record("\(error)") }
    }
}

/// A group that validates itself, and a command that waits (neither in `Tool`'s tree).
struct Limits: ParsableArguments {
    @Option(help: "The most.") var most: Int = 1
    func validate() throws {
        if most < 1 { throw ValidationError("--most must be at least 1") }
    }
}

struct Bounded: ParsableCommand {
    @OptionGroup var limits: Limits
}

struct Wait: AsyncParsableCommand {
    func run() async throws {}
}

@Suite struct CommandKindTests {
    /// handoffctl asks this of a command's type (through the existential, as it holds it) instead
    /// of casting to `AsyncParsableCommand`, which would search the binary's conformance records.
    @Test func onlyAsyncCommandsRunAsynchronously() {
        let types: [any ParsableCommand.Type] = [Tool.self, Push.self, Find.self, Bounded.self, Wait.self]
        for type in types { #expect(type.runsAsynchronously == (type is any AsyncParsableCommand.Type), "\(type)") }
        #expect(Wait.runsAsynchronously)
    }

    @Test func anOptionGroupValidatesItsValue() throws {
        do {
            _ = try Bounded.parseAsRoot(["--most", "0"])
            Issue.record("--most 0 was taken")
        } catch CommandLineError.usage(_, let message, _) {
            #expect(message == "--most must be at least 1")
        }
        #expect(try #require(try Bounded.parseAsRoot(["--most", "3"]) as? Bounded).limits.most == 3)
    }
}

/// A group option and a command's own of the same name (handoffctl's `pair --timeout`).
struct Bounds: ParsableArguments {
    @Option(help: "Seconds to wait for the answer.") var timeout: Double?
    @Flag(help: "JSON.") var json = false
}

struct Window: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "window", abstract: "Open a window.")
    @OptionGroup var options: Bounds
    @Option(help: "Seconds the window stays open.") var timeout = 120
}

@Suite struct ShadowedOptionTests {
    @Test func aCommandsOwnOptionTakesTheWordAndTheGroupsKeepsItsDefault() throws {
        let window = try #require(try Window.parseAsRoot(["--timeout", "5", "--json"]) as? Window)
        #expect(window.timeout == 5)
        #expect(window.options.timeout == nil)
        #expect(window.options.json)
        let plain = try #require(try Window.parseAsRoot([]) as? Window)
        #expect(plain.timeout == 120 && plain.options.timeout == nil)
    }

    @Test func helpListsTheOptionOnce() {
        let help = HelpText.help([Window.self])
        #expect(help.components(separatedBy: "--timeout <timeout>").count == 3, "\(help)")  // usage line and options, once each
        #expect(help.contains("Seconds the window stays open") && !help.contains("Seconds to wait for the answer"), "\(help)")
    }
}
