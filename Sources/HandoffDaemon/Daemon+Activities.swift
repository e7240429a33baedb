import Foundation
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink

extension Daemon {
    // MARK: - Current activities

    /// becomeCurrent: checks the activity as it will be advertised, makes it current for its scene,
    /// and tells peers (TXT now, open sessions at once).
    func publish(_ activity: UserActivity, scene: UUID?, owner: ControlClient?) async throws(ControlError) -> PropertyListValue {
        let size: ActivitySize
        do throws(ActivityError) {
            size = try configuration.activityTypes.validateForPublishing(activity, at: Date(), sizePolicy: configuration.sizePolicy)
        } catch {
            throw .failed(code: ContinuationFailure(error, type: activity.type).code, message: error.description)
        }
        let dropped = current.becomeCurrent(activity, scene: scene, at: Date())
        for id in dropped { owners[id] = nil }
        if let owner { owners[activity.id] = owner }
        logger.info("activity current", metadata: ["activity.type": "\(activity.type.rawValue)", "activity.id": "\(activity.id)",
                                                   "activity.bytes": "\(size.bytes)"])
        await activitiesChanged()
        var result: [String: PropertyListValue] = [
            "activity": .string(activity.id.uuidString), "version": .integer(Int64(bitPattern: activity.version)),
            "bytes": .integer(Int64(size.bytes)),
        ]
        if size.isAboveWarning {
            result["warning"] = .string("the activity is \(size.bytes) bytes, above the \(configuration.sizePolicy.warnAbove) bytes Handoff works best with; move large data to a shared store")
        }
        return .dictionary(result)
    }

    /// resignCurrent (peers just stop seeing it) or invalidate (peers are told to drop it).
    func end(_ id: UUID, invalidate: Bool) async throws(ControlError) {
        guard current.remove(id) else {
            throw .failed(code: "not-found", message: "activity \(id.uuidString) is not current here (see `handoffctl activities`)")
        }
        owners[id] = nil
        if invalidate {
            for peer in await links.connectedPeerIDs { await links.notify(.invalidated(activityID: id), peerID: peer) }
        }
        await activitiesChanged()
    }

    /// The current set changed: new TXT (new sequence number) and a push to open sessions.
    func activitiesChanged() async {
        do { try updateAdvert() } catch {
            logger.error("could not update the advert", metadata: ["error": "\(error)"])
        }
        let items = current.summaries(at: Date())
        for peer in await links.connectedPeerIDs { await links.notify(.changed(items: items), peerID: peer) }
        broadcast("activitiesChanged", ["count": .integer(Int64(items.count))])
    }

    /// True when the advertised set differs from what the TXT says (an activity expired).
    func advertisedChanged(at now: Date) -> Bool {
        let set = Dictionary(uniqueKeysWithValues: current.advertised(at: now).map { ($0.activity.id, $0.activity.version) })
        return set != advertisedSet
    }

    // MARK: - Advert

    func advertTXT() throws -> TXTRecord {
        let advertised = current.advertised(at: Date())
        advertisedSet = Dictionary(uniqueKeysWithValues: advertised.map { ($0.activity.id, $0.activity.version) })
        let tokens = advertised.map { AdvertTXT.Token(activityID: $0.activity.id, type: $0.activity.type.rawValue, version: $0.activity.version) }
        return try AdvertTXT.record(tokens: tokens, key: try trustStore.ownAdvertisingKey(),
                                    fingerprint: identity.identity.fingerprint)
    }

    func publishAdvert() throws {
        try discovery.publish(try ServiceAdvert(instanceName: configuration.deviceName, port: UInt16(listeningPort), txt: advertTXT()))
    }

    func updateAdvert() throws { try discovery.updateTXT(try advertTXT()) }

    // MARK: - needsSave

    /// Asks the app that published `activity` for its fresh state (PeerRequestHandler bounds the wait).
    func refreshFromOwner(_ activity: UserActivity) async -> UserActivity? {
        guard let owner = owners[activity.id] else { return nil }
        let fresh = await refreshes.ask(owner: owner.key, budget: .milliseconds(500)) { token in
            owner.send(event: "needsSave", ["token": .string(token), "activity": .string(activity.id.uuidString)])
        }
        if let fresh, fresh.id == activity.id, fresh.version > activity.version {
            current.update(fresh, at: Date())
            return fresh
        }
        return nil
    }
}
