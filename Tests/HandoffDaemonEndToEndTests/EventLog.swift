import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport

/// Every event a `watch` connection receives, kept so that tests can wait for one.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ControlEvent] = []
    /// When each event arrived here (ContinuousClock), in the same order.
    private var arrivals: [ContinuousClock.Instant] = []
    let client: HandoffClient

    private init(_ client: HandoffClient) { self.client = client }

    static func watch(_ host: DaemonHost) async throws -> EventLog {
        let client = try await HandoffClient.connect(socketPath: host.socket)
        let log = EventLog(client)
        Task {
            for await e in client.events {
                let now = ContinuousClock.now
                log.lock.withLock {
                    log.events.append(e)
                    log.arrivals.append(now)
                }
            }
        }
        _ = try await client.request("watch")
        return log
    }

    var all: [ControlEvent] { lock.withLock { events } }

    /// Waits for the first event named `name` matching `match` that arrives after `since`.
    func first(
        _ name: String, after since: ContinuousClock.Instant, timeout: Double,
        where match: @escaping @Sendable ([String: PropertyListValue]) -> Bool = { _ in true }
    ) async throws -> (event: ControlEvent, at: ContinuousClock.Instant) {
        var found: (event: ControlEvent, at: ContinuousClock.Instant)?
        try await waitUntil("event \(name)", timeout: timeout) {
            found = self.first(name, after: since, where: match)
            return found != nil
        }
        return found!
    }

    /// The first event named `name` matching `match` that arrived after `since`, and when.
    func first(_ name: String, after since: ContinuousClock.Instant, where match: ([String: PropertyListValue]) -> Bool = { _ in true })
        -> (event: ControlEvent, at: ContinuousClock.Instant)?
    {
        lock.withLock {
            zip(events, arrivals).first { $0.1 >= since && $0.0.name == name && match($0.0.fields) }.map { ($0.0, $0.1) }
        }
    }

    @discardableResult
    func wait(_ name: String, timeout: Double = 5, where match: @escaping @Sendable ([String: PropertyListValue]) -> Bool = { _ in true })
        async throws -> ControlEvent
    {
        var found: ControlEvent?
        try await waitUntil("event \(name)", timeout: timeout) {
            found = self.all.first { $0.name == name && match($0.fields) }
            return found != nil
        }
        return found!
    }
}
