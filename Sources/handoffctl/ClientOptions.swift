import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClient
import HandoffControl
import HandoffCore

/// Options every command takes.
struct ClientOptions: ParsableArguments {
    @Option(help: "The control socket (default: $HANDOFF_SOCKET, else /run/handoffd/control.sock).")
    var socket: String?

    @Flag(help: "Print the daemon's answer as JSON instead of a table.")
    var json = false

    @Option(
        help: "Seconds to wait for handoffd's answer before giving up (exit 3). Default: 30; for what waits on another "
            + "machine or a person (send, continue, pair, activities --remote) as long as handoffd's own limits.")
    var timeout: Double?

    mutating func validate() throws {
        // An empty --socket (an unset variable in a script) read as "no control socket at ".
        if socket?.isEmpty == true { throw ValidationError("--socket needs the control socket's path, such as /run/handoffd/control.sock") }
        if let timeout, !(timeout > 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 86400 (a day)")
        }
    }

    /// How long to wait for the operation's answer: --timeout, else the operation's own bound.
    func bound(for operation: some ControlOperation) -> Duration? {
        timeout.map { .milliseconds(Int64(($0 * 1000).rounded(.up))) } ?? operation.answerWithin
    }

    var socketPath: String { Self.socketPath(option: socket) }

    /// --socket, else $HANDOFF_SOCKET, else handoffd's own (also the guess of `EarlyConnection`).
    static func socketPath(option: String?) -> String {
        option ?? ProcessInfo.processInfo.environment["HANDOFF_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? HandoffClient.defaultSocketPath
    }

    /// Connects, or fails (exit 3) with one line that says how to start handoffd.
    func connect() async throws -> HandoffClient {
        do { return try await HandoffClient.connect(socketPath: socketPath) } catch {
            throw failure(error.description, code: Self.exitStatus(error))
        }
    }

    /// One operation; a refusal fails with exit 1 (3 if the daemon went away), with its message.
    /// `within`: a command's own bound in place of --timeout's (`pair --accept`: its window).
    func perform<Op: ControlOperation>(_ client: HandoffClient, _ operation: Op, within: Duration? = nil) async throws -> Op.Result {
        do { return try await client.perform(operation, within: within ?? bound(for: operation)) } catch {
            throw failure(error.description, code: Self.exitStatus(error))
        }
    }

    /// Performs one operation on a connection of its own (blocking: no event loop for one line
    /// each way) and prints the answer: as JSON with --json, else with `human`.
    func run<Op: ControlOperation>(_ operation: Op, human: (Op.Result) throws -> Void) throws {
        let result = try performOnce(operation)
        if json { printJSON(result.propertyList) } else { try human(result) }
    }

    /// One operation on a connection of its own (blocking); failures as `perform`'s.
    func performOnce<Op: ControlOperation>(_ operation: Op) throws -> Op.Result {
        let connection = EarlyConnection.take(for: socketPath) ?? HandoffClient.OnceConnection(socketPath: socketPath)
        do { return try connection.perform(operation, within: bound(for: operation)) } catch {
            throw failure(error.description, code: Self.exitStatus(error))
        }
    }

    /// A refusal fails with exit 1, a path that cannot be a socket with 64 (--socket or
    /// $HANDOFF_SOCKET mistyped), anything else (no daemon, a lost connection) with 3.
    static func exitStatus(_ error: ClientError) -> Int32 {
        switch error {
        case .refused: ExitStatus.refused
        case .badSocketPath: ExitStatus.usage
        default: ExitStatus.daemon
        }
    }

    /// Connects, runs `body` with the connection, and closes it.
    func withClient<T>(_ body: (HandoffClient) async throws -> T) async throws -> T {
        let client = try await connect()
        do {
            let value = try await body(client)
            await client.close()
            return value
        } catch {
            await client.close()
            throw error
        }
    }

    /// Our writer, indented: lossless, and it escapes every display control a peer's text may hold.
    func printJSON(_ value: PropertyListValue?) {
        print(String(decoding: JSONWriter.pretty(value ?? [:]), as: UTF8.self))
    }
}

enum ExitStatus {
    static let refused: Int32 = 1
    static let continuationFailed: Int32 = 2
    static let daemon: Int32 = 3
    static let usage: Int32 = 64
    /// A file to read is missing or unreadable (sysexits' EX_NOINPUT).
    static let noInput: Int32 = 66
}

/// Prints the message (it can quote a peer: its name, its error text; printed escaped) and
/// returns the exit status to throw.
func failure(_ message: String, code: Int32) -> ExitCode {
    StandardStreams.error("handoffctl: \(message.terminalSafe)\n")
    return ExitCode(code)
}

/// An id typed by a person (any case), or a usage failure naming the argument.
func parseID(_ text: String, _ what: String) throws -> UUID {
    guard let id = UUID(uuidString: text) else {
        throw failure("\(what) '\(text)' is not an id (a UUID such as 0D5E9A6C-0E0B-4C1F-9C64-0B7E7C2F3A11)", code: ExitStatus.usage)
    }
    return id
}
