#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import NIOCore

/// Runs `PairingMachine` over an established pairing channel; pins the peer's key in the trust
/// store when both users confirmed, and only then.
final class PairingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var machine: PairingMachine
    private let session: PairingSession
    private let coordinator: PairingCoordinator
    private let trustStore: any TrustStore
    private let window: TimeAmount
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    private var done = false
    private var lastWrite: EventLoopFuture<Void>?

    init(
        machine: PairingMachine, session: PairingSession, coordinator: PairingCoordinator, trustStore: any TrustStore,
        window: TimeAmount, logger: Logger
    ) {
        self.machine = machine
        self.session = session
        self.coordinator = coordinator
        self.trustStore = trustStore
        self.window = window
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        session.handler.value = self
        let this = WeakHandler.bound(self, to: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: window) { this.value.handler?.abort(.timedOut) }
        apply(machine.start())
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        apply(machine.receive(Array(buffer: unwrapInboundIn(data))))
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(.pairing(.connectionLost)))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        finish(.failure(.pairing(.connectionLost)))
        context.close(promise: nil)
    }

    func confirm() { apply(machine.confirm()) }
    func abort(_ reason: PairingFailure) { apply(machine.abort(reason)) }

    private func apply(_ outputs: [PairingMachine.Output]) {
        guard let context else { return }
        for output in outputs {
            switch output {
            case .send(let bytes):
                lastWrite = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)))
            case .showCode(let code):
                session.codePromise.succeed(code)
            case .pinned:
                do {
                    let taken = Set(try trustStore.peers().filter { $0.identity != session.peer }.map(\.name))
                    let peer = TrustedPeer(identity: session.peer, name: PairedNames.unique(session.peerName, taken: taken), pairedAt: Date())
                    try trustStore.pin(peer)
                    logger.notice("paired", metadata: ["peer.id": "\(peer.identity.fingerprint)", "peer.name": "\(peer.name)"])
                    finish(.success(peer))
                } catch {
                    finish(.failure(.pairing(.protocolError("the trust store could not save the peer: \(error)"))))
                }
                closeAfterLastWrite(context)
            case .failed(let reason):
                logger.info("pairing failed", metadata: ["peer.id": "\(session.peer.fingerprint)", "reason": "\(reason)"])
                finish(.failure(.pairing(reason)))
                closeAfterLastWrite(context)
            }
        }
    }

    /// Closing with a write still queued would drop it (our confirm or reject).
    private func closeAfterLastWrite(_ context: ChannelHandlerContext) {
        let channel = context.channel
        if let lastWrite { lastWrite.whenComplete { _ in channel.close(promise: nil) } } else { channel.close(promise: nil) }
    }

    private func finish(_ result: Result<TrustedPeer, LinkError>) {
        guard !done else { return }
        done = true
        timer?.cancel()
        coordinator.finished(session, success: (try? result.get()) != nil)
        switch result {
        case .success(let peer):
            session.outcomePromise.succeed(peer)
        case .failure(let error):
            session.codePromise.fail(error)
            session.outcomePromise.fail(error)
        }
    }
}
