#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// Decides what a continued activity turns into: checks it against the declared types and its own
/// rules, then hands it to the registered handler.
public struct ActivityRouter: Sendable {
    public let declared: DeclaredActivityTypes
    public let handlers: HandlerRegistry

    public init(declared: DeclaredActivityTypes, handlers: HandlerRegistry) {
        self.declared = declared
        self.handlers = handlers
    }

    public func route(_ activity: UserActivity, at now: Date = Date()) throws(ContinuationFailure) -> Route {
        do throws(ActivityError) {
            try declared.validate(activity, at: now)
        } catch {
            throw ContinuationFailure(error, type: activity.type)
        }
        guard let handler = handlers.handler(for: activity.type) else {
            throw .noHandler(type: activity.type.rawValue)
        }
        return try handler.route(for: activity)
    }
}
