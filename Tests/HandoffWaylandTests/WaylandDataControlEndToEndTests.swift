import Foundation
import HandoffAsync
import HandoffClipboard
import HandoffTestSupport
import HandoffWayland
import Testing

enum WaylandCompositor {
    static var unavailableReason: String? {
        if let reason = TestHostSet.unavailableReason { return reason }
        for tool in ["/usr/bin/sway", "/usr/bin/wl-copy", "/usr/bin/wl-paste", "/usr/bin/setpriv"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (scripts/install-deps.sh installs sway and wl-clipboard)"
        }
        return nil
    }
}

/// WaylandClipboard against a real compositor that offers data-control (sway, headless, in a
/// test host, as nobody: sway will not run as root; this process reaches its socket by path) and
/// wl-copy and wl-paste as the other clients.
@Suite(
    .serialized, .timeLimit(.minutes(2)),
    .enabled(if: WaylandCompositor.unavailableReason == nil, Comment(rawValue: WaylandCompositor.unavailableReason ?? "")))
struct WaylandDataControlEndToEndTests {
    final class Compositor: @unchecked Sendable {
        let hosts: TestHostSet
        let sway: ChildProcess
        let dir: URL
        let runtime: String
        var clients: [ChildProcess] = []
        var socket: String { runtime + "/wayland-1" }
        var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-1"] }

        init() async throws {
            hosts = try await offPool { Result { try TestHostSet(count: 1) } }.get()
            // Under /tmp itself, not $TMPDIR: sway runs as nobody, and test.sh's TMPDIR is root's
            // own (0700), which nobody cannot enter.
            dir = URL(fileURLWithPath: "/tmp/handoff-wayland-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            chmod(dir.path, 0o755)
            runtime = dir.path + "/runtime"
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
            chown(runtime, 65534, 65534)
            chmod(runtime, 0o700)
            try "output HEADLESS-1 resolution 640x480\n".write(toFile: dir.path + "/sway.conf", atomically: true, encoding: .utf8)
            chmod(dir.path + "/sway.conf", 0o644)
            sway = try hosts.spawn(
                1, "/usr/bin/setpriv",
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "HOME=\(runtime)", "XDG_RUNTIME_DIR=\(runtime)",
                    "WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1", "WLR_RENDERER=pixman", "/usr/bin/sway", "-c", dir.path + "/sway.conf"
                ])
            let socket = runtime + "/wayland-1"
            try await waitUntil("sway listens", timeout: 15) { FileManager.default.fileExists(atPath: socket) }
        }

        func paste(_ type: String) -> (status: Int32, output: Data) {
            let out = dir.appendingPathComponent("out-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: out) }
            let env = environment.map { "\($0.key)=\($0.value)" }
            let command = "/usr/bin/wl-paste --no-newline --type '\(type)' > '\(out.path)'; echo rc=$?"
            let result = (try? hosts.run(1, ["/usr/bin/env"] + env + ["/bin/sh", "-c", command])) ?? ""
            let status = Int32(result.components(separatedBy: "rc=").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 255
            return (status, (try? Data(contentsOf: out)) ?? Data())
        }

        func types() -> [String] {
            let env = environment.map { "\($0.key)=\($0.value)" }
            let out = (try? hosts.run(1, ["/usr/bin/env"] + env + ["/bin/sh", "-c", "/usr/bin/wl-paste --list-types 2>/dev/null; true"])) ?? ""
            return out.split(separator: "\n").map(String.init)
        }

        func copy(_ bytes: Data, type: String) throws {
            let file = dir.appendingPathComponent("copy-\(UUID().uuidString)")
            try bytes.write(to: file)
            clients.append(
                try hosts.spawn(
                    1, "/bin/sh", ["-c", "exec /usr/bin/wl-copy --foreground --type '\(type)' < '\(file.path)'"], environment: environment))
        }

        func stop() {
            // wl-copy keeps its buffer in /tmp/wl-copy-buffer-* (not $TMPDIR) and removes it only
            // when its selection is taken: the clipboard is cleared first.
            let env = environment.map { "\($0.key)=\($0.value)" }
            _ = try? hosts.run(1, ["/usr/bin/env"] + env + ["/usr/bin/wl-copy", "--clear"])
            for c in clients { _ = c.waitForExit(timeout: 5) }
            for c in clients { c.stop() }
            sway.stop()
            hosts.tearDown()
            try? FileManager.default.removeItem(at: dir)
        }
    }

    static func next(_ copies: AsyncStream<DisplayCopy>) async -> DisplayCopy? {
        await Timeout.race(.seconds(10)) {
            for await copy in copies { return copy }
            return nil
        }
    }

    @Test func copiesByAnotherClientAreRead() async throws {
        let compositor = try await Compositor()
        defer { compositor.stop() }
        let clipboard = try WaylandClipboard.open(display: compositor.socket, limit: 16 << 20).get()
        #expect(clipboard.protocolName == "zwlr-data-control-v1")
        #expect(clipboard.start() == 0)
        try compositor.copy(Data("Ålesund ✓".utf8), type: "text/plain;charset=utf-8")
        let text = await Self.next(clipboard.copies)
        #expect(text?.items.map(\.mime) == ["text/plain;charset=utf-8"] && text?.items.first?.bytes == Array("Ålesund ✓".utf8))
        var rng = SplitMix64(seed: 3)
        let image = Data((0..<1_500_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        try compositor.copy(image, type: "image/png")
        let png = await Self.next(clipboard.copies)
        #expect(png?.items.map(\.mime) == ["image/png"] && png?.items.first?.bytes == Array(image))
        try compositor.copy(Data("hunter2".utf8), type: "x-kde-passwordManagerHint")
        let secret = await Self.next(clipboard.copies)
        #expect(secret?.items.map(\.mime) == ["x-kde-passwordManagerHint"] && secret?.items.first?.bytes == [], "a secret's bytes were read")
    }

    @Test func anOwnedClipboardServesPastesAndIsGivenUp() async throws {
        let compositor = try await Compositor()
        defer { compositor.stop() }
        let clipboard = try WaylandClipboard.open(display: compositor.socket, limit: 16 << 20).get()
        #expect(clipboard.start() == 0)
        var rng = SplitMix64(seed: 5)
        let image = [UInt8]((0..<1_000_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        clipboard.own(["text/plain;charset=utf-8", "image/png", "text/html"]) { mime in
            switch mime {
            case "text/plain;charset=utf-8": Array("high water ✓".utf8)
            case "image/png": image
            default: nil
            }
        }
        try await waitUntil("the compositor offers our types", timeout: 10) { (await offPool { compositor.types() }).contains("image/png") }
        #expect((await offPool { compositor.paste("text/plain") }).output == Data("high water ✓".utf8))
        #expect((await offPool { compositor.paste("image/png") }).output == Data(image))
        #expect((await offPool { compositor.paste("text/html") }).output.isEmpty, "a type with no bytes pasted something")
        clipboard.release()
        try await waitUntil("the clipboard was given up", timeout: 10) { (await offPool { compositor.types() }).isEmpty }
    }

    /// With `primary`, the primary selection is watched and owned as well.
    @Test func primaryTooWhenAsked() async throws {
        let compositor = try await Compositor()
        defer { compositor.stop() }
        let clipboard = try WaylandClipboard.open(display: compositor.socket, primary: true, limit: 16 << 20).get()
        #expect(clipboard.start() == 0)
        let file = compositor.dir.appendingPathComponent("selected")
        try Data("selected words".utf8).write(to: file)
        let command = "exec /usr/bin/wl-copy --foreground --primary --type 'text/plain;charset=utf-8' < '\(file.path)'"
        compositor.clients.append(try compositor.hosts.spawn(1, "/bin/sh", ["-c", command], environment: compositor.environment))
        let selected = await Self.next(clipboard.copies)
        #expect(selected?.items.first?.bytes == Array("selected words".utf8))
        clipboard.own(["text/plain;charset=utf-8"]) { _ in Array("from the other machine".utf8) }
        let env = compositor.environment.map { "\($0.key)=\($0.value)" }
        let paste = "/usr/bin/wl-paste --primary --no-newline --type text/plain; echo; echo rc=$?"
        try await waitUntil("the primary selection is ours", timeout: 10) {
            let out = await offPool { (try? compositor.hosts.run(1, ["/usr/bin/env"] + env + ["/bin/sh", "-c", paste])) ?? "" }
            return out.hasPrefix("from the other machine")
        }
    }
}
