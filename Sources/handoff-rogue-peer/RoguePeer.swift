import Foundation
import HandoffLink
import Logging

/// A peer that misbehaves on purpose, for the end-to-end tests of what handoffd refuses:
///   pair NAME HOST PORT confirm|reject   pairs under any NAME (control characters included),
///                                        prints `code NNNNNN` and `fingerprint F`, then the outcome
@main
struct RoguePeer {
    static func main() async throws {
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = .error
            return h
        }
        let args = Array(CommandLine.arguments.dropFirst())
        guard args.count == 5, args[0] == "pair", let port = Int(args[3]) else {
            print("usage: handoff-rogue-peer pair NAME HOST PORT confirm|reject")
            exit(2)
        }
        let endpoint = LinkEndpoint(identity: IdentityKey(), name: args[1], trustStore: InMemoryTrustStore())
        let session: PairingSession
        do { session = try await endpoint.pair(host: args[2], port: port) } catch {
            print("refused \(error)")
            exit(1)
        }
        do {
            let code = try await session.code()
            // Written at once (print is buffered on a pipe): the tests answer it while this waits.
            FileHandle.standardOutput.write(Data("fingerprint \(endpoint.identity.identity.fingerprint)\ncode \(code)\n".utf8))
        } catch {
            print("failed \(error)")
            exit(1)
        }
        if args[4] == "confirm" { session.confirm() } else { session.reject() }
        switch await session.outcome() {
        case .success: print("paired")
        case .failure(let error): print("failed \(error)")
        }
    }
}
