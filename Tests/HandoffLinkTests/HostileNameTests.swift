import Foundation
import HandoffCore
import Testing
@testable import HandoffLink

/// The initiator's name was taken as any UTF-8 up to ~65 KB and printed before
/// the code; a man in the middle could draw a fake fingerprint and code with it.
@Suite struct HostileNameTests {
    let alice = IdentityKey(), bob = IdentityKey()

    func pairing(initiatorName: String) -> Wire {
        let policy = { (refusal: PairingRefusal?) in
            LinkHandshakeMachine.Policy(isPinned: { _ in false }, expectedPeer: nil, pairingRefusal: { refusal })
        }
        var w = Wire(
            initiator: .init(role: .initiator, mode: .pairing, identity: alice, localName: initiatorName, policy: policy(.notAccepting)),
            responder: .init(role: .responder, identity: bob, localName: "Bob's desk", policy: policy(nil)))
        w.run()
        return w
    }

    static let hostile = [
        "A-laptop (fingerprint 1234-5678)\r\nCode: 123456\r\n\u{1B}[8m",
        "evil\u{9B}2J",  // C1 CSI
        "A\u{202E}potpal",  // bidi override
        "line\u{2028}break",
        String(repeating: "x", count: 64),
        ""
    ]

    @Test(arguments: hostile)
    func aPairingNameWithControlsOrTooLongIsRefused(_ name: String) {
        let w = pairing(initiatorName: name)
        #expect(established(w.responderResult) == nil)
        guard case .pairing(.protocolError(let why))? = failure(w.responderResult) else {
            Issue.record("expected a refusal, got \(String(describing: w.responderResult))")
            return
        }
        #expect(why.contains("name"))
    }

    @Test func aPlainNameIsAccepted() throws {
        let w = pairing(initiatorName: "Alice’s laptop 🦅")
        #expect(try #require(established(w.responderResult)).peerName == "Alice’s laptop 🦅")
    }

    @Test func terminalSafeShowsEveryControl() {
        let s = "a\u{1B}[8m\r\n\u{9B}\u{202E}\u{7F}b"
        let safe = s.terminalSafe
        let clean = !safe.unicodeScalars.contains { $0.isDisplayControl }
        #expect(clean)
        #expect(safe == #"a\u{1B}[8m\u{D}\u{A}\u{9B}\u{202E}\u{7F}b"#)
        #expect("Alice’s laptop 🦅".terminalSafe == "Alice’s laptop 🦅")
    }
}
