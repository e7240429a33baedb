#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffConfig

/// Why handoffd cannot start: each says what to fix.
enum StartupError: Error, CustomStringConvertible {
    case config(String)
    case directory(String, String)
    case state(String)

    var description: String {
        switch self {
        case .config(let m): m
        case .directory(let path, let why):
            "cannot use directory \(path): \(why); create it with mode 0700 for handoffd's user or point the configuration elsewhere"
        case .state(let m): m
        }
    }
}

/// The configuration file (or the defaults) and the command-line overrides.
struct Settings: Sendable {
    var configuration: HandoffConfiguration
    var source: String

    static func load(_ options: DaemonArguments) throws -> Settings {
        var configuration: HandoffConfiguration
        var source: String
        if FileManager.default.fileExists(atPath: options.config) {
            do { configuration = try HandoffConfiguration(contentsOf: URL(fileURLWithPath: options.config)) } catch {
                throw StartupError.config(error.description)
            }
            source = options.config
        } else if options.config == DaemonArguments.defaultConfigPath || options.configOptional {
            configuration = HandoffConfiguration()
            source = "built-in defaults (no \(options.config))"
        } else {
            throw StartupError.config(
                "\(options.config) does not exist; give an existing file with --config, or leave it out to use the built-in defaults")
        }
        if let s = options.stateDirectory { configuration.stateDirectory = s }
        if let r = options.runtimeDirectory { configuration.runtimeDirectory = r }
        if let n = options.deviceName { configuration.deviceName = n }
        if let p = options.peerPort { configuration.peerPort = p }
        return Settings(configuration: configuration, source: source)
    }
}
