import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import HandoffLink

/// The handshake and framing handlers on EmbeddedChannels: no sockets, bytes moved by hand.
@Suite struct EmbeddedChannelTests {
    final class Inbox: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        var messages: [[UInt8]] = []
        var established: LinkHandshakeMachine.Established?
        var errors: [Error] = []
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { messages.append(Array(buffer: unwrapInboundIn(data))) }
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let e = event as? LinkEstablishedEvent { established = e.established }
        }
        func errorCaught(context: ChannelHandlerContext, error: Error) { errors.append(error) }
    }

    func channel(_ machine: LinkHandshakeMachine, initiator: Bool, timeout: TimeAmount = .seconds(10)) throws -> (EmbeddedChannel, Inbox) {
        let ch = EmbeddedChannel()
        let inbox = Inbox()
        try ch.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder()))
        try ch.pipeline.syncOperations.addHandler(FrameEncoder())
        try ch.pipeline.syncOperations.addHandler(
            NoiseChannelHandler(machine: machine, isInitiator: initiator, timeout: timeout, logger: Logger(label: "test")))
        try ch.pipeline.syncOperations.addHandler(inbox)
        return (ch, inbox)
    }

    /// Moves every outbound byte of `from` into `to`; returns the raw bytes moved.
    @discardableResult
    func shuttle(_ from: EmbeddedChannel, _ to: EmbeddedChannel) throws -> [ByteBuffer] {
        var moved: [ByteBuffer] = []
        while let b = try from.readOutbound(as: ByteBuffer.self) {
            moved.append(b)
            try to.writeInbound(b)
        }
        return moved
    }

    func establishedPair() throws -> (EmbeddedChannel, Inbox, EmbeddedChannel, Inbox) {
        let policy = LinkHandshakeMachine.Policy(isPinned: { _ in true })
        let (a, ai) = try channel(.init(role: .initiator, identity: IdentityKey(), localName: "a", policy: policy), initiator: true)
        let (b, bi) = try channel(.init(role: .responder, identity: IdentityKey(), localName: "b", policy: policy), initiator: false)
        try b.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try a.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2)).wait()
        for _ in 0..<4 {
            try shuttle(a, b)
            try shuttle(b, a)
        }
        return (a, ai, b, bi)
    }

    @Test func handshakeOverEmbeddedChannels() throws {
        let (a, ai, b, bi) = try establishedPair()
        #expect(ai.established != nil && bi.established != nil)
        try a.writeAndFlush(ByteBuffer(bytes: Array("ping".utf8))).wait()
        try shuttle(a, b)
        #expect(bi.messages == [Array("ping".utf8)])
    }

    @Test func replayedFrameClosesTheChannel() throws {
        let (a, _, b, bi) = try establishedPair()
        try a.writeAndFlush(ByteBuffer(bytes: [1])).wait()
        let frames = try shuttle(a, b)
        #expect(bi.messages == [[1]])
        // A frame goes out as its length and its body, two buffers: replay both.
        _ = try? b.writeInbound(ByteBuffer(bytes: frames.flatMap { Array(buffer: $0) }))
        #expect(bi.errors.contains { ($0 as? LinkError) == .noise(.decryptFailed) })
        #expect(!b.isActive)
    }

    @Test func bitFlippedFrameClosesTheChannel() throws {
        let (a, _, b, bi) = try establishedPair()
        try a.writeAndFlush(ByteBuffer(bytes: Array("amount=10".utf8))).wait()
        var raw: [UInt8] = []
        while let part = try a.readOutbound(as: ByteBuffer.self) { raw += Array(buffer: part) }
        #expect(raw.count == 4 + 9 + 16, "the length, the sealed message, the tag")
        raw[raw.count - 20] ^= 0x04
        _ = try? b.writeInbound(ByteBuffer(bytes: raw))
        #expect(bi.messages.isEmpty)
        #expect(!b.isActive)
    }

    @Test func nothingIsWrittenBeforeTheHandshake() throws {
        let policy = LinkHandshakeMachine.Policy(isPinned: { _ in true })
        let (a, _) = try channel(.init(role: .initiator, identity: IdentityKey(), localName: "a", policy: policy), initiator: true)
        try a.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2)).wait()
        _ = try shuttle(a, EmbeddedChannel())  // preamble and message 1 go out
        #expect(throws: LinkError.closed) { try a.writeAndFlush(ByteBuffer(bytes: [9])).wait() }
        #expect(try a.readOutbound(as: ByteBuffer.self) == nil)
    }

    @Test func handshakeTimesOut() throws {
        let policy = LinkHandshakeMachine.Policy(isPinned: { _ in true })
        let (b, bi) = try channel(.init(role: .responder, identity: IdentityKey(), localName: "b", policy: policy), initiator: false)
        try b.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        b.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(b.isActive)
        b.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!b.isActive)
        #expect(bi.errors.contains { ($0 as? LinkError) == .handshakeTimeout(seconds: 10) })
    }

    @Test func frameDecoder() throws {
        let ch = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoder(maxFrame: 100)))
        var buf = ByteBuffer()
        buf.writeInteger(UInt32(3))
        buf.writeBytes([1, 2, 3])
        buf.writeInteger(UInt32(2))
        buf.writeBytes([4])
        try ch.writeInbound(buf)
        #expect(Array(buffer: try #require(try ch.readInbound(as: ByteBuffer.self))) == [1, 2, 3])
        #expect(try ch.readInbound(as: ByteBuffer.self) == nil)
        try ch.writeInbound(ByteBuffer(bytes: [5]))
        #expect(Array(buffer: try #require(try ch.readInbound(as: ByteBuffer.self))) == [4, 5])
        var big = ByteBuffer()
        big.writeInteger(UInt32(101))
        #expect(throws: LinkError.frameTooLarge(size: 101, limit: 100)) { try ch.writeInbound(big) }
    }
}
