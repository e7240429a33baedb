import HandoffControl
import NIOConcurrencyHelpers

/// One client's request lines, handed from its connection's handler to the task that serves it,
/// in order: a queue with one reader. Not an `AsyncStream`: the stream's storage is generic code
/// of the Concurrency library, never specialized for our element, and each line taken from it
/// looked up its deque's and tuples' metadata in the runtime's caches (perf, a push between two
/// daemons: an eighth of the time from the request's read to the frame's write). The queue is
/// bounded by the handler, which stops reading at `ConnectionHandler.maxQueued` lines.
final class ControlLines: Sendable {
    private struct State {
        var items: [ServedLine] = []
        var head = 0
        var reader: UnsafeContinuation<ServedLine?, Never>?
        var finished = false
    }
    private let state = NIOLockedValueBox(State())

    /// Whether a reader waits for a line (the handler: see `ConnectionHandler.prepared`).
    var hasReader: Bool { state.withLockedValue { $0.reader != nil } }

    /// A line for the reader; nothing once finished.
    func yield(_ item: ServedLine) {
        let reader = state.withLockedValue { s -> UnsafeContinuation<ServedLine?, Never>? in
            guard !s.finished else { return nil }
            if let reader = s.reader {
                s.reader = nil
                return reader
            }
            s.items.append(item)
            return nil
        }
        reader?.resume(returning: item)
    }

    /// No more lines: the reader gets those queued, then nil.
    func finish() { end(droppingQueued: false) }

    private func end(droppingQueued: Bool) {
        let reader = state.withLockedValue { s -> UnsafeContinuation<ServedLine?, Never>? in
            s.finished = true
            if droppingQueued {
                s.items = []
                s.head = 0
            }
            defer { s.reader = nil }
            return s.reader
        }
        reader?.resume(returning: nil)
    }

    /// The next line, or nil once finished and empty. A cancelled reader ends the queue and what
    /// it held (as a cancelled `for await` over a stream ends it: at shutdown no request queued
    /// behind is started). One reader at a time.
    func next() async -> ServedLine? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (c: UnsafeContinuation<ServedLine?, Never>) in
                let ready = state.withLockedValue { s -> ServedLine?? in
                    if s.head < s.items.count {
                        let item = s.items[s.head]
                        s.head += 1
                        if s.head == s.items.count {
                            s.items.removeAll(keepingCapacity: true)
                            s.head = 0
                        }
                        return .some(item)
                    }
                    if s.finished { return .some(nil) }
                    s.reader = c
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            end(droppingQueued: true)
        }
    }
}
