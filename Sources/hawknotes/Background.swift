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
            do throws(ClientError) {
                var windows = try await client.perform(ScenesRequest()).items.filter(isHawkNotes).map { ($0.scene, $0.content, $0.updated) }
                _ = try await client.perform(HandleRequest(types: ActivityMapping.types, name: DaemonLink.handlerName))
                for await event in client.events where event.name == "continue" {
                    await last.touch()
                    guard let token = event.fields["token"]?.stringValue, let value = event.fields["activity"],
                        let activity = try? UserActivity(propertyList: value),
                        case .continued(let book, let character, let draft)? = try? mapping.input(continuing: activity)
                    else {
                        _ = try? await client.perform(HandledRequest(token: token(event), accepted: false))
                        continue
                    }
                    let shown = ContentPath(tabID: book, itemID: character)
                    let scene = try await window(for: shown, among: windows, client: client)
                    // The window's save, then the answer that names it, written one after the
                    // other: handoffd holds the change before the other machine hears it was
                    // taken, and that answer does not wait for the save's disk (as before, when
                    // handoffd routed it itself, its write followed the answer).
                    let saved = try client.queue(change(activity, shown: shown, draft: draft, in: scene))
                    _ = try await client.perform(HandledRequest(token: token, accepted: true, scene: scene))
                    do throws(ClientError) { _ = try await saved.answer() } catch {
                        if error == .connectionLost { throw error }
                        StandardStreams.error("hawknotes: could not keep the continued activity in its window: \(error.description)\n")
                    }
                    windows.removeAll { $0.0 == scene }
                    windows.append((scene, shown.description, Date()))
                }
            } catch {
                StandardStreams.error("hawknotes: \(error.description)\n")
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

    private static func token(_ event: ControlEvent) -> String { event.fields["token"]?.stringValue ?? "" }

    /// The window it lands in: one showing its content, else one on its book, else the one used
    /// last, else a new one.
    static func window(
        for shown: ContentPath, among windows: [(UUID, String?, Date)], client: HandoffClient
    ) async throws(ClientError) -> UUID {
        let bookPrefix = ContentPath(tabID: shown.tabID).description
        if let s = windows.first(where: { $0.1 == shown.description }) ?? windows.first(where: { $0.1?.hasPrefix(bookPrefix) == true })
            ?? windows.max(by: { $0.2 < $1.2 })
        {
            return s.0
        }
        let id = try await client.perform(SceneConnectRequest(role: "hawknotes")).summary.scene
        _ = try await client.perform(SceneDisconnectRequest(scene: id))
        return id
    }

    /// The window's scene changed as the open window would change it: the book and character
    /// shown, the draft kept for the book, the activity current.
    static func change(_ activity: UserActivity, shown: ContentPath, draft: String?, in scene: UUID) -> SceneUpdateRequest {
        var update = SceneUpdateRequest(
            scene: scene, content: shown.description, navigation: shown.itemID == nil ? [] : [shown.description], activity: activity)
        if let draft {
            update.set.append(.init(key: SceneSnapshot.Key.draft.name, value: .string(draft), content: ContentPath(tabID: shown.tabID).description))
        }
        return update
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
