import HandoffCore

/// What can go wrong talking to handoffd, each with what to do about it.
public enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case daemonNotRunning(socket: String)
    case permissionDenied(socket: String)
    /// The path given for the control socket cannot be one (a directory, a file, too long).
    case badSocketPath(socket: String, why: String)
    case refused(code: FailureCode, message: String)
    case connectionLost
    case badResponse(String)
    /// handoffd took the request but did not answer within the operation's bound (`answerWithin`).
    case noAnswer(operation: String, within: Duration)

    public var description: String {
        switch self {
        case .daemonNotRunning(let socket):
            "handoffd is not running (no control socket at \(socket)); start it with: systemctl start handoffd"
        case .permissionDenied(let socket):
            "not allowed to use \(socket); run as handoffd's user or root"
        case .badSocketPath(let socket, let why):
            "\(socket) \(why): give the path of handoffd's control socket, such as \(HandoffClient.defaultSocketPath)"
        case .refused(_, let message):
            message
        case .connectionLost:
            "the connection to handoffd was lost; check `systemctl status handoffd`"
        case .badResponse(let why):
            "handoffd sent an answer this client does not understand (\(why)); are both from the same release?"
        case .noAnswer(let operation, let within):
            "handoffd did not answer `\(operation)` within \(within.spokenSeconds); it may be stopped or overloaded: "
                + "check `systemctl status handoffd` and `journalctl -u handoffd`"
        }
    }

    /// The daemon's error code, for scripts.
    public var code: FailureCode {
        switch self {
        case .daemonNotRunning: .daemonNotRunning
        case .permissionDenied: .permissionDenied
        case .badSocketPath: .socketPath
        case .refused(let code, _): code
        case .connectionLost: .connectionLost
        case .badResponse: .badResponse
        case .noAnswer: .noAnswer
        }
    }
}
