import Foundation
@testable import HandoffProtocol
import Testing

/// The stream state machine on both sides, with frames carried by hand between two machines:
/// open, data, ack, window, half-close, resume after a lost session, and a peer that lies.
@Suite struct StreamMachineTests {
    static let settings = StreamMachine.Settings(window: 4_096, maxPayload: 1_000, maxRetain: 8_192)

    /// Two sides of one stream; `deliver` actions are applied at once (the app takes everything),
    /// and each side's frames are pulled as a session would (`flush`).
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

        /// Pulls every frame each side has due, as its session would.
        mutating func flush() {
            toB += StreamMachineTests.drain(&a)
            toA += StreamMachineTests.drain(&b)
        }

        /// Carries every frame in flight until none is left.
        mutating func settle() {
            flush()
            while !toA.isEmpty || !toB.isEmpty {
                let forB = toB
                toB = []
                for f in forB { run(b.fromPeer(f), at: "b") }
                let forA = toA
                toA = []
                for f in forA { run(a.fromPeer(f), at: "a") }
                flush()
            }
        }
    }

    /// Every frame `m` has due now, as frames.
    static func drain(_ m: inout StreamMachine) -> [StreamFrame] {
        var out: [StreamFrame] = []
        while let next = m.nextOutgoing() {
            switch next {
            case .frame(let f): out.append(f)
            case .data(let offset, let count): out.append(.data(stream: m.id, offset: offset, bytes: Array(m.retained(from: offset, count: count))))
            }
        }
        #expect(!m.wantsToSend)
        return out
    }

    static func bytes(_ n: Int, seed: UInt8 = 1) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } }

    static func dataSizes(_ frames: [StreamFrame]) -> [Int] {
        frames.compactMap { f -> Int? in if case .data(_, _, let b) = f { b.count } else { nil } }
    }

    @Test func bothDirectionsAndHalfClosesFinish() {
        var p = Pair()
        let one = Self.bytes(2_500), two = Self.bytes(700, seed: 9)
        p.a.fromApp(one)
        p.b.fromApp(two)
        p.settle()
        #expect(p.atB == one)
        #expect(p.atA == two)
        p.a.appEnded()
        p.settle()
        #expect(p.endedAtB)
        #expect(!p.a.isFinished)
        p.b.appEnded()
        p.settle()
        #expect(p.endedAtA)
        #expect(p.a.isFinished && p.b.isFinished)
        #expect(p.failures.isEmpty)
    }

    @Test func dataFramesNeverExceedThePayloadOrTheWindow() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        m.fromApp(Self.bytes(10_000))
        let sizes = Self.dataSizes(Self.drain(&m))
        #expect(sizes.allSatisfy { $0 <= 1_000 })
        #expect(sizes.reduce(0, +) == 4_096)
        #expect(!m.mayReadFromApp)
        #expect(m.retainedBytes == 10_000)
        // An ack opens the window: the rest goes out, within it.
        #expect(m.fromPeer(.ack(stream: 1, offset: 4_096, window: 4_096)).isEmpty)
        #expect(Self.dataSizes(Self.drain(&m)).reduce(0, +) == 4_096)
        #expect(m.retainedBytes == 10_000 - 4_096)
    }

    @Test func theAppsSmallWritesShareOneBufferAndLeaveAsFewFrames() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        // 3,000 writes of one byte while the session is busy: one buffer, three frames.
        for i in 0..<3_000 { m.fromApp([UInt8(truncatingIfNeeded: i)]) }
        #expect(m.retainedCapacity < 8_192)
        #expect(Self.dataSizes(Self.drain(&m)) == [1_000, 1_000, 1_000])
        // Acknowledged: the buffer lets the bytes go.
        _ = m.fromPeer(.ack(stream: 1, offset: 3_000, window: 4_096))
        #expect(m.retainedBytes == 0)
    }

    @Test func theReceiverAcksAsItDelivers() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        #expect(m.fromPeer(.data(stream: 1, offset: 0, bytes: Self.bytes(1_000))) == [.deliver(Self.bytes(1_000)[...])])
        // Less than a quarter of the window delivered: no ack yet; a quarter: an ack with the window.
        #expect(m.delivered(1_000).isEmpty)
        #expect(!m.wantsToSend)
        _ = m.fromPeer(.data(stream: 1, offset: 1_000, bytes: Self.bytes(24)))
        #expect(m.delivered(24).isEmpty)
        #expect(Self.drain(&m) == [.ack(stream: 1, offset: 1_024, window: 4_096)])
    }

    @Test func acksOwedManyTimesLeaveAsOneWithTheLatestFigures() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        for i in 0..<4 {
            _ = m.fromPeer(.data(stream: 1, offset: UInt64(i * 1_024), bytes: Self.bytes(1_024)))
            _ = m.delivered(1_024)
        }
        #expect(Self.drain(&m) == [.ack(stream: 1, offset: 4_096, window: 4_096)])
    }

    @Test func aResumeAfterALostSessionLosesAndRepeatsNothing() {
        var p = Pair()
        let data = Self.bytes(4_000)
        p.a.fromApp(data)
        p.flush()
        // Half of it reaches B; the session drops with the rest (and every ack) in flight.
        let delivered = Array(p.toB.prefix(2))
        p.toB = []
        for f in delivered { p.run(p.b.fromPeer(f), at: "b") }
        _ = Self.drain(&p.b)
        p.toA = []
        p.a.detach()
        p.b.detach()
        // More from A's app while detached: kept, not sent.
        p.a.fromApp(Self.bytes(100, seed: 3))
        #expect(p.a.nextOutgoing() == nil)
        p.a.attach()
        p.b.attach()
        p.settle()
        #expect(p.atB == data + Self.bytes(100, seed: 3))
        #expect(p.failures.isEmpty)
    }

    @Test func nothingIsSentAfterANewSessionUntilThePeerSaysWhereItStands() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        m.fromApp(Self.bytes(3_000))
        m.detach()
        m.attach()
        #expect(Self.drain(&m).allSatisfy { if case .data = $0 { false } else { true } })
        #expect(m.fromPeer(.resume(stream: 1, offset: 2_000)).isEmpty)
        #expect(Self.drain(&m) == [.data(stream: 1, offset: 2_000, bytes: Array(Self.bytes(3_000)[2_000...]))])
    }

    @Test func repeatedResumesOnOneSessionResetTheStreamAndCopyNothing() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        m.fromApp(Self.bytes(4_096))
        _ = Self.drain(&m)
        m.detach()
        m.attach()
        _ = Self.drain(&m)
        #expect(m.fromPeer(.resume(stream: 1, offset: 0)).isEmpty)
        // The resend is made only as the session asks for it: nothing was copied or queued.
        #expect(m.retainedBytes == 4_096)
        let again = m.fromPeer(.resume(stream: 1, offset: 0))
        #expect(again.contains { if case .failed(code: "stream-protocol", _) = $0 { true } else { false } })
        #expect(m.nextOutgoing() == nil)
    }

    @Test func aPeerThatLiesIsReset() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: 4_096)
        m.fromApp(Self.bytes(100))
        _ = Self.drain(&m)
        // Acknowledging bytes never sent.
        let lie = m.fromPeer(.ack(stream: 1, offset: 5_000, window: 4_096))
        #expect(lie.contains { if case .failed(code: "stream-protocol", _) = $0 { true } else { false } })
        #expect(lie.contains { if case .send(.reset) = $0 { true } else { false } })
        m.fromApp(Self.bytes(10))
        #expect(!m.wantsToSend)

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

    @Test func aDataFrameIsReadWhereItLiesAndOnlyItsNewBytesAreTaken() throws {
        let frame = StreamFrame.data(stream: 7, offset: 9, bytes: [1, 2, 3]).bytes
        let data = try #require(StreamFrame.data(in: frame[...]))
        #expect(data.stream == 7 && data.offset == 9 && Array(data.bytes) == [1, 2, 3])
        #expect(StreamFrame.data(in: StreamFrame.ack(stream: 7, offset: 1, window: 2).bytes) == nil)
        // A data frame without bytes is left to the decoder, which refuses it.
        #expect(StreamFrame.data(in: [1] + [UInt8](repeating: 0, count: 16)) == nil)

        var m = StreamMachine(id: 7, settings: Self.settings, peerWindow: 4_096)
        #expect(m.arrived(dataAt: 0, count: 10) == .new(skip: 0))
        #expect(m.arrived(dataAt: 5, count: 10) == .new(skip: 5))
        #expect(m.arrived(dataAt: 0, count: 3) == .repeated)
        #expect(m.received == 15)
        guard case .violated = m.arrived(dataAt: 20, count: 1) else {
            Issue.record("a gap was taken")
            return
        }
    }

    @Test func aHugeWindowIsCappedAtWhatWeRetain() {
        var m = StreamMachine(id: 1, settings: Self.settings, peerWindow: UInt64(UInt32.max))
        m.fromApp(Self.bytes(8_192))
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
