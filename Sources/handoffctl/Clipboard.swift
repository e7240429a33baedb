import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffClient
import HandoffControl
import HandoffCore

struct Clipboard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clipboard",
        abstract: "The clipboard shared with your paired machines: status, paste, copy, off, on.",
        discussion: """
            A copy is announced to the present paired machines; its bytes cross only when one of them pastes. The \
            session agent (handoff-clipboard-agent) does this for the desktop's clipboard where the display lets it; \
            these commands do it from a terminal everywhere.
            """,
        subcommands: [Status.self, Paste.self, Copy.self, Off.self, On.self])

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Whether it is shared, what the agent watches, and what each machine offers.")
        @OptionGroup var options: ClientOptions

        func run() throws {
            try options.run(ClipboardStatusRequest()) { s in
                print("shared     \(s.enabled ? "yes" : "no (handoffctl clipboard on)")")
                if let backend = s.backend {
                    print("agent      \(backend.terminalSafe)")
                } else {
                    let why = s.backendProblem.map { "none: " + $0 } ?? "not running (handoff-clipboard-agent, started with the desktop session)"
                    print("agent      " + why.terminalSafe)
                }
                print("holds      " + (s.owner == "nobody" ? "nothing shared" : s.owner.terminalSafe + "'s copy"))
                print("offers     for \(s.offerSeconds) s, at most \(s.maxBytes) bytes")
                var t = Table("MACHINE", "TYPES", "BYTES", "COPIED", "EXPIRES")
                for offer in (s.local.map { [$0] } ?? []) + s.offers {
                    t.add(
                        (offer.peer ?? "this machine").terminalSafe, offer.types.joined(separator: " ").terminalSafe,
                        String(offer.sizes.reduce(0, +)), tableWhen(offer.copied), "in \(offer.expiresIn) s")
                }
                t.print(empty: "No copy is offered (a copy here or on a present paired machine is offered for \(s.offerSeconds) s).")
            }
        }
    }

    struct Paste: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "paste",
            abstract: "Write the shared clipboard's content to stdout, fetched from the machine that copied it.")
        @OptionGroup var options: ClientOptions
        @Option(help: "Paste that machine's copy (default: whoever copied last).") var from: String?
        @Option(help: "The MIME type to paste (default: text if it has it, else its first type).") var type: String?

        func run() async throws {
            let (part, bytes) = try await options.withClient { client in
                do throws(ClientError) { return try await client.pasteFromClipboard(peer: from, mime: type) } catch {
                    throw failure(error.description, code: ClientOptions.exitStatus(error))
                }
            }
            if options.json {
                var fields = part.propertyList?.dictionaryValue ?? [:]
                fields["data"] = PropertyListValue.data(bytes)
                return options.printJSON(.dictionary(fields))
            }
            StandardStreams.write(1, [UInt8](bytes))
        }
    }

    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy", abstract: "Offer stdin to the paired machines as a copy (of --type, default UTF-8 text).")
        @OptionGroup var options: ClientOptions
        @Option(help: "The MIME type of what stdin holds.") var type: String = "text/plain;charset=utf-8"

        func run() async throws {
            var input = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            let most = 256 << 20
            while true {
                let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                input += buffer[..<n]
                guard input.count <= most else { throw failure("stdin holds more than \(most) bytes: too large to share", code: ExitStatus.refused) }
            }
            let items = [(type: type, bytes: Data(input))]
            let offer = try await options.withClient { client in
                do throws(ClientError) { return try await client.copyToClipboard(items) } catch {
                    throw failure(error.description, code: ClientOptions.exitStatus(error))
                }
            }
            if options.json {
                return options.printJSON(
                    .dictionary(["offer": offer.map { .string($0.canonicalString) } ?? "", "bytes": .integer(Int64(input.count))]))
            }
            print("offered \(input.count) bytes of \(type) to the paired machines")
        }
    }

    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off", abstract: "Stop sharing the clipboard here (kept across restarts): this machine's offer is withdrawn.")
        @OptionGroup var options: ClientOptions
        func run() throws { try options.run(ClipboardSwitchRequest(enabled: false)) { _ in print("the shared clipboard is off here") } }
    }

    struct On: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "on", abstract: "Share the clipboard with the paired machines again.")
        @OptionGroup var options: ClientOptions
        func run() throws { try options.run(ClipboardSwitchRequest(enabled: true)) { _ in print("the shared clipboard is on here") } }
    }
}
