/// Why a configuration file was refused; names the file and the key, as `handoffd --check-config`
/// prints it.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case syntax(file: String, reason: String)
    /// `nearest`: the known key it most likely meant (`NearestKey`), in the same place.
    case unknownKey(file: String, key: String, nearest: String?)
    case invalid(file: String, key: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "cannot read \(file): \(reason)"
        case .syntax(let file, let reason):
            "\(file) is not valid YAML: \(reason)"
        case .unknownKey(let file, let key, let nearest?):
            "\(file): unknown key '\(key)'; did you mean '\(nearest)'? (the shipped config/handoffd.yaml lists every key)"
        case .unknownKey(let file, let key, nil):
            "\(file): unknown key '\(key)'; check its spelling against the shipped config/handoffd.yaml"
        case .invalid(let file, let key, let reason):
            "\(file): '\(key)' \(reason)"
        }
    }

    /// The key the error is about, when there is one.
    public var key: String? {
        switch self {
        case .unknownKey(_, let key, _), .invalid(_, let key, _): key
        case .unreadable, .syntax: nil
        }
    }
}
