#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClient
import HandoffControl
import HandoffCore
import HawkNotes
import HawkNotesApp

/// `hawknotes --background`: Hawk Notes started by handoffd to continue one of its activities
/// while none of its windows runs (its declaration's Exec=, config/apps). As Apple's system
/// launches an app to continue: it registers for its types, puts each activity into a window's
/// saved state (its scene) as an open window would show it, and exits once none came for `idle`.
/// The window opens there the next time Hawk Notes starts.
enum Background {
    static func run(library: Library, socketPath: String, idle: Duration) async throws -> Int32 {
        let client: HandoffClient
        do { client = try await HandoffClient.connect(socketPath: socketPath) } catch {
            throw AppStartError.daemon(error.description)
        }
        let mapping = ActivityMapping(library: library)
        let last = LastActivity()
        let handling = Task {
            try? await client.onContinueInScene(ActivityMapping.types, name: DaemonLink.handlerName) { activity in
                await last.touch()
                return await Self.route(activity, mapping: mapping, client: client)
            }
            // handoffd went away: nothing more will come.
            await last.end()
        }
        // Idle: no offer for `idle` since the last one (or the start).
        while await last.since < idle, await !last.ended {
            try? await Task.sleep(for: .milliseconds(200))
        }
        handling.cancel()
        await client.close()
        return 0
    }

    /// The window it lands in: one showing its content, else one on its book, else the one used
    /// last, else a new one; the scene is changed as the window would change it. Nil: declined.
    static func route(_ activity: UserActivity, mapping: ActivityMapping, client: HandoffClient) async -> UUID? {
        guard case .continued(let book, let character, let draft)? = try? mapping.input(continuing: activity) else { return nil }
        let shown = ContentPath(tabID: book, itemID: character)
        do throws(ClientError) {
            let mine = try await client.perform(ScenesRequest()).items.filter(isHawkNotes)
            let bookPrefix = ContentPath(tabID: book).description
            let scene =
                mine.first { $0.content == shown.description }?.scene
                ?? mine.first { $0.content?.hasPrefix(bookPrefix) == true }?.scene
                ?? mine.max { $0.updated < $1.updated }?.scene
            let id: UUID
            if let scene {
                id = scene
            } else {
                id = try await client.perform(SceneConnectRequest(role: "hawknotes")).summary.scene
                _ = try await client.perform(SceneDisconnectRequest(scene: id))
            }
            var update = SceneUpdateRequest(
                scene: id, content: shown.description, navigation: character == nil ? [] : [shown.description], activity: activity)
            if let draft {
                update.set.append(.init(key: SceneSnapshot.Key.draft.name, value: .string(draft), content: ContentPath(tabID: book).description))
            }
            _ = try await client.perform(update)
            return id
        } catch {
            StandardStreams.error("hawknotes: could not keep the continued activity in a window: \(error.description)\n")
            return nil
        }
    }
}

/// When the last offer came, for the idle exit.
actor LastActivity {
    private var at = ContinuousClock.now
    private(set) var ended = false
    func touch() { at = .now }
    func end() { ended = true }
    var since: Duration { .now - at }
}
