import Foundation
import HandoffTestSupport
import Testing

/// A handoff-discovery-probe running inside one test host.
struct Probe {
    let child: ChildProcess

    static func start(_ hosts: TestHostSet, _ i: Int) throws -> Probe {
        let p = Probe(child: try hosts.spawn(i, BuiltProducts.path("handoff-discovery-probe")))
        #expect(p.wait("ready", timeout: 5) { $0["ready"] != nil } != nil)
        return p
    }

    func send(_ command: String) { child.send(command) }

    /// Waits for a JSON line; records a test issue naming `what` if none comes by the deadline.
    @discardableResult
    func wait(_ what: String, from: Int = 0, timeout: Double = 5, _ match: (JSONLine) -> Bool) -> JSONLine? {
        let line = child.waitForJSON(from: from, timeout: timeout, match)
        if line == nil {
            Issue.record("timed out after \(timeout)s waiting for \(what); output:\n\(child.output.suffix(20).joined(separator: "\n"))")
        }
        return line
    }

    @discardableResult
    func event(_ name: String, from: Int = 0, timeout: Double = 5, _ match: (JSONLine) -> Bool = { _ in true }) -> JSONLine? {
        wait("event \(name)", from: from, timeout: timeout) { $0.event == name && match($0) }
    }

    /// The peers the probe lists right now.
    func peers() -> [[String: Any]]? {
        let from = child.output.count
        send("peers")
        guard let line = wait("peers", from: from, timeout: 5, { $0["peers"] != nil }) else { return nil }
        return line["peers"] as? [[String: Any]]
    }

    /// The peer names the probe lists right now.
    func peerNames() -> [String]? { peers()?.compactMap { $0["name"] as? String }.sorted() }

    var lineCount: Int { child.output.count }

    /// `read()` asked again every 0.2 s until `done` says yes or the deadline passes; its last
    /// answer either way: each host resolves in its own time.
    func asked<T>(timeout: Double, _ read: () -> T, until done: (T) -> Bool) -> T {
        let deadline = Date().addingTimeInterval(timeout)
        var value = read()
        while !done(value), Date() < deadline {
            _ = child.waitForLine(from: lineCount, timeout: 0.2) { _ in false }
            value = read()
        }
        return value
    }

    /// The peer names once they are `wanted`, or what they were at the deadline (one host was
    /// once asked before it had resolved a renamed service).
    func peerNames(becoming wanted: [String], timeout: Double = 10) -> [String] {
        asked(timeout: timeout, { peerNames() ?? [] }, until: { $0 == wanted })
    }

    /// The addresses the probe lists for `name` once they include an IPv4 and an IPv6 one, or
    /// what they were at the deadline. Each family's instance is browsed and resolved on its own:
    /// one dropped leaves the peer reachable by the other alone.
    func addressesOfBothFamilies(for name: String, timeout: Double = 10) -> [String] {
        asked(
            timeout: timeout, { peers()?.first { $0["name"] as? String == name }?["addresses"] as? [String] ?? [] },
            until: Self.holdBothFamilies)
    }

    /// Whether the addresses hold an IPv6 one (`[…]`) and an IPv4 one.
    static func holdBothFamilies(_ addresses: [String]) -> Bool {
        addresses.contains { $0.hasPrefix("[") } && addresses.contains { !$0.hasPrefix("[") }
    }
}

func seconds(_ ns: UInt64) -> Double { Double(ns) / 1e9 }

/// Two test hosts with a probe on each, A publishing `publish` (e.g. "alpha 5123 fp=abc") and B
/// having resolved it. The caller tears the hosts down.
func twoHostsWithAPublishing(_ publish: String) throws -> (TestHostSet, Probe, Probe) {
    let hosts = try TestHostSet(count: 2)
    do {
        let a = try Probe.start(hosts, 1), b = try Probe.start(hosts, 2)
        let name = String(publish.split(separator: " ")[0])
        a.send("publish \(publish)")
        b.event("peerAppeared") { $0.peerName == name }
        return (hosts, a, b)
    } catch {
        hosts.tearDown()
        throw error
    }
}
