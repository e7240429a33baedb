import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport

/// Every event a `watch` connection receives, kept so that tests can wait for one.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ControlEvent] = []
    let client: HandoffClient

    private init(_ client: HandoffClient) { self.client = client }

    static func watch(_ host: DaemonHost) async throws -> EventLog {
        let client = try await HandoffClient.connect(socketPath: host.socket)
        let log = EventLog(client)
        Task { for await e in client.events { log.lock.withLock { log.events.append(e) } } }
        _ = try await client.request("watch")
        return log
    }

    var all: [ControlEvent] { lock.withLock { events } }

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
