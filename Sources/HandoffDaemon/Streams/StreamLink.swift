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
final class StreamLink: @unchecked Sendable {
    let token: String
    let id: UInt64
    let peerID: String
    let peerName: String
    let activityID: UUID
    private let lock = NIOLock()
    private var machine: StreamMachine
    private var session: LinkSession?
    private var app: Channel?
    private var appHandler: AppEndHandler?
    private var deadline: Scheduled<Void>?
    private var client: ControlClient?
    private var ended = false
    private let resumeDeadline: TimeAmount
    /// The session under it closed: Streams looks for another (`attach`).
    private let onDetached: @Sendable (StreamLink) -> Void
    private let onEnd: @Sendable (StreamLink) -> Void
    private let logger: Logger

    init(
        token: String, id: UInt64, peerID: String, peerName: String, activityID: UUID, machine: StreamMachine, resumeDeadline: TimeAmount,
        logger: Logger, onDetached: @escaping @Sendable (StreamLink) -> Void, onEnd: @escaping @Sendable (StreamLink) -> Void
    ) {
        self.token = token
        self.id = id
        self.peerID = peerID
        self.peerName = peerName
        self.activityID = activityID
        self.machine = machine
        self.resumeDeadline = resumeDeadline
        self.logger = logger
        self.onDetached = onDetached
        self.onEnd = onEnd
    }

    /// Our end of the app's socket, once made.
    func setApp(_ channel: Channel, handler: AppEndHandler) {
        lock.withLock {
            app = channel
            appHandler = handler
        }
    }

    /// Who hears how the stream ended (the app that opened or accepted it).
    func setClient(_ client: ControlClient) { lock.withLock { self.client = client } }

    func grant(window: UInt32) {
        lock.withLock { perform(machine.peerGranted(window: UInt64(window))) }
    }

    var mayReadFromApp: Bool { lock.withLock { machine.mayReadFromApp } }

    var counts: (sent: UInt64, received: UInt64) { lock.withLock { (machine.acked, machine.delivered) } }

    // MARK: - The session

    /// Rides `session` from now on without a resume (the session the stream was opened on).
    func bind(_ session: LinkSession) {
        lock.withLock {
            guard self.session == nil, !ended else { return }
            watch(session)
        }
    }

    /// A new session after the last one dropped: both sides say where they stand (resume).
    func attach(_ session: LinkSession) {
        let resumed = lock.withLock { () -> UInt64? in
            guard self.session == nil, !ended, session.channel.isActive else { return nil }
            watch(session)
            deadline?.cancel()
            deadline = nil
            perform(machine.attach())
            return machine.received
        }
        if let resumed {
            logger.info("a stream resumes on a new session", metadata: ["stream.token": "\(token)", "stream.received": "\(resumed)"])
        }
    }

    private func watch(_ session: LinkSession) {
        self.session = session
        session.channel.closeFuture.whenComplete { [weak self] _ in self?.sessionClosed(session) }
    }

    private func sessionClosed(_ closed: LinkSession) {
        let detached = lock.withLock { () -> Bool in
            guard session === closed, !ended else { return false }
            session = nil
            machine.detach()
            if let loop = app?.eventLoop {
                let seconds = resumeDeadline.nanoseconds / 1_000_000_000
                deadline = loop.scheduleTask(in: resumeDeadline) { [weak self] in
                    self?.fail(
                        code: "stream-link-lost",
                        message: "the link to \(self?.peerName ?? "the peer") stayed down for more than \(seconds) s; the stream ended")
                }
            }
            return true
        }
        if detached {
            logger.info("a stream lost its session; waiting to resume", metadata: ["peer.id": "\(peerID.prefix(16))", "stream.token": "\(token)"])
            onDetached(self)
        }
    }

    // MARK: - What happens

    func fromApp(_ bytes: [UInt8]) { lock.withLock { perform(machine.fromApp(bytes)) } }
    func appEnded() { lock.withLock { perform(machine.appEnded()) } }

    func fromPeer(_ frame: StreamFrame, on session: LinkSession) {
        let moved = lock.withLock { () -> Bool in
            guard !ended else { return false }
            var moved = false
            if self.session == nil {
                watch(session)
                if !machine.attached {
                    // The peer is back on a new session before we noticed it: resume on that one.
                    deadline?.cancel()
                    deadline = nil
                    perform(machine.attach())
                    moved = true
                }
            } else if self.session !== session, case .resume = frame {
                // The peer lost the session we ride and resumed on another before we noticed the
                // loss: we move with it now (its resume would otherwise come before our own
                // detach, and we would wait for it forever).
                machine.detach()
                watch(session)
                perform(machine.attach())
                moved = true
            }
            perform(machine.fromPeer(frame))
            return moved
        }
        if case .resume(_, let offset) = frame {
            logger.info("the peer resumes a stream", metadata: ["stream.token": "\(token)", "stream.offset": "\(offset)", "stream.moved": "\(moved)"])
        }
    }

    private func delivered(_ count: Int) { lock.withLock { perform(machine.delivered(count)) } }

    /// Our end of the socket closed: the app closed its descriptor (or exited), or NIO closed it
    /// once both halves were shut. Not a failure when the app's direction ended and every byte of
    /// the peer's was delivered: only the peer's acknowledgement of our end is still to come.
    func appGone() {
        lock.withLock {
            guard !ended else { return }
            perform(machine.appEnded())
            if !(machine.appInputEnded && machine.finDelivered) {
                perform(machine.fail(code: "stream-app-closed", message: "the app closed the stream on \(Self.hostName) before it ended"))
            }
        }
    }

    func appFailed(_ why: String) { fail(code: "stream-app-closed", message: "the app's socket failed on \(Self.hostName): \(why)") }

    func fail(code: String, message: String) { lock.withLock { perform(machine.fail(code: code, message: message)) } }

    static let hostName = ProcessInfo.processInfo.hostName

    // MARK: - Carrying out the machine's actions (lock held; everything queued)

    private func perform(_ actions: [StreamMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let frame):
                session?.sendStream(frame.parts(prefix: MessageKind.stream.rawValue))
            case .deliver(let bytes):
                guard let app else { continue }
                let link = WeakLink(self)
                app.eventLoop.execute {
                    app.writeAndFlush(app.allocator.buffer(bytes: bytes)).whenComplete { result in
                        switch result {
                        case .success: link.value?.delivered(bytes.count)
                        case .failure(let error): link.value?.appFailed("\(error)")
                        }
                    }
                }
            case .endAppOutput:
                guard let app else { continue }
                app.eventLoop.execute { app.close(mode: .output, promise: nil) }
            case .failed(let code, let message):
                end(failure: (code, message))
                return
            }
        }
        if machine.isFinished {
            end(failure: nil)
        } else if machine.mayReadFromApp, let app, let handler = appHandler {
            app.eventLoop.execute { handler.resumeReading() }
        }
    }

    private func end(failure: (code: String, message: String)?) {
        guard !ended else { return }
        ended = true
        deadline?.cancel()
        deadline = nil
        if let app { app.eventLoop.execute { app.close(promise: nil) } }
        var fields: [String: PropertyListValue] = [
            "stream": .string(token), "activity": .string(activityID.canonicalString), "peer": .string(peerName),
            "sent": .integer(Int64(machine.acked)), "received": .integer(Int64(machine.delivered))
        ]
        if let failure {
            fields["outcome"] = "failed"
            fields["code"] = .string(failure.code)
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
        let onEnd = self.onEnd
        let told = fields
        // Told outside the lock: an outlet may write, and Streams takes its own lock.
        let loop = app?.eventLoop ?? session?.channel.eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        loop.execute { [self] in
            client?.send(event: "streamClosed", told)
            onEnd(self)
        }
    }
}

/// A stream link held weakly across a hop to another event loop.
private struct WeakLink: @unchecked Sendable {
    weak var value: StreamLink?
    init(_ value: StreamLink) { self.value = value }
}
