import Foundation

/// A set of test hosts made by Tests/Rigs/testhosts.sh: network namespaces on a private bridge, each
/// with its own dbus-daemon and avahi-daemon. Everything is removed by `tearDown` (also on deinit).
public final class TestHostSet: @unchecked Sendable {
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = repositoryRoot.appendingPathComponent("Tests/Rigs/testhosts.sh").path

    /// Why test hosts cannot be made here, or nil when they can.
    public static let unavailableReason: String? = {
        if getuid() != 0 { return "needs root to create network namespaces; run scripts/test.sh as root" }
        for tool in ["/usr/sbin/avahi-daemon", "/usr/bin/dbus-daemon", "/usr/bin/nsenter"] where !FileManager.default.fileExists(atPath: tool) {
            return "\(tool) is missing; run scripts/install-deps.sh"
        }
        return nil
    }()

    public let name: String
    public let count: Int
    private var children: [ChildProcess] = []
    /// Files and directories the tests made for these hosts, removed by `tearDown`.
    private var scratch: [String] = []
    private let lock = NSLock()
    private var down = false

    /// Makes hosts NAME1...NAMEcount. Names are random so that a crashed run cannot collide.
    /// `routed`: each host on a subnet of its own behind a router namespace that forwards unicast
    /// only, so that no multicast (mDNS) passes between them.
    public init(count: Int, routed: Bool = false) throws {
        let letters = "abcdefghijklmnopqrstuvwxyz"
        name = "t" + String((0..<6).map { _ in letters.randomElement()! })
        self.count = count
        try Self.script(["up", name, String(count)] + (routed ? ["routed"] : []))
    }

    /// Moves host i's IPv4 address to .last of its subnet while everything keeps running; returns it.
    @discardableResult
    public func readdress(_ i: Int, to last: Int) throws -> String {
        try Self.script(["readdr", host(i), String(last)]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func host(_ i: Int) -> String { "\(name)\(i)" }

    /// The IPv4 address of host i.
    public func address(_ i: Int) throws -> String { try Self.script(["addr", host(i)]).trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Starts a program inside host i (its network and mount namespaces).
    public func spawn(_ i: Int, _ executable: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> ChildProcess {
        let pid = try Self.script(["pid", host(i)]).trimmingCharacters(in: .whitespacesAndNewlines)
        let env = environment.map { "\($0.key)=\($0.value)" }
        let log = "/run/handoff-testhosts/\(name)/\(host(i))/children.log"
        let child = try ChildProcess(
            "/usr/bin/nsenter", ["-t", pid, "-m", "-n", "--", "/usr/bin/env"] + env + [executable] + arguments,
            stderrPath: log)
        lock.withLock { children.append(child) }
        return child
    }

    /// Runs a program inside host i to completion and returns its output.
    @discardableResult
    public func run(_ i: Int, _ arguments: [String]) throws -> String { try Self.script(["exec", host(i)] + arguments) }

    /// start | stop | kill | restart host i's avahi-daemon.
    public func avahi(_ i: Int, _ action: String) throws { try Self.script(["avahi", host(i), action]) }

    /// start | stop host i's dbus-daemon.
    public func dbus(_ i: Int, _ action: String) throws { try Self.script(["dbus", host(i), action]) }

    /// start | stop a session bus in host i, at `TestHostSet.sessionBus` (a desktop session's bus).
    public func session(_ i: Int, _ action: String) throws { try Self.script(["session", host(i), action]) }
    public static let sessionBus = "unix:path=/run/dbus/session"

    /// Routed sets: start | stop | kill named (BIND 9, zone handoff.test) in the router namespace.
    public func named(_ action: String) throws { try Self.script(["named", name, action]) }

    /// The TSIG key statement named accepts updates signed with (tsig-keygen format).
    public func namedKey() throws -> String { try Self.script(["named", name, "key"]) }

    /// After `named("start-owned")`: machine N's own key statement (machine1-key .. machine4-key).
    public func namedKey(machine: Int) throws -> String { try Self.script(["named", name, "key", String(machine)]) }

    /// Routed sets: start | stop an Avahi reflector (for _handoff._tcp) in the router namespace.
    public func reflector(_ action: String) throws { try Self.script(["reflector", name, action]) }

    /// Routed sets: the router's address on host i's subnet (where its DNS server answers).
    public func routerAddress(_ i: Int) throws -> String {
        let a = try address(i)
        return a.split(separator: ".").dropLast().joined(separator: ".") + ".254"
    }

    public func tearDown() {
        let kids: [ChildProcess] = lock.withLock {
            if down { return [] }
            down = true
            return children
        }
        for c in kids { c.stop() }
        _ = try? Self.script(["down", name])
        let paths = lock.withLock { scratch }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
        // Their parents too (such as /tmp/handoffd-e2e), once no other set uses them: rmdir
        // removes only an empty directory.
        for parent in Set(paths.map { ($0 as NSString).deletingLastPathComponent }) where parent.hasPrefix("/tmp/") {
            rmdir(parent)
        }
    }

    /// Removes `path` when the hosts are torn down.
    public func removeOnTearDown(_ path: String) { lock.withLock { scratch.append(path) } }

    deinit { tearDown() }

    @discardableResult
    static func script(_ args: [String]) throws -> String {
        let (status, output) = try Spawned.run(["/bin/bash", script] + args)
        guard status == 0 else { throw TestHostError(command: args.joined(separator: " "), output: output) }
        return output
    }
}

public struct TestHostError: Error, CustomStringConvertible {
    public let command: String
    public let output: String
    public var description: String { "testhosts.sh \(command) failed: \(output)" }
}

/// The built products folder (where handoff-discovery-probe lives), next to the test bundle.
public enum BuiltProducts {
    public static func path(_ name: String) -> String {
        let bundle = Bundle.main.bundleURL
        var dir = bundle
        // The test runner's bundle sits in .build/<triple>/<config>/; products are beside it.
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return TestHostSet.repositoryRoot.appendingPathComponent(".build/debug/\(name)").path
    }
}
