import Foundation
import HandoffControl
import HandoffCore
import HandoffLink

extension Daemon {
    /// `pair PEER`: starts pairing with a listed peer whose window is open; returns the code to
    /// compare. The pairing waits for `pair-confirm` from the same client.
    func startPairing(with name: String, owner: ControlClient) async throws(ControlError) -> PropertyListValue {
        let peer = try await resolvePeer(name)
        guard let d = peer.discovered, let address = d.addresses.first(where: { $0.family == .ipv4 }) ?? d.addresses.first else {
            throw .failed(code: "peer-unreachable", message: "\(peer.name) is not listed on the network now; start handoffd there")
        }
        let session: PairingSession
        do { session = try await endpoint.pair(host: address.address, port: Int(d.port)) } catch {
            throw .failed(code: "pairing-failed", message: "pairing with \(peer.name) failed: \(error). Run `handoffctl pair --accept` on \(peer.name) first")
        }
        return try await pending(session, owner: owner, name: peer.name)
    }

    /// `pair --accept`: opens the window and waits for a peer to start pairing.
    func acceptPairing(owner: ControlClient, timeout: Duration) async throws(ControlError) -> PropertyListValue {
        if endpoint.isPairingLocked {
            throw .failed(code: "pairing-locked", message: "pairing is locked for 5 minutes after three failed attempts; try again later")
        }
        endpoint.openPairingWindow()
        // Each accept waits for its own wake-up: the end of its own time, or a pairing handed to
        // it. (A shared wake-up once woke every waiter when any one of them timed out.)
        let token = UUID()
        let timer = Timeout.after(timeout) { Task { await self.endPairingWait(token) } }
        let session = await withCheckedContinuation { incomingPairingWaiters.append((token, $0)) }
        timer.cancel()
        guard let session else {
            if incomingPairingWaiters.isEmpty { endpoint.closePairingWindow() }
            throw .failed(code: "pairing-timeout", message: "no machine started pairing within \(timeout); run `handoffctl pair <this machine>` on the other one")
        }
        return try await pending(session, owner: owner, name: session.peerName)
    }

    private func pending(_ session: PairingSession, owner: ControlClient, name: String) async throws(ControlError) -> PropertyListValue {
        let code: String
        do { code = try await session.code() } catch {
            throw .failed(code: "pairing-failed", message: "pairing with \(name) failed before a code was shown: \(error)")
        }
        let id = UUID().uuidString
        pairings[id] = (session, owner.key)
        return .dictionary(["pairing": .string(id), "code": .string(code), "peer": .string(name),
                            "fingerprint": .string(session.peer.fingerprint)])
    }

    /// `pair-confirm`: the person compared the codes. Waits for both sides' decisions.
    func confirmPairing(_ id: String, accept: Bool) async throws(ControlError) -> PropertyListValue {
        guard let p = pairings.removeValue(forKey: id) else {
            throw .failed(code: "not-found", message: "no pairing \(id) is waiting; start again with `handoffctl pair`")
        }
        if accept { p.session.confirm() } else { p.session.reject() }
        switch await p.session.outcome() {
        case .success(let trusted):
            logger.notice("paired", metadata: ["peer.id": "\(trusted.identity.fingerprint)", "peer.name": "\(trusted.name)"])
            broadcast("paired", ["peer": .string(trusted.name), "fingerprint": .string(trusted.identity.fingerprint)])
            return .dictionary(["peer": .string(trusted.name), "fingerprint": .string(trusted.identity.fingerprint)])
        case .failure(let error):
            throw .failed(code: "pairing-failed", message: "pairing did not complete: \(error)")
        }
    }

    func unpair(_ name: String) async throws(ControlError) -> PropertyListValue {
        let peer = try await resolvePeer(name)
        guard let trusted = peer.trusted else { throw .failed(code: "not-paired", message: "\(peer.name) is not paired") }
        let key: AdvertisingKey
        do { key = try await endpoint.unpair(trusted.identity) } catch {
            throw .failed(code: "store-failed", message: "could not forget \(peer.name): \(error); nothing changed")
        }
        await links.drop(peerID: trusted.identity.id)
        remoteActivities[trusted.identity.id] = nil
        // Tokens in the TXT are now sealed with the new key.
        try? updateAdvert()
        return .dictionary(["peer": .string(trusted.name), "fingerprint": .string(trusted.identity.fingerprint),
                            "advertisingGeneration": .integer(Int64(key.generation))])
    }

    /// A machine started pairing while the window was open. It goes to the oldest waiting
    /// `pair --accept`; with none waiting it is stopped, never kept for a later accept (where
    /// the person would see a stranger's attempt as the one they expect).
    func pairingArrived(_ session: PairingSession) {
        if incomingPairingWaiters.isEmpty {
            logger.notice("a pairing attempt arrived with no `pair --accept` waiting; stopped", metadata: ["peer.id": "\(session.peer.fingerprint)"])
            session.cancel()
        } else {
            incomingPairingWaiters.removeFirst().continuation.resume(returning: session)
        }
    }

    private func endPairingWait(_ token: UUID) {
        guard let i = incomingPairingWaiters.firstIndex(where: { $0.token == token }) else { return }
        incomingPairingWaiters.remove(at: i).continuation.resume(returning: nil)
    }
}
