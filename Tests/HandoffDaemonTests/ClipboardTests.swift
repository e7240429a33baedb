import Foundation
import HandoffClient
import HandoffClipboard
import HandoffConfig
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffTestSupport
import Testing

@testable import HandoffDaemon

/// The shared clipboard between two real daemons over a real link (loopback): a copy on alpha is
/// offered to beta and its bytes cross when beta pastes; a secret, an echo, an expired offer, an
/// absent machine and the switch each keep bytes home.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ClipboardTests {
    static func daemons(
        alpha: (inout HandoffConfiguration) -> Void = { _ in }, beta: (inout HandoffConfiguration) -> Void = { _ in }
    ) async throws -> (LoopbackDaemon, LoopbackDaemon) {
        let network = FakeNetwork()
        let a = try await LoopbackDaemon("alpha", on: network, configure: alpha)
        let b = try await LoopbackDaemon("beta", on: network, configure: beta)
        a.trust.pin(TrustedPeer(identity: b.identity.identity, name: "beta", pairedAt: Date(), advertisingKey: b.trust.ownAdvertisingKey()))
        b.trust.pin(TrustedPeer(identity: a.identity.identity, name: "alpha", pairedAt: Date(), advertisingKey: a.trust.ownAdvertisingKey()))
        // A session between them, hellos exchanged: offers go to present machines.
        _ = try await a.request("connect", ["peer": "beta"])
        try await waitUntil("beta is present on alpha", timeout: 10) { await a.daemon.peers.links.connectedPeerIDs.count == 1 }
        return (a, b)
    }

    static func client(_ d: LoopbackDaemon) async throws -> HandoffClient { try await HandoffClient.connect(socketPath: d.control.path) }

    static func status(_ d: LoopbackDaemon) async throws -> ClipboardStatus {
        let c = try await client(d)
        defer { Task { await c.close() } }
        return try await c.perform(ClipboardStatusRequest())
    }

    @Test func aCopyIsOfferedAndPastedByteForByte() async throws {
        let (a, b) = try await Self.daemons()
        try await withStopping(a, b) {
            let alpha = try await Self.client(a), beta = try await Self.client(b)
            defer {
                Task {
                    await alpha.close()
                    await beta.close()
                }
            }
            var image = [UInt8](repeating: 0, count: 1_000_003)
            var rng = SplitMix64(seed: 7)
            for i in image.indices { image[i] = UInt8(truncatingIfNeeded: rng.next()) }
            let html = Array("<p>Tide <b>tables</b></p>".utf8)
            let offer = try #require(
                try await alpha.copyToClipboard([
                    ("text/plain;charset=utf-8", Data("tides ✓".utf8)), ("text/html", Data(html)), ("image/png", Data(image))
                ]))
            try await waitUntil("beta holds alpha's offer", timeout: 10) { try await Self.status(b).offers.first?.offer == offer }
            let seen = try await Self.status(b)
            #expect(seen.owner == "alpha" && seen.offers.first?.types == ["text/plain;charset=utf-8", "text/html", "image/png"])
            #expect(seen.offers.first?.sizes == [9, Int64(html.count), 1_000_003])
            let text = try await beta.pasteFromClipboard()
            #expect(text.bytes == Data("tides ✓".utf8) && text.part.peer == "alpha" && text.part.mime == "text/plain;charset=utf-8")
            #expect(try await beta.pasteFromClipboard(mime: "text/html").bytes == Data(html))
            #expect(try await beta.pasteFromClipboard(peer: "alpha", mime: "image/png").bytes == Data(image), "the image crossed byte for byte")
            await #expect(throws: ClientError.self) { try await beta.pasteFromClipboard(mime: "image/jpeg") }
            // Alpha pastes its own copy from itself.
            #expect(try await alpha.pasteFromClipboard().bytes == Data("tides ✓".utf8))
            // Beta copies what it pasted: content from a peer is not offered back.
            do {
                _ = try await beta.copyToClipboard([
                    ("text/plain;charset=utf-8", Data("tides ✓".utf8)), ("text/html", Data(html)), ("image/png", Data(image))
                ])
                Issue.record("an echo was offered back")
            } catch { #expect((error as? ClientError)?.code == .clipboardEcho) }
            // A new copy on beta wins on both machines.
            let newer = try #require(try await beta.copyToClipboard([("text/plain;charset=utf-8", Data("newer".utf8))]))
            try await waitUntil("alpha holds beta's newer copy", timeout: 10) { try await Self.status(a).owner == "beta" }
            #expect(try await Self.status(a).local == nil, "alpha withdrew its overtaken offer")
            #expect(try await Self.status(b).local?.offer == newer)
            #expect(try await alpha.pasteFromClipboard().bytes == Data("newer".utf8))
        }
    }

    @Test func aSecretNeverLeavesAndNothingIsOfferedForIt() async throws {
        let (a, b) = try await Self.daemons()
        try await withStopping(a, b) {
            let alpha = try await Self.client(a)
            defer { Task { await alpha.close() } }
            do {
                _ = try await alpha.copyToClipboard([
                    ("text/plain;charset=utf-8", Data("hunter2".utf8)), ("x-kde-passwordManagerHint", Data("secret".utf8))
                ])
                Issue.record("a secret was offered")
            } catch { #expect((error as? ClientError)?.code == .clipboardSecret) }
            // A copy after it arrives: had the secret's offer gone out, it would have come first.
            _ = try await alpha.copyToClipboard([("text/plain;charset=utf-8", Data("public".utf8))])
            try await waitUntil("beta holds the public copy", timeout: 10) { try await Self.status(b).offers.count == 1 }
            let beta = try await Self.client(b)
            defer { Task { await beta.close() } }
            #expect(try await beta.pasteFromClipboard().bytes == Data("public".utf8))
            #expect(try await Self.status(a).local?.types == ["text/plain;charset=utf-8"])
        }
    }

    @Test func anOfferExpiresAndDiesWithItsMachine() async throws {
        let (a, b) = try await Self.daemons(alpha: { $0.clipboard.offerSeconds = 1 }, beta: { $0.clipboard.offerSeconds = 1 })
        try await withStopping(b) {
            let alpha = try await Self.client(a), beta = try await Self.client(b)
            defer {
                Task {
                    await alpha.close()
                    await beta.close()
                }
            }
            _ = try await alpha.copyToClipboard([("text/plain;charset=utf-8", Data("soon stale".utf8))])
            try await waitUntil("beta holds the offer", timeout: 10) { try await Self.status(b).offers.count == 1 }
            try await waitUntil("the offer expired on beta", timeout: 10) { try await Self.status(b).offers.isEmpty }
            do {
                _ = try await beta.pasteFromClipboard()
                Issue.record("a paste after the expiry got something")
            } catch { #expect((error as? ClientError)?.code == .clipboardNoOffer) }
            #expect(try await Self.status(a).local == nil, "alpha withdrew its own expired offer")
            // A fresh copy, then alpha stops: its offer goes with it.
            _ = try await alpha.copyToClipboard([("text/plain;charset=utf-8", Data("gone soon".utf8))])
            try await waitUntil("beta holds the new offer", timeout: 10) { try await Self.status(b).offers.count == 1 }
            await alpha.close()
            await a.stop()
            try await waitUntil("beta no longer claims alpha's copy", timeout: 15) {
                let s = try await Self.status(b)
                return s.offers.isEmpty && s.owner == "nobody"
            }
        }
    }

    @Test func offStaysOffAndIgnoresOffers() async throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (a, b) = try await Self.daemons(beta: { $0.stateDirectory = folder.path })
        try await withStopping(a, b) {
            let alpha = try await Self.client(a), beta = try await Self.client(b)
            defer {
                Task {
                    await alpha.close()
                    await beta.close()
                }
            }
            _ = try await beta.perform(ClipboardSwitchRequest(enabled: false))
            #expect(FileManager.default.fileExists(atPath: folder.path + "/clipboard-off"), "off is kept for the next start")
            _ = try await alpha.copyToClipboard([("text/plain;charset=utf-8", Data("ignored".utf8))])
            _ = try await alpha.copyToClipboard([("text/plain;charset=utf-8", Data("ignored too".utf8))])
            // A round trip on the same session after the offers: they reached beta before its answer.
            _ = try await a.request("connect", ["peer": "beta"])
            let off = try await Self.status(b)
            #expect(off.offers.isEmpty && !off.enabled && off.owner == "nobody")
            do {
                _ = try await beta.copyToClipboard([("text/plain;charset=utf-8", Data("here".utf8))])
                Issue.record("a copy was offered while off")
            } catch { #expect((error as? ClientError)?.code == .clipboardOff) }
            _ = try await beta.perform(ClipboardSwitchRequest(enabled: true))
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/clipboard-off"))
            _ = try await alpha.copyToClipboard([("text/plain;charset=utf-8", Data("heard".utf8))])
            try await waitUntil("beta hears offers again", timeout: 10) { try await Self.status(b).offers.count == 1 }
        }
    }

    @Test func aFloodOfCopiesKeepsOneOfferAndBoundsTheParts() async throws {
        let (a, b) = try await Self.daemons()
        try await withStopping(a, b) {
            let alpha = try await Self.client(a), watcher = try await Self.client(b)
            defer {
                Task {
                    await alpha.close()
                    await watcher.close()
                }
            }
            _ = try await watcher.perform(WatchRequest())
            var last: UUID?
            let started = ContinuousClock.now
            for i in 0..<1_000 { last = try await alpha.copyToClipboard([("text/plain;charset=utf-8", Data("copy \(i)".utf8))]) }
            let took = ContinuousClock.now - started
            let newest = try #require(last).canonicalString
            // Beta's offers, counted as they arrive, until the newest.
            var heard = 0
            for await event in watcher.events where event.name == "clipboardChanged" {
                heard += 1
                if event.fields["offer"] == .string(newest) { break }
            }
            // At most one offer an interval, and the first and the last.
            let most = Int(took / ClipboardBook.announceInterval) + 2
            #expect(heard <= most, "beta heard \(heard) offers for 1,000 copies in \(took)")
            let beta = try await Self.client(b)
            defer { Task { await beta.close() } }
            #expect(try await beta.pasteFromClipboard().bytes == Data("copy 999".utf8))
            #expect(try await Self.status(b).offers.count == 1, "one offer per machine, the newest")
            // Copies left unfinished in parts: at most four at once.
            for _ in 0..<4 {
                _ = try await alpha.perform(ClipboardCopyRequest(copy: UUID(), items: [("text/html", Data("<p>".utf8))], last: false))
            }
            do {
                _ = try await alpha.perform(ClipboardCopyRequest(copy: UUID(), items: [("text/html", Data("<p>".utf8))], last: false))
                Issue.record("a fifth unfinished copy was taken")
            } catch { #expect((error as? ClientError)?.code == .busy) }
        }
    }
}
