import HandoffCore
/// The link handshake as a pure state machine: preamble, then Noise XX. In session mode each
/// side checks the other's static key against the trust store as soon as it learns it, and stops
/// before any application byte moves if the key is not pinned. In pairing mode the keys are not
/// checked (they are about to be pinned) and the Noise payloads carry the device names.
public struct LinkHandshakeMachine: Sendable {
    public enum Output: Sendable {
        case send([UInt8])
        case established(Established)
        case failed(LinkError)
    }

    public struct Established: Sendable {
        public let transport: NoiseTransport
        public let peer: PeerIdentity
        public let peerName: String?
        public let handshakeHash: [UInt8]
        public let mode: LinkMode
    }

    /// What the trust store says of a key.
    public enum PeerTrust: Sendable {
        case pinned
        /// We unpaired it and have not told it yet: a responder lets its handshake through only to
        /// say so.
        case unpairedNotTold
        case unknown
    }

    public struct Policy: Sendable {
        /// What do we know of this key? (session mode)
        public var trust: @Sendable (PeerIdentity) -> PeerTrust
        /// The initiator's expectation of whom it is calling, if any.
        public var expectedPeer: PeerIdentity?
        /// Responder, pairing mode: nil to accept, or why not.
        public var pairingRefusal: @Sendable () -> PairingRefusal?

        public init(
            trust: @escaping @Sendable (PeerIdentity) -> PeerTrust, expectedPeer: PeerIdentity? = nil,
            pairingRefusal: @escaping @Sendable () -> PairingRefusal? = { .notAccepting }
        ) {
            self.trust = trust
            self.expectedPeer = expectedPeer
            self.pairingRefusal = pairingRefusal
        }

        public init(
            isPinned: @escaping @Sendable (PeerIdentity) -> Bool, expectedPeer: PeerIdentity? = nil,
            pairingRefusal: @escaping @Sendable () -> PairingRefusal? = { .notAccepting }
        ) {
            self.init(trust: { isPinned($0) ? .pinned : .unknown }, expectedPeer: expectedPeer, pairingRefusal: pairingRefusal)
        }
    }

    /// Each state holds what it works with: the Noise handshake and the link's mode while the
    /// handshake runs (a responder learns the mode from the preamble), the finished session while
    /// an initiator waits for the responder's acceptance.
    private enum State {
        case idle
        case awaitingPreamble
        case handshaking(NoiseHandshake, LinkMode)
        case awaitingAccept(Established)
        case done
    }

    /// The responder's first transport message: it has checked our key and accepts the session.
    /// In XX the initiator finishes before the responder has seen its key; without this, a refused
    /// initiator would believe it had a session.
    static let accepted: [UInt8] = [0x01]
    /// Sent instead of `accepted` to a peer we unpaired and had not told yet.
    static let unpairedYou: [UInt8] = [0x02]

    private let role: NoiseHandshake.Role
    private let identity: IdentityKey
    private let localName: String
    private let policy: Policy
    /// The mode an initiator asks for in its preamble.
    private let requestedMode: LinkMode
    private var state: State

    public init(role: NoiseHandshake.Role, mode: LinkMode = .session, identity: IdentityKey, localName: String, policy: Policy) {
        self.role = role
        requestedMode = mode
        self.identity = identity
        self.localName = localName
        self.policy = policy
        state = role == .initiator ? .idle : .awaitingPreamble
    }

    public var isDone: Bool { if case .done = state { true } else { false } }

    /// Initiator only: the preamble and the first Noise message.
    public mutating func start() -> [Output] {
        guard role == .initiator, case .idle = state else { return [] }
        let preamble = LinkPreamble(mode: requestedMode)
        var hs = NoiseHandshake(role: .initiator, prologue: preamble.bytes, staticKey: identity.privateKey)
        do throws(NoiseError) {
            let m1 = try hs.writeMessage()
            state = .handshaking(hs, requestedMode)
            return [.send(preamble.bytes), .send(m1)]
        } catch {
            return fail(.noise(error))
        }
    }

    public mutating func receive(_ frame: [UInt8]) -> [Output] {
        switch state {
        case .done:
            // Already decided; the connection is being closed, late frames change nothing.
            return []
        case .idle:
            return fail(.noise(.outOfOrder("unexpected frame")))
        case .awaitingPreamble:
            let preamble: LinkPreamble
            do throws(LinkError) { preamble = try LinkPreamble(parsing: frame) } catch { return fail(error) }
            if preamble.mode == .pairing, let refusal = policy.pairingRefusal() {
                state = .done
                return [.send(refusal.frame), .failed(.refused(refusal))]
            }
            state = .handshaking(NoiseHandshake(role: .responder, prologue: preamble.bytes, staticKey: identity.privateKey), preamble.mode)
            return []
        case .handshaking(var hs, let mode):
            if role == .initiator, frame.count == 2, frame[0] == PairingRefusal.marker {
                return fail(.refused(PairingRefusal(rawValue: frame[1]) ?? .notAccepting))
            }
            do throws(LinkError) { return try step(frame, &hs, mode) } catch { return fail(error) }
        case .awaitingAccept(let e):
            var transport = e.transport
            do throws(NoiseError) {
                let answer = try transport.decrypt(frame)
                if answer == Self.unpairedYou { return fail(.unpairedByPeer(e.peer)) }
                guard answer == Self.accepted else { return fail(.noise(.malformedMessage("no acceptance"))) }
            } catch {
                return fail(.noise(error))
            }
            state = .done
            return [.established(Established(transport: transport, peer: e.peer, peerName: e.peerName, handshakeHash: e.handshakeHash, mode: e.mode))]
        }
    }

    /// One Noise message in `mode`; the state moves on from `.handshaking` with the handshake
    /// as it now is, or to the state the message finishes it in.
    private mutating func step(_ frame: [UInt8], _ hs: inout NoiseHandshake, _ mode: LinkMode) throws(LinkError) -> [Output] {
        let payload: [UInt8]
        do throws(NoiseError) { payload = try hs.readMessage(frame) } catch { throw .noise(error) }
        let names = mode == .pairing ? Array(localName.utf8) : []
        switch (role, hs.step) {
        case (.responder, 1):
            let m2: [UInt8]
            do throws(NoiseError) { m2 = try hs.writeMessage(payload: names) } catch { throw .noise(error) }
            state = .handshaking(hs, mode)
            return [.send(m2)]
        case (.initiator, 2):
            let peer = try check(hs.remoteStatic, mode)
            let m3: [UInt8]
            do throws(NoiseError) { m3 = try hs.writeMessage(payload: names) } catch { throw .noise(error) }
            state = .awaitingAccept(try established(hs, mode, peer: peer, peerName: payload))
            return [.send(m3)]
        case (.responder, 3):
            guard let remote = hs.remoteStatic else { throw .noise(.malformedMessage("no static key")) }
            if mode == .session, policy.trust(PeerIdentity(publicKey: remote)) == .unpairedNotTold {
                // Authenticated, so the notice cannot be forged or replayed to someone else.
                var transport = try established(hs, mode, peer: PeerIdentity(publicKey: remote), peerName: []).transport
                let notice: [UInt8]
                do throws(NoiseError) { notice = try transport.encrypt(Self.unpairedYou) } catch { throw .noise(error) }
                state = .done
                return [.send(notice), .failed(.unpairNoticeDelivered(PeerIdentity(publicKey: remote)))]
            }
            let peer = try check(hs.remoteStatic, mode)
            var e = try established(hs, mode, peer: peer, peerName: payload)
            var transport = e.transport
            let accept: [UInt8]
            do throws(NoiseError) { accept = try transport.encrypt(Self.accepted) } catch { throw .noise(error) }
            e = Established(transport: transport, peer: e.peer, peerName: e.peerName, handshakeHash: e.handshakeHash, mode: e.mode)
            state = .done
            return [.send(accept), .established(e)]
        default:
            throw .noise(.outOfOrder("handshake step \(hs.step)"))
        }
    }

    /// Session mode: the key must be pinned (and be the one we called). Pairing: anything.
    private func check(_ remote: [UInt8]?, _ mode: LinkMode) throws(LinkError) -> PeerIdentity {
        guard let remote else { throw .noise(.malformedMessage("no static key")) }
        let peer = PeerIdentity(publicKey: remote)
        if let expected = policy.expectedPeer, expected != peer {
            throw .unexpectedPeer(expected: expected.fingerprint, got: peer.fingerprint)
        }
        if mode == .session, policy.trust(peer) != .pinned { throw .peerNotPaired(fingerprint: peer.fingerprint) }
        return peer
    }

    private func established(_ hs: NoiseHandshake, _ mode: LinkMode, peer: PeerIdentity, peerName: [UInt8]) throws(LinkError) -> Established {
        let transport: NoiseTransport
        do throws(NoiseError) { transport = try hs.split() } catch { throw .noise(error) }
        var name: String?
        if mode == .pairing {
            // The name is shown beside the code the user compares: it must be a plain device
            // name, or a man in the middle could draw a fake fingerprint and code with it.
            guard let text = String(validating: peerName, as: UTF8.self) else {
                throw .pairing(.protocolError("the other machine's name is not UTF-8"))
            }
            if let why = DeviceName.problem(text) { throw .pairing(.protocolError("the other machine's name \(why)")) }
            name = text
        }
        return Established(transport: transport, peer: peer, peerName: name, handshakeHash: hs.handshakeHash, mode: mode)
    }

    private mutating func fail(_ error: LinkError) -> [Output] {
        state = .done
        return [.failed(error)]
    }
}
