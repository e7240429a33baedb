import ArgumentParser
import Foundation
import HandoffControl
import HandoffCore

struct SceneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scene", abstract: "Scene sessions (windows): connect, update, disconnect, destroy, list, show.",
        subcommands: [Connect.self, Update.self, Launched.self, Disconnect.self, Destroy.self, List.self, Show.self, DeleteSaved.self])

    static let order = ["scene", "book", "character", "navigation", "content", "role", "created", "updated", "restored",
                        "discarded", "discardReason", "currentActivity", "storage"]

    struct Connect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Connect a scene (new, or an existing one by id) and print its saved state.",
            discussion: "handoffctl reports the scene launched right after (it is the app here). With --hold it does not, and keeps the connection until stdin closes: a connection that ends before `scene launched` counts as a crash at launch.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The scene's id; omit for a new scene.") var scene: String?
        @Option(help: "The scene's role.") var role: String?
        @Flag(help: "Do not report the launch; hold the connection until stdin closes.") var hold = false

        func run() async throws {
            var args: [String: PropertyListValue] = [:]
            if let scene { args["scene"] = .string(scene) }
            if let role { args["role"] = .string(role) }
            let client = try await options.connect()
            var result = await options.request(client, "scene-connect", args)
            if !options.json, case .dictionary(var d)? = result { d["restorationActivity"] = nil; result = .dictionary(d) }
            if options.json { options.printJSON(result) } else { printFields(result, order: SceneCommand.order) }
            fflush(nil)
            let id = result?["scene"] ?? ""
            if hold {
                while readLine() != nil {}
            } else {
                _ = await options.request(client, "scene-launched", ["scene": .string(id)])
            }
            await client.close()
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a scene's tab, navigation, storage or current activity; returns once saved durably.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The scene's id.") var scene: String
        @Option(help: "Select this book tab (id or title; 'none' for no tab).") var book: String?
        @Option(help: "The navigation path in the tab: characters (ids or names), repeatable.") var path: [String] = []
        @Option(help: "A storage value key=value (typed as for publish --info), repeatable.") var set: [String] = []
        @Option(help: "Make --set values content-scoped to this content path (b|<book>::c|<character>).") var content: String?
        @Option(help: "A JSON file with the scene's current activity.") var activityFile: String?
        @Flag(help: "Clear the current activity.") var clearActivity = false

        func run() async throws {
            var args: [String: PropertyListValue] = ["scene": .string(scene)]
            if let book { args["book"] = .string(book) }
            if !path.isEmpty { args["path"] = .array(path.map(PropertyListValue.string)) }
            var entries: [PropertyListValue] = []
            for s in set {
                do {
                    let (k, v) = try TypedInfo.parse(s)
                    var d: [String: PropertyListValue] = ["key": .string(k), "value": v]
                    if let content { d["content"] = .string(content) }
                    entries.append(.dictionary(d))
                } catch { fail("--set \(s): \(error)", code: 64) }
            }
            if !entries.isEmpty { args["set"] = .array(entries) }
            if clearActivity { args["activity"] = "none" }
            if let activityFile {
                guard let data = FileManager.default.contents(atPath: activityFile) else {
                    fail("--activity-file \(activityFile): cannot be read", code: 64)
                }
                let value: PropertyListValue
                do { value = try JSONValue.parse(Array(data)) } catch { fail("--activity-file \(activityFile): not a JSON activity (\(error))", code: 64) }
                args["activity"] = value
            }
            try await options.run("scene-update", args) { printFields($0, order: SceneCommand.order) }
        }
    }

    struct Launched: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Report that a restored scene launched (ends crash-at-launch watch).")
        @OptionGroup var options: ClientOptions
        @Argument var scene: String
        func run() async throws { try await options.run("scene-launched", ["scene": .string(scene)]) { _ in } }
    }

    struct Disconnect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The system reclaimed the scene: its state is kept.")
        @OptionGroup var options: ClientOptions
        @Argument var scene: String
        func run() async throws { try await options.run("scene-disconnect", ["scene": .string(scene)]) { _ in print("Disconnected \(scene); its state is kept") } }
    }

    struct Destroy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The user closed the scene: its state is deleted.")
        @OptionGroup var options: ClientOptions
        @Argument var scene: String
        func run() async throws { try await options.run("scene-destroy", ["scene": .string(scene)]) { _ in print("Destroyed \(scene)") } }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the scenes (as `handoffctl scenes`).")
        @OptionGroup var options: ClientOptions
        func run() async throws { try await Self.show(options) }

        static func show(_ options: ClientOptions) async throws {
            try await options.run("scenes") { result in
                var t = Table("SCENE", "BOOK", "CHARACTER", "UPDATED")
                for s in result?.arrayValue ?? [] { t.add(s["scene"], s["book"], s["character"], s["updated"]) }
                t.print(empty: "No scenes yet.")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a scene: tab, navigation, storage, current activity, discarded state.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The scene's id.") var scene: String
        func run() async throws { try await options.run("scene", ["scene": .string(scene)]) { printFields($0, order: SceneCommand.order) } }
    }

    struct DeleteSaved: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-saved", abstract: "Delete saved activities by persistent identifier (deleteSavedUserActivities).")
        @OptionGroup var options: ClientOptions
        @Argument var ids: [String]
        func run() async throws {
            try await options.run("delete-saved", ["ids": .array(ids.map(PropertyListValue.string))]) { print("Removed from \($0?["scenes"] ?? "0") scenes") }
        }
    }
}
