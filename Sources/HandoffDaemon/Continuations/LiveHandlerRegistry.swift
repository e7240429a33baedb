#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffControl
import HandoffCore

/// What the registry needs to know of a live handler's window (its scene): what it shows, and
/// when the person last changed it (the frontmost window is the one used last).
public struct LiveSceneFacts: Sendable, Equatable {
    public let content: String?
    public let updated: Date

    public init(content: String?, updated: Date) { (self.content, self.updated) = (content, updated) }
}

/// Apps registered over the control socket for activity types (`handle`). A continuation is
/// offered as a `continue` event carrying a token; the app answers with the `handled` request.
/// An app that does not answer within `answerBudget`, or disconnects, counts as declining.
/// Several windows of one app register each with its scene: the one whose content is the
/// activity's target content is offered it first, then the frontmost (the scene changed last),
/// then those without a scene, in registration order.
public actor LiveHandlerRegistry: LiveHandlers {
    struct Registration {
        let client: ControlClient
        let name: String
        let types: Set<String>
        let scene: UUID?
        var key: ObjectIdentifier { client.key }
    }

    private var registrations: [Registration] = []
    /// Each offer's answer: taken (and in which of the app's scenes) or not.
    private let answers = Waiters<String, (accepted: Bool, scene: UUID?)>()
    /// Dispatches waiting for an app started to continue one to register for its type.
    private let arrivals = Waiters<String, Void>()
    private let answerBudget: Duration
    /// The facts of the registered scenes, from the scenes' owner.
    private let sceneFacts: @Sendable ([UUID]) async -> [UUID: LiveSceneFacts]

    public init(answerBudget: Duration = .seconds(5), sceneFacts: @escaping @Sendable ([UUID]) async -> [UUID: LiveSceneFacts] = { _ in [:] }) {
        self.answerBudget = answerBudget
        self.sceneFacts = sceneFacts
    }

    public func register(_ client: ControlClient, name: String, types: [String], scene: UUID? = nil) {
        registrations.append(Registration(client: client, name: name, types: Set(types), scene: scene))
        for type in Set(types) { _ = arrivals.resumeAll(type, with: ()) }
    }

    /// Whether a handler is registered for `type`, waiting up to `deadline` for one to register
    /// (an app handoffd has just started).
    public func registered(for type: String, within deadline: Duration) async -> Bool {
        if registrations.contains(where: { $0.types.contains(type) }) { return true }
        if case .value = await arrivals.wait(for: type, deadline: deadline) { return true }
        return false
    }

    /// How many registrations there are (status).
    public var count: Int { registrations.count }

    public func remove(_ client: ControlClient) async {
        registrations.removeAll { $0.key == client.key }
        answers.end(owner: client.key)
    }

    /// Shutdown: offers waiting for an answer end as declined.
    public func endAll() {
        answers.endAll()
        arrivals.endAll()
    }

    /// The app's answer; false if the token is unknown (answered late, or not ours).
    public func answer(token: String, accepted: Bool, scene: UUID? = nil) -> Bool { answers.resumeOldest(token, with: (accepted, scene)) }

    /// `preferring`: the window the person asked for (`continue --scene`), offered it first.
    public func offer(_ activity: UserActivity, from origin: Origin? = nil, preferring: UUID? = nil) async -> LiveOffer {
        var silent: [String] = []
        let candidates = registrations.filter { $0.types.contains(activity.type.rawValue) }
        if candidates.isEmpty { return .none }
        // Asked only if a candidate shows a scene: the question is a hop to SceneBook.
        let scenes = candidates.compactMap(\.scene)
        let facts = scenes.isEmpty ? [:] : await sceneFacts(scenes)
        for i in Self.order(scenes: candidates.map(\.scene), target: activity.targetContentIdentifier, facts: facts, preferring: preferring) {
            let r = candidates[i]
            let token = UUID.random().canonicalString
            let ticket = answers.register(token, owner: r.key, deadline: answerBudget)
            var fields: [String: PropertyListValue] = ["token": .string(token), "handler": .string(r.name)]
            if let origin {
                fields["peer"] = .string(origin.name)
                fields["fingerprint"] = .string(origin.fingerprint)
            }
            r.client.send(event: "continue", fields, activity: activity)
            switch await answers.wait(ticket) {
            case .value(let answer) where answer.accepted: return .taken(r.name, scene: answer.scene ?? r.scene)
            case .timedOut: silent.append(r.name)
            default: break
            }
        }
        return .notTaken(silent: silent, waited: answerBudget)
    }

    /// The order windows are offered an activity in (indexes into `scenes`): the one asked for,
    /// then its target content shown, then the one changed last, then those without a scene as
    /// they registered.
    static func order(scenes: [UUID?], target: String?, facts: [UUID: LiveSceneFacts], preferring: UUID? = nil) -> [Int] {
        scenes.indices.sorted { a, b in
            let pa = preferring != nil && scenes[a] == preferring, pb = preferring != nil && scenes[b] == preferring
            if pa != pb { return pa }
            let fa = scenes[a].flatMap { facts[$0] }, fb = scenes[b].flatMap { facts[$0] }
            let ma = target != nil && fa?.content == target, mb = target != nil && fb?.content == target
            if ma != mb { return ma }
            if (fa != nil) != (fb != nil) { return fa != nil }
            if let fa, let fb, fa.updated != fb.updated { return fa.updated > fb.updated }
            return a < b
        }
    }
}

/// What became of an activity offered to the live apps registered for its type.
public enum LiveOffer: Sendable, Equatable {
    /// An app took it, in this scene of its own when it said (or registered with one).
    case taken(String, scene: UUID?)
    /// None took it; `silent` are those that did not answer within `waited` (named in the failure,
    /// should nothing else take it: "no handler" misled an app that was too slow).
    case notTaken(silent: [String], waited: Duration)

    /// No app is registered for the type.
    public static let none = LiveOffer.notTaken(silent: [], waited: .zero)
}

/// The machine an activity came from, as told to the app that takes it.
public struct Origin: Sendable, Equatable {
    public let name: String
    public let fingerprint: String
}
