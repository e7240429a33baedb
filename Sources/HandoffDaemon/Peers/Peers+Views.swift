import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink

/// Peers as the control operations show and name them: each part says what it knows.
extension Peers {
    /// Every peer we know of: paired ones (with their advert, if one is listed), then the pairing
    /// adverts of machines whose window is open. Adverts no paired key recognises are not shown:
    /// they name nothing.
    func views() async -> [PeerView] {
        await refreshListing()
        var views: [PeerView] = []
        for t in (try? trusted()) ?? [] {
            views.append(await view(name: t.name, trusted: t, discovered: await listing.listing(peerID: t.identity.id)))
        }
        for advert in await listing.pairingListings where !Self.isPairedMachine(advert, among: views) {
            views.append(await view(name: advert.name, trusted: nil, discovered: advert))
        }
        return views
    }

    /// A pairing advert under a paired peer's name from that peer's address: the machine is paired
    /// here already. Its advert lingers for a second after its window closes (mDNS withdraws it
    /// then), so right after `pair` the same machine was listed twice, paired and not. Another
    /// machine that took the name, elsewhere, is still listed.
    static func isPairedMachine(_ advert: DiscoveredPeer, among views: [PeerView]) -> Bool {
        let hosts = Set(advert.addresses.map(\.address))
        return views.contains { v in
            guard v.trusted != nil, v.name == advert.name else { return false }
            let theirs = (v.discovered?.addresses.map(\.address) ?? []) + [v.remembered?.host].compactMap { $0 }
            return theirs.contains(where: hosts.contains)
        }
    }

    /// The listed advert of the paired peer of this name, or the pairing advert under this name.
    func discovered(_ name: String) async -> DiscoveredPeer? {
        await refreshListing()
        if let t = ((try? trusted()) ?? []).first(where: { $0.name == name }) { return await listing.listing(peerID: t.identity.id) }
        return await listing.pairingListing(named: name)
    }

    private func view(name: String, trusted: TrustedPeer?, discovered: DiscoveredPeer?) async -> PeerView {
        guard let trusted else {
            var v = PeerView(name: name, trusted: nil, discovered: discovered, present: false)
            if let discovered { v.foundBy = await listing.foundBy(discovered.name) }
            return v
        }
        let id = trusted.identity.id
        let sessions = await links.sessions(of: id)
        let current = await links.current(id)
        let remembered = reach.endpoint.trustStore.endpoints(ofPeer: id)
        var v = PeerView(name: name, trusted: trusted, discovered: discovered, present: current != nil)
        v.sessions = sessions.count
        v.session = current.map { ($0.remoteEndpoint?.description ?? "?", $0.localEndpoint?.description ?? "?") }
        v.remembered = remembered.first
        if let discovered { v.foundBy += await listing.foundBy(discovered.name) }
        if await reach.isStatic(id) { v.foundBy.append("static") }
        if !remembered.isEmpty { v.foundBy.append("remembered") }
        return v
    }

    /// Finds a peer by its advertised name, its paired name or its fingerprint.
    func resolve(_ text: String) async throws(ControlError) -> PeerView {
        let views = await views()
        let wanted = text.lowercased()
        // Two paired machines under one name (paired before names were made unique): which one
        // is meant is for the person to say, by fingerprint.
        let paired = views.filter { $0.trusted?.name == text }
        if paired.count > 1 {
            throw .failed(
                code: .ambiguousPeer,
                message:
                    "\(paired.count) paired machines are named '\(text)' (fingerprints \(paired.compactMap(\.fingerprint).joined(separator: ", "))); name one by its fingerprint, and unpair the one you do not know"
            )
        }
        if let v = paired.first ?? views.first(where: { $0.name == text }) ?? views.first(where: { $0.trusted?.name == text })
            ?? views.first(where: { $0.fingerprint?.lowercased() == wanted })
        {
            return v
        }
        let known = views.map(\.name).joined(separator: ", ")
        throw .failed(
            code: .unknownPeer,
            message: "no peer named '\(text)' is listed or paired"
                + (known.isEmpty ? "; none is visible yet (see `handoffctl peers`)" : " (known: \(known))"))
    }

    /// The peer a request (continue, send, a list, the search's read) goes to. A paired peer of
    /// that name with a session open is found with two questions, its session and its advert,
    /// where `resolve` builds every peer's whole view (ten calls into the parts for each): at
    /// thousands of continues a second those calls were a good part of the daemon's work
    /// (docs/PERFORMANCE.md), and a restarted hub's search read its 49 peers with 49 x 49 views.
    /// Anything else (no session, a name two peers share, a fingerprint) goes through `resolve`.
    func resolveForRequest(_ text: String) async throws(ControlError) -> PeerView {
        let named = ((try? trusted()) ?? []).filter { $0.name == text }
        if named.count == 1, let t = named.first, await links.current(t.identity.id) != nil {
            return PeerView(name: t.name, trusted: t, discovered: await listing.listing(peerID: t.identity.id), present: true)
        }
        return try await resolve(text)
    }

    /// Finds the machine to pair with: a peer by name, waiting up to the listing grace for its
    /// pairing advert (its window may have opened a moment ago), unless the text is an address.
    func resolveForPairing(_ text: String) async throws(ControlError) -> PeerView {
        do throws(ControlError) { return try await resolve(text) } catch {
            if PeerEndpoint.isAddressLiteral(text) { throw error }
            await listing.awaitPairingListed(name: text)
            return try await resolve(text)
        }
    }
}
