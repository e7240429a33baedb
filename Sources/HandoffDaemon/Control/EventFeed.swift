#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffCore
import NIOConcurrencyHelpers

/// A component's own subscription to the daemon's events, as a client of `ControlEvents` like any
/// `watch`: the search index and the desktop notices learn what changed the way apps do.
/// Bounded: past `limit` events not yet taken, the oldest are dropped (the reader re-reads what it
/// needs; an event names what changed, it does not carry the state).
final class EventFeed: EventOutlet {
    typealias Event = (name: String, fields: [String: PropertyListValue])
    let stream: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    /// The events its reader acts on. The others are dropped here: each one passed on woke the
    /// reader's task for nothing (with them, a push cost each daemon a fifth more instructions:
    /// its `continued` on beta, `userActivityWasContinued` on alpha; bench-push-work).
    private let names: Set<String>

    init(names: Set<String>, limit: Int = 1_024) {
        self.names = names
        (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(limit))
    }

    func send(event name: String, _ fields: [String: PropertyListValue]) {
        guard names.contains(name) else { return }
        continuation.yield((name, fields))
    }

    func finish() { continuation.finish() }

    /// The feed as a control client (this process, uid and pid its own).
    var client: ControlClient { ControlClient(uid: geteuid(), pid: getpid(), outlet: self) }
}
