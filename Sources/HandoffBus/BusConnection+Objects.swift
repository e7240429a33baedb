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

/// A method call received on an object we serve: who sent it, what it names, its arguments
/// (already read), and the message, kept until it is answered exactly once.
public struct BusRequest: @unchecked Sendable {
    public let sender: String
    public let path: String
    public let interface: String
    public let member: String
    public let signature: String
    /// The caller's effective uid and pid, when the bus told them.
    public let uid: UInt32?
    public let pid: Int32?
    /// The arguments, or why they could not be read (answered as InvalidArgs).
    public let arguments: Result<[BusValue], BusFailure>
    /// The call, referenced until answered; touched on the bus thread only.
    let message: OpaquePointer
}

/// Boxes for the C callbacks' userdata.
private final class ObjectHandler {
    let connection: BusConnection
    let handle: @Sendable (BusRequest) -> Void
    /// Each caller's credentials, asked of the bus once per caller (a synchronous call).
    var credentials: [String: (UInt32?, Int32?)] = [:]
    init(_ connection: BusConnection, _ handle: @escaping @Sendable (BusRequest) -> Void) { (self.connection, self.handle) = (connection, handle) }

    func credentials(of m: OpaquePointer, sender: String) -> (UInt32?, Int32?) {
        if let known = credentials[sender] { return known }
        var uid: UInt32?
        var pid: Int32?
        var creds: OpaquePointer?
        if sd_bus_query_sender_creds(m, UInt64(SD_BUS_CREDS_EUID) | UInt64(SD_BUS_CREDS_PID), &creds) >= 0, let creds {
            var u: uid_t = 0
            var p: pid_t = 0
            if sd_bus_creds_get_euid(creds, &u) >= 0 { uid = u }
            if sd_bus_creds_get_pid(creds, &p) >= 0 { pid = p }
            sd_bus_creds_unref(creds)
        }
        // Bounded: a caller that left is forgotten with the others when the table is full.
        if credentials.count >= 4096 { credentials = [:] }
        credentials[sender] = (uid, pid)
        return (uid, pid)
    }
}

private final class SignalHandler {
    let handle: (String, [BusValue]) -> Void
    init(_ handle: @escaping (String, [BusValue]) -> Void) { self.handle = handle }
}

private final class ReplyHandler {
    let done: (Result<[BusValue], BusFailure>) -> Void
    init(_ done: @escaping (Result<[BusValue], BusFailure>) -> Void) { self.done = done }
}

private func string(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }

extension BusConnection {
    /// Serves every method call to `path`: `handle` runs on the bus thread and must not block; it
    /// answers later with `reply` or `fail` from any thread.
    public func serve(path: String, _ handle: @escaping @Sendable (BusRequest) -> Void) async throws(BusFailure) {
        let result: Int32 = await withCheckedContinuation { c in
            let accepted = onBusThread { [self] in
                let box = Unmanaged.passRetained(ObjectHandler(self, handle) as AnyObject)
                let r = sd_bus_add_object(
                    bus, nil, path,
                    { m, userdata, _ in
                        guard let m, let userdata else { return 0 }
                        let h = Unmanaged<AnyObject>.fromOpaque(userdata).takeUnretainedValue() as! ObjectHandler
                        guard sd_bus_message_is_method_call(m, nil, nil) > 0 else { return 0 }
                        let arguments: Result<[BusValue], BusFailure>
                        do throws(BusFailure) { arguments = .success(try BusMessage.read(m)) } catch { arguments = .failure(error) }
                        let sender = string(sd_bus_message_get_sender(m))
                        let (uid, pid) = h.credentials(of: m, sender: sender)
                        let request = BusRequest(
                            sender: sender, path: string(sd_bus_message_get_path(m)),
                            interface: string(sd_bus_message_get_interface(m)), member: string(sd_bus_message_get_member(m)),
                            signature: string(sd_bus_message_get_signature(m, 1)), uid: uid, pid: pid, arguments: arguments,
                            message: sd_bus_message_ref(m))
                        h.handle(request)
                        return 1
                    }, box.toOpaque())
                if r >= 0 { registrations.boxes.append(box) } else { box.release() }
                c.resume(returning: r)
            }
            if !accepted { c.resume(returning: -ESHUTDOWN) }
        }
        if result < 0 { throw BusFailure(name: "org.handoffd.Error.NoBus", message: "cannot serve \(path): \(String(cString: strerror(-result)))") }
    }

    /// Answers a call with these values.
    /// `afterwards` runs on the bus thread once the reply is sent (or failed): a descriptor in
    /// `values` must stay open until then (sd-bus duplicates it as it appends it).
    public func reply(_ request: BusRequest, _ values: [BusValue], afterwards: (@Sendable () -> Void)? = nil) {
        onBusThread { [self] in
            defer { afterwards?() }
            var reply: OpaquePointer?
            var r = sd_bus_message_new_method_return(request.message, &reply)
            if r >= 0, let reply {
                r = BusMessage.append(reply, values)
                if r >= 0 { r = sd_bus_send(bus, reply, nil) }
                sd_bus_message_unref(reply)
            }
            if r < 0 {
                // A value that could not be written (an invalid string for its type): the caller
                // still gets an answer.
                Self.sendError(
                    bus, request.message, BusFailure(name: "org.freedesktop.DBus.Error.Failed", message: "the answer could not be written"))
            }
            sd_bus_message_unref(request.message)
        }
    }

    /// Answers a call with an error.
    public func fail(_ request: BusRequest, _ failure: BusFailure) {
        onBusThread { [self] in
            Self.sendError(bus, request.message, failure)
            sd_bus_message_unref(request.message)
        }
    }

    private static func sendError(_ bus: OpaquePointer, _ call: OpaquePointer, _ failure: BusFailure) {
        var error = sd_bus_error()
        _ = sd_bus_error_set(&error, failure.name, failure.message)
        var m: OpaquePointer?
        if sd_bus_message_new_method_error(call, &m, &error) >= 0, let m {
            _ = sd_bus_send(bus, m, nil)
            sd_bus_message_unref(m)
        }
        sd_bus_error_free(&error)
    }

    /// Emits a signal; to one connection (`destination`, a unique name) or to everyone listening.
    public func emit(path: String, interface: String, member: String, _ values: [BusValue], to destination: String? = nil) {
        onBusThread { [self] in
            var m: OpaquePointer?
            guard sd_bus_message_new_signal(bus, &m, path, interface, member) >= 0, let m else { return }
            if let destination { _ = sd_bus_message_set_destination(m, destination) }
            if BusMessage.append(m, values) >= 0 { _ = sd_bus_send(bus, m, nil) }
            sd_bus_message_unref(m)
        }
    }

    /// Calls a method of another service; the answer's values, or its error.
    public func call(
        _ destination: String, path: String, interface: String, member: String, _ values: [BusValue], timeout: Duration = .seconds(5)
    ) async -> Result<[BusValue], BusFailure> {
        let micros = UInt64(timeout.components.seconds) * 1_000_000 + UInt64(timeout.components.attoseconds / 1_000_000_000_000)
        return await withCheckedContinuation { (c: CheckedContinuation<Result<[BusValue], BusFailure>, Never>) in
            let accepted = onBusThread { [self] in
                var m: OpaquePointer?
                var r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
                if r >= 0, let m { r = BusMessage.append(m, values) }
                guard r >= 0, let m else {
                    if let m { sd_bus_message_unref(m) }
                    c.resume(returning: .failure(BusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "cannot build the call")))
                    return
                }
                let box = Unmanaged.passRetained(ReplyHandler { c.resume(returning: $0) })
                r = sd_bus_call_async(
                    bus, nil, m,
                    { reply, userdata, _ in
                        let h = Unmanaged<ReplyHandler>.fromOpaque(userdata!).takeRetainedValue()
                        guard let reply else {
                            h.done(.failure(BusFailure(name: "org.freedesktop.DBus.Error.NoReply", message: "no reply")))
                            return 1
                        }
                        if let e = sd_bus_message_get_error(reply), sd_bus_error_is_set(e) > 0 {
                            h.done(.failure(BusFailure(name: string(e.pointee.name), message: string(e.pointee.message))))
                        } else {
                            do throws(BusFailure) { h.done(.success(try BusMessage.read(reply))) } catch { h.done(.failure(error)) }
                        }
                        return 1
                    }, box.toOpaque(), micros)
                sd_bus_message_unref(m)
                if r < 0 {
                    box.release()
                    c.resume(returning: .failure(BusFailure(name: "org.freedesktop.DBus.Error.Failed", message: String(cString: strerror(-r)))))
                }
            }
            if !accepted {
                c.resume(returning: .failure(BusFailure(name: "org.freedesktop.DBus.Error.Disconnected", message: "the bus connection is closed")))
            }
        }
    }

    /// Calls `handle(sender, arguments)` on the bus thread for every matching signal.
    public func subscribe(
        sender: String?, path: String?, interface: String, member: String, _ handle: @escaping @Sendable (String, [BusValue]) -> Void
    ) {
        onBusThread { [self] in
            let box = Unmanaged.passRetained(SignalHandler(handle) as AnyObject)
            let r = sd_bus_match_signal(
                bus, nil, sender, path, interface, member,
                { m, userdata, _ in
                    guard let m, let userdata else { return 0 }
                    let h = Unmanaged<AnyObject>.fromOpaque(userdata).takeUnretainedValue() as! SignalHandler
                    if let values = try? BusMessage.read(m) { h.handle(string(sd_bus_message_get_sender(m)), values) }
                    return 0
                }, box.toOpaque())
            if r >= 0 { registrations.boxes.append(box) } else { box.release() }
        }
    }

    /// Calls `handle(uniqueName)` (on the bus thread) when a connection leaves the bus: what it
    /// registered ends with it.
    public func onNameVanished(_ handle: @escaping @Sendable (String) -> Void) {
        subscribe(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged") {
            _, values in
            guard values.count == 3, let name = values[0].stringValue, name.hasPrefix(":"), values[2].stringValue == "" else { return }
            handle(name)
        }
    }
}
