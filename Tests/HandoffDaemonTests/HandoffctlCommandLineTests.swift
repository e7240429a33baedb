import Foundation
import HandoffDiscovery
import HandoffTestSupport
import Testing
@testable import HandoffDaemon

/// `handoffctl --socket P status` was refused (`Unknown option '--socket'`),
/// though the README wrote it first.
@Suite struct HandoffctlCommandLineTests {
    @Test(arguments: [
        ["--socket", "/nonexistent/control.sock", "status"], ["status", "--socket", "/nonexistent/control.sock"],
        ["--socket=/nonexistent/control.sock", "--json", "status"], ["--json", "--socket", "/nonexistent/control.sock", "scene", "list"]
    ])
    func socketBeforeOrAfterTheCommand(_ args: [String]) throws {
        let (status, output) = try runCommand([BuiltProducts.path("handoffctl")] + args)
        // 3: handoffd is not running there (not 64, wrong usage).
        #expect(status == 3, "\(output)")
        #expect(output.contains("/nonexistent/control.sock"), "\(output)")
    }

    /// A path that cannot be a socket is a mistyped --socket (64), said as such; it read as
    /// "handoffd is not running (no control socket at /tmp)" (3), or for a long path as a
    /// refusal (1). A socket nothing listens on (left by a stopped handoffd) is still 3. Both the
    /// one-shot door (`status`) and the connection that stays (`watch`) are asked.
    @Test func aPathThatCannotBeTheSocketIsAUsageError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hc-paths-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/notes.txt"
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let leftOver = try SilentSocket()
        leftOver.closeLeavingTheFile()
        let stale = leftOver.path
        defer { unlink(stale) }
        let long = "/tmp/" + String(repeating: "x", count: 120)
        let cases: [(String, Int32, String)] = [
            (dir, 64, "\(dir) is a directory: give the path of handoffd's control socket"),
            (file, 64, "\(file) is a file, not a socket"),
            (file + "/control.sock", 64, "goes through something that is not a directory"),
            (long, 64, "is longer than the 107 bytes a Unix socket's path may have"),
            (stale, 3, "handoffd is not running (no control socket at \(stale))")
        ]
        for (path, want, says) in cases {
            for command in [["status"], ["watch", "--count", "1"]] {
                let (status, output) = try runCommand([BuiltProducts.path("handoffctl")] + command + ["--socket", path])
                #expect(status == want, "\(command) \(path): \(output)")
                #expect(output.contains(says), "\(command) \(path): \(output)")
            }
        }
    }
}

/// A daemon that takes the connection and never answers (stopped, wedged): handoffctl gives up
/// after its bound (--timeout here, 30 s by default) with exit 3 and says what to check.
@Suite struct HandoffctlSilentDaemonTests {
    @Test func aSilentDaemonIsGivenUpOnWithExit3() throws {
        let silent = try SilentSocket()
        defer { silent.close() }
        let started = ContinuousClock.now
        let (status, output) = try runCommand([BuiltProducts.path("handoffctl"), "status", "--socket", silent.path, "--timeout", "0.3"])
        let took = ContinuousClock.now - started
        #expect(status == 3, "\(output)")
        #expect(output.contains("handoffd did not answer `status` within 0.3 s"), "\(output)")
        #expect(output.contains("systemctl status handoffd"), "\(output)")
        #expect(took >= .milliseconds(300) && took < .seconds(10), "gave up after \(took)")
    }
}

/// `pair --accept --yes` pinned whoever answered first. `--yes` now goes only
/// with `--code`, the code the other machine shows.
@Suite struct PairCommandLineTests {
    @Test(arguments: [["pair", "--accept", "--yes"], ["pair", "beta", "--yes"], ["pair", "beta", "--code", "12345"]])
    func yesWithoutTheCodeIsRefused(_ args: [String]) throws {
        let (status, output) = try runCommand([BuiltProducts.path("handoffctl")] + args + ["--socket", "/nonexistent/control.sock"])
        #expect(status == 64, "\(output)")
        #expect(output.contains("--code"), "\(output)")
    }

    /// `pair --timeout` is the window of --accept: elsewhere, or outside handoffd's 1-600 s, it is
    /// wrong usage (it was taken as the answer bound, or clamped without a word).
    @Test(arguments: [
        (["pair", "beta", "--timeout", "3"], "how long --accept waits"), (["pair", "--accept", "--timeout", "0"], "1 to 600 seconds"),
        (["pair", "--accept", "--timeout", "601"], "1 to 600 seconds")
    ])
    func aPairingWindowOutsideItsBoundsIsAUsageError(_ args: [String], _ says: String) throws {
        let (status, output) = try runCommand([BuiltProducts.path("handoffctl")] + args + ["--socket", "/nonexistent/control.sock"])
        #expect(status == 64 && output.contains(says), "\(output)")
    }
}

/// handoffctl reads its command line with HandoffCommandLine (the command that runs is
/// the only one reflected). Its help, its usage errors and its completion scripts read as they
/// did with ArgumentParser, and say `handoffctl`.
@Suite struct CommandLineHelpTests {
    @Test(arguments: [
        (["status", "--help"], 0, "USAGE: handoffctl status [--socket <socket>] [--json]"),
        (["scene"], 0, "USAGE: handoffctl scene <subcommand>"),
        (["scene", "connect", "--help"], 0, "USAGE: handoffctl scene connect"),
        (["help", "send"], 0, "USAGE: handoffctl send"),
        (["status", "--bogus"], 64, "Usage: handoffctl status [--socket <socket>] [--json]"),
        (
            ["send", "--socket", "/nonexistent/control.sock"], 64,
            "Usage: handoffctl send [--socket <socket>] [--json] [--timeout <timeout>] <activity> --to <to>"
        ),
        (["status", "--generate-completion-script", "bash"], 0, "_handoffctl()"),
        (["--generate-completion-script", "bash"], 0, "_handoffctl()"),
        (["nosuch"], 64, "Unknown command 'nosuch'"), (["statu"], 64, "did you mean 'status'?"), (["--version"], 0, "handoffctl 0.2.0"),
        (["help", "scene", "show"], 0, "USAGE: handoffctl scene show [--socket <socket>] [--json] [--timeout <timeout>] <scene>"),
        (["status", "--bogus", "--help"], 0, "USAGE: handoffctl status"),
        (["search", "--limit", "many", "x"], 64, "The value 'many' is invalid for '--limit <limit>'"),
        (["status", "--json=yes"], 64, "The option '--json' does not take any value, but 'yes' was specified."),
        (["send", "x", "--to"], 64, "Missing value for '--to <to>'"),
        (["publish", "--help"], 0, "USAGE: handoffctl publish [<options>] --type <type>"),
        (["--generate-completion-script", "zsh"], 0, "#compdef handoffctl"),
        (["--generate-completion-script=fish"], 0, "complete -c handoffctl"),
        (["--experimental-dump-help"], 0, "\"serializationVersion\":0"),
        (["status", "--timeout", "0"], 64, "--timeout must be a number of seconds above 0"),
        (["status", "--timeout", "soon"], 64, "The value 'soon' is invalid for '--timeout <timeout>'"),
        (["search", "beatr", "--limit", "0", "--socket", "/nonexistent/control.sock"], 64, "--limit must be 1 to 200"),
        (["status", "--socket", ""], 64, "--socket needs the control socket's path"),
        (["search", "beatr", "--continue", "201", "--socket", "/nonexistent/control.sock"], 64, "--continue counts from 1 to 200")
    ])
    func helpAndUsageComeFromHandoffctl(_ args: [String], _ want: Int32, _ says: String) throws {
        let (status, output) = try runCommand([BuiltProducts.path("handoffctl")] + args)
        #expect(status == want, "\(output)")
        #expect(output.contains(says), "\(output)")
    }
}

/// The commands that keep a connection open (`watch`, `handle`, `receive`, `stream offer`) exit 3
/// saying that handoffd closed the connection when it stops: they exited 0 without a word, as
/// if their `--count` had been reached.
@Suite(.serialized, .timeLimit(.minutes(1))) struct HandoffctlDaemonGoneTests {
    @Test func watchAndHandleSaySoWhenHandoffdStops() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("hc-gone-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let ctl = BuiltProducts.path("handoffctl")
        let watch = try ChildProcess(ctl, ["watch", "--socket", a.control.path], stderrPath: errors)
        let handle = try ChildProcess(ctl, ["handle", "org.hawknotes.bookDetail", "--socket", a.control.path], stderrPath: errors)
        defer {
            watch.stop()
            handle.stop()
        }
        do {
            let handling = await offPool { handle.waitForLine(timeout: 10) { $0.hasPrefix("Handling org.hawknotes.bookDetail") } }
            #expect(handling != nil, "\(handle.output)")
            // Watching once an event reaches it.
            try await waitUntil("watch prints an event", timeout: 10) {
                _ = try await SearchTests.publish(a, title: "Lantern", search: false)
                return watch.output.contains { $0.hasPrefix("activitiesChanged") }
            }
        } catch {
            await a.stop()
            throw error
        }
        try await a.stop().get()
        #expect(await offPool { watch.waitForExit(timeout: 10) } == 3)
        #expect(await offPool { handle.waitForExit(timeout: 10) } == 3)
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(said.contains("run `handoffctl watch` again") && said.contains("run `handoffctl handle` again"), "\(said)")
    }
}

/// `watch --event NAME` prints events of that name alone, and `--count` counts those: a script
/// waiting for one event took the first of any kind (the demo printed a pairing advert's goodbye
/// as "A was told").
@Suite(.serialized, .timeLimit(.minutes(1))) struct HandoffctlWatchEventTests {
    @Test func watchWaitsForTheEventItNames() async throws {
        let network = FakeNetwork()
        let a = try await LoopbackDaemon("alpha", on: network)
        try await withStopping(a) {
            let ctl = BuiltProducts.path("handoffctl")
            let all = try ChildProcess(ctl, ["watch", "--socket", a.control.path])
            let one = try ChildProcess(ctl, ["watch", "--event", "activitiesChanged", "--count", "1", "--socket", a.control.path])
            defer {
                all.stop()
                one.stop()
            }
            // Another machine opens its pairing window: alpha's watchers hear of it first.
            let b = try await LoopbackDaemon("beta", on: network)
            try await withStopping(b) {
                let window = Task { try? await b.request("pair-accept", ["timeout": .integer(5)]) }
                defer { window.cancel() }
                try await waitUntil("alpha tells of beta", timeout: 10) { all.output.contains { $0.hasPrefix("peer") } }
                #expect(one.output.isEmpty, "\(one.output)")
                _ = try await SearchTests.publish(a, title: "Lantern", search: false)
                #expect(await offPool { one.waitForExit(timeout: 10) } == 0)
                #expect(one.output.count == 1 && one.output[0].hasPrefix("activitiesChanged "), "\(one.output)")
            }
        }
    }
}

/// `handoffctl receive` checks where it saves before it takes a file: a directory missing or not
/// one failed each transfer only after the other machine had started sending.
@Suite(.serialized, .timeLimit(.minutes(1))) struct HandoffctlReceiveTests {
    @Test func aDirectoryItCannotSaveInIsRefusedAtOnce() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            for (dir, says) in [("/nonexistent-\(UUID().uuidString)", "No such file or directory"), ("/etc/passwd", "it is not a directory")] {
                let argv = [BuiltProducts.path("handoffctl"), "receive", "--dir", dir, "--socket", a.control.path]
                let (status, output) = try await runCommandOffPool(argv)
                #expect(status == 64, "\(output)")
                #expect(output.contains("cannot save files in \(dir): \(says); give another with --dir"), "\(output)")
            }
        }
    }

    /// `status` and `scene` print an empty value as "-" (a blank after the name read as a fault):
    /// here the receive directory, which is the receiving command's own when not configured. An
    /// empty `peers` says how to pair (it asked whether handoffd ran elsewhere, also when it did).
    @Test func anEmptyFieldReadsAsADash() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let (status, output) = try await runCommandOffPool([BuiltProducts.path("handoffctl"), "status", "--socket", a.control.path])
            #expect(status == 0, "\(output)")
            #expect(output.split(separator: "\n").contains { $0.hasPrefix("receiveDirectory") && $0.hasSuffix("  -") }, "\(output)")
            // A table's empty cell too: an activity without a title (scenes: one without a book).
            let published = try await runCommandOffPool([
                BuiltProducts.path("handoffctl"), "publish", "--type", "org.hawknotes.bookDetail", "--info", "bookID=\(UUID().uuidString)",
                "--socket", a.control.path
            ])
            #expect(published.0 == 0, "\(published.1)")
            let (_, listed) = try await runCommandOffPool([BuiltProducts.path("handoffctl"), "activities", "--socket", a.control.path])
            #expect(listed.split(separator: "\n").last?.hasSuffix("advertised  -") == true, "\(listed)")
            // No peer at all: none is paired (paired ones are listed even when away); how to pair one.
            let (_, peers) = try await runCommandOffPool([BuiltProducts.path("handoffctl"), "peers", "--socket", a.control.path])
            #expect(peers.contains("none is paired") && peers.contains("`handoffctl pair --accept` on it"), "\(peers)")
        }
    }
}

/// What a newcomer met with `publish` and `search`: an activity published from the command line
/// could not be made searchable, so search never found what this machine was doing while its hint
/// said it would; an undeclared type did not name the declared ones; `--character` minded case.
@Suite(.serialized, .timeLimit(.minutes(1))) struct HandoffctlPublishSearchTests {
    static func ctl(_ a: LoopbackDaemon, _ args: [String]) async throws -> (status: Int32, output: String) {
        try await runCommandOffPool([BuiltProducts.path("handoffctl")] + args + ["--socket", a.control.path])
    }

    @Test func aSearchablePublishIsFoundHereAndTheRestSaysWhatToDo() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let book = ["--type", "org.hawknotes.bookDetail", "--info", "bookID=E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"]
            let published = try await Self.ctl(a, ["publish"] + book + ["--title", "Lantern notes", "--searchable", "--keyword", "harbour"])
            #expect(published.status == 0, "\(published.output)")
            try await waitUntil("search finds it by its title and its keyword", timeout: 10) {
                let byTitle = try await Self.ctl(a, ["search", "lantern"]).output
                let byKeyword = try await Self.ctl(a, ["search", "harbour"]).output
                return byTitle.contains("Lantern notes") && byKeyword.contains("Lantern notes")
            }
            let none = try await Self.ctl(a, ["search", "zzqx"])
            #expect(none.output.contains("this machine's when published as searchable (`publish --searchable`"), "\(none.output)")

            let undeclared = try await Self.ctl(a, ["publish", "--type", "org.example.nope"])
            #expect(
                undeclared.status != 0
                    && undeclared.output.contains("declared here: org.handoffd.browsing-web, org.handoffd.file, org.hawknotes.bookDetail"),
                "\(undeclared.output)")

            // Hawk Notes publishes its own (handoffctl knows no app's content).
            let lady = try await runCommandOffPool([
                BuiltProducts.path("hawknotes"), "publish", "--character", "lady beatrice", "--socket", a.control.path
            ])
            #expect(lady.status == 0 && lady.output.contains("Published"), "\(lady.output)")
            #expect(try await Self.ctl(a, ["search", "beatrice"]).output.contains("Viewing Lady Beatrice in The Burning Swift"))
        }
    }
}

/// `continue` took the machine and the whole 36-character id: the start of an id now does, and an
/// id alone when one machine offers it; a file send-file cannot read is "no input" (66), not a
/// usage error.
@Suite(.serialized, .timeLimit(.minutes(1))) struct HandoffctlContinueByPrefixTests {
    @Test func theStartOfAnIdIsEnoughAndTheMachineIsFound() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        try await withStopping(a, b) {
            let id = try await SearchTests.publish(a, title: "Lantern", search: false).canonicalString
            let prefix = String(id.prefix(8))
            try await waitUntil("beta lists alpha's activity", timeout: 10) {
                try await HandoffctlPublishSearchTests.ctl(b, ["activities", "--remote", "--json"]).output.contains(id)
            }
            let byPrefix = try await HandoffctlPublishSearchTests.ctl(b, ["continue", prefix, "--json"])
            #expect(byPrefix.status == 0 && byPrefix.output.contains(id), "\(byPrefix.output)")
            let withMachine = try await HandoffctlPublishSearchTests.ctl(b, ["continue", "alpha", prefix.lowercased(), "--json"])
            #expect(withMachine.status == 0 && withMachine.output.contains(id), "\(withMachine.output)")
            let unknown = try await HandoffctlPublishSearchTests.ctl(b, ["continue", "0000aaaa"])
            #expect(unknown.status == 1 && unknown.output.contains("no paired machine offers an activity 0000aaaa"), "\(unknown.output)")
            let tooShort = try await HandoffctlPublishSearchTests.ctl(b, ["continue", "ab"])
            #expect(tooShort.status == 64, "\(tooShort.output)")
            let missing = try await HandoffctlPublishSearchTests.ctl(b, ["send-file", "/nonexistent/notes.txt", "--to", "alpha"])
            #expect(missing.status == 66 && missing.output.contains("cannot read /nonexistent/notes.txt"), "\(missing.output)")
        }
    }
}

/// hawknotes looked nowhere but /usr/share for its library: run from a build, it now finds the
/// tree's, as handoffd does.
@Suite struct HawkNotesLibraryLocationTests {
    @Test func hawknotesFindsTheTreesLibraryFromADebugBuild() throws {
        let (status, output) = try runCommand([BuiltProducts.path("hawknotes"), "--socket", "/tmp/handoffd-none-\(getpid())/control.sock"])
        #expect(status == 3 && output.contains("handoffd is not reachable") && !output.contains("library"), "\(output)")
    }
}
