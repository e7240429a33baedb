#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
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
    private var pending: [String: (session: PairingSession, owner: ObjectIdentifier, code: String)] = [:]
    /// Where each pairing this machine started reached the other: dialled once it succeeds.
    private var dialAfterPairing: [String: PeerEndpoint] = [:]
    /// `pair --accept`s waiting for a machine to start pairing, each with its own deadline.
    private let accepts = Waiters<AcceptKey, PairingSession>()
    /// Clients that opened the window with `pair --accept` and are still connected.
    private var windowOpeners: Set<ObjectIdentifier> = []
    enum AcceptKey: Hashable { case incoming }

    init(endpoint: LinkEndpoint, peers: Peers, activities: Activities, events: ControlEvents, logger: Logger) {
        self.endpoint = endpoint
        self.peers = peers
        self.activities = activities
        self.events = events
        self.logger = logger
    }

    public func run() async throws {
        let unpairings = endpoint.unpairedByPeer
        await withDiscardingTaskGroup { group in
            group.addTask { for await peer in unpairings.cancelOnGracefulShutdown() { await self.unpairedByPeer(peer) } }
            for await session in endpoint.pairingRequests.cancelOnGracefulShutdown() { arrived(session) }
            group.cancelAll()
        }
        accepts.endAll()
        for p in pending.values { p.session.cancel() }
        pending = [:]
    }

    /// Some address is locked out of pairing now (three failed attempts from it).
    nonisolated var isLocked: Bool { endpoint.lockedPairingSources > 0 }

    /// How many `pair --accept` are waiting now.
    var waitingAccepts: Int { accepts.count(.incoming) }

    /// `pair PEER`: starts pairing with a listed peer, or with the machine at an address
    /// (`host[:port]`, for one mDNS cannot list), whose window is open; returns the code to
    /// compare. The pairing waits for `pair-confirm` from the same client. An address is only
    /// where to ask: what is pinned is the key whose code both people compared.
    func start(with name: String, owner: ControlClient, defaultPort: Int) async throws(ControlError) -> PairingCode {
        let target: (name: String, address: PeerEndpoint)
        var listed = true
        do throws(ControlError) {
            let peer = try await peers.resolveForPairing(name)
            guard let address = peer.address else {
                throw .failed(
                    code: .peerUnreachable,
                    message: "\(peer.name) is not listed on the network now; start handoffd there, or pair by address: `handoffctl pair HOST[:PORT]`")
            }
            target = (peer.name, PeerEndpoint(host: address.host, port: address.port))
        } catch {
            guard let address = PeerEndpoint(parsing: name, defaultPort: defaultPort) else { throw error }
            target = (address.description, address)
            listed = false
        }
        let session: PairingSession
        do { session = try await endpoint.pair(host: target.address.host, port: target.address.port) } catch {
            // A name nobody lists and no resolver knows: most often a machine whose window is
            // not open (it is listed by name only while it waits).
            if !listed, !PeerEndpoint.isAddressLiteral(name), ConnectFailure.isUnresolvedName(error) {
                throw .failed(
                    code: .peerUnreachable,
                    message:
                        "no machine named \(name) has its pairing window open on this network: run `handoffctl pair --accept` on \(name) first (it waits 2 minutes), then pair again; on another network or over a VPN, give its address: `handoffctl pair HOST[:PORT]`"
                )
            }
            throw .failed(
                code: .pairingFailed,
                message: "pairing with \(target.name) failed: \(ConnectFailure.reason(error))")
        }
        let code = try await showCode(
            session, owner: owner, name: session.peerName.isEmpty ? target.name : session.peerName, address: target.address.description)
        dialAfterPairing[code.pairing] = target.address
        return code
    }

    /// `pair --accept`: opens the window and waits for a peer to start pairing. Each accept waits
    /// for its own outcome: a pairing handed to it, or the end of its own time.
    func accept(owner: ControlClient, timeout: Duration) async throws(ControlError) -> PairingCode {
        // Waiting before the window opens, and before this actor suspends: an attempt that
        // arrives while the pairing advert is published is this accept's, not stopped as one
        // with nobody waiting (a scripted `pair` right after `pair --accept` hit that).
        let ticket = accepts.register(.incoming, owner: owner.key, deadline: timeout)
        endpoint.openPairingWindow()
        windowOpeners.insert(owner.key)
        // The pairing advert (this machine's name) is out only while the window is open.
        await activities.pairingWindowChanged()
        let outcome = await accepts.wait(ticket)
        await activities.pairingWindowChanged()
        guard case .value(let session) = outcome else {
            if accepts.count(.incoming) == 0 {
                endpoint.closePairingWindow()
                await activities.pairingWindowChanged()
            }
            if case .ended = outcome {
                throw .failed(
                    code: .pairingWindowClosed,
                    message: "the pairing window closed (a pairing failed, or handoffd is stopping); run `handoffctl pair --accept` again")
            }
            throw .failed(
                code: .pairingTimeout,
                message: "no machine started pairing within \(timeout.spokenSeconds); run `handoffctl pair <this machine>` on the other one")
        }
        // The asker's host alone: the port its connection came from is an ephemeral one, not
        // where it listens.
        let host = session.remoteAddress.flatMap { PeerEndpoint(parsing: $0, defaultPort: 0)?.host }
        return try await showCode(session, owner: owner, name: session.peerName, address: host)
    }

    private func showCode(_ session: PairingSession, owner: ControlClient, name: String, address: String?) async throws(ControlError)
        -> PairingCode
    {
        let code: String
        do { code = try await session.code() } catch {
            throw .failed(code: .pairingFailed, message: "pairing with \(name) failed before a code was shown: \(ConnectFailure.reason(error))")
        }
        let id = UUID().canonicalString
        pending[id] = (session, owner.key, code)
        return PairingCode(pairing: id, code: code, peer: name, fingerprint: session.peer.fingerprint, address: address)
    }

    /// Whether the pairing `id` is over before its `pair-confirm` (or not waiting at all).
    func hasEnded(pairing id: String) -> Bool { pending[id]?.session.hasEnded ?? true }

    /// `pair-confirm`: the person compared the codes. Waits for both sides' decisions. With
    /// `code` (what the person read on the other machine), it confirms only if that is the code
    /// shown here: a stranger that answered first shows another.
    func confirm(_ id: String, accept: Bool, code typed: String? = nil) async throws(ControlError) -> PeerIdentityInfo {
        guard let p = pending.removeValue(forKey: id) else {
            throw .failed(code: .notFound, message: "no pairing \(id) is waiting; start again with `handoffctl pair`")
        }
        let differs = typed.map { PairingCodeMatch.normalised($0) != p.code } ?? false
        if accept && !differs { p.session.confirm() } else { p.session.reject() }
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
        case .failure(.pairing(let failure)) where differs && failure != .rejectedHere && failure != .rejectedByPeer:
            // The other machine ended the pairing before this code was compared (no `pair
            // --accept` waited there, it was cancelled, the link went): that, not the code.
            throw .failed(
                code: .pairingFailed,
                message: "pairing did not complete: \(failure). Run `handoffctl pair --accept` on the other machine, then pair again")
        case .failure(.pairing(.rejectedByPeer)) where !differs:
            // The person there typed another code (a typo, or a stranger answered here first):
            // this machine's window may wait for the next attempt.
            throw .failed(
                code: .refusedThere,
                message:
                    "the other machine refused this pairing (the code typed there was not \(p.code), or its person said no); nothing was stored. \(Self.lockoutNote)"
            )
        case .failure where differs:
            throw .failed(
                code: .codesDiffer,
                message:
                    "the code given (\(typed ?? "")) is not the one this machine shows (\(p.code)): another machine may have answered first; nothing was stored. Check the other machine and pair again. \(Self.lockoutNote)"
            )
        case .failure(let error):
            throw .failed(code: .pairingFailed, message: "pairing did not complete: \(error)")
        }
    }

    /// What a person meets after failed attempts (PairingCoordinator's lockout), said with each.
    static let lockoutNote =
        "After \(PairingLockout.maxFailures) failed attempts from one address, pairing from there is locked for \(Int(PairingLockout.duration / 60)) minutes."

    func unpair(_ name: String) async throws(ControlError) -> PeerIdentityInfo {
        let peer = try await peers.resolve(name)
        guard let trusted = peer.trusted else { throw .failed(code: .notPaired, message: "\(peer.name) is not paired") }
        let key: AdvertisingKey
        do { key = try await endpoint.unpair(trusted.identity) } catch {
            throw .failed(code: .storeFailed, message: "could not forget \(peer.name): \(error); nothing changed")
        }
        await forgotten(trusted, by: "here")
        return PeerIdentityInfo(peer: trusted.name, fingerprint: trusted.identity.fingerprint, advertisingGeneration: Int64(key.generation))
    }

    /// The other machine unpaired this one (the link has unpinned it): forgotten here as by
    /// `unpair`: what we held of it (its activities, shown by the search, the desktop and the apps
    /// until then), and the advert's tokens sealed with the key it knew.
    private func unpairedByPeer(_ trusted: TrustedPeer) async {
        logger.notice("a paired machine unpaired this one", metadata: ["peer.name": "\(trusted.name)", "peer.id": "\(trusted.identity.fingerprint)"])
        await forgotten(trusted, by: "peer")
    }

    /// The rest of forgetting a paired machine once the trust store has, whichever side unpaired.
    private func forgotten(_ trusted: TrustedPeer, by side: String) async {
        await peers.forget(trusted.identity)
        // Tokens in the TXT are now sealed with the new key.
        await activities.rekeyed()
        events.broadcast("unpaired", ["peer": .string(trusted.name), "fingerprint": .string(trusted.identity.fingerprint), "by": .string(side)])
    }

    /// The client's connection closed: its `pair --accept` stops waiting now (its request is
    /// still being served, so `clientLeft` comes only after it).
    nonisolated func abandon(_ client: ControlClient) { accepts.end(owner: client.key) }

    /// The client that started pairings left: they end.
    func clientLeft(_ client: ControlClient) async {
        let itsPairings = pending.filter { $0.value.owner == client.key }
        // Only a client that was pairing touches the window: any other one leaving (a `status`,
        // an app) must not close the window a person opened and still waits on, e.g. between a
        // stranger's failed attempt and the next `pair --accept`.
        guard windowOpeners.remove(client.key) != nil || accepts.count(owner: client.key) > 0 || !itsPairings.isEmpty else { return }
        accepts.end(owner: client.key)
        for (id, p) in itsPairings {
            p.session.cancel()
            pending[id] = nil
            dialAfterPairing[id] = nil
        }
        // Nobody waits for an attempt any more: the window (and the pairing advert) close now.
        if accepts.count(.incoming) == 0 && pending.isEmpty {
            endpoint.closePairingWindow()
            await activities.pairingWindowChanged()
        }
    }

    /// A pairing ended. A success closed the window: other `pair --accept`s still waiting get it
    /// reopened. After a failure the window stays open until its time runs out (or it took
    /// `PairingCoordinator.maxFailuresPerWindow` failures): a stranger who fails an attempt does
    /// not end the person's wait, and `handoffctl pair --accept` waits for the next attempt.
    private func afterPairing(succeeded: Bool) {
        guard succeeded else { return }
        if accepts.count(.incoming) > 0 { endpoint.openPairingWindow() } else { endpoint.closePairingWindow() }
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
