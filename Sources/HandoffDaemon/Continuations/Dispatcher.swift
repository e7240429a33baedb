#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffConfig
import HandoffContent
import HandoffControl
import HandoffCore
import HandoffProtocol

/// Where a continued activity ended up.
public enum DispatchOutcome: Sendable, Equatable {
    case continuedByApp(String)
    case routedToScene(UUID, Route)
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
    func offer(_ activity: UserActivity, from origin: Origin?) async -> LiveOffer
    /// Whether a handler is (or, within `deadline`, becomes) registered for `type`.
    func registered(for type: String, within deadline: Duration) async -> Bool
}

/// Dispatch on the continuing machine, in this order: the declared-type and activity checks; apps
/// registered live; the app that declares the type, started and then offered it; the built-in
/// Hawk Notes handlers (route applied to a scene); exec handlers from the configuration; the
/// webpageURL opener; else a typed failure.
public struct Dispatcher: Sendable {
    public let declared: DeclaredTypes
    /// The installed apps, to start the one that declares a type no running app registered for.
    public var apps: Apps?
    public let router: ActivityRouter
    public let execHandlers: [ActivityType: ExecHandlerBinding]
    public let opener: [String]
    public let live: any LiveHandlers
    /// Applies a route to the preferred scene (nil: the one the selector picks) and returns its id.
    public let applyRoute: @Sendable (Route, UserActivity, UUID?) async throws(SceneError) -> UUID
    public var openerTimeout: Duration = .seconds(10)
    /// Opens a window at a scene a continuation was routed into when no running app took it
    /// (`scene_opener`, the scene id appended), only where a desktop session exists.
    public var sceneOpener: [String] = []
    public var desktop = false

    public init(
        declared: DeclaredTypes, router: ActivityRouter, execHandlers: [ExecHandlerBinding], opener: [String], live: any LiveHandlers,
        applyRoute: @escaping @Sendable (Route, UserActivity, UUID?) async throws(SceneError) -> UUID
    ) {
        self.declared = declared
        self.router = router
        var map: [ActivityType: ExecHandlerBinding] = [:]
        for binding in execHandlers { for t in binding.types { map[t] = binding } }
        self.execHandlers = map
        self.opener = opener
        self.live = live
        self.applyRoute = applyRoute
    }

    /// One pass: the checks once, the handler looked up once, the preferred scene (`continue
    /// --scene`) passed down to where the route is applied.
    /// `requester` is the paired peer that pushed the activity (its share of the command slots),
    /// nil when this machine's user asked (`continue`). `origin`: the machine it came from, told
    /// to a live app with it (its name and fingerprint: the app names it when it opens a stream).
    public func dispatch(
        _ activity: UserActivity, preferredScene: UUID? = nil, requester: String? = nil, origin: Origin? = nil, at now: Date = Date()
    ) async -> DispatchOutcome {
        let type = activity.type.rawValue
        do throws(ActivityError) { try declared.current.validate(activity, at: now) } catch {
            return .failed(ContinuationFailure(error, type: activity.type))
        }
        var offered = await live.offer(activity, from: origin)
        if case .taken(let app) = offered { return .continuedByApp(app) }
        if offered == .none, let apps, let app = apps.launchable(for: activity.type) {
            switch await launched(app, apps: apps, for: activity, requester: requester, origin: origin) {
            case .taken(let name): return .continuedByApp(name)
            case .failed(let failure): return .failed(failure)
            case .declined(let again): offered = again
            }
        }
        if let handler = router.handlers.handler(for: activity.type) {
            let route: Route
            do throws(ContinuationFailure) { route = try handler.route(for: activity) } catch { return .failed(error) }
            do throws(SceneError) {
                let scene = try await applyRoute(route, activity, preferredScene)
                if !sceneOpener.isEmpty, desktop { await openWindow(at: scene, for: requester) }
                return .routedToScene(scene, route)
            } catch {
                if case .saveFailed = error { return .failed(.handlerFailed(type: type, reason: error.description)) }
                return .failed(.contentNotFound(type: type, content: error.description))
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
        case taken(String)
        case declined(LiveOffer)
        case failed(ContinuationFailure)
    }

    /// Starts the app that declares the type, waits for it to register, and offers it the activity.
    func launched(_ app: AppDeclaration, apps: Apps, for activity: UserActivity, requester: String?, origin: Origin?) async -> Launched {
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
        let offered = await live.offer(activity, from: origin)
        if case .taken(let name) = offered { return .taken(name) }
        return .declined(offered)
    }

    /// Starts the scene opener in the background (a terminal window stays open as long as the
    /// person uses it): the shell that starts it ends at once, so the command runner waits for
    /// nothing. A failure is the opener's to report; the continuation is in the scene either way.
    func openWindow(at scene: UUID, for requester: String?) async {
        let argv = ["/bin/sh", "-c", "\"$@\" </dev/null >/dev/null 2>&1 &", "sh"] + sceneOpener + [scene.canonicalString]
        _ = await CommandRunner.run(argv, timeout: openerTimeout, for: requester)
    }
}
