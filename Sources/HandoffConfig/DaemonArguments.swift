/// handoffd's command line: eight options, read by hand. swift-argument-parser (which handoffctl
/// and hawknotes keep) builds each command from a Mirror over its properties, and every property
/// wrapper's type is checked against protocols by scanning all the binary's conformance records:
/// a third of handoffd's start before its event loop (docs/PERFORMANCE.md), while
/// a restarted daemon's peers wait for its first handshake. docs/ARCHITECTURE.md, "What we wrote
/// ourselves".
public struct DaemonArguments: Equatable, Sendable {
    public static let defaultConfigPath = "/etc/handoffd/handoffd.yaml"

    public var config = DaemonArguments.defaultConfigPath
    public var configOptional = false
    public var checkConfig = false
    public var stateDirectory: String?
    public var runtimeDirectory: String?
    public var deviceName: String?
    public var peerPort: Int?

    public init() {}

    public enum Parsed: Equatable, Sendable {
        case run(DaemonArguments)
        case help
        case version
    }

    /// A command line handoffd does not take; the message says what and where to look.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let message: String
        public init(message: String) { self.message = message }
        public var description: String { "handoffd: \(message)\nSee 'handoffd --help'." }
    }

    private enum Option: String, CaseIterable {
        case config
        case configOptional = "config-optional"
        case checkConfig = "check-config"
        case stateDirectory = "state-directory"
        case runtimeDirectory = "runtime-directory"
        case deviceName = "device-name"
        case peerPort = "peer-port"

        var takesValue: Bool { self != .configOptional && self != .checkConfig }
    }

    /// `arguments` without the program's name. `--name value` and `--name=value` both work.
    public static func parse(_ arguments: [String]) throws(Failure) -> Parsed {
        var parsed = DaemonArguments()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "-h" || argument == "--help" { return .help }
            if argument == "--version" { return .version }
            guard argument.hasPrefix("--") else { throw Failure(message: "unexpected argument '\(argument)'") }
            let body = argument.dropFirst(2)
            let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            guard let option = Option(rawValue: name) else { throw Failure(message: "unknown option '--\(name)'") }
            var value: String?
            if let equals = body.firstIndex(of: "=") {
                guard option.takesValue else { throw Failure(message: "'--\(name)' takes no value") }
                value = String(body[body.index(after: equals)...])
            } else if option.takesValue {
                guard let next = rest.popFirst() else { throw Failure(message: "'--\(name)' needs a value") }
                value = next
            }
            try parsed.set(option, value)
        }
        return .run(parsed)
    }

    private mutating func set(_ option: Option, _ value: String?) throws(Failure) {
        switch option {
        case .config: config = value!
        case .configOptional: configOptional = true
        case .checkConfig: checkConfig = true
        case .stateDirectory: stateDirectory = value
        case .runtimeDirectory: runtimeDirectory = value
        case .deviceName: deviceName = value
        case .peerPort:
            guard let port = Int(value!), (0...65535).contains(port) else {
                throw Failure(message: "'--peer-port' takes a port from 0 to 65535 (0 picks a free one), not '\(value!)'")
            }
            peerPort = port
        }
    }

    public static let help = """
        OVERVIEW: Handoff and state restoration daemon: advertises activities over DNS-SD and continues them from paired machines.

        Exit status: 0 after a clean stop or a valid --check-config; 1 when the configuration, the state directory or the identity key is unusable (the message says which and how to fix it); 64 for a command line it does not take.

        USAGE: handoffd [--config <config>] [--config-optional] [--check-config] [--state-directory <dir>] [--runtime-directory <dir>] [--device-name <name>] [--peer-port <port>]

        OPTIONS:
          --config <config>       The configuration file. A missing file at the default path means built-in defaults.
                                  (default: \(defaultConfigPath))
          --config-optional       A missing --config file means built-in defaults too (the user unit's ~/.config/handoffd/handoffd.yaml).
          --check-config          Check the configuration, report the first error with its key, and exit.
          --state-directory <dir> Overrides state_directory (identity key, trust store, scenes).
          --runtime-directory <dir>
                                  Overrides runtime_directory (the control socket).
          --device-name <name>    Overrides device_name.
          --peer-port <port>      Overrides peer_port (0 picks a free port).
          --version               Show the version.
          -h, --help              Show help information.

        """
}
