import Foundation
import HandoffTestSupport

/// `hawknotes` in a real terminal: a tmux server of the test's own (its socket under the
/// daemon's directory) inside a test host, driven with `send-keys` and read with
/// `capture-pane -p`. Each launch is a new tmux session whose one pane runs the app; the server
/// is stopped by its PID at the end, also on failure (`stop`, from the test's defer).
final class TmuxApp: @unchecked Sendable {
    let daemon: DaemonHost
    let socket: String
    let width: Int, height: Int
    private var serverPID: Int32?
    private var sessions = 0

    init(_ daemon: DaemonHost, name: String = "hawknotes", width: Int = 100, height: Int = 30) {
        self.daemon = daemon
        socket = daemon.dir + "/tmux-\(name).sock"
        (self.width, self.height) = (width, height)
    }

    /// tmux, run in the daemon's test host against this server.
    @discardableResult
    func tmux(_ args: [String]) throws -> String { try daemon.hosts.run(daemon.index, ["tmux", "-S", socket] + args) }

    /// Starts the app in a new session (the pane is the app: it ends when the app ends);
    /// `bareEnvironment`: with nothing but what it needs (no LANG: a root shell on a minimal system).
    func launch(_ args: [String] = [], term: String = "xterm-256color", bareEnvironment: Bool = false) throws {
        sessions += 1
        let library = TestHostSet.repositoryRoot.appendingPathComponent("config/library.json").path
        let command =
            ["env"] + (bareEnvironment ? ["-i"] : [])
            + ["HANDOFF_SOCKET=\(daemon.socket)", "HAWKNOTES_LIBRARY=\(library)", "TERM=\(term)", BuiltProducts.path("hawknotes")]
            + args
        // tmux hands the command to a shell: each word quoted; stderr kept beside the daemon's log.
        let line = "exec " + command.map { "'\($0)'" }.joined(separator: " ") + " 2>>'\(daemon.dir)/hawknotes.err'"
        try tmux(["new-session", "-d", "-s", "w\(sessions)", "-x", String(width), "-y", String(height), line])
        // The server ends with its last session: each launch may have started a new one.
        serverPID = Int32(try tmux(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The current session's screen as text.
    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", "w\(sessions)"]) }

    /// Resizes the window, as a person dragging the terminal's corner.
    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "w\(sessions)", "-x", String(width), "-y", String(height)])
    }

    /// Keys as tmux names them (`Down`, `Enter`, `Escape`) or literal text (`-l`).
    func keys(_ keys: String...) throws { try tmux(["send-keys", "-t", "w\(sessions)"] + keys) }
    func type(_ text: String) throws { try tmux(["send-keys", "-t", "w\(sessions)", "-l", text]) }

    /// Waits until the screen shows what `match` wants; the screen it last saw goes in the failure.
    @discardableResult
    func waitForScreen(_ what: String, timeout: Double = 10, _ match: @escaping (String) -> Bool) async throws -> String {
        var last = ""
        do {
            try await waitUntil(what, timeout: timeout) {
                last = (try? self.screen()) ?? ""
                return match(last)
            }
        } catch {
            let err = (try? String(contentsOfFile: daemon.dir + "/hawknotes.err", encoding: .utf8)) ?? ""
            throw TmuxAppError.notShown(what: what, screen: last, stderr: err)
        }
        return last
    }

    /// The app's PID (the pane's process: the shell exec'd it).
    func appPID() throws -> Int32? {
        Int32(try tmux(["display-message", "-p", "-t", "w\(sessions)", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// SIGKILL to the app, and its end waited for.
    func kill9() async throws {
        guard let pid = try appPID() else { return }
        kill(pid, SIGKILL)
        try await waitUntil("hawknotes \(pid) ended", timeout: 5) { kill(pid, 0) != 0 }
    }

    /// Ends the tmux server this helper started, by its PID.
    func stop() {
        guard let pid = serverPID else { return }
        kill(pid, SIGTERM)
        serverPID = nil
    }
}

enum TmuxAppError: Error, CustomStringConvertible {
    case notShown(what: String, screen: String, stderr: String)

    var description: String {
        switch self {
        case .notShown(let what, let screen, let stderr): "the screen never showed \(what); it showed:\n\(screen)\nhawknotes stderr:\n\(stderr)"
        }
    }
}
