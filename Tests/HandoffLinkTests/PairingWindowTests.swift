import Foundation
import NIOCore
import Testing
@testable import HandoffLink

/// A man in the middle had up to three silent guesses per window, and ten
/// bytes with no crypto stopped a pairing in progress and counted toward the lockout.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PairingWindowTests {
    /// A asks B (window open) to pair; both sides have the code.
    func pairingUnderWay() async throws -> (Node, Node, PairingSession, PairingSession) {
        let a = try await Node.start("A"), b = try await Node.start("B")
        b.endpoint.openPairingWindow()
        async let request = firstPairingRequest(b)
        let mine = try await a.endpoint.pair(host: "127.0.0.1", port: b.port)
        let theirs = try #require(await request)
        _ = try await theirs.code()
        return (a, b, mine, theirs)
    }

    /// A failure no longer closes the window (a stranger who failed each window kept
    /// the person from pairing): the next attempt goes ahead.
    @Test func aFailedPairingLeavesTheWindowOpenForTheNextAttempt() async throws {
        let (a, b, mine, theirs) = try await pairingUnderWay()
        theirs.reject()
        if case .success = await theirs.outcome() { Issue.record("pinned after a rejection") }
        _ = await mine.outcome()
        #expect(b.endpoint.isPairingWindowOpen)
        async let request = firstPairingRequest(b)
        let again = try await a.endpoint.pair(host: "127.0.0.1", port: b.port)
        let atB = try #require(await request)
        #expect(try await again.code() == atB.code())
        again.confirm()
        atB.confirm()
        #expect(try await again.outcome().get().identity == b.identity)
    }

    @Test func aBarePreambleNeitherStopsAPairingNorCounts() async throws {
        let (a, b, mine, theirs) = try await pairingUnderWay()
        // A stranger sends only a pairing preamble, three times.
        for _ in 0..<3 {
            let raw = try await rawConnect(to: b.port)
            let preamble = LinkPreamble(mode: .pairing).bytes
            var frame = raw.allocator.buffer(capacity: 4 + preamble.count)
            frame.writeInteger(UInt32(preamble.count))
            frame.writeBytes(preamble)
            try await raw.writeAndFlush(frame)
            try await raw.closeFuture.get()
        }
        #expect(b.endpoint.lockedPairingSources == 0)
        mine.confirm()
        theirs.confirm()
        #expect(try await theirs.outcome().get().identity == a.identity)
        #expect(try await mine.outcome().get().identity == b.identity)
    }

    /// Unreachable addresses and refusals are no guesses at a code: they do not lock pairing.
    @Test func refusalsDoNotLockTheInitiator() async throws {
        let a = try await Node.start("A"), b = try await Node.start("B")
        for _ in 0..<4 {
            await #expect(throws: LinkError.refused(.notAccepting)) { try await a.endpoint.pair(host: "127.0.0.1", port: b.port) }
        }
        #expect(a.endpoint.lockedPairingSources == 0)
    }
}
