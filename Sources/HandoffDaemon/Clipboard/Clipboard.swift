#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClipboard
import HandoffControl
import HandoffCore
import HandoffLink
import HandoffProtocol
import Logging

/// The shared clipboard's shell (docs/CLIPBOARD.md): carries out what the book decides. A copy
/// here (from the session agent or `handoffctl clipboard copy`) is announced to the present paired
/// machines that share theirs; their offers are kept and told to the agent (`clipboardChanged`);
/// a paste fetches the bytes from the offering machine then, a part at a time.
actor Clipboard {
    private var book: ClipboardBook
    private let reach: PeerReach
    private let events: ControlEvents
    /// Exists while `handoffctl clipboard off` holds: off stays off across restarts.
    private let offMarker: String?
    private var agent: ClipboardAgent?
    private var copies = PartialCopies()
    /// The last type fetched for a paste, so that its next parts come from here.
    private var fetched: (offer: UUID, type: ClipboardType, bytes: [UInt8])?
    private var timer: (at: ContinuousClock.Instant, task: Task<Void, Never>)?
    private let logger: Logger

    struct ClipboardAgent {
        let client: ObjectIdentifier
        let backend: String?
        let problem: String?
    }

    /// Parts fetched from a machine at once (it serves at most 8 requests of a session at once).
    static let fetchWindow = 4
    static let fetchTimeout = Duration.seconds(10)

    init(settings: ClipboardSettings, offMarker: String?, reach: PeerReach, events: ControlEvents, logger: Logger) {
        var settings = settings
        if let offMarker, FileManager.default.fileExists(atPath: offMarker) { settings.enabled = false }
        book = ClipboardBook(settings: settings)
        (self.offMarker, self.reach, self.events, self.logger) = (offMarker, reach, events, logger)
    }

    // MARK: - This machine

    func copy(_ op: ClipboardCopyRequest, from client: ObjectIdentifier) async throws(ControlError) -> ClipboardCopied {
        let now = ContinuousClock.now
        guard book.settings.enabled else { throw .failed(code: .clipboardOff, message: ClipboardRefusal.off.description) }
        let part = try copies.add(op.copy, items: op.items, last: op.last, owner: client, limit: book.settings.maxBytes, now: now)
        guard let items = part.items else { return ClipboardCopied(offer: nil, bytes: Int64(part.bytes)) }
        do throws(ClipboardRefusal) {
            let (offer, actions) = try book.copy(items, id: UUID(), at: Date(), now: now)
            await carryOut(actions)
            return ClipboardCopied(offer: offer.id, bytes: Int64(offer.size))
        } catch {
            throw .failed(code: error.code, message: error.description)
        }
    }

    func setEnabled(_ enabled: Bool) async throws(ControlError) {
        if let offMarker {
            do {
                if enabled {
                    if FileManager.default.fileExists(atPath: offMarker) { try FileManager.default.removeItem(atPath: offMarker) }
                } else {
                    try Data("the shared clipboard is off: handoffctl clipboard on\n".utf8).write(to: URL(fileURLWithPath: offMarker))
                }
            } catch {
                throw .failed(code: .failed, message: "could not keep the switch in \(offMarker): \(error)")
            }
        }
        await carryOut(book.setEnabled(enabled))
    }

    func agent(_ client: ObjectIdentifier, backend: String?, problem: String?) {
        agent = ClipboardAgent(client: client, backend: backend, problem: problem)
    }

    func clientLeft(_ client: ObjectIdentifier) {
        copies.drop(owner: client)
        if agent?.client == client { agent = nil }
    }

    func status() async -> ClipboardStatus {
        await forgetAbsent()
        let now = ContinuousClock.now
        func info(_ offer: ClipboardOffer, peer: String?, expires: ContinuousClock.Instant) -> ClipboardOfferInfo {
            ClipboardOfferInfo(
                offer: offer.id, peer: peer, types: offer.items.map(\.type.rawValue), sizes: offer.items.map { Int64($0.size) },
                copied: offer.copiedAt, expiresIn: max(0, (expires - now).components.seconds))
        }
        let owner: String
        switch book.owner {
        case .nobody: owner = "nobody"
        case .local: owner = "this machine"
        case .peer(let id, _): owner = book.heard[id]?.peerName ?? "nobody"
        }
        return ClipboardStatus(
            enabled: book.settings.enabled, backend: agent?.backend, backendProblem: agent?.problem, owner: owner,
            local: book.local.map { info($0.offer, peer: nil, expires: $0.expires) },
            offers: book.heard.values.filter { $0.expires > now }.sorted { $0.peerName < $1.peerName }.map {
                info($0.offer, peer: $0.peerName, expires: $0.expires)
            },
            maxBytes: Int64(book.settings.maxBytes), offerSeconds: book.settings.lifetime.components.seconds)
    }

    /// A part of what a paste takes: the first part of a paired machine's type fetches all of it.
    func paste(from peer: (id: PeerID, name: String)?, mime: String?, offset: Int64) async throws(ControlError) -> ClipboardPart {
        await forgetAbsent()
        guard let source = book.pasteSource(peer: peer?.id, now: .now) else {
            let whose = peer.map { "\($0.name) offers nothing" } ?? "nothing is offered"
            throw .failed(
                code: .clipboardNoOffer, message: "\(whose) to paste (a copy is offered for \(book.settings.lifetime.components.seconds) s)")
        }
        let offer = source.offer
        let type = try Self.choose(mime, in: offer)
        let bytes: [UInt8]
        let from: String?
        switch source {
        case .local(let copy):
            bytes = copy.items.first { $0.type == type }?.bytes ?? []
            from = nil
        case .peer(let id, _):
            from = book.heard[id]?.peerName
            if let fetched, fetched.offer == offer.id, fetched.type == type {
                bytes = fetched.bytes
            } else {
                bytes = try await fetch(type, of: offer, from: id, name: from ?? "the other machine")
                fetched = (offer.id, type, bytes)
            }
        }
        guard offset <= bytes.count else { throw .badArgument(name: "offset", reason: "past the end (\(bytes.count) bytes)") }
        let end = min(bytes.count, Int(offset) + ClipboardParts.maxBytes)
        return ClipboardPart(
            peer: from, offer: offer.id, mime: type.rawValue, total: Int64(bytes.count), offset: offset, data: Data(bytes[Int(offset)..<end]))
    }

    static func choose(_ mime: String?, in offer: ClipboardOffer) throws(ControlError) -> ClipboardType {
        if let mime {
            guard let item = offer.item(ClipboardType(mime)) else {
                throw .failed(
                    code: .clipboardNoType, message: "the copy has no \(mime); it has \(offer.items.map(\.type.rawValue).joined(separator: ", "))")
            }
            return item.type
        }
        guard let first = ClipboardType.shared.first(where: { offer.item($0) != nil }) else {
            throw .failed(code: .clipboardNoType, message: "the copy has no type this machine reads")
        }
        return first
    }

    // MARK: - The paired machines

    /// A paired machine's clipboard message; the answer to a fetch.
    func heard(_ message: ClipboardMessage, from peer: PeerIdentity) async -> PeerMessage? {
        let name = reach.name(of: peer)
        switch message {
        case .offer(let offer):
            await carryOut(book.heard(offer, from: peer.id, name: name, now: .now))
            return nil
        case .withdrawn(let offerID):
            await carryOut(book.dropped(peer.id, offerID: offerID))
            return nil
        case .fetch(let id, let offerID, let type, let offset):
            switch book.serve(offerID: offerID, type: type, to: name, now: .now) {
            case .failure(let failure):
                return .error(id: id, code: failure.code, message: failure.message)
            case .success(let bytes):
                guard offset <= UInt64(bytes.count) else { return .error(id: id, code: .badField, message: "offset past the end") }
                let start = Int(offset), end = min(bytes.count, start + ClipboardMessage.maxPart)
                return .clipboard(.data(id: id, total: UInt64(bytes.count), offset: offset, bytes: Array(bytes[start..<end])))
            }
        case .data:
            return nil
        }
    }

    /// The bytes of one type of a paired machine's offer, `fetchWindow` parts in flight.
    private func fetch(_ type: ClipboardType, of offer: ClipboardOffer, from peer: PeerID, name: String) async throws(ControlError) -> [UInt8] {
        guard let size = offer.item(type)?.size, size <= UInt64(book.settings.maxBytes) else {
            throw .failed(code: .tooLarge, message: "\(name)'s copy is larger than clipboard.max_bytes")
        }
        let links = reach.links
        let offsets = Array(stride(from: UInt64(0), to: max(size, 1), by: ClipboardMessage.maxPart))
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let result: Result<Void, ControlError> = await withTaskGroup(of: Result<(UInt64, [UInt8]), ControlError>.self) { group in
            var next = 0
            func start() {
                guard next < offsets.count else { return }
                let offset = offsets[next]
                next += 1
                group.addTask {
                    do throws(PeerRequestError) {
                        let reply = try await links.requestIfOpen(
                            { .clipboard(.fetch(id: $0, offerID: offer.id, type: type, offset: offset)) }, peerID: peer, timeout: Self.fetchTimeout)
                        switch reply {
                        case .clipboard(.data(_, let total, let at, let part))? where total == size && at == offset:
                            return .success((offset, part))
                        case .error(_, let code, let message)?:
                            return .failure(.failed(code: code, message: "\(name): \(message)"))
                        case nil:
                            return .failure(.failed(code: .clipboardNoOffer, message: "\(name) is gone: its copy can no longer be pasted"))
                        default:
                            return .failure(.failed(code: .unexpectedReply, message: "\(name) answered the paste with something else"))
                        }
                    } catch {
                        return .failure(.failed(code: error.code, message: error.naming(name).description))
                    }
                }
            }
            for _ in 0..<Self.fetchWindow { start() }
            for await outcome in group {
                switch outcome {
                case .failure(let error):
                    group.cancelAll()
                    return .failure(error)
                case .success(let (offset, part)):
                    guard UInt64(part.count) == min(UInt64(ClipboardMessage.maxPart), size - offset) else {
                        group.cancelAll()
                        return .failure(.failed(code: .unexpectedReply, message: "\(name) sent a part of the wrong length"))
                    }
                    bytes.replaceSubrange(Int(offset)..<Int(offset) + part.count, with: part)
                    start()
                }
            }
            return .success(())
        }
        if case .failure(let error) = result { throw error }
        return bytes
    }

    /// Offers of machines no longer present die with their presence.
    private func forgetAbsent() async {
        let present = await reach.links.connectedPeerIDs
        for peer in book.heard.keys where !present.contains(peer) { await carryOut(book.dropped(peer)) }
    }

    /// The machines an offer goes to: present, sharing their clipboard, not refused.
    private func audience() async -> [PeerID] {
        var out: [PeerID] = []
        for peer in await reach.links.connectedPeerIDs {
            guard let capabilities = await reach.capabilities(of: peer), capabilities.types.contains(ClipboardMessage.capability) else { continue }
            if let name = book.heard[peer]?.peerName ?? reach.name(ofPeerID: peer), book.settings.refused(name) { continue }
            out.append(peer)
        }
        return out
    }

    private func carryOut(_ actions: [ClipboardBook.Action]) async {
        defer { scheduleTick() }
        for action in actions {
            switch action {
            case .announce(let offer):
                let sent = await reach.links.notify(.clipboard(.offer(offer)), peerIDs: await audience())
                logger.debug("clipboard offer told", metadata: ["clipboard.types": "\(offer.items.count)", "peer.count": "\(sent)"])
            case .withdraw(let offerID):
                _ = await reach.links.notify(.clipboard(.withdrawn(offerID: offerID)), peerIDs: await audience())
            case .changed:
                var fields: [String: PropertyListValue] = ["enabled": .bool(book.settings.enabled)]
                switch book.owner {
                case .nobody: fields["owner"] = "nobody"
                case .local(let id):
                    fields["owner"] = "this machine"
                    fields["offer"] = .string(id.canonicalString)
                case .peer(let peer, let id):
                    fields["owner"] = .string(book.heard[peer]?.peerName ?? "?")
                    fields["offer"] = .string(id.canonicalString)
                    fields["types"] = .array((book.heard[peer]?.offer.items ?? []).map { .string($0.type.rawValue) })
                }
                events.broadcast("clipboardChanged", fields)
            }
        }
    }

    /// One timer for what the book does later: expiries, and the offer a flood held back.
    private func scheduleTick() {
        guard let next = book.nextTick else {
            timer?.task.cancel()
            timer = nil
            return
        }
        if let timer, timer.at == next { return }
        timer?.task.cancel()
        let task = Task { [weak self] in
            try? await Task.sleep(until: next, clock: .continuous)
            guard !Task.isCancelled else { return }
            await self?.tick()
        }
        timer = (next, task)
    }

    private func tick() async {
        timer = nil
        await carryOut(book.tick(now: .now))
    }
}
