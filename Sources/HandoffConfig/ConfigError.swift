/// Why a configuration file was refused; names the file and the key, as `handoffd --check-config`
/// prints it.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case syntax(file: String, reason: String)
    case unknownKey(file: String, key: String)
    case invalid(file: String, key: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "cannot read \(file): \(reason)"
        case .syntax(let file, let reason):
            "\(file) is not valid YAML: \(reason)"
        case .unknownKey(let file, let key):
            "\(file): unknown key '\(key)'; check its spelling against the shipped config/handoffd.yaml"
        case .invalid(let file, let key, let reason):
            "\(file): '\(key)' \(reason)"
        }
    }

    /// The key the error is about, when there is one.
    public var key: String? {
        switch self {
        case .unknownKey(_, let key), .invalid(_, let key, _): key
        case .unreadable, .syntax: nil
        }
    }
}
