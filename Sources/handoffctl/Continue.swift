import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClient
import HandoffControl
import HandoffCore

struct Continue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "continue",
        abstract: "Continue a paired machine's activity here: fetch it, dispatch it, tell the other machine the outcome."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "The machine that offers the activity (may be left out when one machine offers it).") var first: String
    @Argument(help: "The activity's id, or the start of it (see `handoffctl activities --remote`).") var second: String?
    @Option(help: "Land in this scene (made if new) instead of the one the selector picks.") var scene: String?
    @Flag(help: "Be the continuing app, and open a continuation stream with the app on the other machine: stdin goes to it, what it sends to stdout.")
    var stream = false

    func run() async throws {
        let (peer, id) = try pick()
        if stream { return try await continueWithStream(peer: peer, id: id) }
        let request = ContinueRequest(peer: peer, activity: id, scene: try scene.map { try parseID($0, "--scene") })
        try reportOutcome(try options.performOnce(request), options: options)
    }

    /// The machine and the activity: both as given, or found among what paired machines offer
    /// from the start of an id (at least 4 characters), and the machine from the activity alone
    /// when one machine offers it.
    func pick() throws -> (peer: String, id: UUID) {
        let peer = second == nil ? nil : first
        let text = second ?? first
        if let peer, let id = UUID(uuidString: text) { return (peer, id) }
        let wanted = text.lowercased()
        guard wanted.count >= 4, wanted.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw failure(
                "'\(text)' is not an activity id or the start of one (at least 4 of its characters; see `handoffctl activities --remote`)",
                code: ExitStatus.usage)
        }
        let offered = try options.performOnce(ActivitiesRequest(remote: true, peer: peer)).items
        let matches = offered.filter { $0.activity.canonicalString.lowercased().hasPrefix(wanted) && (peer == nil || $0.peer == peer) }
        guard let only = matches.first, let from = only.peer else {
            throw failure(
                "no paired machine\(peer.map { " named \($0)" } ?? "") offers an activity \(text) now (see `handoffctl activities --remote`)",
                code: ExitStatus.refused)
        }
        guard matches.count == 1 else {
            let which = matches.map { "\($0.peer ?? "?") \($0.activity.canonicalString)" }.joined(separator: ", ")
            throw failure("\(text) names \(matches.count) activities (\(which)); give more of the id, or the machine", code: ExitStatus.usage)
        }
        return (from, only.activity)
    }
}

extension Continue {
    /// Registers as the live handler for the activity's type (on a connection of its own: the
    /// continue request is answered only after the offer is), continues, then opens the stream.
    func continueWithStream(peer: String, id: UUID) async throws {
        let handler = try await options.connect()
        let listed = try await options.perform(handler, ActivitiesRequest(peer: peer))
        guard let type = listed.items.first(where: { $0.activity == id })?.type else {
            await handler.close()
            throw failure(
                "\(peer) offers no activity \(id.canonicalString) now (see `handoffctl activities --peer \(peer)`)", code: ExitStatus.refused)
        }
        _ = try await options.perform(handler, HandleRequest(types: [type], name: "handoffctl continue --stream"))
        let answering = Task {
            for await event in handler.events where event.name == "continue" {
                let mine = event.fields["activity"]?.dictionaryValue?["id"]?.stringValue.flatMap(UUID.init(uuidString:)) == id
                _ = try? await handler.perform(HandledRequest(token: event.fields["token"]?.stringValue ?? "", accepted: mine))
                if mine { break }
            }
        }
        let request = ContinueRequest(peer: peer, activity: id, scene: try scene.map { try parseID($0, "--scene") })
        // Not performOnce: it would hold a thread of the pool that `answering` needs (one, on a
        // one-core machine).
        let report = try await options.withClient { try await options.perform($0, request) }
        answering.cancel()
        guard !report.failed else {
            await handler.close()
            return try reportOutcome(report, options: options)
        }
        let opened: HandoffStream
        do { opened = try await handler.openStream(activity: id) } catch {
            await handler.close()
            throw failure("continued, but no stream: \(error.description)", code: ExitStatus.refused)
        }
        if !options.json { StandardStreams.error("handoffctl: continued; stream open with \(opened.info.peer.terminalSafe)\n") }
        defer { Task { await handler.close() } }
        try await StreamIO.connectStandardIO(opened, json: options.json)
    }
}

/// Prints a continuation's outcome; a failure exits 2.
func reportOutcome(_ r: ContinuationReport, options: ClientOptions) throws {
    if options.json {
        options.printJSON(r.propertyList)
    } else if r.failed {
        StandardStreams.error("handoffctl: not continued (\(r.code ?? "")): \((r.message ?? "").terminalSafe)\n")
    } else {
        switch r.step ?? "" {
        case "app":
            let scene = r.scene.map { " in scene \($0.canonicalString)" } ?? ""
            let title = r.title.map { ": \($0)" } ?? ""
            print("Continued by \(r.handler ?? "")\(scene)\(title)".terminalSafe)
        case "exec": print("Continued by command \((r.handler ?? "").terminalSafe)")
        case "webpage": print("Opened \((r.url ?? "").terminalSafe)")
        default: print("Continued")
        }
    }
    if r.failed { throw ExitCode(ExitStatus.continuationFailed) }
}
