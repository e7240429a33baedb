import Foundation
import HandoffContent
import HandoffCore
import Testing
@testable import HandoffDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// Exec handlers inherited the daemon's environment, its ignored SIGPIPE and
/// signal mask, raced for each other's pipes, and got an empty stdin line for non-finite reals.
/// Item 9: the number of children a peer could make us run was unbounded.
@Suite(.serialized, .timeLimit(.minutes(1))) struct CommandRunnerHardeningTests {
    func output(of script: String) async throws -> String {
        let out = scratchFile()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = await CommandRunner.run(["/bin/sh", "-c", script + " > \"$0\"", out], timeout: .seconds(10))
        #expect(r == .exited(0))
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    @Test func aSmallExplicitEnvironment() async throws {
        setenv("NOTIFY_SOCKET", "/run/systemd/notify", 1)
        setenv("SSH_AUTH_SOCK", "/tmp/agent.sock", 1)
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/x", 1)
        setenv("LC_TIME", "C", 1)
        defer {
            unsetenv("NOTIFY_SOCKET")
            unsetenv("SSH_AUTH_SOCK")
            unsetenv("DBUS_SYSTEM_BUS_ADDRESS")
            unsetenv("LC_TIME")
        }
        let env = try await output(of: "env")
        let names = Set(env.split(separator: "\n").compactMap { $0.split(separator: "=").first.map(String.init) })
        #expect(!names.contains("NOTIFY_SOCKET") && !names.contains("SSH_AUTH_SOCK") && !names.contains("DBUS_SYSTEM_BUS_ADDRESS"))
        #expect(env.contains("PATH=\(CommandRunner.defaultPath)") && env.contains("LC_TIME=C"))
        #expect(
            names.subtracting(["PATH", "PWD", "SHLVL", "_", "OLDPWD"]).allSatisfy {
                CommandRunner.passedEnvironment.contains($0) || $0.hasPrefix("LC_")
            })
    }

    @Test func defaultSignalsAndNoMask() async throws {
        // The daemon ignores SIGPIPE (and blocks signals for its own handling); children must not inherit either.
        signal(SIGPIPE, SIG_IGN)
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGUSR2)
        pthread_sigmask(SIG_BLOCK, &block, nil)
        defer { pthread_sigmask(SIG_UNBLOCK, &block, nil) }
        let status = try await output(of: "grep -E '^Sig(Blk|Ign)' /proc/self/status")
        let fields = Dictionary(
            uniqueKeysWithValues: status.split(separator: "\n").map { line in
                let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
                return (parts[0], UInt64(parts[1], radix: 16) ?? .max)
            })
        #expect(fields["SigBlk"] == 0)
        #expect((fields["SigIgn"] ?? .max) & (1 << (UInt64(SIGPIPE) - 1)) == 0)
    }

    /// Many at once (in rounds that fit `maxRunning`): each reads its stdin to the end, which it
    /// reaches only if no other child holds its pipe's write end.
    @Test func concurrentSpawnsDoNotHoldEachOthersStdin() async {
        let limit = CommandRunner.Limit(max: 8)
        for _ in 0..<10 {
            let results = await withTaskGroup(of: CommandResult.self) { group in
                for _ in 0..<limit.max {
                    group.addTask {
                        await CommandRunner.run(
                            ["/bin/sh", "-c", "cat > /dev/null"], input: Array(repeating: 7, count: 100_000),
                            timeout: .seconds(5), limit: limit)
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0 == .exited(0) }, "\(results)")
        }
    }

    @Test func atMostMaxRunningAtOnce() async throws {
        let limit = CommandRunner.Limit(max: 2)
        let results = await withTaskGroup(of: CommandResult.self) { group in
            for _ in 0..<(limit.max + 3) {
                group.addTask { await CommandRunner.run(["/bin/sleep", "1"], timeout: .seconds(5), limit: limit) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { $0 == .exited(0) }.count == limit.max)
        #expect(results.filter { if case .couldNotStart(let why) = $0 { why.contains("running already") } else { false } }.count == 3)
    }

    /// One peer with two sessions (8 in flight each) once held all 16 slots, and every
    /// other continuation failed. Now a peer has its share, and peers leave some to the local user.
    @Test func aPeerTakesOnlyItsShareOfTheSlots() {
        let shared = CommandRunner.Limit.shared
        #expect(shared.max == 16 && shared.perPeer == 4 && shared.forPeers == 12)
        let limit = CommandRunner.Limit(max: shared.max, perPeer: shared.perPeer, forPeers: shared.forPeers)
        for _ in 0..<4 { #expect(limit.enter(peer: "hostile") == nil) }
        #expect(limit.enter(peer: "hostile")?.contains("this peer has 4") == true)
        for p: PeerID in ["b", "c"] { for _ in 0..<4 { #expect(limit.enter(peer: p) == nil) } }
        #expect(limit.enter(peer: "d")?.contains("peers have 12") == true, "peers together leave 4 to the local user")
        for _ in 0..<4 { #expect(limit.enter(peer: nil) == nil) }
        #expect(limit.enter(peer: nil) != nil)
        for p: PeerID in ["hostile", "b", "c"] { for _ in 0..<4 { limit.leave(peer: p) } }
        for _ in 0..<4 { limit.leave(peer: nil) }
        #expect(limit.enter(peer: "hostile") == nil)
        limit.leave(peer: "hostile")
    }

    @Test func infiniteRealsReachTheHandlerAsJSON() throws {
        var a = UserActivity(type: try ActivityType("org.hawknotes.draftNote"))
        try a.addUserInfoEntries(["big": .real(.infinity), "small": .real(-.infinity)])
        let text = String(decoding: a.jsonText, as: UTF8.self)
        #expect(text.contains(#""big":{"$real":"inf"}"#) && text.contains(#""small":{"$real":"-inf"}"#))
    }
}
