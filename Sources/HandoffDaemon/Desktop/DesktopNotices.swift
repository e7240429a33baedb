#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffBus
import HandoffBusAPI
import HandoffControl
import HandoffCore
import Logging
import ServiceLifecycle

/// "Lady Beatrice — continue from alpha": desktop notifications through the standard
/// `org.freedesktop.Notifications` service, on the bus the D-Bus door joined. A client of the
/// daemon like any other: it watches events, reads a machine's offers with `activities --peer`
/// and continues with `continue`, through the same operations as the control socket. What to
/// show is NoticeBoard's to say; this part talks to the server, and waits for a machine's offers
/// to settle (`quiet`) so that flipping through ten characters updates one notification once.
public actor DesktopNotices: Service {
    static let server = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    private let connection: BusConnection
    private let operations: any ControlOperations
    private let feed = EventFeed(names: DesktopNotices.watched)
    private let logger: Logger
    private let quiet: Duration
    private var board: NoticeBoard
    /// Each machine's count of changes; the machines waiting for theirs to settle; those whose
    /// offers are being read (one at a time).
    private var pending: [String: Int] = [:]
    private var waiting: Set<String> = []
    private var busy: Set<String> = []
    /// Said once until a server answers again: without one, every change would log it.
    private var missingServerLogged = false

    public init(
        connection: BusConnection, operations: any ControlOperations, quietTypes: [String], quiet: Duration = .milliseconds(300), logger: Logger
    ) {
        self.connection = connection
        self.operations = operations
        self.quiet = quiet
        self.logger = logger
        board = NoticeBoard(quietTypes: Set(quietTypes))
    }

    /// What an event asks of the notices.
    enum Reaction { case offersChanged, continuedHere }

    /// The events `run` acts on and what each asks: one table, so that the feed's filter
    /// (`watched`) and the handling cannot drift apart.
    static let reactions: [String: Reaction] = [
        "remoteActivitiesChanged": .offersChanged, "remoteActivityInvalidated": .offersChanged, "peerAbsent": .offersChanged,
        "peerRemoved": .offersChanged, "unpaired": .offersChanged, "continued": .continuedHere
    ]
    static let watched = Set(reactions.keys)

    public func run() async throws {
        connection.subscribe(sender: nil, path: Self.path, interface: Self.server, member: "ActionInvoked") { [self] sender, values in
            guard values.count == 2, case .uint32(let id) = values[0], let key = values[1].stringValue else { return }
            Task {
                // Any process on the session bus can emit this signal: only the notification
                // server's own is believed (a forged one would continue activities unasked).
                guard await isServer(sender) else {
                    logger.notice("ignored a notification action not sent by the notification server", metadata: ["bus.sender": "\(sender)"])
                    return
                }
                await acted(id, key: key)
            }
        }
        connection.subscribe(sender: nil, path: Self.path, interface: Self.server, member: "NotificationClosed") { [self] _, values in
            guard values.count == 2, case .uint32(let id) = values[0], case .uint32(let reason) = values[1] else { return }
            Task { await closed(id, reason: reason) }
        }
        _ = await operations.perform(ControlRequest(id: nil, op: WatchRequest.name), from: feed.client)
        for await event in feed.stream.cancelOnGracefulShutdown() {
            guard let peer = event.fields["peer"]?.stringValue else { continue }
            switch Self.reactions[event.name] {
            case .offersChanged: changed(peer)
            case .continuedHere:
                // Continued here without the notification: "continue from alpha" would offer what is open.
                guard let id = event.fields["activity"]?.stringValue.flatMap(UUID.init(uuidString:)) else { continue }
                await carry(board.continuedHere(id, from: peer), peer: peer)
            case nil: break
            }
        }
        await operations.disconnected(feed.client)
    }

    /// Whether `sender` (a unique bus name) owns the notification server's name now.
    private func isServer(_ sender: String) async -> Bool {
        let owner = await connection.call(
            "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetNameOwner",
            [.string(Self.server)])
        guard case .success(let values) = owner, let name = values.first?.stringValue else { return false }
        return name == sender
    }

    /// A machine's offers changed: read them once they have been still for `quiet` (or after
    /// `longest`, if they never are). One waiting task per machine, however many events come.
    private func changed(_ peer: String) {
        pending[peer, default: 0] += 1
        guard waiting.insert(peer).inserted else { return }
        Task { await debounce(peer) }
    }

    private func debounce(_ peer: String) async {
        let start = ContinuousClock.now
        var seen = -1
        while pending[peer] != seen && ContinuousClock.now - start < Self.longest {
            seen = pending[peer] ?? 0
            try? await Task.sleep(for: quiet)
        }
        waiting.remove(peer)
        await settle(peer, pending[peer] ?? 0)
    }

    /// A person flipping through characters for longer than this still gets the notification.
    static let longest = Duration.seconds(2)

    private func settle(_ peer: String, _ generation: Int) async {
        guard !busy.contains(peer) else { return }
        busy.insert(peer)
        defer { busy.remove(peer) }
        let decision = board.offers(await offers(of: peer), from: peer)
        await carry(decision, peer: peer)
        // Changed again while we read or showed, and nothing waits for it: once more.
        if pending[peer] != generation, !waiting.contains(peer) { changed(peer) }
    }

    /// What the machine offers now, from the same operation `handoffctl activities --peer` uses;
    /// none when it cannot be asked (absent, unpaired).
    private func offers(of peer: String) async -> [NoticeBoard.Offer] {
        let request = ActivitiesRequest(remote: true, peer: peer)
        guard
            case .success(let value) = await operations.perform(
                ControlRequest(id: nil, op: ActivitiesRequest.name, arguments: request.arguments), from: feed.client),
            let listing = try? Listing<ActivityInfo>(propertyList: value)
        else { return [] }
        return listing.items.map { NoticeBoard.Offer(activity: $0.activity, type: $0.type, title: $0.title ?? $0.type) }
    }

    private func carry(_ decision: NoticeBoard.Decision, peer: String) async {
        switch decision {
        case .nothing: return
        case .close(let id): await close(id)
        case .show(let offer, let replaces):
            let values: [BusValue] = [
                .string("Handoff"), .uint32(replaces), .string("network-workgroup"), .string(offer.title),
                .string(NoticeBoard.body(from: peer, markup: await readsMarkup())), .array(element: "s", [.string("default"), .string("Continue")]),
                .vardict([("category", .string("presence")), ("desktop-entry", .string("hawknotes"))]), .int32(-1)
            ]
            switch await connection.call(Self.server, path: Self.path, interface: Self.server, member: "Notify", values) {
            case .success(let answer):
                missingServerLogged = false
                guard case .uint32(let id)? = answer.first else { return }
                if !board.showing(offer, from: peer, id: id) { await close(id) }
            case .failure(let failure):
                guard !missingServerLogged else { return }
                missingServerLogged = true
                logger.notice(
                    "no notification server answered; notifications wait for one",
                    metadata: ["dbus.error": "\(failure.name)", "error": "\(failure.message)"])
            }
        }
    }

    /// Whether the server reads bodies as markup, asked each time (notifications are few, and
    /// the server may have been replaced since). One that does not answer is taken to: escapes
    /// shown as text are a blemish, a peer's markup obeyed is not.
    private func readsMarkup() async -> Bool {
        guard case .success(let answer) = await connection.call(Self.server, path: Self.path, interface: Self.server, member: "GetCapabilities", []),
            case .array(_, let capabilities)? = answer.first
        else { return true }
        return capabilities.contains(.string("body-markup"))
    }

    private func close(_ id: UInt32) async {
        _ = await connection.call(Self.server, path: Self.path, interface: Self.server, member: "CloseNotification", [.uint32(id)])
    }

    /// Continue (the default action, or the button): continued here, as `handoffctl continue`.
    private func acted(_ id: UInt32, key: String) async {
        guard key == "default" || key == "continue", let (peer, offer) = board.ended(id) else { return }
        await close(id)
        let request = ContinueRequest(peer: peer, activity: offer.activity)
        switch await operations.perform(ControlRequest(id: nil, op: ContinueRequest.name, arguments: request.arguments), from: feed.client) {
        case .success: logger.info("continued from a notification", metadata: ["peer.name": "\(peer)", "activity.type": "\(offer.type)"])
        case .failure(let error): logger.notice("a notification's continuation failed", metadata: ["peer.name": "\(peer)", "error": "\(error.code)"])
        }
    }

    /// Dismissed by the person (2) or expired (1): not shown again. Closed by us (3): already known.
    private func closed(_ id: UInt32, reason: UInt32) {
        if reason == 1 || reason == 2 { _ = board.ended(id) }
    }
}
