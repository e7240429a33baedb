import ArgumentParser
import Foundation
import HandoffClient
import HandoffControl
import HandoffCore

/// Options every command takes.
struct ClientOptions: ParsableArguments {
    @Option(help: "The control socket (default: $HANDOFF_SOCKET, else /run/handoffd/control.sock).")
    var socket: String?

    @Flag(help: "Print the daemon's answer as JSON instead of a table.")
    var json = false

    var socketPath: String {
        socket ?? ProcessInfo.processInfo.environment["HANDOFF_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? HandoffClient.defaultSocketPath
    }

    /// Connects, or exits 3 with one line that says how to start handoffd.
    func connect() async throws -> HandoffClient {
        do { return try await HandoffClient.connect(socketPath: socketPath) } catch {
            fail(error.description, code: ExitStatus.daemon)
        }
    }

    /// One request; a refusal exits 1 (3 if the daemon went away) with its message.
    func request(_ client: HandoffClient, _ op: String, _ arguments: [String: PropertyListValue] = [:]) async -> PropertyListValue? {
        // The daemon takes ids in their one canonical spelling; a person may type or paste lower case.
        var arguments = arguments
        for key in ["activity", "scene"] {
            if case .string(let s)? = arguments[key], UUID(uuidString: s) != nil { arguments[key] = .string(s.uppercased()) }
        }
        do { return try await client.request(op, arguments) } catch {
            switch error {
            case .refused: fail(error.description, code: ExitStatus.refused)
            default: fail(error.description, code: ExitStatus.daemon)
            }
        }
    }

    /// Connects, sends one request and prints the answer: as JSON with --json, else with `human`.
    func run(_ op: String, _ arguments: [String: PropertyListValue] = [:], human: (PropertyListValue?) -> Void) async throws {
        let client = try await connect()
        let result = await request(client, op, arguments)
        await client.close()
        if json { printJSON(result) } else { human(result) }
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
}

/// Messages can quote a peer (its name, its error text): printed escaped.
func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("handoffctl: \(message.terminalSafe)\n".utf8))
    exit(code)
}
