#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffConfig
import HandoffControl
import HandoffCore
import HandoffProtocol

/// Where a continued activity ended up.
public enum DispatchOutcome: Sendable, Equatable {
    /// An app took it, in this scene of its own when it said.
    case continuedByApp(String, scene: UUID?)
    case continuedByCommand([String])
    case openedWebpage(URL)
    case failed(ContinuationFailure)

    public var remote: RemoteOutcome {
        if case .failed(let f) = self { return RemoteOutcome(f) }
        return .continued
    }
}

/// Apps registered live over the control socket (onContinueUserActivity): offered the activity in
/// registration order until one accepts.
public protocol LiveHandlers: Sendable {
    /// The name of the app that accepted, or nil if none is registered for the type or all declined.
    /// `origin`: the machine it came from, told to the app.
    func offer(_ activity: UserActivity, from origin: Origin?, preferring: UUID?) async -> LiveOffer
    /// Whether a handler is (or, within `deadline`, becomes) registered for `type`.
    func registered(for type: String, within deadline: Duration) async -> Bool
}

/// Dispatch on the continuing machine, in this order: the declared-type and activity checks; apps
/// registered live; the app that declares the type, started and then offered it; exec handlers
/// from the configuration; the webpageURL opener; else a typed failure.
public struct Dispatcher: Sendable {
    public let declared: DeclaredTypes
    /// The installed apps, to start the one that declares a type no running app registered for.
    public var apps: Apps?
    public let execHandlers: [ActivityType: ExecHandlerBinding]
    public let opener: [String]
    public let live: any LiveHandlers
    public var openerTimeout: Duration = .seconds(10)

    public init(declared: DeclaredTypes, execHandlers: [ExecHandlerBinding], opener: [String], live: any LiveHandlers) {
        self.declared = declared
        var map: [ActivityType: ExecHandlerBinding] = [:]
        for binding in execHandlers { for t in binding.types { map[t] = binding } }
        self.execHandlers = map
        self.opener = opener
        self.live = live
    }

    /// One pass: the checks once, each step tried in order.
    /// `requester` is the paired peer that pushed the activity (its share of the command slots),
    /// nil when this machine's user asked (`continue`). `origin`: the machine it came from, told
    /// to a live app with it (its name and fingerprint: the app names it when it opens a stream).
    public func dispatch(
        _ activity: UserActivity, preferredScene: UUID? = nil, requester: PeerID? = nil, origin: Origin? = nil, at now: Date = Date()
    ) async -> DispatchOutcome {
        let type = activity.type.rawValue
        do throws(ActivityError) { try declared.current.validate(activity, at: now) } catch {
            return .failed(ContinuationFailure(error, type: activity.type))
        }
        var offered = await live.offer(activity, from: origin, preferring: preferredScene)
        if case .taken(let app, let scene) = offered { return .continuedByApp(app, scene: scene) }
        if offered == .none, let apps, let app = apps.launchable(for: activity.type) {
            switch await launched(app, apps: apps, for: activity, requester: requester, origin: origin) {
            case .taken(let name, let scene): return .continuedByApp(name, scene: scene)
            case .failed(let failure): return .failed(failure)
            case .declined(let again): offered = again
            }
        }
        if let binding = execHandlers[activity.type] {
            let result = await CommandRunner.run(
                binding.command, input: activity.jsonText + [0x0A], timeout: .seconds(binding.timeoutSeconds), for: requester)
            return result.succeeded
                ? .continuedByCommand(binding.command)
                : .failed(.handlerFailed(type: type, reason: "\(binding.command[0]) \(result)"))
        }
        if let url = activity.webpageURL {
            let result = await CommandRunner.run(opener + [url.absoluteString], timeout: openerTimeout, for: requester)
            return result.succeeded
                ? .openedWebpage(url) : .failed(.handlerFailed(type: type, reason: "opening \(url.absoluteString): \(opener[0]) \(result)"))
        }
        if case .notTaken(let silent, let waited) = offered, !silent.isEmpty {
            let apps = silent.map { "'\($0)'" }.joined(separator: ", ")
            return .failed(
                .handlerFailed(
                    type: type,
                    reason: "\(apps), registered for it, did not answer within \(waited.spokenSeconds) (answer each `continue` event with `handled`)")
            )
        }
        return .failed(.noHandler(type: type))
    }

    enum Launched {
        case taken(String, scene: UUID?)
        case declined(LiveOffer)
        case failed(ContinuationFailure)
    }

    /// Starts the app that declares the type, waits for it to register, and offers it the activity.
    func launched(_ app: AppDeclaration, apps: Apps, for activity: UserActivity, requester: PeerID?, origin: Origin?) async -> Launched {
        let type = activity.type.rawValue
        if let problem = await apps.launch(app, for: requester) {
            return .failed(.handlerFailed(type: type, reason: "\(app.name), which declares it, could not be started: \(problem)"))
        }
        guard await live.registered(for: type, within: Apps.registerWithin) else {
            return .failed(
                .handlerFailed(
                    type: type,
                    reason:
                        "\(app.name) was started to continue it (\(app.launch.map(\.description) ?? "")) and did not register for it within \(Apps.registerWithin.spokenSeconds); see \(app.file)"
                ))
        }
        let offered = await live.offer(activity, from: origin, preferring: nil)
        if case .taken(let name, let scene) = offered { return .taken(name, scene: scene) }
        return .declined(offered)
    }
}
