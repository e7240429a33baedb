import HandoffControl
import HandoffCore
import NIOConcurrencyHelpers
import NIOCore

/// What a request comes to: its answer, which may carry a descriptor (a stream's socket).
typealias Performed = Result<(PropertyListValue?, OwnedDescriptor?), ControlError>

/// A line as the connection's handler hands it to the task that serves the client.
enum ServedLine: Sendable {
    /// As framed: the serve loop parses it (it was waiting for it).
    case framed(LineFramer.Item)
    /// Parsed by the handler, because the serve loop was busy with a request: the parse was
    /// needed to see whether the line takes effect at once. The request, or why there is none.
    case parsed(Result<ControlRequest, ControlError>)
    /// A request that takes effect when read (`ControlPlace.atOnce`), started by the handler: the
    /// serve loop answers it with the task's result, in its place.
    case early(ControlRequest, Task<Performed, Never>)
}

/// One client connection: checks credentials, frames lines, feeds them to the server in order.
/// Lines wait in a queue of at most `maxQueued`; past that the connection stops reading until
/// the server has caught up (so a client cannot make us buffer its requests without bound).
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    static let maxQueued = 32

    private let server: ControlServer
    private let descriptor: Int32
    private var framer: LineFramer
    private var pending: [LineFramer.Item] = []
    private var admitted: (client: ControlClient, lines: ControlLines)?
    private var refused = false
    private let queued = NIOLockedValueBox(0)

    init(server: ControlServer, descriptor: Int32) {
        self.server = server
        self.descriptor = descriptor
        framer = LineFramer(maxLine: server.maxLine)
    }

    func channelActive(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        server.admit(channel, descriptor: descriptor).whenSuccess { [server, queued] client in
            let handler = loopBound.value
            guard let client else {
                handler.refused = true
                return
            }
            let lines = ControlLines()
            handler.admitted = (client, lines)
            // Lines that came before the credentials were checked: the serve loop has not started.
            for item in handler.pending { lines.yield(handler.prepared(item, client: client, waiting: false)) }
            handler.pending = []
            // Taking a line from the queue resumes reading once it is half empty.
            let taken: @Sendable () -> Void = {
                let resume = queued.withLockedValue { n -> Bool in
                    n -= 1
                    return n == ConnectionHandler.maxQueued / 2
                }
                if resume { channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in } }
            }
            server.admitted(ControlServer.Connection(client: client, lines: lines, taken: taken))
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let items = framer.feed(unwrapInboundIn(data).readableBytesView)
        let count = queued.withLockedValue { n -> Int in
            n += items.count
            return n
        }
        if count >= Self.maxQueued { context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in } }
        if let (client, lines) = admitted {
            for item in items { lines.yield(prepared(item, client: client, waiting: lines.hasReader)) }
        } else {
            pending += items  // credentials not checked yet
        }
    }

    /// A line for a serve loop waiting for it goes as framed: it is the next thing the loop does.
    /// Otherwise a request of the client runs (a `scene-update` waits for its write, say): the
    /// line is parsed here, and one that takes effect at once (the `refresh` a peer's fetch waits
    /// on for at most 500 ms) is started now instead of behind it. Only this handler yields, so a
    /// reader seen waiting takes this very line.
    private func prepared(_ item: LineFramer.Item, client: ControlClient, waiting: Bool) -> ServedLine {
        guard !waiting, let parsed = ControlServer.request(in: item) else { return .framed(item) }
        let operations = server.operations
        guard case .success(let request) = parsed, operations.place(of: request) == .atOnce else { return .parsed(parsed) }
        return .early(request, Task { await operations.performPassing(request, from: client, after: .now) })
    }

    func channelInactive(context: ChannelHandlerContext) {
        admitted?.lines.finish()
        context.fireChannelInactive()
    }
}
