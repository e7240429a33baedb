import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClient
import HandoffControl
import HandoffCore

struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with another machine, or accept a pairing (both show a 6-digit code to compare).",
        discussion: """
            Run `handoffctl pair --accept` on one machine, then `handoffctl pair NAME` on the other. \
            On another subnet or over a VPN, where mDNS does not list it, give its address instead: \
            `handoffctl pair HOST[:PORT]` (port 7340 unless given). \
            Both show the same code: type the code the other machine shows when asked, on both. \
            Only a matching code pairs; anyone else who answered first shows another code and is \
            refused (with --accept, the wait goes on for the next attempt). Scripts write the other \
            machine's code to standard input after reading this one's (--json prints it on a line of \
            its own first), or give it with --code when they know it already.
            """
    )
    @OptionGroup var options: ClientOptions

    @Argument(help: "The machine to pair with: its name in `handoffctl peers`, or HOST[:PORT] (a name or address).")
    var peer: String?

    @Flag(help: "Wait for another machine to start pairing with this one (the window stays open up to --timeout).")
    var accept = false

    /// Shadows the common --timeout (HandoffCommandLine gives a command's own option the word).
    @Option(help: "Seconds to wait with --accept for another machine to start pairing (the window; default 120).")
    var timeout: Int?

    @Option(help: "The code the other machine shows: confirm only if this machine shows the same one.")
    var code: String?

    @Flag(help: "Confirm without asking; only together with --code (the code the other machine shows).")
    var yes = false

    func validate() throws {
        if accept == (peer != nil) { throw ValidationError("give either a peer to pair with, or --accept") }
        if yes && code == nil {
            throw ValidationError(
                "--yes confirms only together with --code NNNNNN, the code the other machine shows: without it, whoever answers first would be paired"
            )
        }
        // handoffd keeps a window open 1 s to 10 min (it clamped other values without a word).
        if let timeout {
            if !accept { throw ValidationError("--timeout is how long --accept waits; pairing with a machine is bounded by handoffd") }
            if !(1...600).contains(timeout) { throw ValidationError("--timeout takes 1 to 600 seconds (10 minutes); the default is 120") }
        }
        if let code, PairingCodeMatch.normalised(code).count != 6 { throw ValidationError("--code takes the 6 digits the other machine shows") }
    }

    func run() async throws {
        let deadline = ContinuousClock.now + .seconds(timeout ?? 120)
        // handoffd closes the window at the deadline and says so; the client waits a little
        // longer, for that answer. The other steps (a handshake, a person comparing codes on the
        // other machine) are bounded by handoffd, as for every door.
        let bound: () -> Duration = { max(deadline - ContinuousClock.now, .zero) + .seconds(5) }
        // One connection for every step: the pairing belongs to the client that started it.
        let (shown, result): (String, PeerIdentityInfo) = try await options.withClient { client in
            if accept {
                // What to do on the other machine, while this one waits (on stderr: scripts read
                // the code on stdout).
                let here = (try? await client.perform(StatusRequest()))?.device ?? "this machine"
                StandardStreams.error(
                    "Waiting up to \(Duration.seconds(timeout ?? 120).spokenSeconds) for another machine to pair: run `handoffctl pair \(here.terminalSafe)` there (or `handoffctl pair ADDRESS` over a VPN). Ctrl-C to stop.\n"
                )
            }
            while true {
                // Whole seconds, rounded up: a window of 2 s asked a moment after the start is 2 s.
                let left = deadline - ContinuousClock.now
                let remaining = max(1, left.components.seconds + (left.components.attoseconds > 0 ? 1 : 0))
                let started =
                    accept
                    ? try await options.perform(client, PairAcceptRequest(timeout: remaining), within: bound())
                    : try await options.perform(client, PairRequest(peer: peer!))
                show(started)
                let typed = code ?? ask()
                let matches = typed.map { PairingCodeMatch.normalised($0) == started.code } ?? false
                let confirm = PairConfirmRequest(pairing: started.pairing, accept: matches, code: typed)
                let outcome: Result<PeerIdentityInfo, ClientError>
                do throws(ClientError) { outcome = .success(try await client.perform(confirm)) } catch { outcome = .failure(error) }
                switch outcome {
                case .success(let done): return (started.code, done)
                case .failure(.refused(let reason, let message))
                where accept && [FailureCode.codesDiffer, .refusedThere].contains(reason) && ContinuousClock.now < deadline:
                    // A stranger, or a code mistyped here or there, is refused; with --accept the
                    // window stays open and this waits for the next attempt while its time lasts.
                    StandardStreams.error("\(message)\nWaiting for the next attempt…\n")
                case .failure(.refused(_, let message)): throw failure(message, code: ExitStatus.refused)
                case .failure(let error): throw failure(error.description, code: ExitStatus.daemon)
                }
            }
        }
        if options.json {
            var d = result.object.dictionaryValue ?? [:]
            d["code"] = .string(shown)
            options.printJSON(.dictionary(d))
        } else {
            print("Paired with \(result.peer.terminalSafe) (\(result.fingerprint))")
        }
    }

    /// What the other machine must match, written at once (unbuffered) before the question.
    private func show(_ started: PairingCode) {
        let text: String
        if options.json {
            // One compact line, so that a script can read it before it answers.
            text = String(decoding: JSONWriter.encode(started.object), as: UTF8.self) + "\n"
        } else {
            // Untrusted text first (escaped), the code last on a line of its own, so nothing the
            // other machine chose can stand after it or draw over it.
            text =
                "Pairing with \(started.peer.terminalSafe)\n" + (started.address.map { "Its address: \($0.terminalSafe)\n" } ?? "")
                + "Its fingerprint: \(started.fingerprint.terminalSafe)\nCode: \(started.code.terminalSafe)\n"
        }
        StandardStreams.output(text)
    }

    /// The code the person types (or a script writes); nil at the end of input: refused.
    private func ask() -> String? {
        StandardStreams.error("Type the code the other machine shows (anything else refuses): ")
        return readLine()
    }
}
