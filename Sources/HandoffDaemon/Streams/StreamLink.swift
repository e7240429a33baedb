#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore
import HandoffLink
import HandoffProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One continuation stream on this machine: the app's socket on one side, the peer's session on
/// the other, and the pure `StreamMachine` between them, kept under a lock because three event
/// loops touch it (the app socket's, the session's, the deadline's). Every action the machine
/// returns is carried out while the lock is held but only ever queued (`execute`), so frames and
/// deliveries keep the machine's order and no callback re-enters the lock.
///
/// Whatever the peer sends, a stream holds one buffer each way: the app's bytes not yet
/// acknowledged (in the machine), and the peer's bytes not yet written to the app (`toApp`,
/// written one write at a time); its frames are made when the session asks (`StreamSender`).
final class StreamLink: StreamSender, @unchecked Sendable {
    /// What the stream is, fixed at its start.
    struct Facts: Sendable {
        let token: String
        let id: UInt64
        let peerID: PeerID
        let peerName: String
        /// This machine's device name, in what the stream's end tells.
        let here: String
        let activityID: UUID
    }

    /// How long the stream waits for the link to come back, and whom it tells what became of it.
    struct Hooks: Sendable {
        let resumeDeadline: TimeAmount
        let logger: Logger
        /// The session under it closed: Streams looks for another (`attach`).
        let onDetached: @Sendable (StreamLink) -> Void
        let onEnd: @Sendable (StreamLink) -> Void
    }

    /// The session under the stream: none yet, or none since one dropped (the resume deadline
    /// running), one it rides, or the stream has ended. Each holds what matters in it alone.
    private enum Ride {
        case waiting(deadline: Scheduled<Void>?)
        case riding(LinkSession)
        case ended
    }

    let facts: Facts
    private let hooks: Hooks
    private let lock = NIOLock()
    private var machine: StreamMachine
    private var ride = Ride.waiting(deadline: nil)
    private var app: (channel: Channel, handler: AppEndHandler)?
    private var client: ControlClient?
    private var io = StreamIO()

    var token: String { facts.token }
    var id: UInt64 { facts.id }
    var peerID: PeerID { facts.peerID }
    var peerName: String { facts.peerName }
    var activityID: UUID { facts.activityID }
    private var logger: Logger { hooks.logger }
    /// The session it rides now.
    private var session: LinkSession? { if case .riding(let session) = ride { session } else { nil } }
    private var ended: Bool { if case .ended = ride { true } else { false } }

    init(facts: Facts, machine: StreamMachine, hooks: Hooks) {
        self.facts = facts
        self.machine = machine
        self.hooks = hooks
    }

    /// Our end of the app's socket, once made.
    func setApp(_ channel: Channel, handler: AppEndHandler) {
        lock.withLock { app = (channel, handler) }
    }

    /// Who hears how the stream ended (the app that opened or accepted it).
    func setClient(_ client: ControlClient) { lock.withLock { self.client = client } }

    func grant(window: UInt32) {
        lock.withLock {
            machine.peerGranted(window: UInt64(window))
            settle()
        }
    }

    /// Whether our end may read the app now; if not, the read is held until an ack opens the
    /// window (`AppEndHandler.resumeReading`).
    func mayReadFromApp() -> Bool {
        lock.withLock {
            if machine.mayReadFromApp { return true }
            io.readHeld = true
            return false
        }
    }

    var counts: (sent: UInt64, received: UInt64) { lock.withLock { (machine.acked, machine.delivered) } }

    // MARK: - The session

    /// Rides `session` from now on without a resume (the session the stream was opened on).
    func bind(_ session: LinkSession) {
        lock.withLock {
            guard self.session == nil, !ended else { return }
            watch(session)
            settle()
        }
    }

    /// A new session after the last one dropped: both sides say where they stand (resume).
    func attach(_ session: LinkSession) {
        let resumed = lock.withLock { () -> UInt64? in
            guard self.session == nil, !ended, session.channel.isActive else { return nil }
            watch(session)
            machine.attach()
            settle()
            return machine.received
        }
        if let resumed {
            logger.info("a stream resumes on a new session", metadata: ["stream.token": "\(token)", "stream.received": "\(resumed)"])
        }
    }

    /// Rides `session` from now on; a resume deadline that ran is over.
    private func watch(_ session: LinkSession) {
        if case .waiting(let deadline) = ride { deadline?.cancel() }
        ride = .riding(session)
        // A turn asked of the last session is not this one's.
        io.queued = false
        session.channel.closeFuture.whenComplete { [weak self] _ in self?.sessionClosed(session) }
    }

    private func sessionClosed(_ closed: LinkSession) {
        let detached = lock.withLock { () -> Bool in
            guard session === closed else { return false }
            machine.detach()
            ride = .waiting(deadline: nil)
            if let loop = app?.channel.eventLoop {
                let seconds = hooks.resumeDeadline.nanoseconds / 1_000_000_000
                ride = .waiting(
                    deadline: loop.scheduleTask(in: hooks.resumeDeadline) { [weak self] in
                        self?.fail(
                            code: .streamLinkLost,
                            message: "the link to \(self?.peerName ?? "the peer") stayed down for more than \(seconds) s; the stream ended")
                    })
            }
            return true
        }
        if detached {
            logger.info(
                "a stream lost its session; waiting to resume", metadata: ["peer.id": "\(peerID.rawValue.prefix(16))", "stream.token": "\(token)"])
            hooks.onDetached(self)
        }
    }

    // MARK: - What happens

    func fromApp(_ bytes: UnsafeRawBufferPointer) {
        lock.withLock {
            machine.fromApp(bytes)
            settle()
        }
    }

    func appEnded() {
        lock.withLock {
            machine.appEnded()
            settle()
        }
    }

    func fromPeer(_ frame: StreamFrame, on session: LinkSession) {
        var resume = false
        if case .resume = frame { resume = true }
        let moved = lock.withLock { () -> Bool in
            guard !ended else { return false }
            let moved = arriving(on: session, resume: resume)
            perform(machine.fromPeer(frame))
            return moved
        }
        if case .resume(_, let offset) = frame {
            logger.info("the peer resumes a stream", metadata: ["stream.token": "\(token)", "stream.offset": "\(offset)", "stream.moved": "\(moved)"])
        }
    }

    /// A data frame's bytes, where the session's buffer holds them: the new ones are copied once,
    /// into what goes to the app.
    func dataFromPeer(at offset: UInt64, _ bytes: ByteBufferView, on session: LinkSession) {
        lock.withLock {
            guard !ended else { return }
            _ = arriving(on: session, resume: false)
            switch machine.arrived(dataAt: offset, count: bytes.count) {
            case .new(let skip):
                io.toApp.writeBytes(bytes.dropFirst(skip))
                settle()
            case .repeated:
                break
            case .violated(let actions):
                perform(actions)
            }
        }
    }

    /// A frame came on `session` (lock held): the session we ride from now on, if the peer moved
    /// to it before we noticed. True if the stream moved.
    private func arriving(on session: LinkSession, resume: Bool) -> Bool {
        if self.session == nil {
            watch(session)
            guard !machine.attached else { return false }
            // The peer is back on a new session before we noticed it: resume on that one.
            machine.attach()
            return true
        }
        guard self.session !== session, resume else { return false }
        // The peer lost the session we ride and resumed on another before we noticed the loss:
        // we move with it now (its resume would otherwise come before our own detach, and we
        // would wait for it forever).
        machine.detach()
        watch(session)
        machine.attach()
        return true
    }

    private func delivered(_ count: Int) {
        lock.withLock {
            io.writing = false
            perform(machine.delivered(count))
        }
    }

    /// The session asks for our next frame (on its event loop).
    func nextStreamFrame(for session: LinkSession, allocator: ByteBufferAllocator) -> (frame: ByteBuffer?, more: Bool) {
        lock.withLock {
            // A turn the last session was asked for: the one we ride now asks on its own.
            guard session === self.session, !ended else { return (nil, false) }
            guard let next = machine.nextOutgoing() else {
                io.queued = false
                return (nil, false)
            }
            var buffer: ByteBuffer
            switch next {
            case .frame(let frame):
                let bytes = frame.encoded(prefix: MessageKind.stream.rawValue)
                buffer = allocator.buffer(capacity: bytes.count)
                buffer.writeBytes(bytes)
            case .data(let offset, let count):
                buffer = allocator.buffer(capacity: 1 + StreamFrame.headerBytes + count)
                buffer.writeInteger(MessageKind.stream.rawValue)
                buffer.writeInteger(StreamFrame.dataType)
                buffer.writeInteger(id)
                buffer.writeInteger(offset)
                buffer.writeBytes(machine.retained(from: offset, count: count))
            }
            let more = machine.wantsToSend
            if !more { io.queued = false }
            return (buffer, more)
        }
    }

    /// Our end of the socket closed: the app closed its descriptor (or exited), or NIO closed it
    /// once both halves were shut. Not a failure when the app's direction ended and every byte of
    /// the peer's was delivered: only the peer's acknowledgement of our end is still to come.
    func appGone() {
        lock.withLock {
            guard !ended else { return }
            machine.appEnded()
            if !(machine.appInputEnded && machine.finDelivered) {
                perform(machine.fail(code: .streamAppClosed, message: "the app closed the stream on \(facts.here) before it ended"))
            } else {
                settle()
            }
        }
    }

    func appFailed(_ why: String) { fail(code: .streamAppClosed, message: "the app's socket failed on \(facts.here): \(why)") }

    func fail(code: FailureCode, message: String) { lock.withLock { perform(machine.fail(code: code, message: message)) } }

    // MARK: - Carrying out the machine's actions (lock held; everything queued)

    /// After a change the machine returned no actions for: what is due now (the app's bytes, the
    /// session's turn, a held read) is still carried out.
    private func settle() { perform([]) }

    private func perform(_ actions: [StreamMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let frame):
                session?.sendStreamFrame(frame.encoded(prefix: MessageKind.stream.rawValue))
            case .deliver(let bytes):
                io.toApp.writeBytes(bytes)
            case .endAppOutput:
                guard let app = app?.channel else { continue }
                app.eventLoop.execute { app.close(mode: .output, promise: nil) }
            case .failed(let code, let message):
                end(failure: (code, message))
                return
            }
        }
        if machine.isFinished {
            // What is still due (the ack of the peer's end) leaves before the stream is forgotten:
            // the session asks a stream that ended for nothing.
            while let session, case .frame(let frame) = machine.nextOutgoing() {
                session.sendStreamFrame(frame.encoded(prefix: MessageKind.stream.rawValue))
            }
            end(failure: nil)
            return
        }
        deliver()
        if !io.queued, let session, machine.wantsToSend {
            io.queued = true
            session.schedule(self)
        }
        if io.readHeld, machine.mayReadFromApp, let (app, handler) = app {
            io.readHeld = false
            app.eventLoop.execute { handler.resumeReading() }
        }
    }

    /// What the peer sent and the app has not taken goes to it in one write at a time: a peer's
    /// many small frames to an app that does not read cost one buffer, not a write each.
    private func deliver() {
        guard !io.writing, io.toApp.readableBytes > 0, let app = app?.channel else { return }
        io.writing = true
        var taken = ByteBuffer()
        swap(&taken, &io.toApp)
        let chunk = taken
        let count = chunk.readableBytes
        let link = WeakLink(self)
        app.eventLoop.execute {
            app.writeAndFlush(chunk).whenComplete { result in
                switch result {
                case .success: link.value?.delivered(count)
                case .failure(let error): link.value?.appFailed("\(error)")
                }
            }
        }
    }

    private func end(failure: (code: FailureCode, message: String)?) {
        let loop = app?.channel.eventLoop ?? session?.channel.eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        switch ride {
        case .ended: return
        case .waiting(let deadline): deadline?.cancel()
        case .riding: break
        }
        ride = .ended
        if let app = app?.channel { app.eventLoop.execute { app.close(promise: nil) } }
        var fields: [String: PropertyListValue] = [
            "stream": .string(token), "activity": .string(activityID.canonicalString), "peer": .string(peerName),
            "sent": .integer(Int64(machine.acked)), "received": .integer(Int64(machine.delivered))
        ]
        if let failure {
            fields["outcome"] = "failed"
            fields["code"] = .string(failure.code.rawValue)
            fields["message"] = .string(failure.message)
            logger.notice(
                "a stream failed",
                metadata: [
                    "stream.token": "\(token)", "failure.code": "\(failure.code)", "reason": "\(failure.message)",
                    "stream.state": "\(machine.summary)"
                ])
        } else {
            fields["outcome"] = "finished"
            logger.info(
                "a stream finished",
                metadata: ["stream.token": "\(token)", "stream.sent": "\(machine.acked)", "stream.received": "\(machine.delivered)"])
        }
        let client = self.client
        let onEnd = hooks.onEnd
        let told = fields
        // Told outside the lock: an outlet may write, and Streams takes its own lock.
        loop.execute { [self] in
            client?.send(event: "streamClosed", told)
            onEnd(self)
        }
    }
}
