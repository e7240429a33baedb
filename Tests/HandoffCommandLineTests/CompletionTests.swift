import Foundation
@testable import HandoffCommandLine
import Testing

@Suite struct CompletionTests {
    /// The bash script completes commands and options at each path (run by bash itself).
    @Test func bashCompletesEachPath() throws {
        let script = try #require(Completions.script(for: "bash", root: Tool.self))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tool-completion-\(UUID().uuidString).bash")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        func complete(_ line: String) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [
                "-c",
                "source \(file.path); read -ra COMP_WORDS <<< \"$1\"; [[ \"$1\" == *' ' ]] && COMP_WORDS+=(''); "
                    + "COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _tool; echo \"${COMPREPLY[*]}\"", "-", line
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            process.waitUntilExit()
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try complete("tool ") == "push group -h --help")
        #expect(try complete("tool group f") == "find")
        #expect(try complete("tool push A --t") == "--to")
        #expect(try complete("tool push --ne") == "--needs-save")
    }

    @Test func zshAndFishNameEveryCommandAndOption() throws {
        for shell in ["zsh", "fish"] {
            let script = try #require(Completions.script(for: shell, root: Tool.self))
            for word in ["push", "group", "find", "needs-save", "socket"] { #expect(script.contains(word), "\(shell): \(word)") }
        }
        #expect(Completions.script(for: "tcsh", root: Tool.self) == nil)
    }

    /// What ArgumentParser's generate-manual reads: its ToolInfoV0 fields.
    @Test func toolInfoIsArgumentParsersJSON() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(ToolInfo.json(Tool.self).utf8)) as? [String: Any])
        #expect(json["serializationVersion"] as? Int == 0)
        let command = try #require(json["command"] as? [String: Any])
        #expect(command["commandName"] as? String == "tool")
        let push = try #require((command["subcommands"] as? [[String: Any]])?.first)
        #expect(push["superCommands"] as? [String] == ["tool"])
        let arguments = try #require(push["arguments"] as? [[String: Any]])
        let to = try #require(arguments.first { ($0["valueName"] as? String) == "to" })
        #expect(to["kind"] as? String == "option")
        #expect(to["isOptional"] as? Bool == false)
        #expect((to["preferredName"] as? [String: String])?["name"] == "to")
        #expect(arguments.first { ($0["valueName"] as? String) == "limit" }?["defaultValue"] as? String == "20")
        #expect(ToolInfo.string("a\"b\\c\n\u{1}") == "\"a\\\"b\\\\c\\n\\u0001\"")
    }
}
