import Dispatch
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffClient
import HandoffContent
import HandoffControl
import HandoffCore
import HawkNotes
import HawkNotesApp
import HawkNotesTerminal

/// Runs one Hawk Notes window: feeds keys and handoffd's events to the reducer, paints each new
/// state, and carries out the effects (save the scene, make an activity current, continue one).
/// Everything here runs on the main actor, the one thread that touches the terminal.
@MainActor
final class AppDriver {
    var state: AppState
    let mapping: ActivityMapping
    let terminal: Terminal
    let daemon: DaemonLink
    let sceneID: UUID
    /// The activity this window made current, to answer needsSave questions and to resign.
    var published: UserActivity?
    /// Publishes in order, the latest only (a burst of tab switches is one activity made current).
    let publishing = LatestOnly()
    /// The pending (debounced) save, and whether the state changed since the last one landed.
    var save = PendingSave()
    /// Keys, resizes and signals, as dispatch sources on the main queue.
    var sources: [any DispatchSourceProtocol] = []
    var finished: CheckedContinuation<Int32, Never>?

    private init(state: AppState, mapping: ActivityMapping, terminal: Terminal, daemon: DaemonLink, sceneID: UUID) {
        (self.state, self.mapping, self.terminal, self.daemon, self.sceneID) = (state, mapping, terminal, daemon, sceneID)
    }

    /// Connects to handoffd, takes the terminal, opens the window's scene (asking which one when
    /// several are saved and none was named) and draws it. nil: the person chose to quit.
    static func start(library: Library, socketPath: String, start: AppStart) async throws -> AppDriver? {
        let daemon = DaemonLink(socketPath: socketPath)
        let client: HandoffClient
        do { client = try await daemon.connect() } catch { throw AppStartError.daemon(error.description) }
        let terminal: Terminal
        do { terminal = try Terminal() } catch { throw AppStartError.terminal(error.description) }
        do {
            guard let choice = try await chooseScene(client, start, terminal, library: library) else {
                terminal.close()
                await client.close()
                return nil
            }
            let detail = try await openScene(client, choice, start)
            var state = AppState(library: library)
            state.layout(visibleRows: Screen.characterRows(height: terminal.size.rows))
            let driver = AppDriver(
                state: state, mapping: ActivityMapping(library: library), terminal: terminal, daemon: daemon, sceneID: detail.summary.scene)
            var snapshot = SceneSnapshot(content: detail.summary.content.flatMap { try? ContentPath(parsing: $0) }, storage: SceneStorage())
            if let storage = try? SceneStorage(propertyList: detail.storage) { snapshot.storage = storage }
            driver.apply(.restored(snapshot))
            if let current = detail.currentActivity {
                // A window reopened on what it continued earlier: not offered that again.
                let known = detail.restorationActivity.flatMap { $0.id == current.activity ? Int64(clamping: $0.version) : nil }
                driver.apply(.showing(activityID: current.activity, version: known))
            }
            driver.apply(.connection(.connected))
            driver.daemon.adopt(client)
            return driver
        } catch {
            terminal.close()
            await client.close()
            throw error
        }
    }

    /// The window asked for, a new one, the only one saved, or the one the person picks.
    private enum Choice {
        case existing(UUID)
        case new
    }

    private static func chooseScene(_ client: HandoffClient, _ start: AppStart, _ terminal: Terminal, library: Library) async throws -> Choice? {
        if start.newWindow && start.scene == nil { return .new }
        let scenes: [SceneSummary]
        // Hawk Notes' own windows: other apps keep scenes in handoffd too.
        do { scenes = try await client.perform(ScenesRequest()).items.filter(isHawkNotes) } catch {
            throw AppStartError.scene("cannot list the saved windows: \(error.description)")
        }
        if let id = start.scene {
            // Connecting an id handoffd does not have makes a scene of it: a mistyped id opened
            // an empty window instead of the one meant.
            guard scenes.contains(where: { $0.scene == id }) else {
                throw AppStartError.scene(
                    "no window \(id.canonicalString) is saved here (`handoffctl scenes` lists them); `hawknotes --new-window` opens a new one")
            }
            return .existing(id)
        }
        guard scenes.count > 1 else { return scenes.first.map { .existing($0.scene) } ?? .new }
        var chooser = SceneChooser(
            scenes.map { s in
                let shown = library.names(s.content)
                return SceneChoice(id: s.scene, book: shown.book, character: shown.character, updated: s.updated)
            })
        while true {
            let size = terminal.size
            terminal.draw(Screen(chooser: chooser, width: size.columns, height: size.rows))
            guard let key = terminal.key(waiting: 250) else { continue }
            switch chooser.reduce(key) {
            case .open(let id)?: return .existing(id)
            case .newWindow?: return .new
            case .quit?: return nil
            case nil: continue
            }
        }
    }

    /// Connects the scene (made if new), at `--content` when a new window was asked there.
    private static func openScene(_ client: HandoffClient, _ choice: Choice, _ start: AppStart) async throws -> SceneDetail {
        do throws(ClientError) {
            var id: UUID?
            if case .existing(let existing) = choice { id = existing }
            var detail = try await client.perform(SceneConnectRequest(scene: id, role: "hawknotes"))
            if id == nil, let content = start.content {
                guard let path = try? ContentPath(parsing: content) else {
                    throw ClientError.refused(code: .badArgument, message: "--content \(content): not b|BOOK or b|BOOK::c|CHARACTER")
                }
                detail.summary = try await client.perform(
                    SceneUpdateRequest(
                        scene: detail.summary.scene, content: path.description, navigation: path.itemID == nil ? [] : [path.description]))
            }
            return detail
        } catch {
            throw AppStartError.scene("handoffd refused the window's scene: \(error.description)")
        }
    }

    /// Runs until the person quits (or a signal asks); returns the exit status.
    func run() async -> Int32 {
        listen()
        draw()
        Trace.note("drawn restored")
        daemon.start(for: self)
        return await withCheckedContinuation { finished = $0 }
    }

    /// One input through the reducer, its effects carried out, the screen painted.
    func apply(_ input: AppInput) {
        for effect in state.reduce(input) { perform(effect) }
    }

    func draw() {
        let size = terminal.size
        terminal.draw(Screen(state, library: mapping.library, width: size.columns, height: size.rows))
    }

    private func perform(_ effect: AppEffect) {
        switch effect {
        case .save: scheduleSave()
        case .becomeCurrent(let current): makeCurrent(current)
        case .continueOffer(let offer): continueOffer(offer)
        case .openInNewWindow(let book, let character): openWindow(ContentPath(tabID: book, itemID: character))
        case .quit: quit(status: 0)
        }
    }

    // MARK: - Keys and signals

    private func listen() {
        let keys = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        keys.setEventHandler { MainActor.assumeIsolated { self.readKeys() } }
        keys.resume()
        // ncurses reports a resize as a key once asked: a look ten times a second.
        let resize = DispatchSource.makeTimerSource(queue: .main)
        resize.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        resize.setEventHandler { MainActor.assumeIsolated { self.readKeys() } }
        resize.resume()
        sources = [keys, resize]
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            _ = Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            source.setEventHandler { MainActor.assumeIsolated { self.quit(status: 0) } }
            source.resume()
            sources.append(source)
        }
    }

    private func readKeys() {
        let started = ContinuousClock.now
        var keys: [AppKey] = []
        while let key = terminal.key(waiting: 0) {
            if key == .resize { state.layout(visibleRows: Screen.characterRows(height: terminal.size.rows)) }
            apply(.key(key))
            keys.append(key)
        }
        guard !keys.isEmpty else { return }
        draw()
        if Trace.enabled {
            let ms = Double((ContinuousClock.now - started).components.attoseconds) / 1e15
            Trace.note("key \(keys.count == 1 ? "\(keys[0])" : "\(keys.count)-keys") \(ms.fixedPoint(3))")
        }
    }

    // MARK: - Ending

    /// Saves what is not saved yet, resigns the window's activity, gives the terminal back.
    func quit(status: Int32) {
        guard let finished else { return }
        self.finished = nil
        for s in sources { s.cancel() }
        Task { @MainActor in
            await saveNow()
            if let published, let client = daemon.client { try? await client.resignCurrent(published.id) }
            terminal.close()
            await daemon.close()
            finished.resume(returning: status)
        }
    }
}
