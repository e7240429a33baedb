import Foundation
import HandoffContent
import HandoffControl
import HandoffCore
import HandoffLink

/// The control operations (docs/CONTROL.md): each request goes to the component that owns what
/// it asks about. Each returns a result value or a ControlError whose message says what to do.
struct DaemonControl: ControlOperations {
    let daemon: Daemon
    private var peers: Peers { daemon.peers }
    private var activities: Activities { daemon.activities }
    private var scenes: SceneBook { daemon.scenes }
    var library: Library { daemon.library }

    func perform(_ request: ControlRequest, from client: ControlClient) async -> Result<PropertyListValue?, ControlError> {
        do throws(ControlError) { return .success(try await run(request, client)) } catch { return .failure(error) }
    }

    /// The client's watch, live handlers, questions, pairings and launching scenes end with it.
    func disconnected(_ client: ControlClient) async {
        daemon.events.left(client)
        for id in await scenes.connectionDropped(client.key) {
            daemon.logger.warning("a scene's saved state was discarded after two crashes at launch", metadata: ["scene.id": "\(id)"])
            daemon.events.broadcast("sceneStateDiscarded", ["scene": .string(id.uuidString), "reason": "crashed twice at launch within 60 s"])
        }
        await daemon.continuations.live.remove(client)
        await activities.clientLeft(client)
        await daemon.pairing.clientLeft(client)
    }

    private func run(_ r: ControlRequest, _ client: ControlClient) async throws(ControlError) -> PropertyListValue? {
        switch r.op {
        case "status": return await status()
        case "peers": return .array(await peers.views().map(\.propertyList))
        case "trust":
            let peers: [TrustedPeerRow]
            do { peers = try self.peers.trusted().map(TrustedPeerRow.init) } catch {
                throw .failed(code: "store-failed", message: "could not read the trust store: \(error)")
            }
            return .array(peers.map(\.propertyList))
        case "pair": return try await daemon.pairing.start(with: try r.string("peer"), owner: client)
        case "pair-accept":
            let seconds = r.arguments["timeout"]?.integerValue ?? 120
            return try await daemon.pairing.accept(owner: client, timeout: .seconds(max(1, min(seconds, 600))))
        case "pair-confirm":
            return try await daemon.pairing.confirm(try r.string("pairing"), accept: r.arguments["accept"]?.boolValue ?? false)
        case "unpair": return try await daemon.pairing.unpair(try r.string("peer"))
        case "disconnect":
            // Closes the sessions with a peer (troubleshooting; the benchmark's cold trials).
            let peer = try await peers.resolve(try r.string("peer"))
            if let t = peer.trusted { await peers.disconnect(t.identity) }
            return nil
        case "activities":
            if let peer = try r.optionalString("peer") { return try await remoteList(peer) }
            if r.arguments["remote"]?.boolValue == true { return try await remoteListAll() }
            return .array(await activities.entries.map { $0.propertyList(now: Date()) })
        case "publish":
            let scene = try r.optionalString("scene").map { (s: String) throws(ControlError) -> UUID in try r.uuid("scene") }
            return try await publish(try r.activity(), scene: scene, owner: client)
        case "resign":
            try await activities.end(try r.uuid("activity"), invalidate: false)
            return nil
        case "invalidate":
            try await activities.end(try r.uuid("activity"), invalidate: true)
            return nil
        case "refresh":
            // The answer to a needsSave event: the app's fresh version of its activity.
            guard await activities.answerRefresh(token: try r.string("token"), with: try r.activity()) else {
                throw .failed(code: "not-found", message: "no refresh with this token is waiting (it was answered late)")
            }
            return nil
        case "continue":
            let scene = try r.optionalString("scene").map { (s: String) throws(ControlError) -> UUID in try r.uuid("scene") }
            return try await daemon.continuations.continueActivity(peer: try r.string("peer"), activityID: try r.uuid("activity"), scene: scene)
        case "send": return try await daemon.continuations.push(activityID: try r.uuid("activity"), to: try r.string("to"))
        case "handle":
            guard let types = r.arguments["types"]?.arrayValue?.compactMap(\.stringValue), !types.isEmpty else {
                throw .badArgument(name: "types", reason: "must be a non-empty array of activity types")
            }
            await daemon.continuations.live.register(client, name: try r.optionalString("name") ?? "pid \(client.pid)", types: types)
            return nil
        case "handled":
            guard await daemon.continuations.live.answer(token: try r.string("token"), accepted: r.arguments["accepted"]?.boolValue ?? false) else {
                throw .failed(code: "not-found", message: "no continuation with this token is waiting (it was answered late)")
            }
            return nil
        case "watch":
            daemon.events.watch(client)
            return nil
        case "scenes": return .array(await scenes.all.map { $0.summary(library: library) })
        case "scene":
            let id = try r.uuid("scene")
            guard let s = await scenes.scene(id) else {
                throw .failed(code: "not-found", message: "no scene \(id.uuidString) (see `handoffctl scenes`)")
            }
            return s.detail(library: library)
        case "library-books": return .array(library.books.map(\.summary))
        case "library-characters":
            let text = try r.string("book")
            guard let book = library.books.first(where: { $0.id.uuidString.lowercased() == text.lowercased() || $0.title == text }) else {
                throw .failed(code: "not-found", message: "no book '\(text)' in the library (see `handoffctl library books`)")
            }
            return .array(book.characters.map { c in
                .dictionary(["id": .string(c.id.uuidString), "name": .string(c.name), "description": .string(c.description),
                             "book": .string(book.id.uuidString), "content": .string(ContentPath(bookID: book.id, characterID: c.id).description)])
            })
        case let op where op.hasPrefix("scene-") || op == "delete-saved":
            return try await sceneOperation(r, client)
        default:
            throw .unknownOp(r.op)
        }
    }

    private func publish(_ activity: UserActivity, scene: UUID?, owner: ControlClient) async throws(ControlError) -> PropertyListValue {
        let (version, size) = try await activities.publish(activity, scene: scene, owner: owner)
        var result: [String: PropertyListValue] = [
            "activity": .string(activity.id.uuidString), "version": .integer(Int64(bitPattern: version)),
            "bytes": .integer(Int64(size.bytes)),
        ]
        if size.isAboveWarning {
            result["warning"] = .string("the activity is \(size.bytes) bytes, above the \(daemon.configuration.sizePolicy.warnAbove) bytes Handoff works best with; move large data to a shared store")
        }
        return .dictionary(result)
    }

    private func status() async -> PropertyListValue {
        let views = await peers.views()
        let avahi = await peers.avahi
        var d: [String: PropertyListValue] = [
            "device": .string(daemon.configuration.deviceName), "fingerprint": .string(peers.fingerprint),
            "port": .integer(Int64(await peers.port)), "avahi": .string(avahi.isUp ? "up" : "down"),
            "activities": .integer(Int64(await activities.entries.count)), "scenes": .integer(Int64(await scenes.all.count)),
            "peersListed": .integer(Int64(views.filter { $0.discovered != nil }.count)),
            "peersPresent": .integer(Int64(views.filter(\.present).count)),
            "peersPaired": .integer(Int64(views.filter { $0.trusted != nil }.count)),
            "uptimeSeconds": .integer((ContinuousClock.now - daemon.startedAt).components.seconds),
            "pairingLocked": .bool(daemon.pairing.isLocked), "pid": .integer(Int64(getpid())),
        ]
        if case .up(let name?) = avahi { d["advertisedAs"] = .string(name) }
        d["sceneStore"] = .string(scenes.storeProblem.map { "read-only: \($0)" } ?? "ok")
        d["sceneWritesFailed"] = .integer(Int64(await scenes.failedWrites))
        return .dictionary(d)
    }

    /// A paired peer's activities: from what we hold when it is still what the peer offers (its
    /// `changed` pushes, or its advert's sealed tokens, say so), else asked over the link.
    private func remoteList(_ name: String) async throws(ControlError) -> PropertyListValue {
        let peer = try await peers.resolve(name)
        if let id = peer.trusted?.identity.id, let held = await peers.freshRemote(id) {
            return .array(held.map { $0.propertyList(peer: peer.name) })
        }
        let reply = try await peers.request(peer) { .list(id: $0) }
        guard case .activities(_, let items) = reply else {
            throw .failed(code: "unexpected-reply", message: "\(peer.name) answered the list with something else")
        }
        if let t = peer.trusted { await peers.learntRemote(items, from: t.identity.id) }
        return .array(items.map { $0.propertyList(peer: peer.name) })
    }

    /// Every paired, listed peer's activities; a peer that does not answer is left out and logged.
    private func remoteListAll() async throws(ControlError) -> PropertyListValue {
        var all: [PropertyListValue] = []
        for peer in await peers.views() where peer.trusted != nil && peer.discovered != nil {
            do throws(ControlError) {
                if case .array(let items) = try await remoteList(peer.name) { all += items }
            } catch {
                daemon.logger.notice("a peer did not list its activities", metadata: ["peer.name": "\(peer.name)", "error": "\(error.code)"])
            }
        }
        return .array(all)
    }
}

struct TrustedPeerRow {
    let name: String, fingerprint: String, pairedAt: Date, generation: UInt32?
    init(_ t: TrustedPeer) {
        name = t.name
        fingerprint = t.identity.fingerprint
        pairedAt = t.pairedAt
        generation = t.advertisingKey?.generation
    }

    var propertyList: PropertyListValue {
        var d: [String: PropertyListValue] = ["name": .string(name), "fingerprint": .string(fingerprint), "pairedAt": .date(pairedAt)]
        if let generation { d["theirAdvertisingGeneration"] = .integer(Int64(generation)) }
        return .dictionary(d)
    }
}

extension ActivitySummary {
    func propertyList(peer: String) -> PropertyListValue {
        var d: [String: PropertyListValue] = ["activity": .string(activityID.uuidString), "type": .string(type),
                                              "version": .integer(Int64(bitPattern: version)), "peer": .string(peer)]
        if let title { d["title"] = .string(title) }
        if let scene { d["scene"] = .string(scene.uuidString) }
        return .dictionary(d)
    }
}

extension CurrentActivities.Entry {
    func propertyList(now: Date) -> PropertyListValue {
        var d: [String: PropertyListValue] = [
            "activity": .string(activity.id.uuidString), "type": .string(activity.type.rawValue),
            "version": .integer(Int64(bitPattern: activity.version)), "expired": .bool(activity.isExpired(at: now)),
            "eligible": .bool(activity.isEligibleForHandoff), "needsSave": .bool(activity.needsSave),
        ]
        if let t = activity.title { d["title"] = .string(t) }
        if let scene { d["scene"] = .string(scene.uuidString) }
        return .dictionary(d)
    }
}

extension Book {
    var summary: PropertyListValue {
        .dictionary(["id": .string(id.uuidString), "title": .string(title), "tagline": .string(tagline),
                     "characters": .integer(Int64(characters.count))])
    }
}

extension StoredScene {
    func summary(library: Library) -> PropertyListValue {
        var d: [String: PropertyListValue] = ["scene": .string(scene.id.uuidString), "role": .string(role),
                                              "updated": .date(updated), "created": .date(created)]
        if let b = scene.selectedBookID { d["book"] = .string(library.book(id: b)?.title ?? b.uuidString) }
        if case .character(let c)? = scene.navigationPath.last, let ch = library.character(id: c) { d["character"] = .string(ch.name) }
        if let path = scene.contentPath { d["content"] = .string(path.description) }
        return .dictionary(d)
    }

    func detail(library: Library) -> PropertyListValue {
        guard case .dictionary(var d) = summary(library: library) else { return summary(library: library) }
        d["navigation"] = .array(scene.navigationPath.compactMap { item in
            if case .character(let c) = item { return .string(library.character(id: c)?.name ?? c.uuidString) }
            return nil
        })
        d["storage"] = scene.storage.propertyList
        if let discarded { d["discarded"] = .date(discarded) }
        if let discardReason { d["discardReason"] = .string(discardReason) }
        if let a = scene.currentActivity {
            d["currentActivity"] = .dictionary(["activity": .string(a.id.uuidString), "type": .string(a.type.rawValue),
                                                "title": .string(a.title ?? "")])
        }
        return .dictionary(d)
    }
}
