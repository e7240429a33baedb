import Foundation
import HandoffAdvert
import Testing
@testable import HandoffLink

/// Runs a pairing handshake and then the pairing exchange, both in memory.
struct PairingRun {
    var i: PairingMachine
    var r: PairingMachine
    var iOut: [PairingMachine.Output] = []
    var rOut: [PairingMachine.Output] = []

    init(initiatorHash: [UInt8], responderHash: [UInt8]) {
        i = PairingMachine(role: .initiator, handshakeHash: initiatorHash)
        r = PairingMachine(role: .responder, handshakeHash: responderHash)
    }

    /// Delivers messages until both sides are quiet.
    mutating func pump(_ first: [PairingMachine.Output], fromInitiator: Bool) {
        var queue: [(Bool, [UInt8])] = []
        func absorb(_ outs: [PairingMachine.Output], fromI: Bool) {
            for o in outs { if case .send(let b) = o { queue.append((fromI, b)) } }
            if fromI { iOut += outs } else { rOut += outs }
        }
        absorb(first, fromI: fromInitiator)
        while !queue.isEmpty {
            let (fromI, bytes) = queue.removeFirst()
            if fromI { absorb(r.receive(bytes), fromI: false) } else { absorb(i.receive(bytes), fromI: true) }
        }
    }
}

func code(_ outs: [PairingMachine.Output]) -> String? {
    for case .showCode(let c) in outs { return c }
    return nil
}

@Suite struct PairingTests {
    let h = [UInt8](repeating: 7, count: 32)

    @Test func bothSidesShowTheSameCodeAndPinOnlyAfterBothConfirm() {
        var run = PairingRun(initiatorHash: h, responderHash: h)
        run.pump(run.i.start(), fromInitiator: true)
        let ci = code(run.iOut), cr = code(run.rOut)
        #expect(ci != nil && ci == cr && ci?.count == 6 && ci!.allSatisfy(\.isNumber))
        run.pump(run.i.confirm(), fromInitiator: true)
        #expect(!run.iOut.contains(.pinned) && !run.rOut.contains(.pinned))
        run.pump(run.r.confirm(), fromInitiator: false)
        #expect(run.iOut.contains(.pinned) && run.rOut.contains(.pinned))
    }

    @Test func aManInTheMiddleGetsDifferentCodes() {
        // Two handshakes (A-M and M-B) have different hashes: each leg computes its own code.
        var codesMatched = 0
        for n in 0..<50 {
            var left = PairingRun(initiatorHash: h, responderHash: h)
            let other = [UInt8](repeating: UInt8(n), count: 31) + [0xAA]
            var right = PairingRun(initiatorHash: other, responderHash: other)
            left.pump(left.i.start(), fromInitiator: true)
            right.pump(right.i.start(), fromInitiator: true)
            if code(left.iOut) == code(right.rOut) { codesMatched += 1 }
        }
        #expect(codesMatched == 0)
    }

    @Test func rejectionStoresNothingAndTellsThePeer() {
        var run = PairingRun(initiatorHash: h, responderHash: h)
        run.pump(run.i.start(), fromInitiator: true)
        run.pump(run.r.abort(.rejectedHere), fromInitiator: false)
        #expect(run.rOut.contains(.failed(.rejectedHere)))
        #expect(run.iOut.contains(.failed(.rejectedByPeer)))
        #expect(!run.iOut.contains(.pinned) && !run.rOut.contains(.pinned))
        // A late confirm changes nothing.
        #expect(run.i.confirm().isEmpty)
    }

    @Test func timeoutAndCancelAndSecondAttemptReachBothSides() {
        for reason in [PairingFailure.timedOut, .cancelled, .anotherAttempt] {
            var run = PairingRun(initiatorHash: h, responderHash: h)
            run.pump(run.i.start(), fromInitiator: true)
            run.pump(run.i.abort(reason), fromInitiator: true)
            #expect(run.iOut.contains(.failed(reason)))
            #expect(run.rOut.contains(.failed(reason)))
        }
    }

    @Test func changedRevealIsCaught() {
        var r = PairingMachine(role: .responder, handshakeHash: h)
        let committed = [UInt8](repeating: 1, count: 16)
        _ = r.receive([1] + PairingMachine.commitment(h, committed))
        let out = r.receive([3] + [UInt8](repeating: 2, count: 16))
        #expect(out.contains(.failed(.commitMismatch)))
        #expect(code(out) == nil)
    }

    @Test func confirmBeforeTheCodeIsIgnored() {
        var r = PairingMachine(role: .responder, handshakeHash: h)
        #expect(r.confirm().isEmpty)
        #expect(r.receive([4]).contains(.failed(.protocolError("unexpected message confirm in state awaitingCommit"))))
    }

    @Test func lockoutAfterThreeFailuresForFiveMinutes() {
        var l = PairingLockout()
        let t0 = Date(timeIntervalSinceReferenceDate: 0)
        l.recordFailure(at: t0)
        l.recordFailure(at: t0)
        #expect(!l.isLocked(at: t0))
        l.recordFailure(at: t0)
        #expect(l.isLocked(at: t0.addingTimeInterval(299)))
        #expect(!l.isLocked(at: t0.addingTimeInterval(300)))
        var s = PairingLockout()
        s.recordFailure(at: t0)
        s.recordFailure(at: t0)
        s.recordSuccess()
        s.recordFailure(at: t0)
        #expect(!s.isLocked(at: t0))
    }
}

@Suite struct ConnectionLimiterTests {
    @Test func limitsAndExemption() {
        var l = ConnectionLimiter()
        #expect(l.admit(source: "a", isKnownPeerAddress: false) == .counted)
        #expect(l.admit(source: "a", isKnownPeerAddress: false) == .counted)
        #expect(l.admit(source: "a", isKnownPeerAddress: false) == .refused)
        for s in ["b", "b", "c", "c", "d", "d"] { #expect(l.admit(source: s, isKnownPeerAddress: false) == .counted) }
        #expect(l.unauthenticated == 8)
        #expect(l.admit(source: "e", isKnownPeerAddress: false) == .refused)
        #expect(l.admit(source: "peer", isKnownPeerAddress: true) == .exempt)
        l.release(source: "a")
        #expect(l.admit(source: "e", isKnownPeerAddress: false) == .counted)
        l.release(source: "zzz")
        #expect(l.unauthenticated == 8)
    }
}

@Suite struct AdvertisingKeyTests {
    @Test func sealedTokensOpenOnlyWithTheSameKey() {
        let k = AdvertisingKey.random(generation: 1)
        let token = [UInt8](repeating: 5, count: 24)
        let sealed = k.seal(token, salt: [UInt8](repeating: 247, count: 16), index: 2)
        #expect(sealed.count == 40)
        #expect(k.open(sealed, salt: [UInt8](repeating: 247, count: 16), index: 2) == token)
        #expect(k.open(sealed, salt: [UInt8](repeating: 248, count: 16), index: 2) == nil)
        #expect(k.open(sealed, salt: [UInt8](repeating: 247, count: 16), index: 3) == nil)
        let rotated = k.rotated()
        #expect(rotated.generation == 2 && rotated.key != k.key)
        #expect(rotated.open(sealed, salt: [UInt8](repeating: 247, count: 16), index: 2) == nil)
        #expect(
            k.open(rotated.seal(token, salt: [UInt8](repeating: 248, count: 16), index: 0), salt: [UInt8](repeating: 248, count: 16), index: 0) == nil
        )
    }
}
