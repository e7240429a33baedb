#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClient
import HandoffControl
import HandoffCore
import HawkNotesApp

/// The app's two connections to handoffd: one for the window (its scene, its activity, the
/// needsSave questions about that activity, the broadcast events) and one on which the app is the
/// live handler for its activity types (a connection's events have one reader). When handoffd
/// goes away the window keeps working; the link reconnects by itself and the driver saves what
/// changed meanwhile.
@MainActor
final class DaemonLink {
    /// The name the app registers as live handler under, as continuation reports show it.
    static let handlerName = "hawknotes"
    /// How long a restored window must run before handoffd stops counting a failure as a crash
    /// at launch (scene-launched).
    static let launchedAfter: Duration = .seconds(2)

    let socketPath: String
    private(set) var client: HandoffClient?
    private var handler: HandoffClient?
    private var launched = false
    /// Reading what peers offer: one request at a time, the latest asked for wins (a burst of
    /// `remoteActivitiesChanged` events is one request, not one each).
    let offers = LatestOnly()
    private var closed = false

    init(socketPath: String) { self.socketPath = socketPath }

    func connect() async throws(ClientError) -> HandoffClient {
        try await HandoffClient.connect(socketPath: socketPath)
    }

    func adopt(_ client: HandoffClient) { self.client = client }

    /// Watches events, registers the live handler, reads what peers offer.
    func start(for driver: AppDriver) {
        guard let client else { return }
        Task { @MainActor in
            _ = try? await client.perform(WatchRequest())
            driver.refreshOffers()
            for await event in client.events { self.handle(event, on: client, driver: driver) }
            self.lost(client, driver: driver)
        }
        Task { @MainActor in
            guard let handler = try? await connect() else { return }
            self.handler = handler
            try? await handler.onContinue(ActivityMapping.types, name: Self.handlerName, scene: driver.sceneID) { activity in
                await MainActor.run { driver.continued(activity) }
            }
        }
        if !launched {
            launched = true
            let scene = driver.sceneID
            Task { @MainActor in
                try? await Task.sleep(for: Self.launchedAfter)
                _ = try? await self.client?.perform(SceneLaunchedRequest(scene: scene))
            }
        }
    }

    private func handle(_ event: ControlEvent, on client: HandoffClient, driver: AppDriver) {
        switch event.name {
        case "needsSave":
            guard let token = event.fields["token"]?.stringValue, let id = event.fields["activity"]?.stringValue.flatMap(UUID.init(uuidString:)),
                let fresh = driver.fresh(id)
            else { return }
            // On the connection that asked, which also carries the window's scene saves: handoffd
            // takes a refresh as soon as it reads it, not behind a save waiting for its write.
            Task { _ = try? await client.perform(RefreshRequest(token: token, activity: fresh)) }
        case "remoteActivitiesChanged", "remoteActivityInvalidated", "peerPresent", "peerAbsent", "peerAppeared", "peerRemoved", "unpaired":
            driver.refreshOffers()
        case "userActivityWasContinued":
            // What this window offered was taken up on another machine: the person sees it went.
            guard let published = driver.published, event.fields["activity"]?.stringValue == published.id.canonicalString,
                let peer = event.fields["peer"]?.stringValue
            else { return }
            driver.apply(.notice("“\(published.title?.terminalSafe ?? published.type.rawValue)” continued on \(peer.terminalSafe)"))
            driver.draw()
        default:
            break
        }
    }

    /// The connection ended: the window says so and keeps working; a new connection is tried
    /// twice a second, and once one is up the window's state and activity go to handoffd again.
    private func lost(_ old: HandoffClient, driver: AppDriver) {
        guard !closed, client === old else { return }
        client = nil
        let handler = self.handler
        self.handler = nil
        Task { await handler?.close() }
        driver.apply(.connection(.lost("not running or not reachable at \(socketPath)")))
        driver.draw()
        Task { @MainActor in
            while !closed {
                if let fresh = try? await connect() {
                    guard !closed else { return await fresh.close() }
                    client = fresh
                    _ = try? await fresh.perform(SceneConnectRequest(scene: driver.sceneID, role: "hawknotes"))
                    _ = try? await fresh.perform(SceneLaunchedRequest(scene: driver.sceneID))
                    driver.apply(.connection(.connected))
                    driver.save.dirty = true
                    await driver.saveNow()
                    driver.makeCurrent(driver.state.currentActivity)
                    driver.draw()
                    start(for: driver)
                    return
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    func close() async {
        closed = true
        let (client, handler) = (self.client, self.handler)
        self.client = nil
        self.handler = nil
        await client?.close()
        await handler?.close()
    }
}
