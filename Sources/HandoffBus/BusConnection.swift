import CSystemdBus
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffBusAPI
import HandoffAsync
import NIOConcurrencyHelpers

/// Which bus to connect to.
public enum BusKind: Sendable, Equatable, CustomStringConvertible {
    /// The user's session bus ($DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus).
    case session
    case system
    /// A bus at this address (tests).
    case address(String)

    public var description: String {
        switch self {
        case .session: "the session bus"
        case .system: "the system bus"
        case .address(let a): "the bus at \(a)"
        }
    }
}

/// One connection to a D-Bus bus through sd-bus, served by a thread of its own running sd-event.
/// sd-bus objects are not thread-safe: every sd-bus call happens on that thread. Other threads
/// hand it work (`onBusThread`) through a queue and an eventfd that wakes the loop.
public final class BusConnection: @unchecked Sendable {
    // Set once in init, then used on the bus thread only.
    let bus: OpaquePointer
    private let event: OpaquePointer
    private let wake: Int32
    private let queue = NIOLockedValueBox<Queue>(Queue())
    /// Registered objects, signal handlers and the name-owner watch: touched on the bus thread only.
    var registrations = Registrations()
    private let finished = NIOLockedValueBox<[CheckedContinuation<Void, Never>]?>([])
    public let kind: BusKind
    /// This connection's unique name (":1.42").
    public let uniqueName: String

    private struct Queue {
        var work: [@Sendable () -> Void] = []
        var closed = false
    }

    struct Registrations {
        var boxes: [Unmanaged<AnyObject>] = []
        var vanished: (@Sendable (String) -> Void)?
    }

    /// Connects. Throws with what to do when the bus is not there. A name is owned later (`own`),
    /// once the objects are served: a caller that started us by D-Bus activation has its call
    /// delivered as soon as the name is ours.
    public init(_ kind: BusKind, description: String = "handoffd") throws(BusFailure) {
        self.kind = kind
        if let failure = handoff_systemd_load() {
            throw BusFailure(
                name: "org.handoffd.Error.NoBus",
                message:
                    "the D-Bus API needs libsystemd (\(String(cString: failure))); install it (apt install libsystemd0), or set desktop.dbus: off")
        }
        var b: OpaquePointer?
        var r: Int32
        switch kind {
        case .session: r = sd_bus_open_user(&b)
        case .system: r = sd_bus_open_system(&b)
        case .address(let address):
            r = sd_bus_new(&b)
            if r >= 0 { r = sd_bus_set_address(b, address) }
            if r >= 0 { r = sd_bus_set_bus_client(b, 1) }
            if r >= 0 { r = sd_bus_start(b) }
        }
        guard r >= 0, let bus = b else {
            if let b { sd_bus_unref(b) }
            throw BusFailure(
                name: "org.handoffd.Error.NoBus",
                message: "cannot connect to \(kind) (\(String(cString: strerror(-r)))); is a bus running and DBUS_SESSION_BUS_ADDRESS set?")
        }
        _ = sd_bus_set_description(bus, description)
        var unique: UnsafePointer<CChar>?
        _ = sd_bus_get_unique_name(bus, &unique)
        uniqueName = unique.map { String(cString: $0) } ?? ""
        var e: OpaquePointer?
        r = sd_event_new(&e)
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard r >= 0, let event = e, fd >= 0 else {
            sd_bus_flush_close_unref(bus)
            throw BusFailure(name: "org.handoffd.Error.NoBus", message: "cannot make the bus's event loop: \(String(cString: strerror(errno)))")
        }
        self.bus = bus
        self.event = event
        wake = fd
        _ = sd_bus_attach_event(bus, event, 0)
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = sd_event_add_io(
            event, nil, fd, UInt32(EPOLLIN.rawValue),
            { _, fd, _, userdata in
                var n: UInt64 = 0
                _ = read(fd, &n, 8)
                Unmanaged<BusConnection>.fromOpaque(userdata!).takeUnretainedValue().drain()
                return 0
            }, me)
        let failure = BlockingThread.start(name: "handoffd.dbus") { [self] in
            _ = sd_event_loop(self.event)
            teardown()
        }
        guard failure == 0 else {
            throw BusFailure(name: "org.handoffd.Error.NoBus", message: "cannot start the bus thread: \(String(cString: strerror(failure)))")
        }
    }

    /// Owns a well-known name; throws with what to do if another connection owns it.
    public func own(_ name: String) async throws(BusFailure) {
        let kind = kind
        let r: Int32 = await withCheckedContinuation { c in
            if !onBusThread({ [self] in c.resume(returning: sd_bus_request_name(bus, name, 0)) }) { c.resume(returning: -ESHUTDOWN) }
        }
        guard r >= 0 else {
            throw BusFailure(
                name: "org.handoffd.Error.NameTaken",
                message: r == -EEXIST
                    ? "\(name) is already owned on \(kind) (is another handoffd running for this user?)"
                    : "cannot own \(name) on \(kind): \(String(cString: strerror(-r))) (on the system bus, install the policy file in /usr/share/dbus-1/system.d/)"
            )
        }
    }

    /// Runs `work` on the bus thread. False if the connection is closed (the work is not run).
    @discardableResult
    func onBusThread(_ work: @escaping @Sendable () -> Void) -> Bool {
        let accepted = queue.withLockedValue { q -> Bool in
            if q.closed { return false }
            q.work.append(work)
            return true
        }
        if accepted {
            var one: UInt64 = 1
            _ = write(wake, &one, 8)
        }
        return accepted
    }

    private func drain() {
        let work = queue.withLockedValue { q -> [@Sendable () -> Void] in
            defer { q.work = [] }
            return q.work
        }
        for w in work { w() }
    }

    /// Ends the loop; what was queued before runs first, and queued messages are flushed.
    public func close() async {
        let accepted = onBusThread { [self] in _ = sd_event_exit(self.event, 0) }
        guard accepted else { return }
        queue.withLockedValue { $0.closed = true }
        await withCheckedContinuation { c in
            let done = finished.withLockedValue { waiting -> Bool in
                guard waiting != nil else { return true }
                waiting!.append(c)
                return false
            }
            if done { c.resume() }
        }
    }

    /// On the bus thread, once its loop has ended.
    private func teardown() {
        queue.withLockedValue { $0.closed = true }
        drainDiscarding()
        sd_bus_flush(bus)
        for box in registrations.boxes { box.release() }
        registrations.boxes = []
        sd_bus_flush_close_unref(bus)
        sd_event_unref(event)
        Glibc.close(wake)
        for c in finished.withLockedValue({ w -> [CheckedContinuation<Void, Never>] in
            defer { w = nil }
            return w ?? []
        }) {
            c.resume()
        }
    }

    private func drainDiscarding() {
        // Replies queued before the end still go out (and release their messages).
        drain()
    }
}
