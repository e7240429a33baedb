@testable import HandoffCommandLine
import Testing

/// Help reads as ArgumentParser lays it out (handoffctl's texts are compared whole against
/// ArgumentParser's in HandoffctlCommandLineTests; here the rules, on a small tree).
@Suite struct HelpTextTests {
    @Test func helpOfACommand() {
        #expect(
            HelpText.help([Tool.self, Push.self]) == """
                OVERVIEW: Push an activity to a machine.

                USAGE: tool push [--socket <socket>] [--json] <activity> --to <to> [--info <info> ...] [--count <count>] [--limit <limit>] [--needs-save]

                ARGUMENTS:
                  <activity>              The activity.

                OPTIONS:
                  --socket <socket>       The control socket.
                  --json                  JSON.
                  --to <to>               The machine.
                  --info <info>           An entry (repeatable).
                  --count <count>         How many.
                  --limit <limit>         The most. (default: 20)
                  --needs-save            Hold it.
                  -h, --help              Show help information.


                """)
    }

    @Test func helpOfAGroupAndItsUsage() {
        let help = HelpText.help([Tool.self, Group.self])
        #expect(help.contains("USAGE: tool group <subcommand>\n"))
        #expect(help.contains("SUBCOMMANDS:\n  find                    Find words.\n"))
        #expect(help.hasSuffix("\n  See 'tool help group <subcommand>' for detailed help.\n"))
        #expect(HelpText.usage([Tool.self, Group.self, Find.self]) == "tool group find [<words> ...] [<extra>]")
    }

    @Test func aUsageErrorNamesTheArgumentAndWhereToLook() {
        let text = HelpText.usageError([Tool.self, Push.self], message: "Missing value for '--to <to>'", argumentHelp: "--to <to>  The machine.")
        #expect(
            text == """
                Error: Missing value for '--to <to>'
                Help:  --to <to>  The machine.
                Usage: tool push [--socket <socket>] [--json] <activity> --to <to> [--info <info> ...] [--count <count>] [--limit <limit>] [--needs-save]
                  See 'tool push --help' for more information.

                """)
    }

    @Test func wrappingLeavesTheLastColumnToTheTextsLastWord() {
        // 54 columns beside a label: a word with more after it must leave one free.
        #expect(HelpText.wrapWords("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kk ll", width: 54).count == 2)
        #expect(HelpText.wrapWords("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk", width: 54).count == 1)
        #expect(HelpText.entry("--a-label-of-24-columns-", text: "x") == "  --a-label-of-24-columns-\n                          x\n")
    }

    @Test func namesAreThePropertiesInKebabCase() {
        #expect(Names.kebab("requiredKey") == "required-key")
        #expect(Names.kebab("activityURL") == "activity-url")
        #expect(Names.kebab("URLPath") == "url-path")
        #expect(Names.kebab("continue") == "continue")
    }
}
