import Foundation
import HandoffAsync
import HandoffControl
import HandoffCore

/// Apps registered over the control socket for activity types (`handle`). A continuation is
/// offered as a `continue` event carrying a token; the app answers with the `handled` request.
/// An app that does not answer within `answerBudget`, or disconnects, counts as declining.
public actor LiveHandlerRegistry: LiveHandlers {
    struct Registration {
        let client: ControlClient
        let name: String
        let types: Set<String>
        var key: ObjectIdentifier { client.key }
    }

    private var registrations: [Registration] = []
    private let answers = Waiters<String, Bool>()
    private let answerBudget: Duration

    public init(answerBudget: Duration = .seconds(5)) { self.answerBudget = answerBudget }

    public func register(_ client: ControlClient, name: String, types: [String]) {
        registrations.append(Registration(client: client, name: name, types: Set(types)))
    }

    public func remove(_ client: ControlClient) async {
        registrations.removeAll { $0.key == client.key }
        answers.end(owner: client.key)
    }

    /// Shutdown: offers waiting for an answer end as declined.
    public func endAll() { answers.endAll() }

    /// The app's answer; false if the token is unknown (answered late, or not ours).
    public func answer(token: String, accepted: Bool) -> Bool { answers.resumeOldest(token, with: accepted) }

    public func offer(_ activity: UserActivity) async -> String? {
        for r in registrations where r.types.contains(activity.type.rawValue) {
            let token = UUID().uuidString
            let ticket = answers.register(token, owner: r.key, deadline: answerBudget)
            r.client.send(event: "continue", ["token": .string(token), "handler": .string(r.name), "activity": activity.propertyList])
            if await answers.wait(ticket).value == true { return r.name }
        }
        return nil
    }
}
