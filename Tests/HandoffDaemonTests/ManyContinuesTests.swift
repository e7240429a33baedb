import Foundation
import HandoffClient
import HandoffContent
import HandoffCore
import HandoffTestSupport
import HawkNotes
import Testing
@testable import HandoffDaemon

/// Many continues of one peer's activity at once, over one session. The
/// peer serves at most 8 of a session's requests at a time and answers the rest `busy`; past 8,
/// ours wait on this side for an answer (`RequestWindow`), so every continue succeeds.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ManyContinuesTests {
    @Test func twentyFourPipelinedContinuesAllSucceed() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        try await withStopping(a, b) {
            try await waitUntil("beta lists alpha", timeout: 5) { await b.daemon.peers.discovered("alpha") != nil }
            let book = loopbackLibrary.books[0], character = book.characters[0]
            var activity = UserActivity(type: HawkNotes.characterDetail, title: "Viewing \(character.name)")
            try activity.setTypedPayload(character)
            activity.targetContentIdentifier = ContentPath(tabID: book.id, itemID: character.id).description
            let publisher = try await HandoffClient.connect(socketPath: a.control.path)
            _ = try await publisher.becomeCurrent(activity)
            // One client, all sent before any answer: its continues fetch side by side.
            let client = try await HandoffClient.connect(socketPath: b.control.path)
            let args: [String: PropertyListValue] = ["peer": "alpha", "activity": .string(activity.id.uuidString)]
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        do { return try await client.request("continue", args)?.dictionaryValue?["outcome"]?.stringValue ?? "no outcome" } catch {
                            return "\(error)"
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes == Array(repeating: "continued", count: 24))
            await client.close()
            await publisher.close()
        }
    }
}

/// A refusal is the peer's own words, said as its: alpha's "not current here" read on beta as
/// beta's own ("activity ... is not current here").
@Suite(.serialized, .timeLimit(.minutes(1))) struct PeerRefusalWordsTests {
    @Test func aRefusalSaysWhichMachineAnswered() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        try await withStopping(a, b) {
            try await waitUntil("beta lists alpha", timeout: 5) { await b.daemon.peers.discovered("alpha") != nil }
            let client = try await HandoffClient.connect(socketPath: b.control.path)
            let missing = UUID().uuidString
            do {
                _ = try await client.request("continue", ["peer": "alpha", "activity": .string(missing)])
                Issue.record("a continue of an activity alpha does not have succeeded")
            } catch let error as ClientError {
                #expect(error.description.contains("alpha answered: activity \(missing) is not current here"), "\(error)")
            }
            // Closed before the daemons stop, not by a task left behind.
            await client.close()
        }
    }
}
