import HandoffCore

/// An app installed for handoffd (docs/APPS.md, "Declaring an app"): what it is called, the
/// activity types it continues (NSUserActivityTypes, which ship inside an app on Apple's systems)
/// and how handoffd starts it to continue one when it is not running.
public struct AppDeclaration: Sendable, Equatable {
    /// The file's name without `.app`, reverse-DNS like a .desktop file's id.
    public let id: String
    public let name: String
    /// Where it was read from.
    public let file: String
    public let types: [ActivityTypeDeclaration]
    public let launch: AppLaunch?

    public init(id: String, name: String, file: String, types: [ActivityTypeDeclaration], launch: AppLaunch?) {
        (self.id, self.name, self.file, self.types, self.launch) = (id, name, file, types, launch)
    }
}

/// How an app is started to continue an activity: a command (no shell; the activity's id is
/// appended), or a D-Bus name the session bus activates.
public enum AppLaunch: Sendable, Equatable, CustomStringConvertible {
    case command([String])
    case busName(String)

    public var description: String {
        switch self {
        case .command(let argv): argv.joined(separator: " ")
        case .busName(let name): "D-Bus activation of \(name)"
        }
    }
}

/// What is wrong in an app's file, at which line (0: the file as a whole).
public struct AppFileProblem: Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let message: String

    public init(file: String, line: Int, message: String) { (self.file, self.line, self.message) = (file, line, message) }

    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}
