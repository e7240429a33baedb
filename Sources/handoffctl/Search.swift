import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find what you were doing: activities here and on paired machines, windows, books and characters.",
        discussion: """
            Every word must match the start of a word (case and accents ignored): `handoffctl search lady bea` finds Lady \
            Beatrice. Results are numbered, best first; `--continue N` continues the Nth here (from the machine it is on).
            """
    )
    @OptionGroup var options: ClientOptions
    @Argument(parsing: .remaining, help: "The words to look for.") var words: [String] = []
    @Option(help: "Continue the Nth result (1 is the first) instead of listing them.") var `continue`: Int?
    @Option(help: "At most this many results (1-\(SearchRequest.maxLimit)).") var limit: Int = Int(SearchRequest.defaultLimit)

    func validate() throws {
        guard !words.joined().trimmingSpaces.isEmpty else {
            throw ValidationError("say what to look for, e.g. `handoffctl search beatrice`")
        }
        // Checked here, as a usage error (64): the daemon's refusal named its argument ("argument
        // 'limit'") and exited 1.
        let most = Int(SearchRequest.maxLimit)
        guard (1...most).contains(limit) else { throw ValidationError("--limit must be 1 to \(most)") }
        if let n = `continue`, !(1...most).contains(n) { throw ValidationError("--continue counts from 1 to \(most)") }
    }

    func run() async throws {
        let request = SearchRequest(query: words.joined(separator: " "), limit: Int64(max(limit, `continue` ?? 0)))
        guard let n = `continue` else {
            return try options.run(request) { listing in Self.show(listing.items) }
        }
        let report = try await options.withClient { client -> ContinuationReport in
            let hits = try await options.perform(client, request).items
            guard n <= hits.count else {
                throw failure("there are \(hits.count) results for '\(request.query)', not \(n)", code: ExitStatus.refused)
            }
            return try await options.perform(client, SearchOpenRequest(result: hits[n - 1].id))
        }
        try reportOutcome(report, options: options)
    }

    static func show(_ hits: [SearchHit]) {
        var t = Table("#", "WHAT", "WHERE", "WHEN", "TITLE")
        for (i, h) in hits.enumerated() {
            t.add(String(i + 1), h.kind, h.place.terminalSafe, h.updated.map(tableWhen) ?? "", (h.title + " (" + h.detail + ")").terminalSafe)
        }
        t.print(
            empty:
                "Nothing found. Paired machines' activities are found while they are current there; this machine's when published as searchable (`publish --searchable`, isEligibleForSearch). Try fewer or shorter words."
        )
    }

}
