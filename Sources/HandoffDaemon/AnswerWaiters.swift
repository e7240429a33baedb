import Foundation
import NIOCore

/// Questions the daemon asks a control client (offer a continuation, refresh a needsSave
/// activity) and waits on with a budget. Each question has a token the client echoes in its
/// answer; an unanswered question ends with nil when the budget runs out or the client leaves.
actor AnswerWaiters<Value: Sendable> {
    private var pending: [String: (owner: ObjectIdentifier, continuation: CheckedContinuation<Value?, Never>, timer: Scheduled<Void>)] = [:]

    /// Sends the question through `ask(token)` and waits for the answer, at most `budget`.
    func ask(owner: ObjectIdentifier, budget: Duration, _ ask: @Sendable (String) -> Void) async -> Value? {
        let token = UUID().uuidString
        return await withCheckedContinuation { c in
            let timer = Timeout.after(budget) { Task { await self.finish(token, with: nil) } }
            pending[token] = (owner, c, timer)
            ask(token)
        }
    }

    /// The client's answer; false if the token is unknown (answered late, or not a question of ours).
    func answer(_ token: String, with value: Value) -> Bool { finish(token, with: value) }

    /// The client left: its questions end unanswered.
    func abandon(owner: ObjectIdentifier) {
        for (token, p) in pending where p.owner == owner {
            pending[token] = nil
            p.timer.cancel()
            p.continuation.resume(returning: nil)
        }
    }

    @discardableResult
    private func finish(_ token: String, with value: Value?) -> Bool {
        guard let p = pending.removeValue(forKey: token) else { return false }
        p.timer.cancel()
        p.continuation.resume(returning: value)
        return true
    }
}
