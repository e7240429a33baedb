import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import Testing
@testable import HandoffDaemon

/// A live handler's answer (`handled`) and its silence: a handler that continues an activity
/// itself, on its own connection, waited behind its own `continue` request until the answer's
/// budget ran out; a handler that never answered was reported as "no handler is registered".
@Suite(.serialized, .timeLimit(.minutes(1))) struct LiveHandlerAnswerTests {
    @Test func aHandlerContinuesOnItsOwnConnectionWithoutWaitingForItself() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        try await withStopping(a, b) {
            let id = try await SearchTests.publish(a, title: "Lantern", search: false)
            let app = try await HandoffClient.connect(socketPath: b.control.path)
            defer { Task { await app.close() } }
            _ = try await app.perform(HandleRequest(types: ["org.hawknotes.bookDetail"], name: "reader"))
            let answering = Task {
                for await e in app.events where e.name == "continue" {
                    _ = try? await app.perform(HandledRequest(token: e.fields["token"]?.stringValue ?? "", accepted: true))
                }
            }
            defer { answering.cancel() }
            let started = ContinuousClock.now
            let report = try await app.perform(ContinueRequest(peer: "alpha", activity: id))
            #expect(report.step == "app" && report.handler == "reader", "\(report.propertyList)")
            #expect(ContinuousClock.now - started < .seconds(3), "it waited for its own answer")
        }
    }

    @Test func aHandlerThatDoesNotAnswerIsNamed() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        try await withStopping(a, b) {
            var file = UserActivity(type: FileTransfer.type, title: "notes.txt")
            try file.addUserInfoEntries(["name": "notes.txt", "size": .integer(5)])
            _ = try await a.request("publish", ["activity": file.propertyList])
            let silent = try await HandoffClient.connect(socketPath: b.control.path)
            defer { Task { await silent.close() } }
            _ = try await silent.perform(HandleRequest(types: [FileTransfer.type.rawValue], name: "sleepy"))
            let asker = try await HandoffClient.connect(socketPath: b.control.path)
            defer { Task { await asker.close() } }
            let report = try await asker.perform(ContinueRequest(peer: "alpha", activity: file.id))
            #expect(report.code == "handler-failed", "\(report.propertyList)")
            #expect(report.message?.contains("'sleepy', registered for it, did not answer within 5 s") == true, "\(report.message ?? "")")
        }
    }
}
