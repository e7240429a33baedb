import Foundation
import HandoffBrowser
import HandoffCore
import HandoffTestSupport
import Testing

/// Debian's browsers, as the tests run them (not the wrappers in /usr/bin, which read the
/// system's and the person's settings).
enum Browsers {
    static let chromium = "/usr/lib/chromium/chromium"
    static let firefox = "/usr/lib/firefox-esr/firefox-esr"
    static var unavailableReason: String? {
        if let reason = TestHostSet.unavailableReason { return reason }
        for browser in [chromium, firefox] where !FileManager.default.isExecutableFile(atPath: browser) {
            return "\(browser) is not installed (scripts/install-deps.sh installs chromium and firefox-esr)"
        }
        return nil
    }
}

/// The browser extension in real browsers, headless, in two paired test hosts: Chromium on alpha
/// (the extension loaded unpacked, driven over the DevTools protocol), Firefox ESR on beta (the
/// extension installed over WebDriver BiDi), each with the native host in its own manifest
/// folder. What the tests read comes from the browsers and the daemons, not from a log of ours.
@Suite(
    .serialized, .timeLimit(.minutes(4)),
    .enabled(if: Browsers.unavailableReason == nil, Comment(rawValue: Browsers.unavailableReason ?? "")))
struct BrowserEndToEndTests {
    static let chromium = Browsers.chromium
    static let firefox = Browsers.firefox
    static let extensionDir = TestHostSet.repositoryRoot.appendingPathComponent("browser/extension").path
    static let driver = TestHostSet.repositoryRoot.appendingPathComponent("Tests/Rigs/browser-driver.py").path

    /// A browser in a test host, with the driver that speaks its remote protocol.
    struct Browser {
        let process: ChildProcess
        let driver: ChildProcess

        func command(_ json: String) async -> JSONLine? {
            let from = driver.output.count
            driver.send(json)
            return await offPool { driver.waitForJSON(from: from, timeout: 20) { _ in true } }
        }

        func tabs() async -> [String] {
            guard let line = await command(#"{"cmd":"tabs"}"#) else { return [] }
            return (line.object["tabs"] as? [String]) ?? []
        }

        func stop() {
            driver.stop()
            process.stop()
        }
    }

    /// The native host's manifest for one browser family, naming this build's host.
    static func manifest(allowing key: String, _ value: String) -> String {
        """
        {"name": "org.handoffd.browser", "description": "handoffd", "path": "\(BuiltProducts.path("handoff-browser-host"))",
         "type": "stdio", "\(key)": ["\(value)"]}
        """
    }

    static func startChromium(_ hosts: TestHostSet, _ i: Int, daemon: DaemonHost) async throws -> Browser {
        let profile = daemon.dir + "/chromium"
        try FileManager.default.createDirectory(atPath: profile + "/NativeMessagingHosts", withIntermediateDirectories: true)
        // Chromium's own temporary files (its singleton socket's folder) go with the test's.
        try FileManager.default.createDirectory(atPath: profile + "/tmp", withIntermediateDirectories: true)
        try manifest(allowing: "allowed_origins", "chrome-extension://\(BrowserCaller.chromiumID)/")
            .write(toFile: profile + "/NativeMessagingHosts/org.handoffd.browser.json", atomically: true, encoding: .utf8)
        let process = try hosts.spawn(
            i, chromium,
            [
                "--headless=new", "--no-sandbox", "--user-data-dir=\(profile)", "--disable-extensions-except=\(extensionDir)",
                "--load-extension=\(extensionDir)", "--remote-debugging-port=9222", "--no-first-run", "--disable-gpu", "about:blank"
            ], environment: ["HANDOFF_SOCKET": daemon.socket, "HOME": daemon.dir, "TMPDIR": profile + "/tmp"])
        let driver = try hosts.spawn(i, "/usr/bin/python3", [Self.driver, "chromium", "9222"])
        #expect(await offPool { driver.waitForJSON(timeout: 30) { $0.object["ready"] as? Bool == true } } != nil, "\(driver.output)")
        return Browser(process: process, driver: driver)
    }

    static func startFirefox(_ hosts: TestHostSet, _ i: Int, daemon: DaemonHost) async throws -> Browser {
        let home = daemon.dir + "/firefox-home"
        try FileManager.default.createDirectory(atPath: home + "/profile", withIntermediateDirectories: true)
        // The host's manifest as a person installs it (browser/install-host.sh), in this HOME.
        let script = TestHostSet.repositoryRoot.appendingPathComponent("browser/install-host.sh").path
        let installed = try runCommand(["/usr/bin/env", "HOME=\(home)", script, BuiltProducts.path("handoff-browser-host")])
        #expect(installed.status == 0, "\(installed.output)")
        let process = try hosts.spawn(
            i, firefox, ["--headless", "--profile", home + "/profile", "--no-remote", "--remote-debugging-port", "9223"],
            environment: ["HANDOFF_SOCKET": daemon.socket, "HOME": home, "MOZ_CRASHREPORTER_DISABLE": "1"])
        let driver = try hosts.spawn(i, "/usr/bin/python3", [Self.driver, "firefox", "9223", extensionDir])
        #expect(await offPool { driver.waitForJSON(timeout: 60) { $0.object["ready"] as? Bool == true } } != nil, "\(driver.output)")
        return Browser(process: process, driver: driver)
    }

    /// Pages served on the host's loopback, so that they load (the host has no other network);
    /// returned once the server answers (a page asked for before would show the browser's error).
    static func serve(_ hosts: TestHostSet, _ i: Int, in dir: String, pages: [String: String]) async throws -> ChildProcess {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, title) in pages {
            try "<!doctype html><title>\(title)</title><p>\(title)</p>".write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        let server = try hosts.spawn(i, "/usr/bin/python3", ["-m", "http.server", "8000", "--bind", "127.0.0.1", "--directory", dir])
        let probe = "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/', timeout=1); print('up')"
        try await waitUntil("host \(i)'s page server answers", timeout: 20) {
            await offPool { (try? hosts.run(i, ["/usr/bin/python3", "-c", probe]))?.contains("up") == true }
        }
        return server
    }

    @Test func aTabOnAlphasChromiumIsListedOnBetaAndOpensInBetasFirefox() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        let server = try await Self.serve(
            hosts, 1, in: a.dir + "/www",
            pages: [
                "tides.html": "Tide tables", "secret.html": "Private notes", "harbour.html": "Harbour charts", "bank.html": "Bank statement",
                "light.html": "Lighthouse log"
            ])
        defer { server.stop() }
        let chromium = try await Self.startChromium(hosts, 1, daemon: a)
        defer { chromium.stop() }
        let firefox = try await Self.startFirefox(hosts, 2, daemon: b)
        defer { firefox.stop() }

        // Each browser's host is the live handler of web pages on its machine once it is up.
        for host in [a, b] {
            do {
                try await waitUntil("\(host.name)'s browser host registers", timeout: 60) { try await host.request("status")?["liveHandlers"] == "1" }
            } catch {
                let log =
                    (try? String(contentsOfFile: "/run/handoff-testhosts/\(hosts.name)/\(hosts.host(host.index))/children.log", encoding: .utf8))
                    ?? ""
                Issue.record("\(host.name): \(try host.ctl(["status"]).output)\n\(log.suffix(3000))")
                throw error
            }
        }

        // A page opened on alpha is listed on beta.
        #expect(await chromium.command(#"{"cmd":"open","url":"http://127.0.0.1:8000/tides.html"}"#) != nil)
        var listed = ""
        do {
            try await waitUntil("beta lists alpha's tab", timeout: 20) {
                listed = try b.ctl(["activities", "--remote"]).output
                return listed.contains("Tide tables")
            }
        } catch {
            Issue.record("beta lists: \(listed); alpha: \(try a.ctl(["activities"]).output); chromium tabs: \(await chromium.tabs())")
            throw error
        }
        let mine = try await a.request("activities")?.arrayValue ?? []
        let id = try #require(mine.first { $0["title"] == "Tide tables" }?["activity"], "\(mine)")

        // Continued on beta: it opens in beta's Firefox, read from Firefox.
        let continued = try b.ctl(["continue", "alpha", id, "--json"])
        #expect(jsonField(continued.output, "outcome") == "continued" && jsonField(continued.output, "handler") == "browser", "\(continued.output)")
        try await waitUntil("beta's Firefox shows the page", timeout: 20) {
            await firefox.tabs().contains("http://127.0.0.1:8000/tides.html")
        }

        // A private window's page is never offered: once the page opened after it is listed,
        // neither daemon has had it.
        #expect(await chromium.command(#"{"cmd":"open-private","url":"http://127.0.0.1:8000/secret.html"}"#)?.object["ok"] as? Bool == true)
        try await waitUntil("Chromium shows the private page", timeout: 20) { await chromium.tabs().contains("http://127.0.0.1:8000/secret.html") }
        #expect(await chromium.command(#"{"cmd":"open","url":"http://127.0.0.1:8000/harbour.html"}"#) != nil)
        try await waitUntil("beta lists the next page", timeout: 20) { try b.ctl(["activities", "--remote"]).output.contains("Harbour charts") }
        let (offeredA, listedB) = (try a.ctl(["activities"]).output, try b.ctl(["activities", "--remote"]).output)
        #expect(!offeredA.contains("Private notes") && !listedB.contains("Private notes"), "\(offeredA)\n\(listedB)")

        // An excluded site is not offered: alpha offers nothing while it is the tab.
        let set = await chromium.command(#"{"cmd":"extension","expression":"chrome.storage.local.set({exclude: 'localhost'}).then(() => true)"}"#)
        #expect(set?.object["value"] as? Bool == true, "\(set?.object ?? [:])")
        #expect(await chromium.command(#"{"cmd":"open","url":"http://localhost:8000/bank.html"}"#) != nil)
        try await waitUntil("Chromium shows the excluded page", timeout: 20) { await chromium.tabs().contains("http://localhost:8000/bank.html") }
        try await waitUntil("alpha offers no page", timeout: 20) { !(try a.ctl(["activities"]).output.contains("Harbour charts")) }
        let (offeredA2, listedB2) = (try a.ctl(["activities"]).output, try b.ctl(["activities", "--remote"]).output)
        #expect(!offeredA2.contains("Bank statement") && !listedB2.contains("Bank statement"), "\(offeredA2)\n\(listedB2)")

        // handoffd restarts under the browser: its host connects again and offers the next tab.
        a.stop()
        try await a.start()
        try await waitUntil("alpha's browser host registers again", timeout: 30) { try await a.request("status")?["liveHandlers"] == "1" }
        #expect(await chromium.command(#"{"cmd":"open","url":"http://127.0.0.1:8000/light.html"}"#) != nil)
        try await waitUntil("beta lists the tab after alpha's restart", timeout: 30) {
            try b.ctl(["activities", "--remote"]).output.contains("Lighthouse log")
        }

        // The popup lists what `activities --remote` lists: a web page beta offers, on alpha.
        var clock = UserActivity(type: WebBrowsing.type, title: "Tide clock")
        try clock.setWebpageURL(URL(string: "https://example.org/clock")!)
        _ = try await b.request("publish", ["activity": clock.propertyList, "keep": true])
        try await waitUntil("alpha lists beta's page", timeout: 20) { try a.ctl(["activities", "--remote"]).output.contains("Tide clock") }
        let popup = "chrome-extension://\(BrowserCaller.chromiumID)/popup.html"
        #expect(await chromium.command(#"{"cmd":"open","url":"\#(popup)"}"#) != nil)
        var text = ""
        try await waitUntil("the popup lists beta's tab", timeout: 20) {
            text = (await chromium.command(#"{"cmd":"page-text","url":"\#(popup)"}"#)?.object["value"] as? String) ?? ""
            return text.contains("Tide clock")
        }
        #expect(text.contains("beta"), "\(text)")
    }
}
