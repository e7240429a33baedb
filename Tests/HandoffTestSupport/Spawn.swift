import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// posix_spawn with pipes for stdin and stdout (and stderr to a file or /dev/null). Foundation's
/// Process on Linux can miss a child's exit and hang in waitUntilExit, so tests spawn directly
/// and reap with waitpid.
struct Spawned {
    let pid: pid_t
    let stdinWrite: Int32
    let stdoutRead: Int32

    static func start(_ argv: [String], stderrPath: String = "/dev/null", mergeStderr: Bool = false) throws -> Spawned {
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0]
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0 else { throw SpawnError("pipe: \(errno)") }
        // Our ends must not leak into this child or any other (dup2 gives the child clean copies).
        for fd in inPipe + outPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        if mergeStderr {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // Its own process group, so that a stop reaches everything it started.
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attr, 0)
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let rc = posix_spawn(&pid, argv[0], &actions, &attr, cArgs, environ)
        close(inPipe[0])
        close(outPipe[1])
        guard rc == 0 else {
            close(inPipe[1])
            close(outPipe[0])
            throw SpawnError("posix_spawn \(argv[0]): \(String(cString: strerror(rc)))")
        }
        return Spawned(pid: pid, stdinWrite: inPipe[1], stdoutRead: outPipe[0])
    }

    /// Runs to completion; returns exit status and everything written to stdout (and stderr).
    static func run(_ argv: [String]) throws -> (status: Int32, output: String) {
        let s = try start(argv, mergeStderr: true)
        close(s.stdinWrite)
        var out = Data()
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(s.stdoutRead, &buf, buf.count)
            if n > 0 { out.append(contentsOf: buf[0..<n]) } else if n == 0 || errno != EINTR { break }
        }
        close(s.stdoutRead)
        return (reap(s.pid), String(decoding: out, as: UTF8.self))
    }

    /// Blocks until `pid` exits and returns its exit status (128 + signal when killed).
    static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return exitCode(status)
    }

    /// The exit status if `pid` has exited, without blocking.
    static func poll(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        return r == pid ? exitCode(status) : nil
    }

    static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

struct SpawnError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Runs a command to completion (no shell); returns its exit status and stdout and stderr together.
public func runCommand(_ argv: [String]) throws -> (status: Int32, output: String) { try Spawned.run(argv) }

/// Runs a blocking wait on a thread of its own, off Swift's pool: a daemon in the test's process
/// answers on the pool meanwhile (two cores: two pool threads).
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { done in Thread { done.resume(returning: body()) }.start() }
}

/// `runCommand` off Swift's pool (a handoffctl asking a daemon in the test's process).
public func runCommandOffPool(_ argv: [String]) async throws -> (status: Int32, output: String) {
    try await withCheckedThrowingContinuation { done in Thread { done.resume(with: Result { try runCommand(argv) }) }.start() }
}
