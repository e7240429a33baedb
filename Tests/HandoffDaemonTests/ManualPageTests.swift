import Foundation
import HandoffTestSupport
import Testing

/// handoffctl(1) and hawknotes(1) are in the tree (config/man, written by scripts/dev/man-pages.sh):
/// they appeared only after install. Each names every command and every option the binaries take
/// (from their --experimental-dump-help), so a change to a command fails here until the pages are
/// written again.
@Suite struct ManualPageTests {
    struct Command {
        let path: [String]
        let options: [String]
    }

    /// Every command and subcommand with its long option names, from the tool's dump.
    static func commands(_ tool: String) throws -> [Command] {
        let (status, output) = try runCommand([BuiltProducts.path(tool), "--experimental-dump-help"])
        #expect(status == 0)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        var out: [Command] = []
        func walk(_ c: [String: Any], _ path: [String]) {
            let names = ((c["arguments"] as? [[String: Any]]) ?? []).flatMap { ($0["names"] as? [[String: Any]]) ?? [] }
            out.append(Command(path: path, options: names.compactMap { $0["kind"] as? String == "long" ? $0["name"] as? String : nil }))
            for s in (c["subcommands"] as? [[String: Any]]) ?? [] where (s["shouldDisplay"] as? Bool) != false {
                walk(s, path + [s["commandName"] as? String ?? "?"])
            }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return out
    }

    @Test(arguments: ["handoffctl", "hawknotes"])
    func thePageNamesEveryCommandAndOption(_ tool: String) throws {
        let page = try String(contentsOf: TestHostSet.repositoryRoot.appendingPathComponent("config/man/\(tool).1"), encoding: .utf8)
        for command in try Self.commands(tool) {
            if let last = command.path.last {
                #expect(
                    page.contains(".It Em \(last)"),
                    "\(tool) \(command.path.joined(separator: " ")) is not in config/man/\(tool).1; run scripts/dev/man-pages.sh")
            }
            for option in command.options {
                #expect(
                    page.contains("Fl -\(option)"),
                    "\(tool) \(command.path.joined(separator: " ")) --\(option) is not in config/man/\(tool).1; run scripts/dev/man-pages.sh")
            }
        }
    }
}
