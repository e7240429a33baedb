import Logging
import NIOCore

/// Fired inbound once the handshake succeeds.
public struct LinkEstablishedEvent: Sendable {
    public let established: LinkHandshakeMachine.Established
}

/// Runs the link handshake on a channel of frames, then encrypts every outbound message and
/// decrypts every inbound one. The handshake must finish within the timeout; any failure closes
/// the channel. Before the handshake completes nothing from above is written.
final class NoiseChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var machine: LinkHandshakeMachine
    private var transport: NoiseTransport?
    private var timeout: Scheduled<Void>?
    private let timeoutAmount: TimeAmount
    private let isInitiator: Bool
    private let logger: Logger
    private(set) var failure: LinkError?
    /// The last handshake frame written: a refusal or an unpair notice must leave before we close.
    private var lastWrite: EventLoopFuture<Void>?

    init(machine: LinkHandshakeMachine, isInitiator: Bool, timeout: TimeAmount, logger: Logger) {
        self.machine = machine
        self.isInitiator = isInitiator
        timeoutAmount = timeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { begin(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        begin(context: context)
        context.fireChannelActive()
    }

    private func begin(context: ChannelHandlerContext) {
        guard timeout == nil, transport == nil else { return }
        let seconds = Int(timeoutAmount.nanoseconds / 1_000_000_000)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        let this = WeakHandler.bound(self, to: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: timeoutAmount) {
            this.value.handler?.fail(.handshakeTimeout(seconds: seconds), context: ctx.value)
        }
        if isInitiator { apply(machine.start(), context: context) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard var t = transport else {
            apply(machine.receive(Array(buffer: frame)), context: context)
            return
        }
        do throws(NoiseError) {
            let plain = try t.open(frame, allocator: context.channel.allocator)
            transport = t
            context.fireChannelRead(wrapInboundOut(plain))
        } catch {
            fail(.noise(error), context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard var t = transport else {
            promise?.fail(LinkError.closed)
            return
        }
        do throws(NoiseError) {
            let sealed = try t.seal(unwrapOutboundIn(data), allocator: context.channel.allocator)
            transport = t
            context.write(wrapOutboundOut(sealed), promise: promise)
        } catch {
            promise?.fail(LinkError.noise(error))
            fail(.noise(error), context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        fail((error as? LinkError) ?? .closed, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timeout?.cancel()
        context.fireChannelInactive()
    }

    private func apply(_ outputs: [LinkHandshakeMachine.Output], context: ChannelHandlerContext) {
        for output in outputs {
            switch output {
            case .send(let bytes):
                lastWrite = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)))
            case .established(let e):
                timeout?.cancel()
                timeout = nil
                transport = e.transport
                logger.debug("link established", metadata: ["peer.id": "\(e.peer.fingerprint)", "link.mode": "\(e.mode)"])
                context.fireUserInboundEventTriggered(LinkEstablishedEvent(established: e))
            case .failed(let error):
                fail(error, context: context)
            }
        }
    }

    private func fail(_ error: LinkError, context: ChannelHandlerContext) {
        guard failure == nil else { return }
        failure = error
        timeout?.cancel()
        logger.info("link closed", metadata: ["reason": "\(error)", "peer.address": "\(context.remoteAddress.map { "\($0)" } ?? "?")"])
        context.fireErrorCaught(error)
        let channel = context.channel
        if let lastWrite { lastWrite.whenComplete { _ in channel.close(promise: nil) } } else { context.close(promise: nil) }
    }
}
