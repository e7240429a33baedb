import Foundation
import HandoffAsync
import HandoffClipboard
import HandoffTestSupport
import HandoffX11
import Testing

enum X11Server {
    static var unavailableReason: String? {
        if let reason = TestHostSet.unavailableReason { return reason }
        for tool in ["/usr/bin/Xvfb", "/usr/bin/xclip"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (scripts/install-deps.sh installs xvfb and xclip)"
        }
        return nil
    }
}

/// X11Clipboard against a real X server (Xvfb, in a test host; this process reaches it through
/// its socket file) and xclip as the other program: copies are read, INCR included, and an owned
/// clipboard serves pastes.
@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: X11Server.unavailableReason == nil, Comment(rawValue: X11Server.unavailableReason ?? "")))
struct X11SelectionEndToEndTests {
    final class Server: @unchecked Sendable {
        let hosts: TestHostSet
        let xvfb: ChildProcess
        let display: String
        let dir: URL
        var clients: [ChildProcess] = []

        init() async throws {
            hosts = try await offPool { Result { try TestHostSet(count: 1) } }.get()
            dir = try temporaryDirectory()
            // The socket file as well as the abstract one: this process is outside the host's
            // network namespace, where the abstract socket lives.
            xvfb = try hosts.spawn(1, "/usr/bin/Xvfb", ["-displayfd", "1", "-nolisten", "tcp"])
            let x = xvfb
            guard let line = await offPool({ x.waitForLine(timeout: 10, { Int($0.trimmingCharacters(in: .whitespaces)) != nil }) })?.line else {
                throw CancellationError()
            }
            display = ":" + line.trimmingCharacters(in: .whitespaces)
        }

        func xclip(_ arguments: String) -> (status: Int32, output: Data) {
            let out = dir.appendingPathComponent("out-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: out) }
            let command = "/usr/bin/xclip \(arguments) > '\(out.path)'; echo rc=$?"
            let result = (try? hosts.run(1, ["/usr/bin/env", "DISPLAY=\(display)", "/bin/sh", "-c", command])) ?? ""
            let status = Int32(result.components(separatedBy: "rc=").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 255
            return (status, (try? Data(contentsOf: out)) ?? Data())
        }

        /// A program that copies `bytes` as `type` and keeps serving them.
        func copy(_ bytes: Data, type: String) throws {
            let file = dir.appendingPathComponent("copy-\(UUID().uuidString)")
            try bytes.write(to: file)
            let command = "exec /usr/bin/xclip -quiet -selection clipboard -t '\(type)' -i '\(file.path)' >/dev/null"
            clients.append(try hosts.spawn(1, "/bin/sh", ["-c", command], environment: ["DISPLAY": display]))
        }

        func stop() {
            for c in clients { c.stop() }
            xvfb.stop()
            // Its socket file, which a stopped Xvfb may leave.
            let number = display.dropFirst()
            for leftover in ["/tmp/.X11-unix/X\(number)", "/tmp/.X\(number)-lock"] { try? FileManager.default.removeItem(atPath: leftover) }
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

    @Test func copiesByAnotherProgramAreReadIncrementalOnesToo() async throws {
        let server = try await Server()
        defer { server.stop() }
        let clipboard = try X11Clipboard(display: server.display, limit: 16 << 20)
        #expect(clipboard.start() == 0)
        try server.copy(Data("Ålesund ✓".utf8), type: "UTF8_STRING")
        let text = await Self.next(clipboard.copies)
        #expect(text?.items.map(\.mime) == ["text/plain;charset=utf-8"] && text?.items.first?.bytes == Array("Ålesund ✓".utf8))
        var rng = SplitMix64(seed: 3)
        let image = Data((0..<1_500_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        try server.copy(image, type: "image/png")
        let png = await Self.next(clipboard.copies)
        #expect(png?.items.map(\.mime) == ["image/png"] && png?.items.first?.bytes == Array(image), "the INCR read lost bytes")
        try server.copy(Data("hunter2".utf8), type: "x-kde-passwordManagerHint")
        let secret = await Self.next(clipboard.copies)
        #expect(secret?.items.map(\.mime) == ["x-kde-passwordManagerHint"] && secret?.items.first?.bytes == [], "a secret's bytes were read")
    }

    @Test func anOwnedClipboardServesPastesAndIsGivenUp() async throws {
        let server = try await Server()
        defer { server.stop() }
        let clipboard = try X11Clipboard(display: server.display, limit: 16 << 20)
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
        let targets = String(decoding: (await offPool { server.xclip("-selection clipboard -o -t TARGETS") }).output, as: UTF8.self)
        #expect(targets.contains("UTF8_STRING") && targets.contains("image/png") && targets.contains("text/html"), "\(targets)")
        #expect((await offPool { server.xclip("-selection clipboard -o -t UTF8_STRING") }).output == Data("high water ✓".utf8))
        #expect((await offPool { server.xclip("-selection clipboard -o -t image/png") }).output == Data(image), "the INCR send lost bytes")
        #expect((await offPool { server.xclip("-selection clipboard -o -t text/html") }).status != 0, "a type with no bytes pasted something")
        #expect((await offPool { server.xclip("-selection clipboard -o -t image/jpeg") }).status != 0, "a type not offered pasted something")
        clipboard.release()
        #expect(!clipboard.holdsClipboard)
        #expect((await offPool { server.xclip("-selection clipboard -o -t TARGETS") }).status != 0, "the clipboard was not given up")
    }

    /// With `primary`, PRIMARY (the middle button's selection) is watched and owned as well.
    @Test func primaryTooWhenAsked() async throws {
        let server = try await Server()
        defer { server.stop() }
        let clipboard = try X11Clipboard(display: server.display, primary: true, limit: 16 << 20)
        #expect(clipboard.start() == 0)
        let file = server.dir.appendingPathComponent("selected")
        try Data("selected words".utf8).write(to: file)
        let command = "exec /usr/bin/xclip -quiet -selection primary -t UTF8_STRING -i '\(file.path)' >/dev/null"
        server.clients.append(try server.hosts.spawn(1, "/bin/sh", ["-c", command], environment: ["DISPLAY": server.display]))
        let selected = await Self.next(clipboard.copies)
        #expect(selected?.items.first?.bytes == Array("selected words".utf8))
        clipboard.own(["text/plain;charset=utf-8"]) { _ in Array("from the other machine".utf8) }
        #expect((await offPool { server.xclip("-selection primary -o -t UTF8_STRING") }).output == Data("from the other machine".utf8))
        #expect((await offPool { server.xclip("-selection clipboard -o -t UTF8_STRING") }).output == Data("from the other machine".utf8))
    }
}
