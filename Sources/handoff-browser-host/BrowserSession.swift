#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffBrowser
import HandoffClient
import HandoffControl
import HandoffCore

/// One browser's session with handoffd: the tab it offers as this machine's current activity, its
/// requests (the popup's list, open, send), and the tabs continued from other machines, which it
/// opens. handoffd may stop and start meanwhile: the session connects again, registers again and
/// offers the tab it was last told.
actor BrowserSession {
    private let pipes: NativePipes
    private let socketPath: String
    private var client: HandoffClient?
    /// The tab offered now (one activity for the session, changed as the person changes tabs:
    /// its version tells peers it changed), or nil while nothing is.
    private var tab: UserActivity?
    private var offered = false
    /// Continuations waiting for the extension to open their tab, by token.
    private var opening: [String: CheckedContinuation<Bool, Never>] = [:]

    static let handlerName = "browser"
    static let openWithin: Duration = .seconds(10)

    init(pipes: NativePipes, socketPath: String) {
        self.pipes = pipes
        self.socketPath = socketPath
    }

    // MARK: - handoffd

    /// Keeps a connection to handoffd until cancelled: connects, registers for web pages, offers
    /// the tab; when the connection ends, says so to the extension and tries again.
    func stayConnected() async {
        var delay: Duration = .milliseconds(200)
        var saidDown = false
        while !Task.isCancelled {
            do throws(ClientError) {
                let client = try await HandoffClient.connect(socketPath: socketPath)
                _ = try await client.perform(HandleRequest(types: [WebBrowsing.type.rawValue], name: Self.handlerName))
                let status = try? await client.perform(StatusRequest())
                self.client = client
                offered = false
                delay = .milliseconds(200)
                saidDown = false
                pipes.send(.status(daemonUp: true, device: status?.device, message: nil))
                await offer()
                for await event in client.events where event.name == "continue" {
                    await continued(event, on: client)
                }
                self.client = nil
            } catch {
                if !saidDown {
                    pipes.send(.status(daemonUp: false, device: nil, message: error.description))
                    saidDown = true
                }
            }
            if client == nil, !saidDown {
                pipes.send(.status(daemonUp: false, device: nil, message: "the connection to handoffd was lost; trying again"))
                saidDown = true
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// A tab another machine continued here: opened by the extension, then answered.
    private func continued(_ event: ControlEvent, on client: HandoffClient) async {
        guard let token = event.fields["token"]?.stringValue, token.utf8.count <= BrowserMessage.maxToken else { return }
        var accepted = false
        if let value = event.fields["activity"], let activity = try? UserActivity(propertyList: value), let page = WebPage(continuing: activity) {
            accepted = await open(page, token: token)
        }
        _ = try? await client.perform(HandledRequest(token: token, accepted: accepted))
    }

    private func open(_ page: WebPage, token: String) async -> Bool {
        guard pipes.send(.openTab(token: token, page: page)) else { return false }
        return await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            opening[token] = c
            Task { [weak self] in
                try? await Task.sleep(for: Self.openWithin)
                await self?.opened(token: token, ok: false)
            }
        }
    }

    private func opened(token: String, ok: Bool) {
        opening.removeValue(forKey: token)?.resume(returning: ok)
    }

    /// Offers the tab (again, after a reconnection) or ends the offer.
    private func offer() async {
        guard let client else { return }
        do throws(ClientError) {
            if let tab {
                _ = try await client.perform(PublishRequest(activity: tab))
                offered = true
            } else if offered, let id = lastID {
                _ = try await client.perform(ResignRequest(activity: id))
                offered = false
            }
        } catch {
            logLine("handoffd did not take the tab: \(error.description)")
        }
    }

    private var lastID: UUID?

    // MARK: - The extension

    func handle(_ item: NativeFrameDecoder.Item) async {
        switch item {
        case .tooLong(let length):
            pipes.send(.error(code: .tooLarge, message: "a message of \(length) bytes; at most \(NativePipes.maxFromBrowser)"))
        case .message(let bytes):
            do throws(BrowserMessage.Problem) { await handle(try BrowserMessage(json: bytes)) } catch {
                pipes.send(.error(code: error.code, message: error.description))
            }
        }
    }

    private func handle(_ message: BrowserMessage) async {
        switch message {
        case .hello:
            pipes.send(.status(daemonUp: client != nil, device: nil, message: client == nil ? "handoffd is not running" : nil))
        case .tab(let page):
            if var current = tab, current.webpageURL != page.url || current.title != page.title {
                try? current.setWebpageURL(page.url)
                current.title = page.title.isEmpty ? page.url.host : page.title
                tab = current
            } else if tab == nil {
                tab = page.activity(id: lastID ?? UUID())
            }
            lastID = tab?.id
            await offer()
        case .away:
            tab = nil
            await offer()
        case .list(let id):
            answer(id) { client throws(ClientError) in try await Self.devices(client) }
        case .open(let id, let peer, let activity):
            answer(id) { client throws(ClientError) in
                let report = try await client.perform(ContinueRequest(peer: peer, activity: activity))
                if report.failed { throw .refused(code: report.code ?? .failed, message: report.message ?? "it was not continued") }
                return ["outcome": .string(report.outcome)]
            }
        case .send(let id, let peer, let page):
            answer(id) { client throws(ClientError) in
                let activity = page.activity(id: UUID())
                _ = try await client.perform(PublishRequest(activity: activity, to: peer))
                defer { Task { _ = try? await client.perform(ResignRequest(activity: activity.id)) } }
                let report = try await client.perform(SendRequest(activity: activity.id, to: peer))
                if report.failed { throw .refused(code: report.code ?? .failed, message: report.message ?? "it was not sent") }
                return ["outcome": .string(report.outcome)]
            }
        case .opened(let token, let ok):
            opened(token: token, ok: ok)
        }
    }

    /// Runs a request beside the others: a `send` waiting on the other machine holds up neither
    /// the tab nor the answer to an `open-tab`. At most `maxRequests` at once; more are refused.
    private func answer(
        _ id: Int64, _ work: @escaping @Sendable (HandoffClient) async throws(ClientError) -> [String: PropertyListValue]
    ) {
        guard let client else {
            pipes.send(
                .failed(id: id, code: .daemonNotRunning, message: "handoffd is not running on this machine; start it with `systemctl start handoffd`")
            )
            return
        }
        guard running < Self.maxRequests else {
            pipes.send(.failed(id: id, code: .busy, message: "more than \(Self.maxRequests) requests at once; wait for their answers"))
            return
        }
        running += 1
        let pipes = self.pipes
        Task {
            do throws(ClientError) { pipes.send(.reply(id: id, fields: try await work(client))) } catch {
                pipes.send(.failed(id: id, code: error.code, message: error.description))
            }
            self.done()
        }
    }

    private var running = 0
    static let maxRequests = 16
    private func done() { running -= 1 }

    /// Each present paired machine with the web pages it offers, as `handoffctl activities --remote` lists them.
    static func devices(_ client: HandoffClient) async throws(ClientError) -> [String: PropertyListValue] {
        let peers = try await client.perform(PeersRequest()).items.filter { $0.paired && $0.present }
        let remote = try await client.perform(ActivitiesRequest(remote: true)).items.filter { $0.type == WebBrowsing.type.rawValue }
        let devices: [PropertyListValue] = peers.map { peer in
            let tabs = remote.filter { $0.peer == peer.name }.map { a -> PropertyListValue in
                ["activity": .string(a.activity.uuidString), "title": .string(a.title ?? "")]
            }
            return ["peer": .string(peer.name), "tabs": .array(tabs)]
        }
        return ["devices": .array(devices)]
    }
}
