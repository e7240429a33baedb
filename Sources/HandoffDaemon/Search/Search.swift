#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffControl
import HandoffCore
import Logging
import ServiceLifecycle

/// The search index kept current (docs/CONTROL.md, "Search"): this machine's activities eligible
/// for search when they change, each paired
/// machine's current activities when it tells us of them (dropped when it goes absent or is
/// unpaired), and the scenes when asked after they changed. Only paired machines' activities
/// enter it: a stranger's advert names nothing we could index.
actor Search: Service {
    private let index: (any SearchIndex)?
    private let activities: Activities
    private let peers: Peers
    private let scenes: SceneBook
    private let events: ControlEvents
    private let feed = EventFeed(names: Search.watched)
    private let logger: Logger
    /// The scenes' revision as last indexed.
    private var scenesIndexed = -1
    /// Each peer's latest read of its activities (a read that a newer one outlived is not
    /// applied), and the peers being read: one read at a time each, then one more if it changed.
    private var reads: [String: Int] = [:]
    private var reading: [String: Bool] = [:]
    /// Whether this machine's activities were put in (`fillOnce`).
    private var filled = false

    init(index: (any SearchIndex)?, activities: Activities, peers: Peers, scenes: SceneBook, events: ControlEvents, logger: Logger) {
        self.index = index
        self.activities = activities
        self.peers = peers
        self.scenes = scenes
        self.events = events
        self.logger = logger
    }

    func run() async throws {
        // Search turned off: nothing to keep current, but a service that returns ends the group
        // (handoffd exited at once with `desktop.search: false`: "Service failed(Search)").
        guard index != nil else {
            try? await gracefulShutdown()
            return
        }
        events.watch(feed.client)
        // Filled once the first dials have ended (or 100 ms passed), as the Avahi client starts:
        // a restarted daemon's first handshakes are what its peers wait on, and this is CPU
        // (the index made, this machine's activities added) that nothing needs before a search.
        await peers.firstDialsEnded()
        await fillOnce()
        for peer in await peers.views() where peer.trusted != nil && peer.present { indexRemote(peer.name) }
        for await event in feed.stream.cancelOnGracefulShutdown() { await apply(event) }
        events.left(feed.client)
    }

    /// What an event asks of the index.
    enum Reaction { case local, remote, gone, unpaired }

    /// The events `apply` acts on and what each asks: one table, so that the feed's filter
    /// (`watched`) and the handling cannot drift apart.
    static let reactions: [String: Reaction] = [
        "activitiesChanged": .local, "remoteActivitiesChanged": .remote, "remoteActivityInvalidated": .remote,
        "peerPresent": .remote, "peerAbsent": .gone, "peerRemoved": .gone, "unpaired": .unpaired
    ]
    static let watched = Set(reactions.keys)

    private func apply(_ event: EventFeed.Event) async {
        let peer = event.fields["peer"]?.stringValue
        switch Self.reactions[event.name] {
        case .local: await indexLocal()
        case .remote: if let peer { indexRemote(peer) }
        case .gone:
            if let peer {
                reads[peer, default: 0] += 1
                replace("remote:" + peer, [])
            }
        case .unpaired:
            // Whose it was is gone with the pairing: keep only the sources of peers still paired.
            let paired = Set(await peers.views().filter { $0.trusted != nil }.map { "remote:" + $0.name })
            do { try index?.removeSources(prefix: "remote:", keeping: paired) } catch { failed(error) }
        case nil: break
        }
    }

    /// This machine's activities, the first time it is asked: at start, or by a
    /// search that came first.
    private func fillOnce() async {
        guard !filled else { return }
        filled = true
        await indexLocal()
    }

    private func indexLocal() async {
        replace("local", SearchItems.local(await activities.entries))
    }

    /// Reads a peer's activities apart from the events (asking over the link may take a while;
    /// this machine's own changes are not kept waiting for it).
    private func indexRemote(_ name: String) {
        let generation = reads[name, default: 0] + 1
        reads[name] = generation
        // A read is under way: it reads again when it ends (a flood of events is two reads).
        if reading[name] != nil {
            reading[name] = true
            return
        }
        reading[name] = false
        Task {
            defer { readEnded(name) }
            do throws(ControlError) {
                // One peer's view, not every peer's: a restarted hub reads 49 peers here at once.
                let peer = try await peers.resolveForRequest(name)
                guard peer.trusted != nil else { return }
                let items = SearchItems.remote(try await peers.activities(of: peer), peer: name)
                if reads[name] == generation { replace("remote:" + name, items) }
            } catch {
                logger.debug("search: a peer's activities were not read", metadata: ["peer.name": "\(name)", "error": "\(error.code)"])
            }
        }
    }

    private func readEnded(_ name: String) {
        let again = reading.removeValue(forKey: name) == true
        if again { indexRemote(name) }
    }

    /// The scenes, re-read when one changed since they were last indexed.
    private func indexScenesIfChanged() async {
        let revision = await scenes.revision
        guard revision != scenesIndexed else { return }
        scenesIndexed = revision
        replace("scenes", SearchItems.scenes(await scenes.all))
    }

    private func replace(_ source: String, _ items: [SearchItem]) {
        do {
            let left = try index?.replace(source: source, with: items) ?? 0
            if left > 0 {
                logger.warning("the search index is full; items were left out", metadata: ["search.source": "\(source)", "search.leftOut": "\(left)"])
            }
        } catch { failed(error) }
    }

    private func failed(_ error: any Error) { logger.error("the search index failed", metadata: ["error": "\(error)"]) }

    func search(_ text: String, limit: Int) async throws(ControlError) -> [SearchHit] {
        guard let index else {
            throw .failed(
                code: .searchOff, message: "search is turned off in the configuration (desktop.search: false); turn it on and restart handoffd")
        }
        await fillOnce()
        await indexScenesIfChanged()
        do {
            return try index.search(SearchQuery(text), limit: limit).map { m in
                SearchHit(
                    kind: m.item.kind, id: m.item.id, title: m.item.title, detail: m.item.detail, peer: m.item.peer, updated: m.item.updated,
                    rank: m.rank)
            }
        } catch {
            throw .failed(code: .searchFailed, message: "the search index could not answer (\(error)); see the log")
        }
    }
}
