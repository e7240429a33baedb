import Foundation
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink

/// A peer as the control operations see it: discovered, paired, or both.
struct PeerView: Sendable {
    let name: String
    let trusted: TrustedPeer?
    let discovered: DiscoveredPeer?
    let present: Bool
    let connected: Bool

    var fingerprint: String? { trusted?.identity.fingerprint ?? discovered?.txt["fp"] }

    var propertyList: PropertyListValue {
        var d: [String: PropertyListValue] = [
            "name": .string(name), "paired": .bool(trusted != nil), "present": .bool(present),
            "listed": .bool(discovered != nil), "connected": .bool(connected),
        ]
        if let fingerprint { d["fingerprint"] = .string(fingerprint) }
        if let discovered {
            d["addresses"] = .array(discovered.addresses.map { .string($0.description) })
            d["port"] = .integer(Int64(discovered.port))
        }
        if let trusted { d["pairedName"] = .string(trusted.name) }
        return .dictionary(d)
    }
}

extension Daemon {
    // MARK: - Discovery

    func handle(_ event: DiscoveryEvent) {
        switch event {
        case .avahiUp:
            avahiUp = true
            wakeups.wake(.avahiUp)
            logger.info("avahi-daemon reachable")
        case .avahiDown(let reason):
            avahiUp = false
            publishedName = nil
            logger.warning("avahi-daemon unreachable; advertising resumes when it is back", metadata: ["reason": "\(reason)"])
        case .published(let name):
            publishedName = name
            logger.info("advertised", metadata: ["advert.name": "\(name)"])
        case .peerAppeared(let peer), .peerChanged(let peer):
            let isNew = discovered[peer.name] == nil
            discovered[peer.name] = peer
            presence.listedByAvahi(peer.name)
            if let fp = peer.txt["fp"] { wakeups.wake(.listed(fingerprint: fp)) }
            if isNew {
                logger.info("peer listed", metadata: ["peer.name": "\(peer.name)"])
                broadcast("peerAppeared", ["peer": .string(peer.name)])
            } else {
                broadcast("peerChanged", ["peer": .string(peer.name), "seq": .integer(Int64(bitPattern: peer.sequence))])
            }
        case .peerRemoved(let name):
            discovered[name] = nil
            presence.removedByAvahi(name)
            logger.info("peer withdrawn", metadata: ["peer.name": "\(name)"])
            broadcast("peerRemoved", ["peer": .string(name)])
        case .foreignService(let name, let reason):
            logger.debug("ignoring a foreign _handoff._tcp service", metadata: ["service.name": "\(name)", "reason": "\(reason)"])
        case .failure(let error):
            logger.error("discovery failed", metadata: ["error": "\(error)"])
        }
    }

    /// The paired identity behind a listed instance name, with an address to reach it.
    func reachablePaired(_ name: String) -> (PeerIdentity, String, Int)? {
        guard let peer = discovered[name], let fp = peer.txt["fp"], let trusted = trustedPeer(fingerprint: fp),
              let address = peer.addresses.first(where: { $0.family == .ipv4 }) ?? peer.addresses.first else { return nil }
        return (trusted.identity, address.address, Int(peer.port))
    }

    func trustedPeer(fingerprint: String) -> TrustedPeer? {
        ((try? trustStore.peers()) ?? []).first { $0.identity.fingerprint == fingerprint }
    }

    /// Every peer we know of: listed ones, then paired ones not listed now.
    func peerViews(now: Date = Date()) async -> [PeerView] {
        let trusted = (try? trustStore.peers()) ?? []
        let connected = await links.connectedPeerIDs
        var views: [PeerView] = []
        var seen: Set<String> = []
        for peer in discovered.values.sorted(by: { $0.name < $1.name }) {
            let t = peer.txt["fp"].flatMap { fp in trusted.first { $0.identity.fingerprint == fp } }
            if let t { seen.insert(t.identity.id) }
            views.append(PeerView(name: peer.name, trusted: t, discovered: peer, present: t != nil && presence.isPresent(peer.name, at: now),
                                  connected: t.map { connected.contains($0.identity.id) } ?? false))
        }
        for t in trusted where !seen.contains(t.identity.id) {
            views.append(PeerView(name: t.name, trusted: t, discovered: nil, present: false, connected: connected.contains(t.identity.id)))
        }
        return views
    }

    /// Finds a peer by its advertised name, its paired name or its fingerprint.
    func resolvePeer(_ text: String) async throws(ControlError) -> PeerView {
        let views = await peerViews()
        let wanted = text.lowercased()
        if let v = views.first(where: { $0.name == text }) ?? views.first(where: { $0.trusted?.name == text })
            ?? views.first(where: { $0.fingerprint?.lowercased() == wanted }) {
            return v
        }
        let known = views.map(\.name).joined(separator: ", ")
        throw .failed(code: "unknown-peer", message: "no peer named '\(text)' is listed or paired" + (known.isEmpty ? "; none is visible yet (see `handoffctl peers`)" : " (known: \(known))"))
    }

    /// Sends a request to a paired peer, connecting if needed.
    func request(_ peer: PeerView, timeout: Duration = .seconds(5), _ make: @escaping @Sendable (Int64) -> PeerMessage) async throws(ControlError) -> PeerMessage {
        guard let trusted = peer.trusted else {
            throw .failed(code: "not-paired", message: PeerRequestError.notPaired(peer.name).description)
        }
        var peer = peer
        if peer.discovered == nil, await !links.connectedPeerIDs.contains(trusted.identity.id),
           let listed = await awaitListing(of: trusted.identity) {
            peer = listed
        }
        let address = peer.discovered.flatMap { d in d.addresses.first { $0.family == .ipv4 } ?? d.addresses.first }
        do {
            return try await links.request(make, to: trusted.identity, host: address?.address, port: peer.discovered.map { Int($0.port) },
                                           timeout: timeout)
        } catch let e as PeerRequestError {
            throw .failed(code: e.code, message: e.description)
        } catch {
            throw .failed(code: "peer-unreachable", message: "\(error)")
        }
    }

    /// The view of a paired peer once discovery lists it, waiting up to `listingGrace` for its
    /// advert; nil if it is still not listed.
    func awaitListing(of identity: PeerIdentity) async -> PeerView? {
        let fingerprint = identity.fingerprint
        if !discovered.values.contains(where: { $0.txt["fp"] == fingerprint }) {
            await wait(for: .listed(fingerprint: fingerprint), atMost: listingGrace)
        }
        return await peerViews().first { $0.trusted?.identity.id == identity.id && $0.discovered != nil }
    }

    func setListingGrace(_ grace: Duration) { listingGrace = grace }

    // MARK: - Sessions

    func accepted(_ session: LinkSession) async {
        logger.info("peer opened a session", metadata: ["peer.id": "\(session.peer.fingerprint)"])
        await links.adopt(session)
    }

    /// A peer's request or notification on any session.
    func serve(_ message: PeerMessage, from session: LinkSession) async -> PeerMessage? {
        let peer = session.peer
        // Any message shows the peer is alive.
        if let name = discovered.values.first(where: { $0.txt["fp"] == peer.fingerprint })?.name {
            pinged(name, ok: true)
        }
        switch message {
        case .hello(_, _, let device, let types):
            capabilities[peer.id] = (device, types)
            return await requestHandler.reply(to: message)
        case .push(let id, let activity):
            logger.info("peer pushed an activity", metadata: ["peer.id": "\(peer.fingerprint)", "activity.type": "\(activity.type.rawValue)"])
            let outcome = await dispatch(activity, from: peerName(peer), preferredScene: nil)
            return .outcome(id: id, outcome: outcome.remote)
        case .continued(let activityID, let version, let outcome):
            originLearned(activityID: activityID, version: version, outcome: outcome, by: peerName(peer))
            return nil
        case .changed(let items):
            remoteActivities[peer.id] = items
            broadcast("remoteActivitiesChanged", ["peer": .string(peerName(peer)), "count": .integer(Int64(items.count))])
            return nil
        case .invalidated(let activityID):
            remoteActivities[peer.id]?.removeAll { $0.activityID == activityID }
            broadcast("remoteActivityInvalidated", ["peer": .string(peerName(peer)), "activity": .string(activityID.uuidString)])
            return nil
        case .error(nil, let code, _):
            logger.notice("peer reported an error", metadata: ["peer.id": "\(peer.fingerprint)", "error.code": "\(code)"])
            return nil
        default:
            return await requestHandler.reply(to: message)
        }
    }

    func peerName(_ identity: PeerIdentity) -> String {
        discovered.values.first(where: { $0.txt["fp"] == identity.fingerprint })?.name
            ?? (try? trustStore.peer(withKey: identity.publicKey))??.name ?? identity.fingerprint
    }
}
