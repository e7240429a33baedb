import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClient
import HandoffControl
import HandoffCore

#if canImport(Glibc)
    import Glibc
#endif

/// `handoffctl stream`: the origin's side of continuation streams, to test and script them.
struct StreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream", abstract: "Continuation streams: offer an activity whose continuer may open a stream with this command.",
        subcommands: [Offer.self]
    )

    struct Offer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "offer",
            abstract:
                "Publish an activity that supports continuation streams and serve the streams asked of it: stdin/stdout for the first (default), or echo every stream back (--echo)."
        )
        @OptionGroup var options: ClientOptions
        @Argument(help: "The activity's type (declared on the continuing machine).") var type: String
        @Option(help: "Its title.") var title: String?
        @Flag(help: "Echo every stream back to its sender, until stopped (or --count).") var echo = false
        @Flag(help: "Read every stream to its end and discard it, until stopped (or --count).") var discard = false
        @Option(help: "Exit after this many streams.") var count: Int?

        func run() async throws {
            let client = try await options.connect()
            var activity = UserActivity(type: try ActivityType(type))
            activity.title = title
            activity.supportsContinuationStreams = true
            let published = try await options.perform(client, PublishRequest(activity: activity))
            if options.json {
                options.printJSON(.dictionary(["activity": .string(published.activity.canonicalString)]))
            } else {
                print("Offering \(published.activity.canonicalString) (\(type.terminalSafe)) with streams; Ctrl-C to stop")
            }
            fflush(nil)
            var served = 0
            let done = try await withThrowingTaskGroup(of: Void.self) { group in
                for await event in client.events where event.name == "streamRequested" {
                    guard let token = event.fields["stream"]?.stringValue else { continue }
                    let stream: HandoffStream
                    do { stream = try await client.acceptStream(token) } catch {
                        StandardStreams.error("handoffctl: could not accept a stream: \("\(error)".terminalSafe)\n")
                        continue
                    }
                    served += 1
                    let last = count.map { served >= $0 } ?? false
                    if echo || discard {
                        let echo = echo
                        group.addTask { try await Self.serve(stream, echo: echo) }
                        if last {
                            try await group.waitForAll()
                            return true
                        }
                    } else {
                        try await StreamIO.connectStandardIO(stream, json: options.json)
                        return true
                    }
                }
                // The events ended: handoffd closed the connection. The streams under way
                // finish (they are sockets of their own), then it says so.
                try await group.waitForAll()
                return false
            }
            guard done else { throw Watch.lost("stream offer") }
            await client.close()
        }

        static func serve(_ stream: HandoffStream, echo: Bool) async throws {
            let fd = stream.descriptor
            let devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)
            _ = await StreamPump.copy(from: fd, to: echo ? fd : devnull, shutdownAfter: false)
            close(devnull)
            // Our direction ends too (an echo after the last byte; a discard with nothing sent).
            shutdown(fd, Int32(SHUT_WR))
            _ = await stream.outcome(timeout: .seconds(120))
            stream.close()
        }
    }
}

enum StreamIO {
    /// stdin to the stream (then a half-close), the stream to stdout, then handoffd's word on
    /// how it ended: a failure exits 1 with its reason.
    static func connectStandardIO(_ stream: HandoffStream, json: Bool) async throws {
        let fd = stream.descriptor
        async let out = StreamPump.copy(from: fd, to: 1, shutdownAfter: false)
        async let inn = StreamPump.copy(from: 0, to: fd, shutdownAfter: true)
        let (received, sent) = await (out, inn)
        let outcome = await stream.outcome()
        stream.close()
        if json {
            var d: [String: PropertyListValue] = [
                "stream": .string(stream.info.stream), "peer": .string(stream.info.peer), "sent": .integer(sent.bytes),
                "received": .integer(received.bytes)
            ]
            if case .failed(let code, let message) = outcome { (d["code"], d["message"]) = (.string(code.rawValue), .string(message)) }
            d["outcome"] = .string(outcome.isFinished ? "finished" : "failed")
            StandardStreams.write(2, JSONWriter.line(.dictionary(d)))
        }
        switch outcome {
        case .finished: return
        case .failed(let code, let message): throw failure("the stream failed (\(code)): \(message)", code: ExitStatus.refused)
        case .unknown(let why): throw failure(why, code: ExitStatus.daemon)
        }
    }
}

extension StreamOutcome {
    var isFinished: Bool { if case .finished = self { true } else { false } }
}
