import Foundation
import HandoffBrowser
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffTestSupport
import Testing

@testable import HandoffDaemon

/// The browser's native messaging host against a real handoffd over its control socket, driven
/// as a browser drives it (frames on its stdin and stdout): the tab is the current activity and
/// ends with the host, a tab continued from a paired machine is handed to the extension, and
/// hostile input gets errors while the host stays up.
@Suite(.serialized, .timeLimit(.minutes(2))) struct BrowserHostTests {
    static let origin = "chrome-extension://\(BrowserCaller.chromiumID)/"

    static func host(_ daemon: LoopbackDaemon, origin: String = origin) throws -> NativeMessagingChild {
        try NativeMessagingChild(["/usr/bin/env", "HANDOFF_SOCKET=\(daemon.control.path)", BuiltProducts.path("handoff-browser-host"), origin])
    }

    static func webActivities(_ d: LoopbackDaemon) async throws -> [[String: PropertyListValue]] {
        (try await d.request("activities")?.arrayValue ?? []).compactMap(\.dictionaryValue).filter {
            $0["type"] == .string(WebBrowsing.type.rawValue)
        }
    }

    @Test func theTabIsTheCurrentActivityUntilTheBrowserGoes() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let host = try Self.host(a)
            defer { Task { await host.end() } }
            #expect(await host.message(timeout: 10) { $0.string("type") == "status" && $0.string("daemon") == "up" } != nil)
            host.send(#"{"type":"tab","url":"https://example.org/chapter-4","title":"Chapter 4"}"#)
            try await waitUntil("the tab is current", timeout: 10) { try await Self.webActivities(a).first?["title"] == "Chapter 4" }
            // Another tab: the same activity, changed.
            host.send(#"{"type":"tab","url":"https://example.org/chapter-5","title":"Chapter 5"}"#)
            try await waitUntil("the new tab is current", timeout: 10) { try await Self.webActivities(a).map { $0["title"] } == ["Chapter 5"] }
            host.send(#"{"type":"away"}"#)
            try await waitUntil("nothing is offered", timeout: 10) { try await Self.webActivities(a).isEmpty }
            host.send(#"{"type":"tab","url":"https://example.org/chapter-6","title":"Chapter 6"}"#)
            try await waitUntil("the tab is current again", timeout: 10) { try await Self.webActivities(a).count == 1 }
            // The browser closes the host's stdin: it ends, and its activity with its connection.
            host.closeInput()
            #expect(await host.exit(timeout: 10) == 0)
            try await waitUntil("the tab ended with the host", timeout: 10) { try await Self.webActivities(a).isEmpty }
        }
    }

    @Test func aTabContinuedFromAPairedMachineOpensInThisBrowser() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        try await withStopping(a, b) {
            var page = UserActivity(type: WebBrowsing.type, title: "Tide tables")
            try page.setWebpageURL(URL(string: "https://example.org/tides")!)
            _ = try await a.request("publish", ["activity": page.propertyList])
            let host = try Self.host(b)
            defer { Task { await host.end() } }
            #expect(await host.message(timeout: 10) { $0.string("daemon") == "up" } != nil)
            let opener = Task {
                guard let open = await host.message(timeout: 20, { $0.string("type") == "open-tab" }) else { return "" }
                host.send(#"{"type":"opened","token":"\#(open.string("token") ?? "")","ok":true}"#)
                return open.string("url") ?? ""
            }
            let client = try await HandoffClient.connect(socketPath: b.control.path)
            defer { Task { await client.close() } }
            let report = try await client.perform(ContinueRequest(peer: "alpha", activity: page.id))
            #expect(await opener.value == "https://example.org/tides")
            #expect(report.outcome == "continued" && report.step == "app" && report.handler == "browser", "\(report.propertyList)")
            // The popup's list: alpha's tab, as `activities --remote` has it.
            host.send(#"{"type":"list","id":7}"#)
            let list = try #require(await host.message(timeout: 10) { $0.int("id") == 7 })
            let devices = list.objects("devices")
            #expect(devices.map { $0["peer"] as? String } == ["alpha"], "\(list.fields)")
            #expect((devices.first?["tabs"] as? [[String: Any]])?.first?["title"] as? String == "Tide tables", "\(list.fields)")
        }
    }

    /// "Send this tab to alpha": beta's host pushes the page, alpha's host opens it in alpha's
    /// browser; a machine whose `refuse_pushes_from` names the sender refuses, and the popup is
    /// told why.
    @Test func aSentTabOpensInTheOtherBrowserUnlessPushesAreRefused() async throws {
        for refused in [false, true] {
            let network = FakeNetwork()
            let a = try await LoopbackDaemon("alpha", on: network) { $0.refusePushesFrom = refused ? ["beta"] : [] }
            let b = try await LoopbackDaemon("beta", on: network, avahiRunning: true)
            a.trust.pin(TrustedPeer(identity: b.identity.identity, name: "beta", pairedAt: Date(), advertisingKey: b.trust.ownAdvertisingKey()))
            b.trust.pin(TrustedPeer(identity: a.identity.identity, name: "alpha", pairedAt: Date(), advertisingKey: a.trust.ownAdvertisingKey()))
            try await withStopping(a, b) {
                let there = try Self.host(a), here = try Self.host(b)
                defer {
                    Task {
                        await there.end()
                        await here.end()
                    }
                }
                for host in [there, here] {
                    #expect(await host.message(timeout: 10) { $0.string("daemon") == "up" } != nil)
                }
                try await waitUntil("alpha's host handles web pages", timeout: 10) {
                    try await a.request("status")?.dictionaryValue?["liveHandlers"] == .integer(1)
                }
                let opener = Task {
                    guard let open = await there.message(timeout: refused ? 3 : 20, { $0.string("type") == "open-tab" }) else { return "" }
                    there.send(#"{"type":"opened","token":"\#(open.string("token") ?? "")","ok":true}"#)
                    return open.string("url") ?? ""
                }
                here.send(#"{"type":"send","id":3,"peer":"alpha","url":"https://example.org/sent","title":"Sent"}"#)
                let reply = try #require(await here.message(timeout: 20) { $0.int("id") == 3 })
                if refused {
                    #expect(reply.bool("ok") == false && reply.string("code") == FailureCode.pushRefused.rawValue, "\(reply.fields)")
                    #expect(await opener.value == "", "a refused push opened a tab")
                } else {
                    #expect(reply.bool("ok") == true, "\(reply.fields)")
                    #expect(await opener.value == "https://example.org/sent")
                }
            }
        }
    }

    @Test func hostileInputIsAnsweredAndTheHostStaysUp() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let host = try Self.host(a)
            defer { Task { await host.end() } }
            #expect(await host.message(timeout: 10) { $0.string("daemon") == "up" } != nil)
            // Longer than the host reads: skipped as it arrives, then an error.
            host.sendRaw(NativeMessagingChild.frame([UInt8](repeating: 0x7b, count: 200_000)))
            #expect(await host.message(timeout: 10) { $0.string("code") == "too-large" } != nil)
            host.send("{not json")
            #expect(await host.message(timeout: 10) { $0.string("code") == "not-json" } != nil)
            host.send(#"{"type":"tab","url":"file:///etc/passwd"}"#)
            #expect(await host.message(timeout: 10) { $0.string("code") == "bad-field" } != nil)
            // 10,000 messages, the smallest there are: each answered, in a bounded host.
            let before = host.received.count
            let flood = (0..<10_000).flatMap { _ in NativeMessagingChild.frame(Array("{}".utf8)) }
            host.sendRaw(flood)
            #expect(await host.message(from: before + 9_999, timeout: 60) { $0.string("code") == "unknown-message" } != nil)
            // Still serving, and nothing it was told became an activity.
            host.send(#"{"type":"list","id":9}"#)
            #expect(await host.message(timeout: 10) { $0.int("id") == 9 && $0.bool("ok") == true } != nil)
            #expect(try await Self.webActivities(a).isEmpty)
        }
    }

    @Test func anotherCallerIsTurnedAway() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let host = try Self.host(a, origin: "chrome-extension://abcdefghijklmnopabcdefghijklmnop/")
            defer { Task { await host.end() } }
            #expect(await host.message(timeout: 10) { $0.string("code") == "permission-denied" } != nil)
            #expect(await host.exit(timeout: 10) == 1)
        }
    }
}
