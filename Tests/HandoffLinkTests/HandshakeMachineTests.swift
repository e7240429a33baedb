import Foundation
import NIOCore
import Testing
@testable import HandoffLink

/// Runs two handshake machines against each other in memory, counting the bytes each sends.
struct Wire {
    var initiator: LinkHandshakeMachine
    var responder: LinkHandshakeMachine
    var initiatorResult: LinkHandshakeMachine.Output?
    var responderResult: LinkHandshakeMachine.Output?
    var framesToResponder = 0, framesToInitiator = 0

    mutating func run() {
        var toResponder: [[UInt8]] = [], toInitiator: [[UInt8]] = []
        func absorb(_ outs: [LinkHandshakeMachine.Output], into queue: inout [[UInt8]], result: inout LinkHandshakeMachine.Output?) {
            for o in outs {
                switch o {
                case .send(let bytes): queue.append(bytes)
                case .established, .failed: result = o
                }
            }
        }
        absorb(initiator.start(), into: &toResponder, result: &initiatorResult)
        while !toResponder.isEmpty || !toInitiator.isEmpty {
            if !toResponder.isEmpty {
                let f = toResponder.removeFirst()
                framesToResponder += 1
                absorb(responder.receive(f), into: &toInitiator, result: &responderResult)
            }
            if !toInitiator.isEmpty {
                let f = toInitiator.removeFirst()
                framesToInitiator += 1
                absorb(initiator.receive(f), into: &toResponder, result: &initiatorResult)
            }
        }
    }
}

func established(_ o: LinkHandshakeMachine.Output?) -> LinkHandshakeMachine.Established? {
    if case .established(let e)? = o { return e }
    return nil
}

func failure(_ o: LinkHandshakeMachine.Output?) -> LinkError? {
    if case .failed(let e)? = o { return e }
    return nil
}

@Suite struct HandshakeMachineTests {
    let alice = IdentityKey(), bob = IdentityKey(), mallory = IdentityKey()

    func policy(trusting keys: [IdentityKey], expected: IdentityKey? = nil, pairing: PairingRefusal? = .notAccepting) -> LinkHandshakeMachine.Policy {
        let ids = Set(keys.map(\.identity))
        return .init(isPinned: { ids.contains($0) }, expectedPeer: expected?.identity, pairingRefusal: { pairing })
    }

    @Test func pairedPeersEstablishASession() throws {
        var w = Wire(
            initiator: .init(role: .initiator, identity: alice, localName: "a", policy: policy(trusting: [bob], expected: bob)),
            responder: .init(role: .responder, identity: bob, localName: "b", policy: policy(trusting: [alice])))
        w.run()
        let i = try #require(established(w.initiatorResult)), r = try #require(established(w.responderResult))
        #expect(i.peer == bob.identity && r.peer == alice.identity)
        #expect(i.handshakeHash == r.handshakeHash)
        #expect(i.peerName == nil && r.peerName == nil)
        var it = i.transport, rt = r.transport
        #expect(try rt.decrypt(try it.encrypt(Array("hello".utf8))) == Array("hello".utf8))
    }

    @Test func unpairedInitiatorIsRefusedBeforeAnyApplicationByte() {
        var w = Wire(
            initiator: .init(role: .initiator, identity: mallory, localName: "m", policy: policy(trusting: [bob])),
            responder: .init(role: .responder, identity: bob, localName: "b", policy: policy(trusting: [alice])))
        w.run()
        #expect(failure(w.responderResult) == .peerNotPaired(fingerprint: mallory.identity.fingerprint))
        // Preamble, message 1, message 3 to the responder; message 2 back. Nothing after.
        #expect(w.framesToResponder == 3 && w.framesToInitiator == 1)
    }

    @Test func unpairedResponderIsRefusedAndMessageThreeIsNeverSent() {
        var w = Wire(
            initiator: .init(role: .initiator, identity: alice, localName: "a", policy: policy(trusting: [bob])),
            responder: .init(role: .responder, identity: mallory, localName: "m", policy: policy(trusting: [alice])))
        w.run()
        #expect(failure(w.initiatorResult) == .peerNotPaired(fingerprint: mallory.identity.fingerprint))
        #expect(w.framesToResponder == 2)
        #expect(w.responderResult == nil)
    }

    @Test func anUnpairedPeerIsToldDuringTheHandshake() {
        let responderPolicy = LinkHandshakeMachine.Policy(trust: { $0 == alice.identity ? .unpairedNotTold : .unknown })
        var w = Wire(
            initiator: .init(role: .initiator, identity: alice, localName: "a", policy: policy(trusting: [bob])),
            responder: .init(role: .responder, identity: bob, localName: "b", policy: responderPolicy))
        w.run()
        #expect(failure(w.initiatorResult) == .unpairedByPeer(bob.identity))
        #expect(failure(w.responderResult) == .unpairNoticeDelivered(alice.identity))
    }

    @Test func wrongPeerAtTheAddressIsRefused() {
        let carol = IdentityKey()
        var w = Wire(
            initiator: .init(role: .initiator, identity: alice, localName: "a", policy: policy(trusting: [bob, carol], expected: bob)),
            responder: .init(role: .responder, identity: carol, localName: "c", policy: policy(trusting: [alice])))
        w.run()
        #expect(failure(w.initiatorResult) == .unexpectedPeer(expected: bob.identity.fingerprint, got: carol.identity.fingerprint))
    }

    @Test func pairingModeCarriesNamesAndSkipsPinning() throws {
        var w = Wire(
            initiator: .init(role: .initiator, mode: .pairing, identity: alice, localName: "Alice's laptop", policy: policy(trusting: [])),
            responder: .init(role: .responder, identity: bob, localName: "Bob's desk", policy: policy(trusting: [], pairing: nil)))
        w.run()
        #expect(try #require(established(w.initiatorResult)).peerName == "Bob's desk")
        #expect(try #require(established(w.responderResult)).peerName == "Alice's laptop")
    }

    @Test func pairingRefusedWhenTheWindowIsClosed() {
        for refusal in [PairingRefusal.notAccepting, .busy, .lockedOut] {
            var w = Wire(
                initiator: .init(role: .initiator, mode: .pairing, identity: alice, localName: "a", policy: policy(trusting: [])),
                responder: .init(role: .responder, identity: bob, localName: "b", policy: policy(trusting: [], pairing: refusal)))
            w.run()
            #expect(failure(w.initiatorResult) == .refused(refusal))
            #expect(failure(w.responderResult) == .refused(refusal))
        }
    }

    @Test func badPreambleAndVersion() {
        var r = LinkHandshakeMachine(role: .responder, identity: bob, localName: "b", policy: policy(trusting: []))
        if case .failed(let e)? = r.receive(Array("GET / HTTP/1.1".utf8)).first { #expect(e == .badPreamble) } else { Issue.record("no failure") }
        var r2 = LinkHandshakeMachine(role: .responder, identity: bob, localName: "b", policy: policy(trusting: []))
        if case .failed(let e)? = r2.receive(LinkPreamble.magic + [9, 1]).first {
            #expect(e == .unsupportedVersion(9))
        } else {
            Issue.record("no failure")
        }
    }

    @Test func tamperedPreambleBreaksTheHandshake() {
        // A man in the middle turns a pairing preamble into a session one: the prologues differ.
        var i = LinkHandshakeMachine(role: .initiator, mode: .pairing, identity: alice, localName: "a", policy: policy(trusting: [bob]))
        var r = LinkHandshakeMachine(role: .responder, identity: bob, localName: "b", policy: policy(trusting: [alice]))
        let out = i.start()
        guard case .send = out[0], case .send(let m1) = out[1] else {
            Issue.record("no start")
            return
        }
        _ = r.receive(LinkPreamble(mode: .session).bytes)
        guard case .send(let m2)? = r.receive(m1).first else {
            Issue.record("no message 2")
            return
        }
        guard case .failed(let e)? = i.receive(m2).first else {
            Issue.record("accepted a tampered prologue")
            return
        }
        #expect(e == .noise(.decryptFailed))
    }
}

@Suite struct NoiseSafetyTests {
    @Test func zeroAndLowOrderKeysAreRejected() {
        let me = X25519.PrivateKey()
        #expect(throws: NoiseError.self) { try X25519.dh(me, [UInt8](repeating: 0, count: 32)) }
        // Points of small order on Curve25519 (they force an all-zero shared secret).
        let lowOrder: [String] = [
            "0100000000000000000000000000000000000000000000000000000000000000",
            "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
            "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"
        ]
        for hex in lowOrder {
            #expect(throws: NoiseError.self, "\(hex)") { try X25519.dh(me, hex.hexBytes) }
        }
        #expect(throws: NoiseError.self) { try X25519.dh(me, [1, 2, 3]) }
    }

    @Test func lowOrderEphemeralInMessageOneIsRefused() {
        var r = LinkHandshakeMachine(role: .responder, identity: IdentityKey(), localName: "b", policy: .init(isPinned: { _ in true }))
        _ = r.receive(LinkPreamble(mode: .session).bytes)
        guard case .failed(let e)? = r.receive([UInt8](repeating: 0, count: 32)).first else {
            Issue.record("accepted a zero key")
            return
        }
        #expect(e == .noise(.invalidPublicKey("it is all zeros")))
    }

    func pair() throws -> (NoiseTransport, NoiseTransport) {
        let a = IdentityKey(), b = IdentityKey()
        var w = Wire(
            initiator: .init(role: .initiator, identity: a, localName: "a", policy: .init(isPinned: { _ in true })),
            responder: .init(role: .responder, identity: b, localName: "b", policy: .init(isPinned: { _ in true })))
        w.run()
        return (try #require(established(w.initiatorResult)).transport, try #require(established(w.responderResult)).transport)
    }

    @Test func replayedFrameIsRejected() throws {
        var (a, b) = try pair()
        let f1 = try a.encrypt([1]), f2 = try a.encrypt([2])
        #expect(try b.decrypt(f1) == [1])
        #expect(throws: NoiseError.decryptFailed) { try b.decrypt(f1) }
        // A refused frame does not advance the counter: the genuine next frame still opens.
        #expect(try b.decrypt(f2) == [2])
    }

    /// The session's path (NIO buffers): the same refusals, and the counter moves only on success.
    @Test func buffersRejectReplayedAndForgedFrames() throws {
        var (a, b) = try pair()
        let allocator = ByteBufferAllocator()
        let f1 = try a.seal(allocator.buffer(bytes: [1]), allocator: allocator)
        var f2 = try a.seal(allocator.buffer(bytes: [2]), allocator: allocator)
        #expect(Array(buffer: try b.open(f1, allocator: allocator)) == [1])
        #expect(throws: NoiseError.decryptFailed) { try b.open(f1, allocator: allocator) }
        var forged = f2
        forged.setInteger(forged.getInteger(at: 0, as: UInt8.self)! ^ 1, at: 0)
        #expect(throws: NoiseError.decryptFailed) { try b.open(forged, allocator: allocator) }
        #expect(throws: NoiseError.decryptFailed) { try b.open(allocator.buffer(bytes: [1, 2, 3]), allocator: allocator) }
        #expect(Array(buffer: try b.open(f2, allocator: allocator)) == [2])
        // What the [UInt8] path seals, the buffer path opens, and back.
        #expect(Array(buffer: try b.open(allocator.buffer(bytes: try a.encrypt([3])), allocator: allocator)) == [3])
        f2 = try a.seal(allocator.buffer(bytes: [4]), allocator: allocator)
        #expect(try b.decrypt(Array(buffer: f2)) == [4])
        #expect(throws: NoiseError.messageTooLong(NoiseHandshake.maxMessage + 1)) {
            try a.seal(allocator.buffer(bytes: [UInt8](repeating: 0, count: NoiseHandshake.maxMessage - 15)), allocator: allocator)
        }
    }

    @Test func bitFlippedFrameIsRejected() throws {
        var (a, b) = try pair()
        var f = try a.encrypt(Array("pay me".utf8))
        f[2] ^= 0x01
        #expect(throws: NoiseError.decryptFailed) { try b.decrypt(f) }
        var t = try a.encrypt([9])
        t[t.count - 1] ^= 0x80
        #expect(throws: NoiseError.decryptFailed) { try b.decrypt(t) }
    }

    @Test func noncesNeverRepeat() throws {
        var (a, _) = try pair()
        let frames = try (0..<100).map { _ in try a.encrypt([0]) }
        #expect(Set(frames.map { $0 }).count == 100)
    }
}
