import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore

struct Publish: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Make an activity current on this machine (becomeCurrent), so paired machines can continue it.",
        discussion: """
            --info values are strings unless typed: key=int:42, key=real:1.5, key=bool:true, \
            key=date:2026-11-21T20:00:00Z, key=data:BASE64 (str: forces a string). \
            What it publishes outlives the command, until `handoffctl resign`.
            """
    )
    @OptionGroup var options: ClientOptions

    @Option(help: "The activity type (built in, declared by an installed app, or in the configuration).") var type: String
    @Option(help: "The title people see.") var title: String?
    @Option(help: "A userInfo entry, key=value (repeatable; typed values, see above).") var info: [String] = []
    @Option(help: "A userInfo key the receiving side must find (repeatable).") var requiredKey: [String] = []
    @Option(help: "A JSON file to carry as the typed payload.") var payloadFile: String?
    @Option(help: "The payload's type name (what the type's declaration names).") var payloadType: String?
    @Option(help: "The scene (window) this activity belongs to; one current activity per scene.") var scene: String?
    @Option(help: "targetContentIdentifier: the app's name for the content it shows.") var contentId: String?
    @Option(help: "webpageURL (http or https): the fallback when no handler takes it.") var url: String?
    @Option(help: "Expires after this many seconds, or at this ISO 8601 time.") var expires: String?
    @Flag(help: "The app holds unsaved state: the daemon asks it for a fresh copy before sending.") var needsSave = false
    @Flag(help: "Eligible for search (isEligibleForSearch): `handoffctl search` and the desktop find it here.") var searchable = false
    @Option(help: "A search keyword (repeatable).") var keyword: [String] = []

    /// One-shot: each request on a blocking connection of its own (`performOnce`), the first
    /// opened before the parse (`EarlyConnection`); nothing waits for events, so no event loop
    /// or concurrency pool is started (8.3 ms from launch on NIO, bench-edges).
    func run() throws {
        var activity: UserActivity
        do {
            activity = UserActivity(type: try ActivityType(type))
            if let title { activity.title = title }
            var entries: [String: PropertyListValue] = [:]
            for argument in info {
                let (k, v) = try TypedInfo.parse(argument)
                entries[k] = v
            }
            if !entries.isEmpty { try activity.addUserInfoEntries(entries) }
            if !requiredKey.isEmpty { activity.requiredUserInfoKeys.formUnion(requiredKey) }
            if let payloadFile {
                let data = try Data(contentsOf: URL(fileURLWithPath: payloadFile))
                guard let name = payloadType else { throw ValidationError("--payload-type is needed with --payload-file") }
                try activity.setTypedPayload(json: data, typeName: name)
            }
            if let contentId { activity.targetContentIdentifier = contentId }
            if let url {
                guard let u = URL(string: url) else { throw ValidationError("--url \(url) is not a URL") }
                try activity.setWebpageURL(u)
            }
            if let expires { activity.expirationDate = try Self.date(expires) }
            activity.needsSave = needsSave
            if searchable { activity.isEligibleForSearch = true }
            activity.keywords.formUnion(keyword)
        } catch let e as ExitCode {
            throw e
        } catch let e as ValidationError {
            throw failure(e.message, code: ExitStatus.usage)
        } catch {
            throw failure("\(error)", code: ExitStatus.usage)
        }
        // Kept: this command ends at once, and what it published stays until `resign`.
        let result = try options.performOnce(PublishRequest(activity: activity, scene: try scene.map { try parseID($0, "--scene") }, keep: true))
        if options.json { return options.printJSON(result.propertyList) }
        // Without its version: an activity counts each change from its making, so a new one read
        // "version 4" (--json has it, for scripts that compare versions).
        print("Published \(result.activity.canonicalString) (\(activity.type.rawValue.terminalSafe), \(result.bytes) bytes)")
        if let warning = result.warning { StandardStreams.error("warning: \(warning)\n") }
    }

    static func date(_ text: String) throws -> Date {
        if let seconds = Double(text) { return Date().addingTimeInterval(seconds) }
        do throws(ISODate.Problem) { return try ISODate.parse(text) } catch {
            throw ValidationError("--expires: \(error); or give seconds from now")
        }
    }
}
