import ArgumentParser
import Foundation
import HandoffControl
import HandoffCore

struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pair with another machine, or accept a pairing (both show a 6-digit code to compare).",
        discussion: """
            Run `handoffctl pair --accept` on one machine, then `handoffctl pair NAME` on the other. \
            On another subnet or over a VPN, where mDNS does not list it, give its address instead: \
            `handoffctl pair HOST[:PORT]` (port 7340 unless given). \
            Both print the same code; confirm on both. --yes confirms without asking (for scripts that \
            compare the codes themselves).
            """)
    @OptionGroup var options: ClientOptions

    @Argument(help: "The machine to pair with: its name in `handoffctl peers`, or HOST[:PORT] (a name or address).")
    var peer: String?

    @Flag(help: "Wait for another machine to start pairing with this one (the window stays open up to --timeout).")
    var accept = false

    @Option(help: "Seconds to wait with --accept.")
    var timeout = 120

    @Flag(help: "Confirm the code without asking.")
    var yes = false

    func validate() throws {
        if accept == (peer != nil) { throw ValidationError("give either a peer to pair with, or --accept") }
    }

    func run() async throws {
        // One connection for both steps: the pairing belongs to the client that started it.
        let (code, result) = try await options.withClient { client in
            let started =
                accept
                ? try await options.perform(client, PairAcceptRequest(timeout: Int64(timeout)))
                : try await options.perform(client, PairRequest(peer: peer!))
            if !options.json {
                // Untrusted text first (escaped), the code last on a line of its own, so nothing
                // the other machine chose can stand after it or draw over it.
                print("Pairing with \(started.peer.terminalSafe)")
                print("Its fingerprint: \(started.fingerprint.terminalSafe)")
                print("Code: \(started.code.terminalSafe)")
            }
            var confirmed = yes
            if !yes {
                FileHandle.standardError.write(Data("Does the other machine show the same code? [y/N] ".utf8))
                confirmed = (readLine() ?? "").lowercased().hasPrefix("y")
            }
            return (started.code, try await options.perform(client, PairConfirmRequest(pairing: started.pairing, accept: confirmed)))
        }
        if options.json {
            var d = result.object.dictionaryValue ?? [:]
            d["code"] = .string(code)
            options.printJSON(.dictionary(d))
        } else {
            print("Paired with \(result.peer.terminalSafe) (\(result.fingerprint))")
        }
    }
}
