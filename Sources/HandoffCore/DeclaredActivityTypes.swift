#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The activity types this machine publishes and accepts. Anything else is refused with an error
/// that names the type and the configuration key that declares types.
public struct DeclaredActivityTypes: Sendable {
    /// The configuration key that lists declared types; named in every "undeclared" error.
    public static let configKey = "activity_types"

    public let declarations: [ActivityType: ActivityTypeDeclaration]

    public init(_ list: [ActivityTypeDeclaration]) throws(ActivityError) {
        var map: [ActivityType: ActivityTypeDeclaration] = [:]
        for d in list {
            if map[d.type] != nil { throw .duplicateDeclaration(d.type.rawValue) }
            map[d.type] = d
        }
        declarations = map
    }

    private init(declarations: [ActivityType: ActivityTypeDeclaration]) { self.declarations = declarations }

    public var types: [ActivityType] { declarations.keys.sorted() }

    /// These declarations with `local` ones added (the configuration's): a local declaration of a
    /// type already declared here takes its place (its required keys, its payload), and nothing
    /// declared here is removed. `local` itself may name a type once.
    public func adding(_ local: [ActivityTypeDeclaration]) throws(ActivityError) -> DeclaredActivityTypes {
        let own = try DeclaredActivityTypes(local)
        return DeclaredActivityTypes(declarations: declarations.merging(own.declarations) { $1 })
    }

    public func declaration(for type: ActivityType) throws(ActivityError) -> ActivityTypeDeclaration {
        guard let d = declarations[type] else {
            throw .undeclaredType(type.rawValue, configKey: Self.configKey)
        }
        return d
    }

    /// Checks an activity against its declaration, its own rules and the clock. Used before an
    /// activity is advertised and again before it is continued.
    public func validate(_ activity: UserActivity, at now: Date) throws(ActivityError) {
        let declaration = try declaration(for: activity.type)
        if activity.isExpired(at: now), let date = activity.expirationDate { throw .expired(date) }
        let required = activity.requiredUserInfoKeys.union(declaration.requiredKeys)
        for key in required.sorted() where activity.userInfo[key] == nil {
            throw .missingRequiredKey(key)
        }
        if let payload = declaration.payload {
            guard let found = activity.typedPayloadTypeName else { throw .payloadMissing }
            if found != payload { throw .payloadTypeMismatch(expected: payload, found: found) }
        }
    }

    /// `validate`, plus what only matters when advertising: Handoff eligibility and size.
    public func validateForPublishing(
        _ activity: UserActivity, at now: Date, sizePolicy: ActivitySizePolicy = .default
    ) throws(ActivityError) -> ActivitySize {
        guard activity.isEligibleForHandoff else { throw .notEligibleForHandoff }
        try validate(activity, at: now)
        let declaration = try declaration(for: activity.type)
        if activity.isEligibleForSearch, !declaration.search { throw .useNotDeclared(activity.type.rawValue, use: "search") }
        if activity.supportsContinuationStreams, !declaration.streams { throw .useNotDeclared(activity.type.rawValue, use: "streams") }
        return try activity.measureSize(policy: sizePolicy)
    }
}
