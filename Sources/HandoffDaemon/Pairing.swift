import Foundation
import HandoffAsync
import HandoffControl
import HandoffCore
import HandoffLink
import Logging
import ServiceLifecycle

/// Pairing from the control socket's side: `pair PEER` and `pair --accept` each end with a code
/// to compare, and `pair-confirm` with the outcome; `unpair` forgets a peer. `run()` hands each
/// pairing that arrives while the window is open to the oldest `pair --accept` waiting.
public actor Pairing: Service {
    private nonisolated let endpoint: LinkEndpoint
    private let peers: Peers
    private let activities: Activities
    private let events: ControlEvents
    private let logger: Logger
    /// Pairings showing their code, waiting for `pair-confirm` from the client that started them.
    private var pending: [String: (session: PairingSession, owner: ObjectIdentifier)] = [:]
    /// Where each pairing this machine started reached the other: dialled once it succeeds.
    private var dialAfterPairing: [String: PeerEndpoint] = [:]
    /// `pair --accept`s waiting for a machine to start pairing, each with its own deadline.
    private let accepts = Waiters<AcceptKey, PairingSession>()
    enum AcceptKey: Hashable { case incoming }

    init(endpoint: LinkEndpoint, peers: Peers, activities: Activities, events: ControlEvents, logger: Logger) {
        self.endpoint = endpoint
        self.peers = peers
        self.activities = activities
        self.events = events
        self.logger = logger
    }

    public func run() async throws {
        for await session in endpoint.pairingRequests.cancelOnGracefulShutdown() { arrived(session) }
        accepts.endAll()
        for p in pending.values { p.session.cancel() }
        pending = [:]
    }

    nonisolated var isLocked: Bool { endpoint.isPairingLocked }

    /// How many `pair --accept` are waiting now.
    var waitingAccepts: Int { accepts.count(.incoming) }

    /// `pair PEER`: starts pairing with a listed peer, or with the machine at an address
    /// (`host[:port]`, for one mDNS cannot list), whose window is open; returns the code to
    /// compare. The pairing waits for `pair-confirm` from the same client. An address is only
    /// where to ask: what is pinned is the key whose code both people compared.
    func start(with name: String, owner: ControlClient, defaultPort: Int) async throws(ControlError) -> PairingCode {
        let target: (name: String, address: PeerEndpoint)
        do throws(ControlError) {
            let peer = try await peers.resolveForPairing(name)
            guard let address = peer.address else {
                throw .failed(
                    code: "peer-unreachable",
                    message: "\(peer.name) is not listed on the network now; start handoffd there, or pair by address: `handoffctl pair HOST[:PORT]`")
            }
            target = (peer.name, PeerEndpoint(host: address.host, port: address.port))
        } catch {
            guard let address = PeerEndpoint(parsing: name, defaultPort: defaultPort) else { throw error }
            target = (address.description, address)
        }
        let session: PairingSession
        do { session = try await endpoint.pair(host: target.address.host, port: target.address.port) } catch {
            throw .failed(
                code: "pairing-failed",
                message: "pairing with \(target.name) failed: \(error). Run `handoffctl pair --accept` on \(target.name) first")
        }
        let code = try await showCode(session, owner: owner, name: session.peerName.isEmpty ? target.name : session.peerName)
        dialAfterPairing[code.pairing] = target.address
        return code
    }

    /// `pair --accept`: opens the window and waits for a peer to start pairing. Each accept waits
    /// for its own outcome: a pairing handed to it, or the end of its own time.
    func accept(owner: ControlClient, timeout: Duration) async throws(ControlError) -> PairingCode {
        if endpoint.isPairingLocked {
            throw .failed(code: "pairing-locked", message: "pairing is locked for 5 minutes after three failed attempts; try again later")
        }
        endpoint.openPairingWindow()
        // The pairing advert (this machine's name) is out only while the window is open.
        await activities.pairingWindowChanged()
        let outcome = await accepts.wait(for: .incoming, owner: owner.key, deadline: timeout)
        await activities.pairingWindowChanged()
        guard case .value(let session) = outcome else {
            if accepts.count(.incoming) == 0 {
                endpoint.closePairingWindow()
                await activities.pairingWindowChanged()
            }
            if case .ended = outcome {
                throw .failed(
                    code: "pairing-window-closed",
                    message: "the pairing window closed (a pairing failed, or handoffd is stopping); run `handoffctl pair --accept` again")
            }
            throw .failed(
                code: "pairing-timeout",
                message: "no machine started pairing within \(timeout); run `handoffctl pair <this machine>` on the other one")
        }
        return try await showCode(session, owner: owner, name: session.peerName)
    }

    private func showCode(_ session: PairingSession, owner: ControlClient, name: String) async throws(ControlError) -> PairingCode {
        let code: String
        do { code = try await session.code() } catch {
            throw .failed(code: "pairing-failed", message: "pairing with \(name) failed before a code was shown: \(error)")
        }
        let id = UUID().uuidString
        pending[id] = (session, owner.key)
        return PairingCode(pairing: id, code: code, peer: name, fingerprint: session.peer.fingerprint)
    }

    /// `pair-confirm`: the person compared the codes. Waits for both sides' decisions.
    func confirm(_ id: String, accept: Bool) async throws(ControlError) -> PeerIdentityInfo {
        guard let p = pending.removeValue(forKey: id) else {
            throw .failed(code: "not-found", message: "no pairing \(id) is waiting; start again with `handoffctl pair`")
        }
        if accept { p.session.confirm() } else { p.session.reject() }
        let outcome = await p.session.outcome()
        afterPairing(succeeded: (try? outcome.get()) != nil)
        await activities.pairingWindowChanged()
        let address = dialAfterPairing.removeValue(forKey: id)
        switch outcome {
        case .success(let trusted):
            await peers.paired(trusted.identity, at: address)
            logger.notice("paired", metadata: ["peer.id": "\(trusted.identity.fingerprint)", "peer.name": "\(trusted.name)"])
            events.broadcast("paired", ["peer": .string(trusted.name), "fingerprint": .string(trusted.identity.fingerprint)])
            return PeerIdentityInfo(peer: trusted.name, fingerprint: trusted.identity.fingerprint)
        case .failure(let error):
            throw .failed(code: "pairing-failed", message: "pairing did not complete: \(error)")
        }
    }

    func unpair(_ name: String) async throws(ControlError) -> PeerIdentityInfo {
        let peer = try await peers.resolve(name)
        guard let trusted = peer.trusted else { throw .failed(code: "not-paired", message: "\(peer.name) is not paired") }
        let key: AdvertisingKey
        do { key = try await endpoint.unpair(trusted.identity) } catch {
            throw .failed(code: "store-failed", message: "could not forget \(peer.name): \(error); nothing changed")
        }
        await peers.forget(trusted.identity)
        // Tokens in the TXT are now sealed with the new key.
        await activities.rekeyed()
        return PeerIdentityInfo(peer: trusted.name, fingerprint: trusted.identity.fingerprint, advertisingGeneration: Int64(key.generation))
    }

    /// The client that started pairings left: they end.
    func clientLeft(_ client: ControlClient) {
        accepts.end(owner: client.key)
        for (id, p) in pending where p.owner == client.key {
            p.session.cancel()
            pending[id] = nil
            dialAfterPairing[id] = nil
        }
    }

    /// A pairing ended, which closed the window. Other `pair --accept`s still waiting get it
    /// reopened after a success; after a failure it stays closed (one guess per window a person
    /// opens) and they end, saying so.
    private func afterPairing(succeeded: Bool) {
        // With no accept waiting the window is shut now, not when the link finishes the pairing,
        // so that the pairing advert goes at once.
        guard accepts.count(.incoming) > 0 else { return endpoint.closePairingWindow() }
        if succeeded { endpoint.openPairingWindow() } else { accepts.endAll() }
    }

    /// A machine started pairing while the window was open. It goes to the oldest waiting
    /// `pair --accept`; with none waiting it is stopped, never kept for a later accept (where
    /// the person would see a stranger's attempt as the one they expect).
    private func arrived(_ session: PairingSession) {
        guard accepts.resumeOldest(.incoming, with: session) else {
            logger.notice("a pairing attempt arrived with no `pair --accept` waiting; stopped", metadata: ["peer.id": "\(session.peer.fingerprint)"])
            session.cancel()
            return
        }
    }
}
