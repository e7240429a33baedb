import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// How a wait ended.
public enum WaitOutcome<Value: Sendable>: Sendable {
    /// What the waiter waited for.
    case value(Value)
    /// Its deadline passed first.
    case timedOut
    /// Its owner went away, or the component waiting shut down.
    case ended
    /// The waiting task was cancelled.
    case cancelled

    public var value: Value? {
        if case .value(let v) = self { return v }
        return nil
    }
}

/// The one way handoffd's parts wait for an event or an answer with a deadline: a peer's answer to
/// a request, an app's answer to a question, a pairing handed to `pair --accept`, avahi-daemon
/// coming up, a peer's advert, a scene's write.
///
/// A wait is registered first (`register`, synchronous: the caller checks its condition and
/// registers without a suspension between, so no wakeup is missed) and awaited after (`wait`):
/// between the two the caller may send the request the answer belongs to. A value that comes
/// before the waiter awaits is kept for it. Deadlines are timers on an event loop, not sleeping
/// tasks (see `Timeout`).
///
/// Inlinable, so that each user's `Waiters<Key, Value>` is specialized in its own module: called
/// across modules as generic code, every dictionary access on the slots looked up their generic
/// metadata in the runtime's caches, 18 µs per `register` (docs/PERFORMANCE.md).
/// The continuation kept is an `UnsafeContinuation`: `CheckedContinuation` is a resilient type of
/// the Concurrency library, so a slot holding one had no layout known at compile time and every
/// copy of a slot went through its metadata and value witnesses (perf, a push: a third of a
/// handler's offer). It is resumed once by construction: only the `finish` that takes the slot
/// out of the table resumes it.
public final class Waiters<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public struct Ticket: Hashable, Sendable {
        @usableFromInline let number: UInt64

        @inlinable init(number: UInt64) { self.number = number }
    }

    @usableFromInline struct Slot: Sendable {
        @usableFromInline let key: Key
        @usableFromInline let owner: ObjectIdentifier?
        @usableFromInline var outcome: WaitOutcome<Value>?
        @usableFromInline var continuation: UnsafeContinuation<WaitOutcome<Value>, Never>?
        @usableFromInline let deadline: NIODeadline?

        @inlinable init(key: Key, owner: ObjectIdentifier?, deadline: NIODeadline?) {
            self.key = key
            self.owner = owner
            self.deadline = deadline
        }
    }

    @usableFromInline struct State: Sendable {
        @usableFromInline var slots: [UInt64: Slot] = [:]
        /// Registration order, so that `resumeOldest` is fair.
        @usableFromInline var next: UInt64 = 0
        /// One timer, set for the earliest deadline of the waits not yet over (see `register`).
        @usableFromInline var alarm: Scheduled<Void>?
        @usableFromInline var alarmAt: NIODeadline?

        @inlinable init() {}

        /// The earliest registered wait not yet over that `matches` (a walk, no copy of the slots).
        @inlinable func oldest(_ matches: (Slot) -> Bool) -> UInt64? {
            var found: UInt64?
            for (number, slot) in slots where slot.outcome == nil && matches(slot) && number < (found ?? .max) { found = number }
            return found
        }
    }

    @usableFromInline let state = NIOLockedValueBox(State())

    @inlinable public init() {}

    /// Starts a wait for `key`, ending with `.timedOut` after `deadline` unless resumed first.
    ///
    /// Deadlines share one timer, set for the earliest: a timer of its own per wait (scheduled,
    /// then cancelled when the answer came) was a sixth of a peer request's cost (perf, a push).
    /// Waits mostly end well before their deadline and later waits have later deadlines, so the
    /// timer is seldom moved; when it rings it ends the waits due and is set for the next.
    @inlinable
    public func register(_ key: Key, owner: ObjectIdentifier? = nil, deadline: Duration? = nil) -> Ticket {
        let at = deadline.map { NIODeadline.now() + TimeAmount($0) }
        let number = state.withLockedValue { s -> UInt64 in
            s.next += 1
            s.slots[s.next] = Slot(key: key, owner: owner, deadline: at)
            if let at, s.alarmAt.map({ at < $0 }) ?? true { setAlarm(at, in: &s) }
            return s.next
        }
        return Ticket(number: number)
    }

    @inlinable
    func setAlarm(_ at: NIODeadline, in s: inout State) {
        s.alarm?.cancel()
        s.alarmAt = at
        s.alarm = Timeout.loop.scheduleTask(deadline: at) { [weak self] in self?.alarmRang() }
    }

    /// Ends the waits whose deadline has passed and sets the timer for the next.
    @inlinable
    func alarmRang() {
        let now = NIODeadline.now()
        let due = state.withLockedValue { s -> [UInt64] in
            s.alarm = nil
            s.alarmAt = nil
            var due: [UInt64] = []
            var next: NIODeadline?
            for (number, slot) in s.slots where slot.outcome == nil {
                guard let deadline = slot.deadline else { continue }
                if deadline <= now { due.append(number) } else if next.map({ deadline < $0 }) ?? true { next = deadline }
            }
            if let next { setAlarm(next, in: &s) }
            return due
        }
        for number in due.sorted() { finish(number, .timedOut) }
    }

    /// The outcome of a registered wait (at once if it already has one). Each ticket is awaited once.
    @inlinable
    public func wait(_ ticket: Ticket) async -> WaitOutcome<Value> {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (c: UnsafeContinuation<WaitOutcome<Value>, Never>) in
                let ready = state.withLockedValue { s -> WaitOutcome<Value>? in
                    guard var slot = s.slots[ticket.number] else { return .ended }
                    if let outcome = slot.outcome {
                        s.slots[ticket.number] = nil
                        return outcome
                    }
                    slot.continuation = c
                    s.slots[ticket.number] = slot
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            finish(ticket.number, .cancelled)
        }
    }

    /// `register` and `wait` together, for callers with nothing to do in between.
    @inlinable
    public func wait(for key: Key, owner: ObjectIdentifier? = nil, deadline: Duration? = nil) async -> WaitOutcome<Value> {
        await wait(register(key, owner: owner, deadline: deadline))
    }

    /// Gives `value` to the oldest wait for `key` (only one `owner` registered, if given); false if
    /// none is waiting.
    @inlinable
    @discardableResult
    public func resumeOldest(_ key: Key, with value: Value, ownedBy owner: ObjectIdentifier? = nil) -> Bool {
        let number = state.withLockedValue { s in
            s.oldest { $0.key == key && (owner == nil || $0.owner == owner) }
        }
        guard let number else { return false }
        return finish(number, .value(value))
    }

    /// Gives `value` to the oldest wait of all, whatever it waits for; false if none is waiting.
    @inlinable
    @discardableResult
    public func resumeOldestOfAll(with value: Value) -> Bool {
        guard let number = state.withLockedValue({ s in s.oldest { _ in true } }) else { return false }
        return finish(number, .value(value))
    }

    /// Gives `value` to every wait for `key`; how many there were.
    @inlinable
    @discardableResult
    public func resumeAll(_ key: Key, with value: Value) -> Int {
        let numbers = state.withLockedValue { s in s.slots.filter { $0.value.key == key && $0.value.outcome == nil }.keys }
        return numbers.filter { finish($0, .value(value)) }.count
    }

    /// Ends the waits `owner` registered (a control client that left) with `.ended`.
    @inlinable
    public func end(owner: ObjectIdentifier) {
        let numbers = state.withLockedValue { s in s.slots.filter { $0.value.owner == owner && $0.value.outcome == nil }.keys }
        for n in numbers { finish(n, .ended) }
    }

    /// Ends every wait with `.ended` (shutdown).
    @inlinable
    public func endAll() {
        let numbers = state.withLockedValue { s in s.slots.filter { $0.value.outcome == nil }.keys }
        for n in numbers { finish(n, .ended) }
    }

    /// Drops a registered wait that will not be awaited (the request it was for could not be sent).
    @inlinable
    public func forget(_ ticket: Ticket) {
        state.withLockedValue { _ = $0.slots.removeValue(forKey: ticket.number) }
    }

    /// Waits for `key` not yet over.
    @inlinable
    public func count(_ key: Key) -> Int { state.withLockedValue { s in s.slots.values.count { $0.key == key && $0.outcome == nil } } }

    /// Waits registered by `owner` not yet over.
    @inlinable
    public func count(owner: ObjectIdentifier) -> Int {
        state.withLockedValue { s in s.slots.values.count { $0.owner == owner && $0.outcome == nil } }
    }

    /// Whether any wait whose key matches is still open.
    @inlinable
    public func isWaiting(where matches: (Key) -> Bool) -> Bool {
        state.withLockedValue { s in s.slots.values.contains { $0.outcome == nil && matches($0.key) } }
    }

    /// Whether the wait for this ticket is still open.
    @inlinable
    public func isWaiting(_ ticket: Ticket) -> Bool {
        state.withLockedValue { $0.slots[ticket.number]?.outcome == nil && $0.slots[ticket.number] != nil }
    }

    /// The first outcome wins; a later one finds the slot settled (or gone) and does nothing.
    @inlinable @discardableResult
    func finish(_ number: UInt64, _ outcome: WaitOutcome<Value>) -> Bool {
        // The shared timer stays: it rings for nothing at worst, and moves on to the next deadline.
        let taken = state.withLockedValue { s -> UnsafeContinuation<WaitOutcome<Value>, Never>?? in
            guard var slot = s.slots[number], slot.outcome == nil else { return nil }
            if let c = slot.continuation {
                s.slots[number] = nil
                return .some(c)
            }
            // Not awaited yet: kept for `wait`.
            slot.outcome = outcome
            s.slots[number] = slot
            return .some(nil)
        }
        guard let continuation = taken else { return false }
        continuation?.resume(returning: outcome)
        return true
    }
}
