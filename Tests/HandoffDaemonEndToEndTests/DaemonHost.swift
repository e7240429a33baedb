import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import HawkNotes

/// A real handoffd in a test host: its own configuration, state and runtime directories under
/// /tmp, reached over its control socket (a file, so the test process can use it from outside
/// the host's network namespace).
final class DaemonHost: @unchecked Sendable {
    let hosts: TestHostSet
    let index: Int
    let name: String
    let dir: String
    private(set) var process: ChildProcess?

    var socket: String { dir + "/run/control.sock" }
    var logPath: String { dir + "/handoffd.log" }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// `config` is YAML appended to the host's base configuration (types, handlers, opener).
    /// `instance` tells apart two daemons (two identities) made, one after the other, on one host.
    init(_ hosts: TestHostSet, _ index: Int, name: String, config: String = DaemonHost.hawkNotesTypes, instance: String = "") throws {
        self.hosts = hosts
        self.index = index
        self.name = name
        dir = "/tmp/handoffd-e2e/\(hosts.host(index))\(instance)"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        hosts.removeOnTearDown(dir)
        // Hawk Notes installed, as its package would: started from this build to continue its types.
        try FileManager.default.createDirectory(atPath: dir + "/apps", withIntermediateDirectories: true)
        let app = try String(contentsOf: TestHostSet.repositoryRoot.appendingPathComponent("config/apps/org.handoffd.HawkNotes.app"), encoding: .utf8)
            .replacingOccurrences(of: "Exec=hawknotes ", with: "Exec=\(BuiltProducts.path("hawknotes")) --library \(Self.library) ")
        try app.write(toFile: dir + "/apps/org.handoffd.HawkNotes.app", atomically: true, encoding: .utf8)
        let yaml = """
            device_name: \(name)
            peer_port: 7340
            state_directory: \(dir)/state
            runtime_directory: \(dir)/run
            app_directories: [\(dir)/apps]
            log_level: info

            """ + config
        try yaml.write(toFile: dir + "/handoffd.yaml", atomically: true, encoding: .utf8)
    }

    static let hawkNotesTypes = """
        activity_types:
          - type: org.hawknotes.characterDetail
            payload: Character
          - type: org.hawknotes.bookDetail
            required_keys: [bookID]
          - type: org.hawknotes.draftNote
            required_keys: [bookID, draftText]
          - type: org.example.streamed

        """

    static let hawkNotesTypeNames = ["org.hawknotes.characterDetail", "org.hawknotes.bookDetail", "org.hawknotes.draftNote"]

    var sceneDirectory: String { dir + "/state/scenes" }

    /// Starts handoffd and waits until it answers `status` (with Avahi up, unless told not to wait for it).
    func start(environment: [String: String] = [:], waitForAvahi: Bool = true) async throws {
        try launch(environment: environment)
        try await waitUntil("\(name) is up", timeout: 15) {
            guard let s = try? await self.request("status") else { return false }
            return !waitForAvahi || s["avahi"] == "up"
        }
    }

    /// Starts handoffd without waiting for it to answer.
    func launch(environment: [String: String] = [:]) throws {
        // sh execs handoffd (same PID) with stderr, its log, in a file of this host's own.
        process = try hosts.spawn(
            index, "/bin/sh",
            [
                "-c", "exec \"$0\" \"$@\" 2>>'\(logPath)'", BuiltProducts.path("handoffd"),
                "--config", dir + "/handoffd.yaml"
            ], environment: environment)
    }

    /// SIGKILL, reaped.
    func kill9() {
        process?.signal(SIGKILL)
        _ = process?.waitForExit(timeout: 5)
    }

    /// Ends handoffd (SIGTERM, reaped).
    func stop() { process?.stop() }

    func request(_ op: String, _ args: [String: PropertyListValue] = [:]) async throws -> PropertyListValue? {
        let client = try await HandoffClient.connect(socketPath: socket)
        defer { Task { await client.close() } }
        return try await client.request(op, args)
    }

    /// Runs handoffctl against this daemon (from outside the host: only the socket is used).
    func ctl(_ args: [String]) throws -> (status: Int32, output: String) {
        try runCommand([BuiltProducts.path("handoffctl")] + args + ["--socket", socket])
    }

    static let library = TestHostSet.repositoryRoot.appendingPathComponent("config/library.json").path
    static let books = try! Library(contentsOf: URL(fileURLWithPath: library))

    /// The character and the book a Hawk Notes scene shows (its content, in Hawk Notes' own
    /// form: handoffd does not read into it), by name.
    static func character(_ scene: PropertyListValue?) -> String? { books.names(scene?["content"]).character }
    static func book(_ scene: PropertyListValue?) -> String? { books.names(scene?["content"]).book }

    /// The Hawk Notes app's command line on this host (`hawknotes publish --character NAME`).
    func hawknotes(_ args: [String]) throws -> (status: Int32, output: String) {
        try runCommand([BuiltProducts.path("hawknotes")] + args + ["--library", Self.library, "--socket", socket])
    }

    /// Starts a long-running handoffctl (watch, handle, pair --accept) reading its output.
    func ctlProcess(_ args: [String]) throws -> ChildProcess {
        try ChildProcess(BuiltProducts.path("handoffctl"), args + ["--socket", socket], stderrPath: dir + "/handoffctl.err")
    }

    func peer(_ peerName: String) async throws -> PropertyListValue? {
        try await request("peers")?.arrayValue?.first { $0["name"] == peerName }
    }

    /// True once discovery lists the peer (a paired peer is in `peers` whether it is listed or not).
    func lists(_ peerName: String) async throws -> Bool {
        try await peer(peerName)?["listed"] == "true"
    }
}

extension PropertyListValue {
    subscript(_ key: String) -> String? {
        guard let v = dictionaryValue?[key] else { return nil }
        switch v {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .bool(let b): return String(b)
        default: return "\(v)"
        }
    }
}

/// Pairs two daemons through handoffctl, as a person would: each side shows its code, and each
/// is given the code the other shows (what a person types), so only a matching pair confirms.
/// A names B as B's pairing advert shows it (published while B's window is open), or, with
/// `address`, by B's address (as across a router).
func pair(_ a: DaemonHost, _ b: DaemonHost, at address: String? = nil) async throws {
    let target = address ?? b.name
    let accept = try b.ctlProcess(["pair", "--accept", "--json", "--timeout", "30"])
    // Until B's window is open, A's attempt is refused; it is retried until the deadline.
    var asking: ChildProcess?
    var codeA: String?
    try await waitUntil("pairing \(a.name) with \(target)", timeout: 20) {
        let p = try a.ctlProcess(["pair", target, "--json"])
        if let line = p.waitForJSON(timeout: 10, { $0.string("code") != nil }) {
            (asking, codeA) = (p, line.string("code"))
            return true
        }
        _ = p.waitForExit(timeout: 5)
        return false
    }
    let codeB = accept.waitForJSON(timeout: 10) { $0.string("code") != nil }?.string("code")
    guard let asking, let codeA, let codeB else {
        let err = (try? String(contentsOfFile: b.dir + "/handoffctl.err", encoding: .utf8)) ?? ""
        throw TimedOut(what: "pairing codes on both sides; the accepting side printed \(accept.output) and \(err)")
    }
    asking.send(codeB)
    accept.send(codeA)
    guard asking.waitForExit(timeout: 10) == 0, accept.waitForExit(timeout: 10) == 0 else {
        let err = (try? String(contentsOfFile: b.dir + "/handoffctl.err", encoding: .utf8)) ?? ""
        throw TimedOut(what: "both sides confirming codes \(codeA) and \(codeB): \(asking.output) \(accept.output) \(err)")
    }
    // The accepting side need not have resolved A's advert to pair. handoffd waits briefly for it
    // when asked to reach A; the tests wait here so that their own time limits measure the rest.
    // (20 s: A's start may have rotated its advert while its addresses settled, and the new one
    // comes after a gap of up to 11 s: CI once waited 10 s for it through the reflector.)
    guard address == nil else { return }
    do { try await waitUntil("\(b.name) lists \(a.name)", timeout: 20) { try await b.lists(a.name) } } catch {
        print("\(b.name)'s peers: \(String(describing: try? await b.request("peers")))\n\(a.name)'s log:\n\(a.log)\n\(b.name)'s log:\n\(b.log)")
        throw error
    }
}

/// Until each of the two daemons lists the other (20 s each).
func waitUntilListedBothWays(_ a: DaemonHost, _ b: DaemonHost) async throws {
    // A start may rotate the advert once while the addresses settle, and a rotation's new advert
    // comes after a random gap of up to 11 s by default.
    for (host, peer) in [(a, b), (b, a)] {
        try await waitUntil("\(host.name) lists \(peer.name)", timeout: 20) { try await host.lists(peer.name) }
    }
}

/// Two daemons, alpha on host 1 and beta on host 2, started and paired.
func startPaired(_ hosts: TestHostSet, configA: String = DaemonHost.hawkNotesTypes, configB: String = DaemonHost.hawkNotesTypes) async throws -> (
    DaemonHost, DaemonHost
) {
    let a = try DaemonHost(hosts, 1, name: "alpha", config: configA), b = try DaemonHost(hosts, 2, name: "beta", config: configB)
    try await a.start()
    try await b.start()
    try await pair(a, b)
    return (a, b)
}

/// A session with the peer is open, as `host` sees it.
func isPresent(_ host: DaemonHost, _ peer: String) async throws -> Bool { try await host.peer(peer)?["present"] == "true" }

/// handoffctl's pretty-printed JSON as one line.
func oneLine(_ output: String) -> String { output.replacingOccurrences(of: "\n", with: " ") }

/// A string field of handoffctl's JSON output.
func jsonField(_ output: String, _ key: String) -> String? { JSONLine(oneLine(output))?.string(key) }
