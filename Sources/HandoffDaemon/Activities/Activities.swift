#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffAsync
import HandoffConfig
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffProtocol
import Logging
import ServiceLifecycle

/// The activities this machine offers (becomeCurrent, resign, invalidate), the app that published
/// each, the advert that carries them, and the answers to peers that list or fetch them. `run()`
/// rewrites the advert at its schedule's random moments, rotates it when its time is up or the
/// machine's addresses change, keeps the pairing advert in step with the pairing window, and withdraws
/// both at shutdown.
/// What Activities needs of the configuration: the device name, the size rules, the types.
struct ActivitiesSettings: Sendable {
    var device: String
    var sizePolicy: ActivitySizePolicy
    var declared: DeclaredTypes
}

public actor Activities: Service {
    private let settings: ActivitiesSettings
    private let peers: Peers
    private let events: ControlEvents
    private let logger: Logger
    private var advert: Advert
    private var current = CurrentActivities()
    /// The control client that published each activity: asked to refresh it when it needsSave,
    /// and told when a peer continued it. Its activities end when it leaves, unless kept.
    private var owners: [UUID: (client: ControlClient, keep: Bool)] = [:]
    /// needsSave questions to apps, by token.
    private let refreshes = Waiters<String, UserActivity>()
    /// The activities each peer fetched, whose `continued` report is still due.
    private var fetched = ServedFetches()
    /// The activities given to each peer to continue (fetched, or pushed), for streams: unlike
    /// `fetched`, a report does not end them.
    private var given = ServedFetches()
    /// The machine's addresses at the last rotation: a change rotates the advert, so that an
    /// observer cannot link the machine's adverts across networks.
    private var addresses = LocalAddresses.current()
    /// The run loop's pause until its next look: the advert's next moment, the pairing window's
    /// end, or `longestPause`; cut short by `nudge()`.
    private let nap = Nap()
    /// The longest pause of the run loop. What it waits for comes as a nudge: a collision (from the
    /// discovery), a network change or a resume (from the dialer's watcher), a pairing window
    /// opened or closed (`pairingWindowChanged`), a rotation asked for from outside the loop
    /// (`rotate`: its announcement is the loop's). It bounds the rest: the addresses where no
    /// rtnetlink watcher runs, and a rotation that fell due during a suspend the dialer has not
    /// yet noticed. It was a second: an idle daemon woke once a second for nothing.
    static let longestPause: Duration = .seconds(10)

    init(settings: ActivitiesSettings, advert: Advert, peers: Peers, events: ControlEvents, logger: Logger) {
        self.settings = settings
        self.advert = advert
        self.peers = peers
        self.events = events
        self.logger = logger
        advert.discovery.whenCollided { [nap] in nap.nudge() }
    }

    /// Look now: something the run loop acts on changed (a network change, a resume).
    nonisolated func nudge() { nap.nudge() }

    /// Whether the run loop is in its pause (tests: what comes now comes between its looks).
    nonisolated var isPausing: Bool { nap.isSleeping }

    /// Publishes the advert once the link listens (the prelude).
    func startAdvertising(port: Int) throws {
        try advert.publish(port: port, advertised: current.advertised(at: Date()))
    }

    public func run() async throws {
        let nap = self.nap
        await withGracefulShutdownHandler {
            while !nap.hasEnded && !Task.isCancelled {
                let now = ContinuousClock.now
                if advert.rotationDue(at: now) { rotate(.interval) }
                if advert.collided { rotate(.collision) }
                if let addressesNow = LocalAddresses.current(), addressesNow != addresses {
                    addresses = addressesNow
                    rotate(.addressesChanged)
                }
                advertDue(at: now)
                pairingWindowChanged()
                await nap.sleep(for: nextLook(after: now) - ContinuousClock.now)
            }
        } onGracefulShutdown: {
            nap.end()
        }
        refreshes.endAll()
        // Peers see the goodbye; the discovery client stops.
        advert.withdraw()
        logger.info("advert withdrawn")
    }

    /// When the run loop looks again: the advert's next moment, the end of the pairing window
    /// while its advert is out, `longestPause` at the latest.
    private func nextLook(after now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        var next = min(advert.nextEvent, now + Self.longestPause)
        if advert.pairingPublished, let closes = peers.pairingWindowCloses {
            // Just past it: the window is open while its end is still ahead.
            next = min(next, now + .milliseconds(Int64(max(0, closes.timeIntervalSinceNow) * 1000) + 10))
        }
        return next
    }

    /// A rewrite or an announcement the schedule says is due.
    private func advertDue(at now: ContinuousClock.Instant) {
        do {
            if case .announced(let name) = try advert.due(at: now, advertised: current.advertised(at: Date())) {
                logger.info("advert announced", metadata: ["service.name": "\(name)"])
            }
        } catch {
            logger.error("could not rewrite the advert", metadata: ["error": "\(error)"])
        }
    }

    func heartbeat() {}

    // MARK: - Operations

    /// becomeCurrent: checks the activity as it will be advertised, makes it current for its scene,
    /// and tells peers (TXT now, open sessions at once).
    /// `audience`: the peer id of the one machine it is for (`publish --to`), nil for all.
    func publish(_ activity: UserActivity, scene: UUID?, owner: ControlClient?, keep: Bool = true, audience: PeerID? = nil) async throws(ControlError)
        -> (
            version: UInt64, size: ActivitySize
        )
    {
        let size: ActivitySize
        let declared = settings.declared.current
        do throws(ActivityError) {
            size = try declared.validateForPublishing(activity, at: Date(), sizePolicy: settings.sizePolicy)
        } catch {
            var message = error.description
            if case .undeclaredType = error {
                // The types it may take, so that a person need not open the configuration to look.
                message += " (declared here: \(declared.types.map(\.rawValue).sorted().joined(separator: ", ")))"
            }
            throw .failed(code: ContinuationFailure(error, type: activity.type).code, message: message)
        }
        for id in current.becomeCurrent(activity, scene: scene, audience: audience, at: Date()) { owners[id] = nil }
        if let owner { owners[activity.id] = (owner, keep) }
        logger.info(
            "activity current",
            metadata: [
                "activity.type": "\(activity.type.rawValue)", "activity.id": "\(activity.id)",
                "activity.bytes": "\(size.bytes)"
            ])
        await changed()
        return (activity.version, size)
    }

    /// resignCurrent (peers just stop seeing it) or invalidate (peers are told to drop it).
    func end(_ id: UUID, invalidate: Bool) async throws(ControlError) {
        guard current.remove(id) else {
            throw .failed(code: .notFound, message: "activity \(id.canonicalString) is not current here (see `handoffctl activities`)")
        }
        owners[id] = nil
        if invalidate { await peers.tellInvalidated(id) }
        await changed()
    }

    /// deleteSavedUserActivities: current activities with these persistent ids are invalidated.
    func invalidate(persistentIDs: Set<String>) async {
        for entry in current.entries where entry.activity.persistentIdentifier.map(persistentIDs.contains) == true {
            try? await end(entry.activity.id, invalidate: true)
        }
    }

    var entries: [CurrentActivities.Entry] { current.entries }

    func entry(_ id: UUID) -> CurrentActivities.Entry? { current.entry(id: id) }

    /// The app's fresh version, answering a needsSave question; false if none waits for the token.
    func answerRefresh(token: String, with activity: UserActivity) -> Bool { refreshes.resumeOldest(token, with: activity) }

    /// Tells the app that published the activity (if it is still connected).
    func tellOwner(of activityID: UUID, _ event: String, _ fields: [String: PropertyListValue]) {
        owners[activityID]?.client.send(event: event, fields)
    }

    /// The app left (quit, crashed): what it published ends with it, as resignCurrent, unless
    /// published to be kept.
    func clientLeft(_ client: ControlClient) async {
        refreshes.end(owner: client.key)
        var ended = 0
        for (id, owner) in owners where owner.client.key == client.key {
            owners[id] = nil
            if !owner.keep, current.remove(id) { ended += 1 }
        }
        guard ended > 0 else { return }
        logger.info("activities ended with their app", metadata: ["activity.count": "\(ended)"])
        await changed()
    }

    /// Our advertising key changed (unpairing): the advert rotates, sealed with the new key, so
    /// that the former peer can neither read nor follow it.
    func rekeyed() { rotate(.unpaired) }

    /// The pairing window opened or closed: the pairing advert follows (the run loop checks too,
    /// for a window that ran out).
    func pairingWindowChanged() {
        let open = peers.isPairingWindowOpen
        guard open != advert.pairingPublished else { return }
        do {
            try advert.pairingWindow(open: open)
            // The run loop's pause ends at the window's end now.
            nap.nudge()
            logger.info(open ? "pairing advert published" : "pairing advert withdrawn")
        } catch {
            logger.error("could not change the pairing advert", metadata: ["error": "\(error)"])
        }
    }

    /// Whether the pairing advert is published now.
    var pairingAdvertOut: Bool { advert.pairingPublished }

    /// The private advert's name (during a rotation's gap, the one to be announced).
    var advertName: String { advert.instanceName }

    /// `rotate-advert`: the new instance name (announced after the rotation's gap).
    func rotateNow() -> String {
        rotate(.requested)
        return advert.instanceName
    }

    /// The old advert goes now; the new one comes after a random gap (`AdvertSchedule`), which
    /// the run loop's pause must end for: a rotation asked for from outside it (an unpairing,
    /// `rotate-advert`) wakes it to look again (from inside, its next pause is one round).
    private func rotate(_ reason: AdvertRotation.Reason) {
        advert.rotate()
        logger.info("advert rotated", metadata: ["advert.reason": "\(reason.rawValue)", "service.name": "\(advert.instanceName)"])
        nap.nudge()
    }

    // MARK: - Peers' requests

    /// The answer to a peer's list, fetch or ping (PeerRequestHandler), listing only the types the
    /// peer declared.
    func answer(_ message: PeerMessage, from peerID: PeerID) async -> PeerMessage? {
        let reply = await requestHandler.reply(to: message, from: peerID)
        if case .activities(let id, let items) = reply { return .activities(id: id, items: await peers.offered(items, to: peerID)) }
        if case .activity(_, let activity) = reply {
            fetched.served(activity.id, to: peerID, at: Date())
            given.served(activity.id, to: peerID, at: Date())
        }
        return reply
    }

    /// We pushed the activity to the peer: it may ask for streams with its app.
    func noteGiven(_ activityID: UUID, to peerID: PeerID) { given.served(activityID, to: peerID, at: Date()) }

    /// The app a peer may ask for a stream on `activityID`: nil if the activity is not current,
    /// does not support streams or was not given to that peer; `.some(nil)` if its app is gone.
    func streamOwner(of activityID: UUID, givenTo peerID: PeerID) -> ControlClient?? {
        guard let entry = current.entry(id: activityID), entry.activity.supportsContinuationStreams,
            given.wasServed(activityID, to: peerID, at: Date())
        else { return nil }
        return .some(owners[activityID]?.client)
    }

    /// Whether a peer's `continued` report is believed: it fetched that activity, and reports it once.
    func acceptReport(_ activityID: UUID, by peerID: PeerID) -> Bool { fetched.reported(activityID, by: peerID, at: Date()) }

    /// The activity, refreshed by its app first if it needs saving and the app answers in time.
    /// The activity as its app has it now (asked only if it needs saving), noted as given to the
    /// peer it is about to be pushed to: one call, one hop onto this actor for a push.
    func freshest(_ activity: UserActivity, givenTo peerID: PeerID?) async -> UserActivity {
        let fresh = activity.needsSave ? await requestHandler.freshest(activity) : activity
        if let peerID { noteGiven(fresh.id, to: peerID) }
        return fresh
    }

    private var requestHandler: PeerRequestHandler {
        let snapshot = current
        return PeerRequestHandler(
            device: settings.device, declaredTypes: settings.declared.names,
            current: { snapshot }, refresh: { [weak self] in await self?.askOwner($0) })
    }

    /// Asks the app that published `activity` for its fresh state; PeerRequestHandler bounds the
    /// wait (cancelling it after its budget).
    private func askOwner(_ activity: UserActivity) async -> UserActivity? {
        guard let owner = owners[activity.id]?.client else { return nil }
        let token = UUID.random().canonicalString
        let ticket = refreshes.register(token, owner: owner.key)
        owner.send(event: "needsSave", ["token": .string(token), "activity": .string(activity.id.canonicalString)])
        guard let fresh = await refreshes.wait(ticket).value, fresh.id == activity.id, fresh.version > activity.version else { return nil }
        current.update(fresh, at: Date())
        return fresh
    }

    // MARK: - Telling peers

    /// The current set changed: a push to open sessions. The advert's TXT carries it at its next
    /// scheduled rewrite, not now (its timing must not say when the person did something).
    private func changed() async {
        let items = current.summaries(at: Date())
        await peers.tellChanged(items)
        events.broadcast("activitiesChanged", ["count": .integer(Int64(items.count))])
    }
}
