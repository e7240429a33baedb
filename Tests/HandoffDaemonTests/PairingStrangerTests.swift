import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffTestSupport
import Testing
@testable import HandoffDaemon

/// A stranger at the pairing window. `pair --accept --yes` once confirmed before
/// anyone compared a code, so whoever answered first was pinned under the name the person meant.
/// Now a pairing is confirmed with the code the person read on the other machine, and only if it
/// is the one shown here.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PairingStrangerTests {
    /// A code that is not `code`.
    static func other(than code: String) -> String { code == "000000" ? "111111" : "000000" }

    /// `pair-confirm` with a code that is not the one shown: how it was refused (nil if it was not).
    static func confirmWithAnotherCode(_ person: HandoffClient, _ shown: PairingCode) async -> ClientError? {
        do throws(ClientError) {
            _ = try await person.perform(PairConfirmRequest(pairing: shown.pairing, accept: true, code: other(than: shown.code)))
            return nil
        } catch {
            return error
        }
    }

    static func trustedNames(_ d: LoopbackDaemon) async throws -> Set<String> {
        Set(try #require(try await d.request("trust")?.arrayValue).compactMap { $0.dictionaryValue?["name"]?.stringValue })
    }

    @Test func aStrangerWhoAnswersFirstIsRefusedAndTheWindowStaysOpen() async throws {
        let network = FakeNetwork()
        let a = try await LoopbackDaemon("alpha", on: network)
        let b = try await LoopbackDaemon("beta", on: network)
        try await withStopping(a, b) {
            let port = await a.daemon.peers.port
            let person = try await HandoffClient.connect(socketPath: a.control.path)
            let accept = Task { try await person.perform(PairAcceptRequest(timeout: 30)) }
            try await waitUntil("alpha's window opens", timeout: 5) { await a.daemon.pairing.waitingAccepts == 1 }
            // The stranger polls the port and is first, under the name the person expects.
            let stranger = LinkEndpoint(identity: IdentityKey(), name: "beta", trustStore: InMemoryTrustStore())
            let attempt = try await stranger.pair(host: "127.0.0.1", port: port)
            let shown = try await accept.value
            // The asker's host alone: its connection's port is an ephemeral one, not where it listens.
            #expect(shown.peer == "beta" && shown.address == "127.0.0.1", "the address is shown beside the code")
            #expect(shown.fingerprint == stranger.identity.identity.fingerprint)
            attempt.confirm()
            // The person types what the real beta shows: not this code.
            await #expect(throws: ClientError.self) {
                _ = try await person.perform(PairConfirmRequest(pairing: shown.pairing, accept: true, code: Self.other(than: shown.code)))
            }
            if case .success = await attempt.outcome() { Issue.record("the stranger was paired") }
            #expect(try await Self.trustedNames(a).isEmpty)
            #expect(a.daemon.peers.isPairingWindowOpen, "the window stays open for the next attempt")
            // A client that was not pairing (a `status` in another terminal) leaves: the window
            // stays open. (Its own disconnect comes too, but at no moment we can wait for.)
            await a.daemon.pairing.clientLeft(ControlClient(uid: getuid(), pid: getpid(), outlet: Bystander()))
            #expect(a.daemon.peers.isPairingWindowOpen, "a bystander's leaving closed the window")
            // The real beta: the person types the code beta shows, and they pair.
            let next = Task { try await person.perform(PairAcceptRequest(timeout: 30)) }
            try await waitUntil("alpha waits again", timeout: 5) { await a.daemon.pairing.waitingAccepts == 1 }
            let asker = try await HandoffClient.connect(socketPath: b.control.path)
            let atBeta = try await asker.perform(PairRequest(peer: "127.0.0.1:\(port)"))
            let atAlpha = try await next.value
            #expect(atAlpha.code == atBeta.code)
            async let betaDone = asker.perform(PairConfirmRequest(pairing: atBeta.pairing, accept: true, code: atAlpha.code))
            let alphaDone = try await person.perform(PairConfirmRequest(pairing: atAlpha.pairing, accept: true, code: atBeta.code))
            #expect(alphaDone.peer == "beta" && alphaDone.fingerprint == b.identity.identity.fingerprint)
            _ = try await betaDone
            #expect(try await Self.trustedNames(a) == ["beta"])
            await person.close()
            await asker.close()
        }
    }

    /// The person who opened the window gives up (Ctrl-C on `pair --accept`, after a stranger's
    /// failed attempt or not): the window and the pairing advert close with their connection.
    @Test func theWindowClosesWhenItsOpenerLeaves() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let person = try await HandoffClient.connect(socketPath: a.control.path)
            let accept = Task { try await person.perform(PairAcceptRequest(timeout: 30)) }
            try await waitUntil("alpha's window opens", timeout: 5) { await a.daemon.pairing.waitingAccepts == 1 }
            #expect(a.daemon.peers.isPairingWindowOpen)
            try await waitUntil("the pairing advert is out", timeout: 5) { await a.daemon.activities.pairingAdvertOut }
            _ = try await a.request("status")
            await person.close()
            _ = await accept.result
            try await waitUntil("the window closes with its opener", timeout: 5) { !a.daemon.peers.isPairingWindowOpen }
            try await waitUntil("the pairing advert is withdrawn", timeout: 5) { await !a.daemon.activities.pairingAdvertOut }
        }
    }

    /// The asking side: a stranger with a window open answers `pair ADDRESS`; the code the
    /// person read on the machine they meant differs, and nothing is pinned on either side.
    @Test func theAskingSideRefusesAStrangersWindow() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let strangerStore = InMemoryTrustStore()
            let stranger = LinkEndpoint(identity: IdentityKey(), name: "beta", trustStore: strangerStore)
            let port = try await stranger.listen(host: "127.0.0.1", port: 0)
            stranger.openPairingWindow()
            let person = try await HandoffClient.connect(socketPath: a.control.path)
            let shown = try await person.perform(PairRequest(peer: "127.0.0.1:\(port)"))
            let refusal = await Self.confirmWithAnotherCode(person, shown)
            guard case .refused("codes-differ", let message)? = refusal else {
                Issue.record("expected codes-differ, got \(String(describing: refusal))")
                return
            }
            #expect(message.contains("nothing was stored"))
            #expect(try await Self.trustedNames(a).isEmpty)
            #expect(strangerStore.peers().isEmpty)
            await person.close()
            await stranger.shutdown()
        }
    }

    /// The other machine stops the attempt after the codes are shown (there, no `pair --accept`
    /// was waiting): whatever the person types here, they are told that, not that the codes
    /// differ (a script saw "codes differ" for an attempt the other side had stopped).
    @Test func anAttemptTheOtherMachineStoppedSaysSoNotThatTheCodesDiffer() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let other = LinkEndpoint(identity: IdentityKey(), name: "beta", trustStore: InMemoryTrustStore())
            let port = try await other.listen(host: "127.0.0.1", port: 0)
            other.openPairingWindow()
            let arriving = Task { () -> PairingSession? in
                for await session in other.pairingRequests { return session }
                return nil
            }
            let person = try await HandoffClient.connect(socketPath: a.control.path)
            let shown = try await person.perform(PairRequest(peer: "127.0.0.1:\(port)"))
            let atOther = try #require(await arriving.value)
            atOther.cancel()
            try await waitUntil("alpha sees the attempt end", timeout: 5) { await a.daemon.pairing.hasEnded(pairing: shown.pairing) }
            let refusal = await Self.confirmWithAnotherCode(person, shown)
            guard case .refused("pairing-failed", let message)? = refusal else {
                Issue.record("expected pairing-failed, got \(String(describing: refusal))")
                return
            }
            #expect(message.contains("cancelled") && message.contains("pair --accept"), "\(message)")
            await person.close()
            await other.shutdown()
        }
    }

    /// Two machines that pair under one name: the second is kept as NAME-2, and a name shared
    /// by two paired machines (an old store) makes `resolve` ask for a fingerprint.
    @Test func aNameAlreadyPairedIsSuffixed() {
        #expect(PairedNames.unique("good-peer", taken: []) == "good-peer")
        #expect(PairedNames.unique("good-peer", taken: ["good-peer"]) == "good-peer-2")
        #expect(PairedNames.unique("good-peer", taken: ["good-peer", "good-peer-2"]) == "good-peer-3")
    }

    @Test func anAmbiguousNameFailsWithTheFingerprints() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let one = IdentityKey().identity, two = IdentityKey().identity
            a.trust.pin(TrustedPeer(identity: one, name: "good-peer", pairedAt: Date()))
            a.trust.pin(TrustedPeer(identity: two, name: "good-peer", pairedAt: Date()))
            do {
                _ = try await a.request("unpair", ["peer": "good-peer"])
                Issue.record("an ambiguous name was taken")
            } catch let error as ClientError {
                guard case .refused("ambiguous-peer", let message) = error else { throw error }
                #expect(message.contains(one.fingerprint) && message.contains(two.fingerprint))
            }
            #expect(a.trust.peers().count == 2, "nothing was unpaired")
        }
    }
}

/// A control client that never paired.
private final class Bystander: EventOutlet {
    func send(event name: String, _ fields: [String: PropertyListValue]) {}
}

/// A typo on the asking side refuses that attempt and no more: `pair --accept` on the other
/// machine is told that the code typed there was not its own, and waits for the next attempt
/// (it ended, against docs/LINK.md and `pair --help`); the lockout after repeated failures is said.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PairingTypoTests {
    @Test func aTypoOnTheAskingSideLeavesTheAcceptingSideWaiting() async throws {
        let network = FakeNetwork()
        let a = try await LoopbackDaemon("alpha", on: network)
        let b = try await LoopbackDaemon("beta", on: network)
        try await withStopping(a, b) {
            let port = await a.daemon.peers.port
            let said = FileManager.default.temporaryDirectory.appendingPathComponent("pair-typo-\(UUID().uuidString.prefix(8))").path
            let accepting = try ChildProcess(
                BuiltProducts.path("handoffctl"), ["pair", "--accept", "--json", "--timeout", "30", "--socket", a.control.path],
                stderrPath: said)
            defer {
                accepting.stop()
                try? FileManager.default.removeItem(atPath: said)
            }
            let asker = try await HandoffClient.connect(socketPath: b.control.path)
            defer { Task { await asker.close() } }
            // First attempt: beta's person mistypes the code alpha shows.
            try await waitUntil("alpha's window opens", timeout: 10) { await a.daemon.pairing.waitingAccepts == 1 }
            let first = try await asker.perform(PairRequest(peer: "127.0.0.1:\(port)"))
            let shown = try #require(await offPool { accepting.waitForJSON(timeout: 10) { $0.string("code") != nil } })
            accepting.send(try #require(shown.string("code")))
            let refusal = await PairingStrangerTests.confirmWithAnotherCode(asker, first)
            guard case .refused("codes-differ", let message)? = refusal else {
                Issue.record("expected codes-differ, got \(String(describing: refusal))")
                return
            }
            #expect(message.contains("locked for 5 minutes"), "\(message)")
            try await waitUntil("alpha's `pair --accept` says why and waits on", timeout: 10) {
                let text = (try? String(contentsOfFile: said, encoding: .utf8)) ?? ""
                return text.contains("the other machine refused this pairing") && text.contains("Waiting for the next attempt")
            }
            // While it waited, it said what to run on the other machine.
            #expect(((try? String(contentsOfFile: said, encoding: .utf8)) ?? "").contains("run `handoffctl pair alpha` there"))
            // Second attempt, typed right: the same `pair --accept` pairs.
            try await waitUntil("alpha waits again", timeout: 10) { await a.daemon.pairing.waitingAccepts == 1 }
            let second = try await asker.perform(PairRequest(peer: "127.0.0.1:\(port)"))
            let again = try #require(await offPool { accepting.waitForJSON(from: shown.index + 1, timeout: 10) { $0.string("code") != nil } })
            accepting.send(try #require(again.string("code")))
            _ = try await asker.perform(PairConfirmRequest(pairing: second.pairing, accept: true, code: again.string("code")))
            #expect(await offPool { accepting.waitForExit(timeout: 10) } == 0, "\(accepting.output)")
            #expect(try await PairingStrangerTests.trustedNames(a) == ["beta"])
        }
    }
}

/// `pair NAME` for a machine whose window is not open (no advert lists the name, and no resolver
/// knows it) says that, and what to run there: it said the name "cannot be resolved".
@Suite(.serialized, .timeLimit(.minutes(1))) struct PairingUnlistedNameTests {
    @Test func aNameWhoseWindowIsNotOpenIsToldSo() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            let client = try await HandoffClient.connect(socketPath: a.control.path)
            defer { Task { await client.close() } }
            do throws(ClientError) {
                _ = try await client.perform(PairRequest(peer: "beta.invalid"))
                Issue.record("pairing with a name nobody lists started")
            } catch {
                let said = error.description
                #expect(
                    said.contains("no machine named beta.invalid has its pairing window open")
                        && said.contains("run `handoffctl pair --accept` on beta.invalid first"), "\(said)")
            }
        }
    }
}
