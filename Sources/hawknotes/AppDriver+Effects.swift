#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffAsync
import HandoffClient
import HandoffContent
import HandoffControl
import HandoffCore
import HawkNotes
import HawkNotesApp

/// A save waiting for the state to settle, the write under way, and whether the scene holds the
/// newest state.
struct PendingSave {
    var task: Task<Void, Never>?
    var writer: Task<Void, Never>?
    var dirty = false
}

/// Work of which only the latest matters (making an activity current): one at a time, in order,
/// and what was superseded while one ran is skipped.
@MainActor
final class LatestOnly {
    private var next: (@MainActor () async -> Void)?
    private var running = false

    func submit(_ work: @escaping @MainActor () async -> Void) {
        next = work
        guard !running else { return }
        running = true
        Task { @MainActor in
            while let work = next {
                next = nil
                await work()
            }
            running = false
        }
    }
}

extension AppDriver {
    /// Saves are debounced: a burst of keys (a word typed) is one write, 300 ms after the last.
    static let saveDelay: Duration = .milliseconds(300)

    func scheduleSave() {
        save.dirty = true
        save.task?.cancel()
        save.task = Task { @MainActor in
            try? await Task.sleep(for: Self.saveDelay)
            guard !Task.isCancelled else { return }
            save.task = nil
            await saveNow()
        }
    }

    /// Writes the window's state to its scene now, one write at a time (a newer state is written
    /// after the one under way, never before it); kept dirty, and written at reconnection, when
    /// handoffd cannot take it. The write is its own task: a key pressed meanwhile does not
    /// cancel it.
    func saveNow() async {
        save.task?.cancel()
        save.task = nil
        if let writer = save.writer { await writer.value }
        guard save.dirty, save.writer == nil else { return }
        let writer = Task { @MainActor in
            while save.dirty, let client = daemon.client {
                save.dirty = false
                let snapshot = state.snapshot
                let shown = snapshot.content ?? ContentPath(tabID: state.selectedBook)
                let update = SceneUpdateRequest(
                    scene: sceneID, content: shown.description, navigation: shown.itemID == nil ? [] : [shown.description],
                    storage: snapshot.storage.propertyList)
                do throws(ClientError) { _ = try await client.perform(update) } catch {
                    save.dirty = true
                    // A lost connection is the status line's to say (written again at reconnection).
                    if error != .connectionLost {
                        apply(.notice("not saved yet: \(error.description)"))
                        draw()
                    }
                    break
                }
            }
            save.writer = nil
        }
        save.writer = writer
        await writer.value
    }

    /// Makes what the window shows the current activity (the previous one of this scene is
    /// replaced: one per window).
    func makeCurrent(_ current: CurrentActivity?) {
        guard let current, let activity = mapping.activity(current) else {
            if let old = published, let client = daemon.client {
                published = nil
                publishing.submit { try? await client.resignCurrent(old.id) }
            }
            return
        }
        published = activity
        guard let client = daemon.client else { return }
        let scene = sceneID
        publishing.submit { @MainActor in
            do throws(ClientError) { try await client.becomeCurrent(activity, scene: scene) } catch {
                // A lost connection is the status line's to say (made current again at reconnection).
                guard error != .connectionLost else { return }
                self.apply(.notice("not offered to your other machines: \(error.description)"))
                self.draw()
            }
        }
    }

    /// handoffd asks for the newest version of our activity before a peer fetches it (needsSave):
    /// the draft as it is now.
    func fresh(_ id: UUID) -> UserActivity? {
        guard var activity = published, activity.id == id else { return nil }
        if case .draft(let book, _)? = state.currentActivity, let now = mapping.activity(.draft(book: book, text: state.selected.draft)) {
            try? activity.addUserInfoEntries(now.userInfo)
        }
        published = activity
        return activity
    }

    /// Continues an activity another machine offers, into this window.
    func continueOffer(_ offer: Offer) {
        guard let client = daemon.client else { return apply(.notice("handoffd is not reachable; try again when it is back")) }
        apply(.notice("continuing “\(offer.title.terminalSafe)” from \(offer.peer.terminalSafe)…"))
        let scene = sceneID
        // Not after a save: the continuation comes back to this app (its live handler), and a
        // save waits for handoffd's scene write (at most one a second per scene).
        Task { @MainActor in
            do throws(ClientError) {
                let report = try await client.perform(ContinueRequest(peer: offer.peer, activity: offer.activityID, scene: scene))
                if report.failed {
                    apply(.notice("not continued: \(report.message ?? report.code?.rawValue ?? "it failed")"))
                } else if report.handler != DaemonLink.handlerName, let content = report.content, let input = mapping.input(showing: content) {
                    // handoffd routed it itself (into this window's scene): show where it went.
                    apply(input)
                    apply(.showing(activityID: offer.activityID, version: offer.version))
                }
            } catch {
                apply(.notice("not continued: \(error.description)"))
            }
            draw()
        }
    }

    /// A continuation handoffd offers this window (it is the live handler for its types).
    func continued(_ activity: UserActivity) -> Bool {
        do throws(ContinuationFailure) {
            apply(try mapping.input(continuing: activity))
            // Not offered again on this window while it shows it (AppState.visibleOffers).
            apply(.showing(activityID: activity.id, version: Int64(clamping: activity.version)))
            apply(.notice("continued “\(activity.title?.terminalSafe ?? activity.type.rawValue)”"))
            draw()
            Trace.note("drawn continued")
            return true
        } catch {
            apply(.notice("could not continue: \(error.description)"))
            draw()
            return false
        }
    }

    /// Opens content in a new window: a new scene at it, in a new terminal window where there is
    /// one (tmux, a desktop), else says how to open it.
    func openWindow(_ content: ContentPath) {
        let command = [CommandLine.arguments.first ?? "hawknotes", "--new-window", "--content", content.description]
        let environment = ProcessInfo.processInfo.environment
        let launcher: [String]?
        if environment["TMUX"] != nil {
            launcher = ["tmux", "new-window"] + [command.map(Self.shellQuoted).joined(separator: " ")]
        } else if environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil {
            launcher = ["x-terminal-emulator", "-e"] + command
        } else {
            launcher = nil
        }
        guard let launcher, Self.spawn(launcher) else {
            return apply(.notice("open it in another terminal: \(command.map(Self.shellQuoted).joined(separator: " "))"))
        }
        apply(.notice("opened in a new window"))
    }

    static func shellQuoted(_ s: String) -> String {
        "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// Starts a detached command (through `env`, which finds it on PATH), its standard streams on
    /// /dev/null; true if it started. A thread of its own reaps it when it ends.
    static func spawn(_ argv: [String]) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let args = ["/usr/bin/env"] + argv
        var cArgs = args.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/usr/bin/env", &actions, nil, &cArgs, environ) == 0 else { return false }
        BlockingThread.start { [pid] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        return true
    }

    /// What paired machines offer now, of the types this app continues.
    func refreshOffers() {
        guard let client = daemon.client else { return }
        daemon.offers.submit { @MainActor in
            guard let listing = try? await client.perform(ActivitiesRequest(remote: true)) else { return }
            let offers = listing.items.compactMap { item -> Offer? in
                guard let peer = item.peer, ActivityMapping.types.contains(item.type) else { return nil }
                return Offer(peer: peer, activityID: item.activity, type: item.type, title: item.title ?? item.type, version: item.version)
            }
            self.apply(.offers(offers))
            self.draw()
        }
    }
}
