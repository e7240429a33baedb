import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HawkNotes
import HandoffControl
import HandoffCore

struct Publish: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Make an activity current on this machine (becomeCurrent), so paired machines can continue it.",
        discussion: """
            --info values are strings unless typed: key=int:42, key=real:1.5, key=bool:true, \
            key=date:2026-11-21T20:00:00Z, key=data:BASE64 (str: forces a string). \
            --character ID builds the Hawk Notes "viewing a character" activity from the library.
            """
    )
    @OptionGroup var options: ClientOptions

    @Option(help: "The activity type (declared in the daemon's configuration).") var type: String?
    @Option(help: "The title people see.") var title: String?
    @Option(help: "A userInfo entry, key=value (repeatable; typed values, see above).") var info: [String] = []
    @Option(help: "A userInfo key the receiving side must find (repeatable).") var requiredKey: [String] = []
    @Option(help: "A JSON file to carry as the typed payload.") var payloadFile: String?
    @Option(help: "The payload's type name (default: what the Hawk Notes type declares).") var payloadType: String?
    @Option(help: "Build a Hawk Notes characterDetail activity for this character (its UUID or name).") var character: String?
    @Option(help: "The scene (window) this activity belongs to; one current activity per scene.") var scene: String?
    @Option(help: "targetContentIdentifier, e.g. a content path b|<book>::c|<character>.") var contentId: String?
    @Option(help: "webpageURL (http or https): the fallback when no handler takes it.") var url: String?
    @Option(help: "Expires after this many seconds, or at this ISO 8601 time.") var expires: String?
    @Flag(help: "The app holds unsaved state: the daemon asks it for a fresh copy before sending.") var needsSave = false
    @Flag(help: "Eligible for search (isEligibleForSearch): `handoffctl search` and the desktop find it here.") var searchable = false
    @Option(help: "A search keyword (repeatable).") var keyword: [String] = []

    func validate() throws {
        if type == nil && character == nil { throw ValidationError("give --type, or --character for a Hawk Notes character") }
    }

    /// One-shot: each request on a blocking connection of its own (`performOnce`), the first
    /// opened before the parse (`EarlyConnection`); nothing waits for events, so no event loop
    /// or concurrency pool is started (8.3 ms from launch on NIO, bench-edges).
    func run() throws {
        var activity: UserActivity
        do {
            if let character {
                activity = try characterActivity(character)
            } else {
                activity = UserActivity(type: try ActivityType(type!))
            }
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
                let name = payloadType ?? HawkNotes.declarations.first { $0.type == activity.type }?.payload
                guard let name else { throw ValidationError("--payload-type is needed: '\(activity.type.rawValue)' declares no payload type here") }
                try activity.setTypedPayload(json: data, typeName: name)
            }
            if let contentId { activity.targetContentIdentifier = contentId }
            if let url {
                guard let u = URL(string: url) else { throw ValidationError("--url \(url) is not a URL") }
                try activity.setWebpageURL(u)
            }
            if let expires { activity.expirationDate = try Self.date(expires) }
            activity.needsSave = needsSave
            // A character viewed in Hawk Notes is what a person searches for, as Apple's samples
            // mark theirs; any other activity when asked.
            if searchable || character != nil { activity.isEligibleForSearch = true }
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

    /// "Viewing <character> in <book>", from the daemon's library.
    func characterActivity(_ wanted: String) throws -> UserActivity {
        for book in try options.performOnce(LibraryBooksRequest()).items {
            for c in try options.performOnce(LibraryCharactersRequest(book: book.id.canonicalString)).items
            where c.id.canonicalString.lowercased() == wanted.lowercased() || c.name.lowercased() == wanted.lowercased() {
                var a = UserActivity(type: HawkNotes.characterDetail, title: "Viewing \(c.name) in \(book.title)")
                try a.setTypedPayload(BookCharacter(id: c.id, name: c.name, description: c.description))
                a.targetContentIdentifier = ContentPath(tabID: book.id, itemID: c.id).description
                return a
            }
        }
        throw ValidationError("no character '\(wanted)' in the library (see `handoffctl library characters <book>`)")
    }
}
