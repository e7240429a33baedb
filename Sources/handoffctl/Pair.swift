import ArgumentParser
import Foundation
import HandoffCore

struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pair with another machine, or accept a pairing (both show a 6-digit code to compare).",
        discussion: """
            Run `handoffctl pair --accept` on one machine, then `handoffctl pair NAME` on the other. \
            Both print the same code; confirm on both. --yes confirms without asking (for scripts that \
            compare the codes themselves).
            """)
    @OptionGroup var options: ClientOptions

    @Argument(help: "The machine to pair with (its name in `handoffctl peers`).")
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
        let client = try await options.connect()
        let started = accept
            ? await options.request(client, "pair-accept", ["timeout": .integer(Int64(timeout))])
            : await options.request(client, "pair", ["peer": .string(peer!)])
        let name = started?["peer"] ?? "", code = started?["code"] ?? ""
        if !options.json {
            // Untrusted text first (escaped by `text`), the code last on a line of its own, so
            // nothing the other machine chose can stand after it or draw over it.
            print("Pairing with \(name)")
            print("Its fingerprint: \(started?["fingerprint"] ?? "")")
            print("Code: \(code)")
        }
        var confirmed = yes
        if !yes {
            FileHandle.standardError.write(Data("Does the other machine show the same code? [y/N] ".utf8))
            confirmed = (readLine() ?? "").lowercased().hasPrefix("y")
        }
        let result = await options.request(client, "pair-confirm", ["pairing": .string(started?["pairing"] ?? ""), "accept": .bool(confirmed)])
        await client.close()
        if options.json {
            var d = result?.dictionaryValue ?? [:]
            d["code"] = .string(code)
            options.printJSON(.dictionary(d))
        } else {
            print("Paired with \(result?["peer"] ?? name) (\(result?["fingerprint"] ?? ""))")
        }
    }
}
