#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why an activity could not be continued (didFailToContinueUserActivityWithType). Sent back to the
/// originating machine as well, so both sides report the same reason.
public enum ContinuationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case noHandler(type: String)
    case undeclaredType(type: String)
    case missingRequiredKey(type: String, key: String)
    case expired(type: String, at: Date)
    case notEligible(type: String)
    case payloadDecodeFailed(type: String, reason: String)
    case contentNotFound(type: String, content: String)
    case tooLarge(type: String, size: Int, limit: Int)
    /// An exec handler or the webpage opener ran and did not succeed.
    case handlerFailed(type: String, reason: String)

    /// A stable identifier for the wire and for scripts (`handoffctl --json`).
    public var code: FailureCode {
        switch self {
        case .noHandler: .noHandler
        case .undeclaredType: .undeclaredType
        case .missingRequiredKey: .missingRequiredKey
        case .expired: .expired
        case .notEligible: .notEligible
        case .payloadDecodeFailed: .payloadDecodeFailed
        case .contentNotFound: .contentNotFound
        case .tooLarge: .tooLarge
        case .handlerFailed: .handlerFailed
        }
    }

    public var description: String {
        switch self {
        case .noHandler(let type):
            "no handler is registered for '\(type)' and it has no webpage URL; install or start an app that handles it"
        case .undeclaredType(let type):
            "'\(type)' is not a declared activity type here; install the app that declares it (`handoffctl apps`), or declare it under '\(DeclaredActivityTypes.configKey)' in the configuration"
        case .missingRequiredKey(let type, let key):
            "'\(type)' lacks required userInfo key '\(key)'; the sending app must set it"
        case .expired(let type, let date):
            "'\(type)' expired at \(ISODate.string(date)); start it again on the other machine"
        case .notEligible(let type):
            "'\(type)' is not eligible for Handoff"
        case .payloadDecodeFailed(let type, let reason):
            "the payload of '\(type)' cannot be decoded: \(reason)"
        case .contentNotFound(let type, let content):
            "'\(type)' points at content '\(content)' that this machine's library does not have"
        case .tooLarge(let type, let size, let limit):
            "'\(type)' is \(size) bytes, above the limit of \(limit)"
        case .handlerFailed(let type, let reason):
            "the handler for '\(type)' failed: \(reason)"
        }
    }

    /// The failure a continuation reports for a rule the activity breaks.
    public init(_ error: ActivityError, type: ActivityType) {
        let t = type.rawValue
        switch error {
        case .undeclaredType: self = .undeclaredType(type: t)
        case .missingRequiredKey(let key): self = .missingRequiredKey(type: t, key: key)
        case .expired(let date): self = .expired(type: t, at: date)
        case .notEligibleForHandoff, .useNotDeclared: self = .notEligible(type: t)
        case .tooLarge(let size, let limit): self = .tooLarge(type: t, size: size, limit: limit)
        case .payloadMissing, .payloadTypeMismatch, .payloadCorrupt, .invalidType,
            .unsupportedURLScheme, .reservedUserInfoKey, .duplicateDeclaration:
            self = .payloadDecodeFailed(type: t, reason: error.description)
        }
    }
}
