import Dispatch
import Foundation
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

    /// Connects to handoffd, takes the terminal, opens the window's scene and draws it.
    static func start(library: Library, socketPath: String, start: AppStart) async throws -> AppDriver {
        let daemon = DaemonLink(socketPath: socketPath)
        let client: HandoffClient
        do { client = try await daemon.connect() } catch { throw AppStartError.daemon(error.description) }
        let (sceneID, others) = try await chooseScene(client, start)
        let detail: SceneDetail
        do {
            detail = try await client.perform(SceneConnectRequest(scene: sceneID, role: "hawknotes"))
            if let content = start.content, sceneID == nil {
                guard let path = try? ContentPath(parsing: content) else {
                    throw AppStartError.scene("--content \(content): not b|BOOK or b|BOOK::c|CHARACTER")
                }
                _ = try await client.perform(
                    SceneUpdateRequest(scene: detail.summary.scene, book: path.tabID.uuidString, path: path.itemID.map { [$0.uuidString] } ?? []))
            }
        } catch let error as ClientError {
            throw AppStartError.scene("handoffd refused the window's scene: \(error.description)")
        }
        let terminal: Terminal
        do { terminal = try Terminal() } catch { throw AppStartError.terminal(error.description) }
        var state = AppState(library: library)
        state.layout(visibleRows: Screen.characterRows(height: terminal.size.rows))
        let driver = AppDriver(
            state: state, mapping: ActivityMapping(library: library), terminal: terminal, daemon: daemon, sceneID: detail.summary.scene)
        var snapshot = SceneSnapshot(content: detail.summary.content.flatMap { try? ContentPath(parsing: $0) }, storage: SceneStorage())
        if let storage = try? SceneStorage(propertyList: detail.storage) { snapshot.storage = storage }
        if let content = start.content, let path = try? ContentPath(parsing: content) { snapshot.content = path }
        driver.apply(.restored(snapshot))
        driver.apply(.connection(.connected))
        if others > 0 {
            driver.apply(
                .notice("\(others) other window\(others == 1 ? "" : "s") saved: `handoffctl scenes` lists them, `hawknotes --scene ID` opens one"))
        }
        driver.daemon.adopt(client)
        return driver
    }

    /// The window to open: the one asked for, a new one, or the window used last.
    private static func chooseScene(_ client: HandoffClient, _ start: AppStart) async throws -> (UUID?, others: Int) {
        if let id = start.scene { return (id, 0) }
        if start.newWindow { return (nil, 0) }
        let scenes: [SceneSummary]
        do { scenes = try await client.perform(ScenesRequest()).items } catch {
            throw AppStartError.scene("cannot list the saved windows: \(error.description)")
        }
        let newest = scenes.max { $0.updated < $1.updated }
        return (newest?.scene, max(scenes.count - 1, 0))
    }

    /// Runs until the person quits (or a signal asks); returns the exit status.
    func run() async -> Int32 {
        listen()
        draw()
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
            Foundation.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
            source.setEventHandler { MainActor.assumeIsolated { self.quit(status: 0) } }
            source.resume()
            sources.append(source)
        }
    }

    private func readKeys() {
        var changed = false
        while let key = terminal.key(waiting: 0) {
            if key == .resize { state.layout(visibleRows: Screen.characterRows(height: terminal.size.rows)) }
            apply(.key(key))
            changed = true
        }
        if changed { draw() }
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
