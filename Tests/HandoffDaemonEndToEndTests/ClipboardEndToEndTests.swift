import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

enum ClipboardDisplays {
    static var unavailableReason: String? {
        if let reason = TestHostSet.unavailableReason { return reason }
        for tool in ["/usr/bin/Xvfb", "/usr/bin/xclip", "/usr/bin/sway", "/usr/bin/wl-copy", "/usr/bin/wl-paste", "/usr/bin/setpriv"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (scripts/install-deps.sh installs xvfb, xclip, sway and wl-clipboard)"
        }
        return nil
    }
}

/// The shared clipboard between two paired test hosts, each with a real display and the agent on
/// it, and real clipboard programs as the person's apps: xclip under Xvfb, wl-copy and wl-paste
/// under sway (headless). Bytes are compared as the pasting program wrote them.
@Suite(
    .serialized, .timeLimit(.minutes(4)),
    .enabled(if: ClipboardDisplays.unavailableReason == nil, Comment(rawValue: ClipboardDisplays.unavailableReason ?? "")))
struct ClipboardEndToEndTests {
    static let config = DaemonHost.hawkNotesTypes + "clipboard:\n  offer_seconds: 8\n"

    static func status(_ d: DaemonHost) async throws -> ClipboardStatus {
        let client = try await HandoffClient.connect(socketPath: d.socket)
        defer { Task { await client.close() } }
        return try await client.perform(ClipboardStatusRequest())
    }

    @Test(arguments: [ClipboardDisplay.Kind.x11, .wayland])
    func copiedOnAlphaPastedOnBeta(_ kind: ClipboardDisplay.Kind) async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts, configA: Self.config, configB: Self.config)
        defer {
            a.stop()
            b.stop()
        }
        let alpha = ClipboardDisplay(kind, on: a), beta = ClipboardDisplay(kind, on: b)
        defer {
            alpha.stop()
            beta.stop()
        }
        for (display, daemon) in [(alpha, a), (beta, b)] {
            try await display.start()
            try display.startAgent(daemon)
            try await waitUntil("\(daemon.name)'s agent reports its display", timeout: 20) {
                (try await Self.status(daemon).backend ?? "").hasPrefix(kind.rawValue)
            }
        }
        let files = a.dir + "/files"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)

        // UTF-8 text, HTML and a 10 MB PNG, each copied on alpha and pasted on beta byte for byte.
        var png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        var rng = SplitMix64(seed: 71)
        png += Data((0..<10_000_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        let cases: [(String, Data)] = [
            ("text/plain;charset=utf-8", Data("Tide tables ✓ für Ålesund\n".utf8)), ("text/html", Data("<p>High water <b>06:12</b></p>".utf8)),
            ("image/png", png)
        ]
        for (type, bytes) in cases {
            let source = files + "/copied-\(type.replacingOccurrences(of: "/", with: "_"))"
            try bytes.write(to: URL(fileURLWithPath: source))
            alpha.stopClients()
            try alpha.copy(source, type: type)
            try await waitUntil("beta's clipboard offers alpha's \(type)", timeout: 20) {
                let s = try await Self.status(b)
                guard s.owner == "alpha", s.offers.first?.sizes.first == Int64(bytes.count) else { return false }
                return (await beta.offeredTypes()).contains(type == "text/plain;charset=utf-8" ? "text/plain" : type)
            }
            let pasted = files + "/pasted-\(type.replacingOccurrences(of: "/", with: "_"))"
            let result = await beta.paste(type: type, into: pasted)
            #expect(result.status == 0, "\(type): the paste failed")
            #expect(try Data(contentsOf: URL(fileURLWithPath: pasted)) == bytes, "\(type) crossed changed")
        }
        // No echo: beta pasted, nothing went back to alpha.
        #expect(try await Self.status(a).offers.isEmpty, "beta offered alpha's content back")
        #expect(try await Self.status(a).owner == "this machine")

        // A password manager's copy never leaves alpha: a public copy after it is what beta holds.
        let secret = files + "/secret"
        try Data("hunter2".utf8).write(to: URL(fileURLWithPath: secret))
        alpha.stopClients()
        try alpha.copy(secret, type: "x-kde-passwordManagerHint")
        try await waitUntil("alpha's agent saw the secret copy", timeout: 20) {
            (await alpha.offeredTypes()).contains("x-kde-passwordManagerHint")
        }
        let marker = files + "/after-secret"
        try Data("after the secret".utf8).write(to: URL(fileURLWithPath: marker))
        alpha.stopClients()
        try alpha.copy(marker, type: "text/plain;charset=utf-8")
        try await waitUntil("beta holds the copy after the secret", timeout: 20) {
            try await Self.status(b).offers.first?.sizes == [Int64("after the secret".utf8.count)]
        }
        #expect(!b.log.contains("hunter2") && !a.log.contains("hunter2"))

        // The offer expires (offer_seconds: 8): beta's clipboard no longer claims it.
        try await waitUntil("the offer expired on beta", timeout: 20) { try await Self.status(b).offers.isEmpty }
        try await waitUntil("beta's display no longer offers alpha's copy", timeout: 10) { (await beta.offeredTypes()).isEmpty }
        let stale = await beta.paste(type: "text/plain;charset=utf-8", into: files + "/stale")
        let staleBytes = (try? Data(contentsOf: URL(fileURLWithPath: files + "/stale"))) ?? Data()
        #expect(stale.status != 0 || staleBytes.isEmpty, "a stale paste got something")

        // A paired machine that never answers does not hang the pasting program: alpha stopped
        // (SIGSTOP) after beta took its offer, the paste gets nothing within the agent's bound.
        try Data("frozen".utf8).write(to: URL(fileURLWithPath: marker))
        alpha.stopClients()
        try alpha.copy(marker, type: "text/plain;charset=utf-8")
        try await waitUntil("beta holds the copy", timeout: 20) { try await Self.status(b).offers.first?.sizes == [6] }
        try await waitUntil("beta's display offers it", timeout: 10) { !(await beta.offeredTypes()).isEmpty }
        a.process?.signal(SIGSTOP)
        let hung = await beta.paste(type: "text/plain;charset=utf-8", into: files + "/hung")
        a.process?.signal(SIGCONT)
        #expect(hung.seconds < 8, "the paste waited \(hung.seconds) s")
        let hungBytes = (try? Data(contentsOf: URL(fileURLWithPath: files + "/hung"))) ?? Data()
        #expect(hung.status != 0 || hungBytes.isEmpty)

        // Alpha gone: beta's clipboard no longer claims its copy.
        try Data("going".utf8).write(to: URL(fileURLWithPath: marker))
        alpha.stopClients()
        try alpha.copy(marker, type: "text/plain;charset=utf-8")
        try await waitUntil("beta holds alpha's last copy", timeout: 20) { try await Self.status(b).offers.first?.sizes == [5] }
        a.stop()
        try await waitUntil("beta forgot alpha's copy", timeout: 20) { try await Self.status(b).owner == "nobody" }
        try await waitUntil("beta's display no longer offers it", timeout: 10) { (await beta.offeredTypes()).isEmpty }
    }
}
