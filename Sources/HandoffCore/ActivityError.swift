#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What can be wrong with an activity itself, before any handler sees it.
public enum ActivityError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidType(String, reason: String)
    case unsupportedURLScheme(String)
    case reservedUserInfoKey(String)
    case missingRequiredKey(String)
    case expired(Date)
    case notEligibleForHandoff
    case undeclaredType(String, configKey: String)
    case duplicateDeclaration(String)
    case payloadMissing
    case payloadTypeMismatch(expected: String, found: String)
    case payloadCorrupt(String)
    case tooLarge(size: Int, limit: Int)
    /// The activity claims a use (`search`, `streams`) its type's declaration does not allow.
    case useNotDeclared(String, use: String)

    public var description: String {
        switch self {
        case .invalidType(let value, let reason):
            "activity type '\(value)' is invalid: \(reason); use reverse-DNS form such as org.example.viewBook"
        case .unsupportedURLScheme(let url):
            "webpage URL '\(url)' is not http or https; give an http(s) URL or none"
        case .reservedUserInfoKey(let key):
            "userInfo key '\(key)' is reserved for typed payloads; use setTypedPayload or another key"
        case .missingRequiredKey(let key):
            "required userInfo key '\(key)' is missing; add it before publishing"
        case .expired(let date):
            "the activity expired at \(ISODate.string(date)); publish a fresh one"
        case .notEligibleForHandoff:
            "the activity is not eligible for Handoff; set isEligibleForHandoff to advertise it"
        case .undeclaredType(let type, let configKey):
            "activity type '\(type)' is not declared on this machine; install the app that declares it (`handoffctl apps` lists what is declared), or declare it under '\(configKey)' in the configuration"
        case .duplicateDeclaration(let type):
            "activity type '\(type)' is declared twice; keep one declaration"
        case .payloadMissing:
            "the activity carries no typed payload; the sender must call setTypedPayload"
        case .payloadTypeMismatch(let expected, let found):
            "the typed payload is a '\(found)', not the expected '\(expected)'"
        case .payloadCorrupt(let detail):
            "the typed payload cannot be decoded: \(detail)"
        case .useNotDeclared(let type, let use):
            "activity type '\(type)' is declared without \(use) (its app's declaration says \(use == "search" ? "Search" : "Streams")=false); leave that off the activity, or declare it"
        case .tooLarge(let size, let limit):
            "the encoded activity is \(size) bytes, above the limit of \(limit) bytes; keep its title, keywords and userInfo small, "
                + "and carry bulky data over a continuation stream (supportsContinuationStreams) or as a file (`handoffctl send-file`)"
        }
    }
}
