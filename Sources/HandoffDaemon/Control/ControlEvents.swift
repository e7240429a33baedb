import HandoffCore
import NIOConcurrencyHelpers

/// The control clients that asked for events (`watch`), and the events every component tells
/// them. Components only broadcast; they never see who listens.
public final class ControlEvents: Sendable {
    private let watchers = NIOLockedValueBox<[ObjectIdentifier: ControlClient]>([:])

    public init() {}

    func watch(_ client: ControlClient) { watchers.withLockedValue { $0[client.key] = client } }

    func left(_ client: ControlClient) { watchers.withLockedValue { $0[client.key] = nil } }

    func broadcast(_ event: String, _ fields: [String: PropertyListValue] = [:]) {
        for w in watchers.withLockedValue({ Array($0.values) }) { w.send(event: event, fields) }
    }
}
