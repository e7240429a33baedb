import HandoffCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffControl
import HandoffCore

struct SceneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scene", abstract: "Scene sessions (windows): connect, update, disconnect, destroy, list, show.",
        subcommands: [Connect.self, Update.self, Launched.self, Disconnect.self, Destroy.self, List.self, Show.self, DeleteSaved.self]
    )

    static let order = [
        "scene", "content", "title", "navigation", "role", "created", "updated", "restored",
        "discarded", "discardReason", "currentActivity", "storage"
    ]

    struct Connect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "connect",
            abstract: "Connect a scene (new, or an existing one by id) and print its saved state.",
            discussion:
                "handoffctl reports the scene launched right after (it is the app here). With --hold it does not, and keeps the connection until stdin closes: a connection that ends before `scene launched` counts as a crash at launch."
        )
        @OptionGroup var options: ClientOptions
        @Argument(help: "The scene's id; omit for a new scene.") var scene: String?
        @Option(help: "The scene's role.") var role: String?
        @Flag(help: "Do not report the launch; hold the connection until stdin closes.") var hold = false

        func run() async throws {
            let request = SceneConnectRequest(scene: try scene.map { try parseID($0, "scene") }, role: role)
            try await options.withClient { client in
                var result = try await options.perform(client, request)
                if options.json {
                    options.printJSON(result.propertyList)
                } else {
                    result.restorationActivity = nil
                    printFields(result.propertyList, order: SceneCommand.order)
                }
                fflush(nil)
                if hold {
                    while readLine() != nil {}
                } else {
                    _ = try await options.perform(client, SceneLaunchedRequest(scene: result.summary.scene))
                }
            }
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change what a scene shows, its navigation, storage or current activity; returns once saved durably.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The scene's id.") var scene: String
        @Option(help: "What the scene shows: the app's content identifier ('' for nothing).") var show: String?
        @Option(help: "The navigation stack leading there, outermost first (repeatable).") var navigation: [String] = []
        @Option(help: "A storage value key=value (typed as for publish --info), repeatable.") var set: [String] = []
        @Option(help: "Make --set values belong to this content identifier.") var content: String?
        @Option(help: "A JSON file with the scene's current activity.") var activityFile: String?
        @Flag(help: "Clear the current activity.") var clearActivity = false

        func run() throws {
            var request = SceneUpdateRequest(
                scene: try parseID(scene, "scene"), content: show, navigation: navigation.isEmpty ? nil : navigation,
                clearActivity: clearActivity)
            for s in set {
                do {
                    let (k, v) = try TypedInfo.parse(s)
                    request.set.append(.init(key: k, value: v, content: content))
                } catch { throw failure("--set \(s): \(error)", code: ExitStatus.usage) }
            }
            if let activityFile {
                guard let data = FileManager.default.contents(atPath: activityFile) else {
                    throw failure("--activity-file \(activityFile): cannot be read", code: ExitStatus.usage)
                }
                do { request.activity = try UserActivity(propertyList: try JSONValue.parse(Array(data))) } catch {
                    throw failure("--activity-file \(activityFile): not a JSON activity (\(error))", code: ExitStatus.usage)
                }
            }
            try options.run(request) { printFields($0.propertyList, order: SceneCommand.order) }
        }
    }

    struct Launched: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "launched", abstract: "Report that a restored scene launched (ends crash-at-launch watch).")
        @OptionGroup var options: ClientOptions
        @Argument var scene: String
        func run() throws { try options.run(SceneLaunchedRequest(scene: try parseID(scene, "scene"))) { _ in } }
    }

    struct Disconnect: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disconnect", abstract: "The system reclaimed the scene: its state is kept.")
        @OptionGroup var options: ClientOptions
        @Argument var scene: String
        func run() throws {
            try options.run(SceneDisconnectRequest(scene: try parseID(scene, "scene"))) { _ in print("Disconnected \(scene); its state is kept")
            }
        }
    }

    struct Destroy: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "destroy", abstract: "The user closed the scene: its state is deleted.")
        @OptionGroup var options: ClientOptions
        @Argument var scene: String
        func run() throws {
            try options.run(SceneDestroyRequest(scene: try parseID(scene, "scene"))) { _ in print("Destroyed \(scene)") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the scenes (as `handoffctl scenes`).")
        @OptionGroup var options: ClientOptions
        func run() async throws { try await Self.show(options) }

        static func show(_ options: ClientOptions) async throws {
            try options.run(ScenesRequest()) { scenes in
                var t = Table("SCENE", "SHOWS", "DOING", "UPDATED")
                for s in scenes.items {
                    t.add(s.scene.canonicalString, (s.content ?? "").terminalSafe, (s.title ?? "").terminalSafe, tableDate(s.updated))
                }
                t.print(empty: "No scenes yet.")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show a scene: tab, navigation, storage, current activity, discarded state.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The scene's id.") var scene: String
        func run() throws {
            try options.run(SceneRequest(scene: try parseID(scene, "scene"))) { printFields($0.propertyList, order: SceneCommand.order) }
        }
    }

    struct DeleteSaved: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-saved", abstract: "Delete saved activities by persistent identifier (deleteSavedUserActivities).")
        @OptionGroup var options: ClientOptions
        @Argument var ids: [String]
        func run() throws {
            try options.run(DeleteSavedRequest(ids: ids)) { print("Removed from \($0.scenes) scenes") }
        }
    }
}
