import CHandoffShims
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore
import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// A control-socket connection's events, as lines after the answers.
final class SocketOutlet: EventOutlet {
    let channel: Channel
    /// The connection's descriptor, owned by NIO: used only on the channel's event loop while it
    /// is active, to pass a descriptor with an answer.
    private let descriptor: Int32
    /// Bytes of event lines written to this client and not yet taken by its socket.
    private let backlog = NIOLockedValueBox(0)

    /// A client that lets this much of events pile up unread is dropped: any LAN host changing a
    /// TXT record feeds `watch` events, and they must not grow our memory without bound.
    static let maxEventBacklog = 1 << 20

    init(channel: Channel, descriptor: Int32) {
        self.channel = channel
        self.descriptor = descriptor
    }

    func send(event name: String, _ fields: [String: PropertyListValue]) { send(line: ControlLine.event(name, fields)) }

    func send(event name: String, _ fields: [String: PropertyListValue], activity: UserActivity) {
        send(line: ControlLine.event(name, fields, activity: activity))
    }

    private func send(line: [UInt8]) {
        // The backlog is -1 once the client has been dropped: nothing more is written.
        let verdict = backlog.withLockedValue { b -> Int in
            if b < 0 { return -1 }
            if b + line.count > Self.maxEventBacklog {
                b = -1
                return 0
            }
            b += line.count
            return 1
        }
        switch verdict {
        case 1:
            let promise = channel.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { [backlog] _ in backlog.withLockedValue { if $0 >= 0 { $0 -= line.count } } }
            channel.writeAndFlush(channel.allocator.buffer(bytes: line), promise: promise)
        case 0:
            drop()
        default:
            break
        }
    }

    /// Ends a client that does not read its events, telling it why in a last line.
    private func drop() {
        let reason =
            "this client left more than \(Self.maxEventBacklog) bytes of events unread; handoffd closed the connection: read events as they come, or reconnect"
        channel.writeAndFlush(channel.allocator.buffer(bytes: ControlLine.event("dropped", ["reason": .string(reason)])))
            .whenComplete { [channel] _ in channel.close(promise: nil) }
    }
}

extension SocketOutlet {
    /// Writes an answer line with a descriptor attached to its first byte (SCM_RIGHTS), then
    /// closes our copy. Done on the event loop once nothing else is being written on the
    /// connection (answers are written one at a time; events are counted in the backlog), so the
    /// line never lands inside another. A client that reads with plain read() loses only the
    /// descriptor (the kernel closes it), never the line.
    func answer(_ line: [UInt8], passing d: OwnedDescriptor) async {
        let done = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute { self.send(line, d, attempt: 0, done) }
        try? await done.futureResult.get()
    }

    private func send(_ line: [UInt8], _ d: OwnedDescriptor, attempt: Int, _ done: EventLoopPromise<Void>) {
        guard channel.isActive, attempt < 5_000 else {
            d.close()
            done.succeed()
            return
        }
        // Events still on their way: wait for them (the line must not land inside one).
        if backlog.withLockedValue({ $0 }) > 0 {
            channel.eventLoop.scheduleTask(in: .milliseconds(1)) { self.send(line, d, attempt: attempt + 1, done) }
            return
        }
        let n = line.withUnsafeBytes { handoff_send_with_fd(descriptor, $0.baseAddress, UInt($0.count), d.value) }
        if n < 0, errno == EAGAIN || errno == EINTR {
            channel.eventLoop.scheduleTask(in: .milliseconds(1)) { self.send(line, d, attempt: attempt + 1, done) }
            return
        }
        d.close()
        if n >= 0, n < line.count {
            // The descriptor went with the first bytes; the rest of the line follows.
            channel.writeAndFlush(channel.allocator.buffer(bytes: line[Int(n)...])).whenComplete { _ in done.succeed() }
            return
        }
        done.succeed()
    }
}
