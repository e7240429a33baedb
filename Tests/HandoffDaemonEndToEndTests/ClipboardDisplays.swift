import Foundation
import HandoffTestSupport

/// A display in a test host for the clipboard tests, with the agent on it: Xvfb (X11), or sway
/// with its headless backend (Wayland, zwlr-data-control-v1). sway will not run as root, so it
/// runs as nobody with a runtime directory of its own; the clients (the agent, xclip, wl-copy)
/// run as root and reach its socket. Everything is started in the host and stopped by PID.
final class ClipboardDisplay: @unchecked Sendable {
    enum Kind: String { case x11, wayland }

    let kind: Kind
    let hosts: TestHostSet
    let index: Int
    let dir: String
    private var server: ChildProcess?
    private var agent: ChildProcess?
    private var clients: [ChildProcess] = []
    private(set) var environment: [String: String] = [:]

    init(_ kind: Kind, on daemon: DaemonHost) {
        self.kind = kind
        hosts = daemon.hosts
        index = daemon.index
        dir = daemon.dir + "/display"
    }

    func start() async throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        switch kind {
        case .x11:
            let x = try hosts.spawn(index, "/usr/bin/Xvfb", ["-displayfd", "1", "-nolisten", "tcp", "-nolisten", "unix"])
            server = x
            guard let line = await offPool({ x.waitForLine(timeout: 10, { Int($0.trimmingCharacters(in: .whitespaces)) != nil }) })?.line else {
                throw DesktopSessionError("Xvfb did not start")
            }
            environment = ["DISPLAY": ":" + line.trimmingCharacters(in: .whitespaces)]
        case .wayland:
            let runtime = dir + "/runtime"
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
            chown(runtime, 65534, 65534)
            chmod(runtime, 0o700)
            try "output HEADLESS-1 resolution 640x480\n".write(toFile: dir + "/sway.conf", atomically: true, encoding: .utf8)
            chmod(dir + "/sway.conf", 0o644)
            chmod(dir, 0o755)
            server = try hosts.spawn(
                index, "/usr/bin/setpriv",
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "HOME=\(runtime)", "XDG_RUNTIME_DIR=\(runtime)",
                    "WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1", "WLR_RENDERER=pixman", "/usr/bin/sway", "-c", dir + "/sway.conf"
                ])
            try await waitUntil("sway listens", timeout: 15) { FileManager.default.fileExists(atPath: runtime + "/wayland-1") }
            environment = ["XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-1"]
        }
    }

    /// The agent, on this display, for `daemon`.
    func startAgent(_ daemon: DaemonHost) throws {
        // Its lock file in the test's folder (X11 has no runtime directory here).
        var env = environment.merging(["HANDOFF_SOCKET": daemon.socket]) { $1 }
        if env["XDG_RUNTIME_DIR"] == nil { env["XDG_RUNTIME_DIR"] = dir }
        agent = try hosts.spawn(index, BuiltProducts.path("handoff-clipboard-agent"), [], environment: env)
    }

    /// A program's copy of `file` as `type`, kept running to serve it (as the person's app).
    func copy(_ file: String, type: String) throws {
        let command: [String]
        switch kind {
        case .x11: command = ["/bin/sh", "-c", "exec /usr/bin/xclip -quiet -selection clipboard -t '\(type)' -i '\(file)' >/dev/null"]
        case .wayland: command = ["/bin/sh", "-c", "exec /usr/bin/wl-copy --foreground --type '\(type)' < '\(file)'"]
        }
        clients.append(try hosts.spawn(index, command[0], Array(command.dropFirst()), environment: environment))
    }

    /// A program's paste of `type` into `file`: its exit status and how long it took.
    func paste(type: String, into file: String) async -> (status: Int32, seconds: Double) {
        let command: String
        switch kind {
        case .x11: command = "/usr/bin/xclip -selection clipboard -o -t '\(type)' > '\(file)'"
        case .wayland: command = "/usr/bin/wl-paste --no-newline --type '\(type)' > '\(file)'"
        }
        let started = ContinuousClock.now
        let output = await offPool {
            (try? self.hosts.run(
                self.index, ["/usr/bin/env"] + self.environment.map { "\($0.key)=\($0.value)" } + ["/bin/sh", "-c", command + "; echo rc=$?"]))
                ?? "rc=255"
        }
        let status = Int32(output.components(separatedBy: "rc=").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 255
        let took = ContinuousClock.now - started
        return (status, Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
    }

    /// The types the display's clipboard offers now (empty: nobody owns it).
    func offeredTypes() async -> [String] {
        let command: String
        switch kind {
        case .x11: command = "/usr/bin/xclip -selection clipboard -o -t TARGETS 2>/dev/null"
        case .wayland: command = "/usr/bin/wl-paste --list-types 2>/dev/null"
        }
        let env = environment.map { "\($0.key)=\($0.value)" }
        let output = await offPool { (try? self.hosts.run(self.index, ["/usr/bin/env"] + env + ["/bin/sh", "-c", command + "; true"])) ?? "" }
        return output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Ends the copying programs. wl-copy keeps its buffer in /tmp/wl-copy-buffer-* (not
    /// $TMPDIR) and removes it only when its selection is taken: the clipboard is cleared first.
    func stopClients() {
        if kind == .wayland, !clients.isEmpty {
            _ = try? hosts.run(index, ["/usr/bin/env"] + environment.map { "\($0.key)=\($0.value)" } + ["/usr/bin/wl-copy", "--clear"])
            for client in clients { _ = client.waitForExit(timeout: 5) }
        }
        for client in clients { client.stop() }
        clients = []
    }

    func stop() {
        stopClients()
        agent?.stop()
        server?.stop()
    }
}
