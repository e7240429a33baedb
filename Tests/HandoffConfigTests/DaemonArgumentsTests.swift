import Foundation
import HandoffConfig
import Testing

@Suite struct DaemonArgumentsTests {
    private func run(_ arguments: [String]) throws -> DaemonArguments {
        guard case .run(let parsed) = try DaemonArguments.parse(arguments) else {
            Issue.record("\(arguments) asked for help")
            return DaemonArguments()
        }
        return parsed
    }

    private func failure(_ arguments: [String]) -> String? {
        do {
            _ = try DaemonArguments.parse(arguments)
            return nil
        } catch { return error.message }
    }

    @Test func noArgumentsMeanTheDefaultConfigurationFile() throws {
        let parsed = try run([])
        #expect(parsed.config == "/etc/handoffd/handoffd.yaml")
        #expect(!parsed.configOptional && !parsed.checkConfig)
        #expect(parsed.stateDirectory == nil && parsed.runtimeDirectory == nil && parsed.deviceName == nil && parsed.peerPort == nil)
    }

    /// The user unit's command line (systemd/user/handoffd.service), both spellings of a value.
    @Test func everyOptionIsReadInBothSpellings() throws {
        let parsed = try run([
            "--config", "/home/a/.config/handoffd/handoffd.yaml", "--config-optional", "--state-directory=/home/a/.local/state/handoffd",
            "--runtime-directory", "/run/user/1000/handoffd", "--device-name=Ada's laptop", "--peer-port", "0", "--check-config"
        ])
        var expected = DaemonArguments()
        expected.config = "/home/a/.config/handoffd/handoffd.yaml"
        expected.configOptional = true
        expected.checkConfig = true
        expected.stateDirectory = "/home/a/.local/state/handoffd"
        expected.runtimeDirectory = "/run/user/1000/handoffd"
        expected.deviceName = "Ada's laptop"
        expected.peerPort = 0
        #expect(parsed == expected)
        // A value may hold '=' and may start with '--' when given after a space.
        #expect(try run(["--device-name=a=b"]).deviceName == "a=b")
        #expect(try run(["--device-name", "--odd"]).deviceName == "--odd")
    }

    @Test func versionIsAskedFor() throws {
        #expect(try DaemonArguments.parse(["--version"]) == .version)
        #expect(try DaemonArguments.parse(["--config", "x", "--version"]) == .version)
        #expect(DaemonArguments.help.contains("--version"))
    }

    @Test func helpWinsWhereverItIs() throws {
        #expect(try DaemonArguments.parse(["--config", "x", "--help"]) == .help)
        #expect(try DaemonArguments.parse(["-h"]) == .help)
        #expect(DaemonArguments.help.contains("--peer-port <port>"))
    }

    @Test func whatIsNotTakenIsNamed() {
        #expect(failure(["--conifg", "x"]) == "unknown option '--conifg'")
        #expect(failure(["--config"]) == "'--config' needs a value")
        #expect(failure(["--check-config=yes"]) == "'--check-config' takes no value")
        #expect(failure(["extra"]) == "unexpected argument 'extra'")
        #expect(failure(["-c", "x"]) == "unexpected argument '-c'")
        #expect(failure(["--peer-port", "70000"]) == "'--peer-port' takes a port from 0 to 65535 (0 picks a free one), not '70000'")
        #expect(failure(["--peer-port=seven"]) == "'--peer-port' takes a port from 0 to 65535 (0 picks a free one), not 'seven'")
        #expect(DaemonArguments.Failure(message: "m").description == "handoffd: m\nSee 'handoffd --help'.")
    }

    /// The manual page (config/man/handoffd.1, written by hand) names every option the help names.
    @Test func theManualPageHasEveryOption() throws {
        let page = try String(contentsOf: repositoryRoot.appendingPathComponent("config/man/handoffd.1"), encoding: .utf8)
        // The OPTIONS section's entries: each line's first word that starts with "--".
        let section = try #require(DaemonArguments.help.split(separator: "OPTIONS:").last)
        let options = Set(
            section.split(separator: "\n").compactMap { line in line.split(separator: " ").first { $0.hasPrefix("--") }.map(String.init) })
        #expect(options.count == 9)
        for option in options {
            #expect(
                page.contains("Fl -\(option.dropFirst(2))\n") || page.contains("Fl -\(option.dropFirst(2)) "),
                "\(option) is not in config/man/handoffd.1")
        }
    }
}

/// handoffd reads no library: the books are Hawk Notes' own content (docs/APPS.md).
@Suite struct LibraryOptionTests {
    @Test func handoffdTakesNoLibrary() {
        #expect(throws: DaemonArguments.Failure(message: "unknown option '--library'")) {
            try DaemonArguments.parse(["--library", "/srv/books.json"])
        }
        #expect(!DaemonArguments.help.contains("--library"))
    }
}
