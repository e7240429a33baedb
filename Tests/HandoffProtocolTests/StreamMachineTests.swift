import Foundation
@testable import HandoffProtocol
import Testing

/// The stream state machine on both sides, with frames carried by hand between two machines:
/// open, data, ack, window, half-close, resume after a lost session, and a peer that lies.
@Suite struct StreamMachineTests {
    static let settings = StreamMachine.Settings(window: 4_096, maxPayload: 1_000, maxRetain: 8_192)

    /// Two sides of one stream; `deliver` actions are applied at once (the app takes everything).
    struct Pair {
        var a = StreamMachine(id: 7, settings: StreamMachineTests.settings, peerWindow: 4_096)
        var b = StreamMachine(id: 7, settings: StreamMachineTests.settings, peerWindow: 4_096)
        var toA: [StreamFrame] = []
        var toB: [StreamFrame] = []
        var atA: [UInt8] = []
        var atB: [UInt8] = []
        var endedAtA = false
        var endedAtB = false
        var failures: [String] = []

        mutating func run(_ actions: [StreamMachine.Action], at side: Character) {
            for action in actions {
                switch action {
                case .send(let f): if side == "a" { toB.append(f) } else { toA.append(f) }
                case .deliver(let bytes):
                    if side == "a" {
                        atA += bytes
                        run(a.delivered(bytes.count), at: "a")
                    } else {
                        atB += bytes
                        run(b.delivered(bytes.count), at: "b")
                    }
                case .endAppOutput: if side == "a" { endedAtA = true } else { endedAtB = true }
                case .failed(let code, _): failures.append("\(side):\(code)")
                }
            }
        }

        /// Carries every frame in flight until none is left.
        mutating func settle() {
            while !toA.isEmpty || !toB.isEmpty {
                let forB = toB
                toB = []
                for f in forB { run(b.fromPeer(f), at: "b") }
                let forA = toA
                toA = []
                for f in forA { run(a.fromPeer(f), at: "a") }
            }
        }
    }

    static func bytes(_ n: Int, seed: UInt8 = 1) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } }

    @Test func bothDirectionsAndHalfClosesFinish() {
        var p = Pair()
        let one = Self.bytes(2_500), two = Self.bytes(700, seed: 9)
        p.run(p.a.fromApp(one), at: "a")
        p.run(p.b.fromApp(two), at: "b")
        p.settle()
        #expect(p.atB == one)
        #expect(p.atA == two)
        p.run(p.a.appEnded(), at: "a")
        p.settle()
        #expect(p.endedAtB)
        #expect(!p.a.isFinished)
        p.run(p.b.appEnded(), at: "b")
        p.settle()
        #expect(p.endedAtA)
        #expect(p.a.isFinished && p.b.isFinished)
        #expect(p.failures.isEmpty)
    }

    @Test func dataFramesNeverExceedThePayloadOrTheWindow() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        let actions = m.fromApp(Self.bytes(10_000))
        let sizes = actions.compactMap { a -> Int? in if case .send(.data(_, _, let b)) = a { b.count } else { nil } }
        #expect(sizes.allSatisfy { $0 <= 1_000 })
        #expect(sizes.reduce(0, +) == 4_096)
        #expect(!m.mayReadFromApp)
        #expect(m.retainedBytes == 10_000)
        // An ack opens the window: the rest goes out, within it.
        let more = m.fromPeer(.ack(stream: 1, offset: 4_096, window: 4_096))
        let sent = more.compactMap { a -> Int? in if case .send(.data(_, _, let b)) = a { b.count } else { nil } }.reduce(0, +)
        #expect(sent == 4_096)
        #expect(m.retainedBytes == 10_000 - 4_096)
    }

    @Test func theReceiverAcksAsItDelivers() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        #expect(m.fromPeer(.data(stream: 1, offset: 0, bytes: Self.bytes(1_000))) == [.deliver(Self.bytes(1_000))])
        // Less than a quarter of the window delivered: no ack yet; a quarter: an ack with the window.
        #expect(m.delivered(1_000).isEmpty)
        _ = m.fromPeer(.data(stream: 1, offset: 1_000, bytes: Self.bytes(24)))
        #expect(m.delivered(24) == [.send(.ack(stream: 1, offset: 1_024, window: 4_096))])
    }

    @Test func aResumeAfterALostSessionLosesAndRepeatsNothing() {
        var p = Pair()
        let data = Self.bytes(4_000)
        p.run(p.a.fromApp(data), at: "a")
        // Half of it reaches B; the session drops with the rest (and every ack) in flight.
        let delivered = Array(p.toB.prefix(2))
        p.toB = []
        for f in delivered { p.run(p.b.fromPeer(f), at: "b") }
        p.toA = []
        p.a.detach()
        p.b.detach()
        // More from A's app while detached: kept, not sent.
        #expect(p.a.fromApp(Self.bytes(100, seed: 3)).isEmpty)
        p.run(p.a.attach(), at: "a")
        p.run(p.b.attach(), at: "b")
        p.settle()
        #expect(p.atB == data + Self.bytes(100, seed: 3))
        #expect(p.failures.isEmpty)
    }

    @Test func nothingIsSentAfterANewSessionUntilThePeerSaysWhereItStands() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        _ = m.fromApp(Self.bytes(3_000))
        m.detach()
        let onAttach = m.attach()
        #expect(onAttach.allSatisfy { if case .send(.data) = $0 { false } else { true } })
        let resent = m.fromPeer(.resume(stream: 1, offset: 2_000))
        #expect(resent == [.send(.data(stream: 1, offset: 2_000, bytes: Array(Self.bytes(3_000)[2_000...])))])
    }

    @Test func aPeerThatLiesIsReset() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        _ = m.fromApp(Self.bytes(100))
        // Acknowledging bytes never sent.
        let lie = m.fromPeer(.ack(stream: 1, offset: 5_000, window: 4_096))
        #expect(lie.contains { if case .failed(code: "stream-protocol", _) = $0 { true } else { false } })
        #expect(lie.contains { if case .send(.reset) = $0 { true } else { false } })
        #expect(m.fromApp(Self.bytes(10)).isEmpty)

        var n = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        // More than the window unacknowledged.
        _ = n.fromPeer(.data(stream: 1, offset: 0, bytes: Self.bytes(1_000)))
        var over: [StreamMachine.Action] = []
        for i in 1...4 { over += n.fromPeer(.data(stream: 1, offset: UInt64(i * 1_000), bytes: Self.bytes(1_000))) }
        #expect(over.contains { if case .failed(code: "stream-protocol", _) = $0 { true } else { false } })

        var g = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        // A gap, a resume from a byte never sent, data past the end.
        #expect(g.fromPeer(.data(stream: 1, offset: 10, bytes: [1])).contains { if case .failed = $0 { true } else { false } })
        var r = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        #expect(r.fromPeer(.resume(stream: 1, offset: 1)).contains { if case .failed = $0 { true } else { false } })
        var e = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        _ = e.fromPeer(.fin(stream: 1, offset: 0))
        #expect(e.fromPeer(.data(stream: 1, offset: 0, bytes: [1])).contains { if case .failed = $0 { true } else { false } })
    }

    @Test func aHugeWindowIsCappedAtWhatWeRetain() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: UInt64(UInt32.max))
        _ = m.fromApp(Self.bytes(8_192))
        #expect(!m.mayReadFromApp)
        #expect(m.peerWindow == 8_192)
    }

    @Test func aResetEndsTheStreamWithThePeersReason() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        #expect(m.fromPeer(.reset(stream: 1, code: "stream-app-closed", message: "gone")) == [.failed(code: "stream-app-closed", message: "gone")])
        #expect(m.hasFailed)
        #expect(m.fail(code: "x", message: "y").isEmpty)
    }

    @Test func framesRoundTripAndMalformedOnesAreRefused() throws {
        let frames: [StreamFrame] = [
            .data(stream: 1, offset: 2, bytes: [3, 4]), .ack(stream: .max, offset: 9, window: 65_536), .fin(stream: 5, offset: 6),
            .reset(stream: 7, code: "stream-app-closed", message: "the app closed"), .resume(stream: 8, offset: 1 << 40)
        ]
        for f in frames {
            #expect(try StreamFrame(decoding: f.bytes) == f)
            // What a session writes: the head, then the body (a data frame's bytes, uncopied).
            let (head, body) = f.parts(prefix: 0x02)
            #expect(head + body == [0x02] + f.bytes)
            if case .data(_, _, let bytes) = f {
                #expect(head.count == 1 + StreamFrame.headerBytes && body == bytes)
            } else {
                #expect(body.isEmpty)
            }
        }
        // Test vectors (docs/PROTOCOL.md, "Continuation streams").
        #expect(StreamFrame.data(stream: 1, offset: 2, bytes: [0xAB]).bytes == [1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0xAB])
        #expect(
            StreamFrame.ack(stream: 1, offset: 16, window: 65_536).bytes == [2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 1, 0, 0])
        #expect(throws: StreamFrameError.short) { try StreamFrame(decoding: [1, 2, 3]) }
        #expect(throws: StreamFrameError.unknownType(9)) { try StreamFrame(decoding: [9] + [UInt8](repeating: 0, count: 16)) }
        #expect(throws: StreamFrameError.self) { try StreamFrame(decoding: [1] + [UInt8](repeating: 0, count: 16)) }
        #expect(throws: StreamFrameError.self) { try StreamFrame(decoding: [4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 200]) }
    }
}
