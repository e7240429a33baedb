#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffCore
import Logging
import Dispatch
import NIOCore

/// What the link does with a peer's control messages (its advertising key, "I have unpaired you")
/// and with a handshake's end that concerns the trust store.
extension LinkEndpoint {
    func deliverUnpairNotice(on session: LinkSession) async {
        do {
            try await session.sendControl(.unpaired)
            try trustStore.unpairDelivered(id: session.peer.id)
            logger.info("told the peer it was unpaired", metadata: ["peer.id": "\(session.peer.fingerprint)"])
        } catch {
            logger.warning(
                "could not tell the peer it was unpaired; will retry when it connects", metadata: ["peer.id": "\(session.peer.fingerprint)"])
        }
        await session.close()
    }

    /// What a failed handshake means for the trust store.
    func handshakeFailed(_ error: Error) {
        switch error as? LinkError {
        case .unpairNoticeDelivered(let peer)?:
            try? trustStore.unpairDelivered(id: peer.id)
            logger.info("told the peer it was unpaired", metadata: ["peer.id": "\(peer.fingerprint)"])
        case .unpairedByPeer(let peer)?:
            handle(.unpaired, from: peer, channel: nil)
        default:
            break
        }
    }

    /// A control message from a peer.
    func handle(_ control: LinkControl, from peer: PeerIdentity, channel: Channel?) {
        switch control {
        case .advertisingKey(let key):
            // A durable write (fsync): never on the event loop that serves every session. Keys
            // are coalesced per peer (the latest wins) and written at most once a second, so a
            // peer that sends a million of them costs a write a second, not a million queued.
            if let delay = writes.pendingKeys.withLockedValue({ $0.offer(key, from: peer.id, at: .now) }) { scheduleKeyWrite(peer, after: delay) }
        case .unpaired:
            logger.notice("the peer unpaired this machine; forgetting it", metadata: ["peer.id": "\(peer.fingerprint)"])
            do {
                let known = try trustStore.peer(withID: peer.id)
                let next = try trustStore.ownAdvertisingKey().rotated()
                try trustStore.unpin(id: peer.id, rotatingTo: next)
                // It already knows: nothing to deliver.
                try trustStore.unpairDelivered(id: peer.id)
                outputs.trustChangesIn.yield()
                // The daemon forgets it as for an unpairing made here (what it offered, the advert's key).
                if let known { outputs.unpairedByPeerIn.yield(known) }
            } catch {
                logger.error("could not forget the peer", metadata: ["peer.id": "\(peer.fingerprint)", "error": "\(error)"])
            }
            channel?.close(promise: nil)
        }
    }

    /// Writes the latest advertising key a peer sent, then again a second later if a newer one came.
    private func scheduleKeyWrite(_ peer: PeerIdentity, after delay: Duration) {
        let nanoseconds = Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        writes.queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            defer { if writes.pendingKeys.withLockedValue({ $0.written(peer.id) }) { scheduleKeyWrite(peer, after: PendingKeyWrites.interval) } }
            guard let key = writes.pendingKeys.withLockedValue({ $0.take(peer.id, at: .now) }) else { return }
            do {
                // Another paired machine's key is not this one's to claim: with it, this peer's
                // adverts would pass for the other's.
                if let holder = try trustStore.peers().first(where: { $0.identity.id != peer.id && $0.advertisingKey?.key == key.key }) {
                    writes.refusedKeyClaims.withLockedValue { $0 += 1 }
                    logger.warning(
                        "refused a peer's advertising key: another paired machine holds it",
                        metadata: ["peer.id": "\(peer.fingerprint)", "holder.id": "\(holder.identity.fingerprint)"])
                } else {
                    try trustStore.setAdvertisingKey(key, ofPeer: peer.id)
                    outputs.trustChangesIn.yield()
                }
            } catch {
                logger.error("could not store a peer's advertising key", metadata: ["peer.id": "\(peer.fingerprint)", "error": "\(error)"])
            }
        }
    }
}
