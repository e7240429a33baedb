import Foundation
import HandoffTestSupport

/// A desktop session in a test host: its session bus, and (for notifications) Xvfb and dunst, a
/// real notification server, whose rule runs a script that writes each notification it shows
/// (`id|summary|body`) to a file. Everything is started inside the host and stopped by PID
/// (`stop`, from the test's defer, also on failure).
final class DesktopSession: @unchecked Sendable {
    let hosts: TestHostSet
    let index: Int
    let dir: String
    private var xvfb: ChildProcess?
    private var dunst: ChildProcess?
    private(set) var display: String?

    init(_ daemon: DaemonHost) {
        hosts = daemon.hosts
        index = daemon.index
        dir = daemon.dir + "/desktop"
    }

    /// The environment a process in this session gets.
    var environment: [String: String] {
        var e = ["DBUS_SESSION_BUS_ADDRESS": TestHostSet.sessionBus]
        if let display { e["DISPLAY"] = display }
        return e
    }

    var shownLog: String { dir + "/shown.log" }

    func start(notifications: Bool = false) async throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try hosts.session(index, "start")
        guard notifications else { return }
        // -displayfd: Xvfb takes a free display number and writes it; no TCP, no socket file (the
        // abstract socket is the host's network namespace's own).
        let x = try hosts.spawn(index, "/usr/bin/Xvfb", ["-displayfd", "1", "-nolisten", "tcp", "-nolisten", "unix"])
        xvfb = x
        guard let line = x.waitForLine(timeout: 10, { Int($0.trimmingCharacters(in: .whitespaces)) != nil })?.line else {
            throw DesktopSessionError("Xvfb did not start")
        }
        display = ":" + line.trimmingCharacters(in: .whitespaces)
        let script = dir + "/log-notification.sh"
        try "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$DUNST_ID\" \"$DUNST_SUMMARY\" \"$DUNST_BODY\" >> '\(shownLog)'\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let config = dir + "/dunstrc"
        // markup = full, as Debian's own dunstrc has it: a server that reads bodies as markup
        // (GNOME Shell and Plasma do too), which a machine's name must not be able to use. No
        // notification expires (dunst closes one after 10 s by default): what closes one in a
        // test is handoffd, as GNOME Shell keeps them until then.
        try
            ("[global]\n    monitor = 0\n    follow = none\n    markup = full\n[urgency_low]\n    timeout = 0\n[urgency_normal]\n    timeout = 0\n"
            + "[handoff]\n    appname = Handoff\n    script = \(script)\n").write(
                toFile: config, atomically: true, encoding: .utf8)
        dunst = try hosts.spawn(index, "/usr/bin/dunst", ["-config", config], environment: environment)
        try await waitUntil("dunst owns org.freedesktop.Notifications", timeout: 10) {
            (try? self.run(["dunstctl", "is-paused"]))?.contains("false") == true
        }
    }

    /// A command in the session (its bus, its display).
    @discardableResult
    func run(_ command: [String]) throws -> String {
        try hosts.run(index, ["env"] + environment.map { "\($0.key)=\($0.value)" } + command)
    }

    /// The handoffd D-Bus client written from docs/DBUS.md (Tests/dbus/handoff_dbus.py): its JSON lines.
    func python(_ args: [String]) throws -> [JSONLine] {
        let script = TestHostSet.repositoryRoot.appendingPathComponent("Tests/dbus/handoff_dbus.py").path
        return try run(["/usr/bin/python3", script] + args).split(separator: "\n").compactMap { JSONLine(String($0)) }
    }

    /// The same client kept running (a handler, a watcher).
    func pythonProcess(_ args: [String]) throws -> ChildProcess {
        let script = TestHostSet.repositoryRoot.appendingPathComponent("Tests/dbus/handoff_dbus.py").path
        return try hosts.spawn(index, "/usr/bin/python3", [script] + args, environment: environment)
    }

    /// What dunst showed: (id, summary, body), oldest first.
    var shown: [(id: String, summary: String, body: String)] {
        let text = (try? String(contentsOfFile: shownLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            return f.count >= 3 ? (f[0], f[1], f[2...].joined(separator: "|")) : nil
        }
    }

    /// Notifications on screen now.
    func displayed() throws -> Int { Int(try run(["dunstctl", "count", "displayed"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }

    func stop() {
        dunst?.stop()
        xvfb?.stop()
        try? hosts.session(index, "stop")
    }
}

struct DesktopSessionError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
