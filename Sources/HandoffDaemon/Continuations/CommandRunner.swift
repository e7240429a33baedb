import CHandoffShims
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Dispatch
import HandoffCore
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

/// How a command run by handoffd ended.
public enum CommandResult: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)
    case timedOut(Duration)
    case couldNotStart(String)

    public var succeeded: Bool { self == .exited(0) }

    public var description: String {
        switch self {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "was killed by signal \(signal)"
        case .timedOut(let limit): "did not finish within \(limit) and was killed"
        case .couldNotStart(let why): "could not be started (\(why))"
        }
    }
}

/// Runs exec handlers and the webpage opener: no shell, the given bytes on stdin, output to
/// /dev/null, in a process group of its own that is killed whole when the time is up. The child
/// starts clean: default signal dispositions, no blocked signals, only our own descriptors 0-2,
/// and a small environment (`environment(from:)`), not the daemon's (NOTIFY_SOCKET, agent sockets).
/// At most `maxRunning` run at once: what a paired peer can make us spawn is bounded.
///
/// Written on posix_spawn rather than swift-subprocess: in our tests its timeout teardown left the
/// command's process group running, and concurrent runs stalled. Blocking calls (writing stdin,
/// waitpid) run on Dispatch threads, never on the Swift concurrency pool.
public enum CommandRunner {
    /// How many commands may run at once; `shared` is the daemon's. Each paired peer has a share
    /// (`perPeer`), and peers together leave `max - forPeers` for this machine's own user: one
    /// peer (or several) cannot take every slot and make everyone else's continuation fail.
    public final class Limit: Sendable {
        public let max: Int
        public let perPeer: Int
        public let forPeers: Int
        private let running = NIOLockedValueBox((all: 0, peers: 0, byPeer: [PeerID: Int]()))
        public init(max: Int, perPeer: Int? = nil, forPeers: Int? = nil) {
            self.max = max
            self.perPeer = perPeer ?? max
            self.forPeers = forPeers ?? max
        }
        public static let shared = Limit(max: CommandRunner.maxRunning, perPeer: 4, forPeers: 12)

        /// A slot for the local user (`peer` nil) or a peer; nil if taken, else why not.
        func enter(peer: PeerID?) -> String? {
            running.withLockedValue { r in
                guard r.all < max else { return "\(max) commands are running already; try again when one has finished" }
                if let peer {
                    guard r.byPeer[peer, default: 0] < perPeer else {
                        return "this peer has \(perPeer) commands running here already; try again when one has finished"
                    }
                    guard r.peers < forPeers else { return "peers have \(forPeers) commands running here already; try again shortly" }
                    r.byPeer[peer, default: 0] += 1
                    r.peers += 1
                }
                r.all += 1
                return nil
            }
        }

        func leave(peer: PeerID?) {
            running.withLockedValue { r in
                r.all -= 1
                if let peer {
                    r.peers -= 1
                    let n = r.byPeer[peer, default: 1] - 1
                    r.byPeer[peer] = n > 0 ? n : nil
                }
            }
        }
    }

    public static let maxRunning = 16

    /// What a command sees of the daemon's environment: what locates the user's session and its
    /// display, nothing that hands it the daemon's sockets or agents.
    public static let passedEnvironment: Set<String> = [
        "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR",
        "XDG_SESSION_TYPE", "XDG_CURRENT_DESKTOP", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS", "XDG_DATA_HOME",
        // An app started to continue an activity reaches handoffd (and its desktop) over the session bus.
        "DBUS_SESSION_BUS_ADDRESS"
    ]
    public static let defaultPath = "/usr/local/bin:/usr/bin:/bin"

    public static func environment(from env: [String: String]) -> [String] {
        var out = ["PATH=\(defaultPath)"]
        for (k, v) in env.sorted(by: { $0.key < $1.key }) where passedEnvironment.contains(k) || k.hasPrefix("LC_") { out.append("\(k)=\(v)") }
        return out
    }

    /// Runs a command for the local user (`peer` nil) or for a paired peer (its id: its share).
    public static func run(
        _ command: [String], input: [UInt8] = [], timeout: Duration, limit: Limit = .shared, for peer: PeerID? = nil
    ) async -> CommandResult {
        guard !command.isEmpty else { return .couldNotStart("empty command") }
        if let refusal = limit.enter(peer: peer) { return .couldNotStart(refusal) }
        defer { limit.leave(peer: peer) }
        let pid: pid_t, stdinFD: Int32
        switch spawn(command) {
        case .failure(let why): return .couldNotStart(why.description)
        case .success(let started): (pid, stdinFD) = started
        }
        DispatchQueue.global().async { feed(stdinFD, input) }
        let reaped = Reaper(pid: pid)
        return await withTaskGroup(of: CommandResult?.self) { group in
            group.addTask { await reaped.status() }
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch { return nil }
                return .timedOut(timeout)
            }
            var outcome: CommandResult = .couldNotStart("no result")
            for await result in group {
                guard let result else { continue }
                outcome = result
                if case .timedOut = result {
                    kill(-pid, SIGKILL)
                    _ = await reaped.status()  // reap it before returning
                }
                group.cancelAll()
                break
            }
            return outcome
        }
    }

    private struct SpawnFailure: Error, CustomStringConvertible { let description: String }

    private static func spawn(_ command: [String]) -> Result<(pid_t, Int32), SpawnFailure> {
        var fds: [Int32] = [0, 0]
        guard handoff_pipe2_cloexec(&fds) == 0 else { return .failure(SpawnFailure(description: "pipe: \(String(cString: strerror(errno)))")) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing of the daemon's beyond those three: a descriptor without close-on-exec (the
        // peer port's listener was one) outlived handoffd in a started app, and held the port.
        _ = handoff_spawn_close_from(&actions, 3)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // No blocked signals, every signal at its default (we ignore SIGPIPE; ignored stays
        // ignored across exec otherwise).
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attr, 0)
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment(from: ProcessInfo.processInfo.environment).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, command[0], &actions, &attr, argv, envp)
        close(fds[0])
        guard rc == 0 else {
            close(fds[1])
            return .failure(SpawnFailure(description: "\(command[0]): \(String(cString: strerror(rc)))"))
        }
        return .success((pid, fds[1]))
    }

    private static func feed(_ fd: Int32, _ bytes: [UInt8]) {
        // A command that never reads its stdin must not block us: a closed pipe gives EPIPE.
        signal(SIGPIPE, SIG_IGN)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            offset += n
        }
        close(fd)
    }
}

/// Waits for one child on a Dispatch thread; every caller of `status()` gets the same answer.
private final class Reaper: @unchecked Sendable {
    private let lock = ThreadLock()
    private var result: CommandResult?
    private var waiters: [CheckedContinuation<CommandResult, Never>] = []

    init(pid: pid_t) {
        DispatchQueue.global().async { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let signal = status & 0x7F
            finish(signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal))
        }
    }

    func status() async -> CommandResult {
        await withCheckedContinuation { c in
            lock.lock()
            if let result {
                lock.unlock()
                c.resume(returning: result)
            } else {
                waiters.append(c)
                lock.unlock()
            }
        }
    }

    private func finish(_ r: CommandResult) {
        lock.lock()
        result = r
        let ws = waiters
        waiters = []
        lock.unlock()
        for w in ws { w.resume(returning: r) }
    }
}
