#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffConfig
import HandoffControl
import HandoffCore
import HandoffLink
import HandoffProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The app's end of a new stream and what names it.
struct StreamHandle: Sendable {
    let descriptor: OwnedDescriptor
    let info: StreamInfo
}

/// Continuation streams (docs/STREAMS.md): the continuing app asks for one (`open`), the app
/// that owns the activity on the other machine is asked (`streamRequested`) and accepts it
/// (`accept`); each gets a socket, and the bytes ride the peer's authenticated session as stream
/// frames. Owns every stream's state (`StreamLink`s) and what was continued here; the frames reach
/// it on the sessions' event loops (`frame`), never through an actor.
final class Streams: Sendable {
    let settings: StreamSettings
    /// This machine's device name: what messages to the peer and the apps call it (the host
    /// name is not the peer's to know).
    private let device: String
    private let peers: Peers
    private let activities: Activities
    private let logger: Logger
    private let group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    private let state = NIOLockedValueBox(State())
    /// Offers waiting for their app, by token: the app's client once it accepted, nil if it refused.
    private let answers = Waiters<String, Bool>()

    struct Key: Hashable {
        let peerID: PeerID
        let stream: UInt64
    }

    /// What the origin knows of a stream asked of one of its apps, until the app answers.
    struct Offer {
        let key: Key
        let activityID: UUID
        let window: UInt32
        let session: LinkSession
        let peerName: String
        var link: StreamLink?
    }

    struct State {
        var links: [Key: StreamLink] = [:]
        var byToken: [String: Key] = [:]
        var offers: [String: Offer] = [:]
        var continuedHere = ContinuedHere()

        func count(peer: PeerID) -> Int {
            links.keys.count { $0.peerID == peer } + offers.values.count { $0.key.peerID == peer && $0.link == nil }
        }
        var total: Int { links.count + offers.values.count { $0.link == nil } }
    }

    init(settings: StreamSettings, device: String, peers: Peers, activities: Activities, logger: Logger) {
        self.settings = settings
        self.device = device
        self.peers = peers
        self.activities = activities
        self.logger = logger
    }

    var count: Int { state.withLockedValue { $0.links.count } }

    private var machineSettings: StreamMachine.Settings {
        StreamMachine.Settings(window: settings.window, maxPayload: Self.maxPayload, maxRetain: max(settings.window, 4 << 20))
    }

    /// The largest data frame body: a frame of the default link size, less the tag, the two
    /// kind bytes and the stream header.
    static let maxPayload = LinkSession.maxMessage(frame: 65_535) - 1 - StreamFrame.headerBytes

    /// The most read from an app's socket at once: a few frames, cut by the session as it sends
    /// them (a read of one frame's payload made four times the reads, each a turn of the loop).
    static let appRead = 256 << 10

    // MARK: - The continuing side

    /// An activity was continued here (from a peer, or pushed by it): its app may ask for streams.
    func noteContinued(_ activity: UserActivity, from peer: PeerIdentity) {
        guard activity.supportsContinuationStreams else { return }
        state.withLockedValue { $0.continuedHere.note(activity.id, peerID: peer.id, fingerprint: peer.fingerprint, at: Date()) }
    }

    /// `stream-open ACTIVITY [PEER]`: asks the machine the activity came from for a stream with
    /// its app; `peer` (a name or fingerprint) names that machine where more than one gave it.
    func open(activityID: UUID, peer named: String? = nil, client: ControlClient) async throws(ControlError) -> StreamHandle {
        var origins = state.withLockedValue { $0.continuedHere.origins(of: activityID, at: Date()) }
        if let named {
            let wanted = try await peers.resolve(named).trusted?.identity.id
            origins = origins.filter { $0.peerID == wanted }
        }
        guard let from = origins.first else {
            throw .failed(
                code: .notContinued,
                message:
                    "activity \(activityID.canonicalString) was not continued on this machine\(named.map { " from \($0)" } ?? "") in the last \(Int(ContinuedHere.lifetime / 60)) minutes, or does not support streams; continue it first (`handoffctl continue PEER ACTIVITY`)"
            )
        }
        guard origins.count == 1 else {
            throw .failed(
                code: .ambiguousOrigin,
                message:
                    "activity \(activityID.canonicalString) came from \(origins.count) machines (fingerprints \(origins.map(\.fingerprint).joined(separator: ", "))); name the one to stream with (`peer`: the `fingerprint` of the continue event)"
            )
        }
        let peer = try await peers.resolve(from.fingerprint)
        let stream = UInt64.random(in: 1...UInt64.max)
        let key = Key(peerID: from.peerID, stream: stream)
        let loop = await peers.links.current(from.peerID)?.channel.eventLoop
        let link = try await makeLink(key: key, peerName: peer.name, activityID: activityID, peerWindow: 0, loop: loop)
        link.setClient(client)
        let window = UInt32(clamping: settings.window)
        let reply: PeerMessage
        do throws(ControlError) {
            reply = try await peers.request(peer, timeout: settings.acceptDeadline + .seconds(5)) {
                .streamOpen(id: $0, stream: stream, activityID: activityID, window: window)
            }
        } catch {
            remove(link, failing: error.description)
            throw error
        }
        guard case .streamAccepted(_, let s, let theirs) = reply, s == stream else {
            remove(link, failing: "unexpected reply")
            throw .failed(code: .unexpectedReply, message: "\(peer.name) answered the stream request with something else")
        }
        link.grant(window: theirs)
        if let session = await peers.links.current(from.peerID) { link.bind(session) }
        return StreamHandle(descriptor: try descriptor(of: link), info: info(link))
    }

    // MARK: - The origin

    /// A peer asks for a stream with the app that owns one of our activities: refused unless that
    /// peer continued it (or we pushed it there), it supports streams, its app is connected and
    /// accepts within the deadline, and the bounds allow one more.
    func offered(stream: UInt64, activityID: UUID, window: UInt32, requestID id: Int64, on session: LinkSession) async -> PeerMessage {
        let peerID = session.peer.id
        let peerName = peers.name(of: session.peer)
        func refuse(_ code: FailureCode, _ message: String) -> PeerMessage {
            logger.notice("refused a peer's stream", metadata: ["peer.id": "\(session.peer.fingerprint)", "failure.code": "\(code)"])
            return .error(id: id, code: code, message: message)
        }
        let here = device
        guard let owner = await activities.streamOwner(of: activityID, givenTo: peerID) else {
            return refuse(
                .notContinued,
                "activity \(activityID.canonicalString) is not one that \(here) gave your machine to continue (fetched or pushed in the last 10 minutes), or its app did not ask for streams"
            )
        }
        guard let owner else {
            return refuse(
                .noStreamApp, "the app that published activity \(activityID.canonicalString) on \(here) is no longer connected to handoffd")
        }
        let token = UUID.random().canonicalString
        let key = Key(peerID: peerID, stream: stream)
        let admitted = state.withLockedValue { s -> FailureCode? in
            if s.links[key] != nil || s.offers.values.contains(where: { $0.key == key }) { return .streamExists }
            if s.count(peer: peerID) >= settings.maxPerPeer { return .tooManyStreams }
            if s.total >= settings.maxTotal { return .tooManyStreams }
            s.offers[token] = Offer(key: key, activityID: activityID, window: window, session: session, peerName: peerName)
            return nil
        }
        if let admitted {
            return refuse(
                admitted,
                admitted == .streamExists
                    ? "stream \(stream) is already open"
                    : "\(here) holds its most streams (\(settings.maxPerPeer) per machine, \(settings.maxTotal) in all); close one first")
        }
        let ticket = answers.register(token, deadline: settings.acceptDeadline)
        owner.send(
            event: "streamRequested",
            [
                "stream": .string(token), "activity": .string(activityID.canonicalString), "peer": .string(peerName),
                "fingerprint": .string(session.peer.fingerprint)
            ])
        let outcome = await answers.wait(ticket)
        let offer = state.withLockedValue { $0.offers.removeValue(forKey: token) }
        switch outcome {
        case .value(true) where offer?.link != nil:
            return .streamAccepted(id: id, stream: stream, window: UInt32(clamping: settings.window))
        case .value:
            return refuse(.streamRefused, "the app on \(here) refused the stream")
        default:
            let seconds = settings.acceptDeadline.components.seconds
            return refuse(
                .streamNotAccepted, "the app on \(here) did not accept the stream within \(seconds) s (does it support continuation streams?)")
        }
    }

    /// `stream-accept TOKEN`: the owning app takes the stream a peer asked for.
    func accept(token: String, client: ControlClient) async throws(ControlError) -> StreamHandle {
        guard let offer = state.withLockedValue({ $0.offers[token] }), offer.link == nil else {
            throw .failed(code: .noSuchStream, message: "no stream \(token) waits to be accepted (it may have timed out)")
        }
        let link = try await makeLink(
            key: offer.key, peerName: offer.peerName, activityID: offer.activityID, peerWindow: UInt64(offer.window),
            loop: offer.session.channel.eventLoop)
        link.setClient(client)
        link.bind(offer.session)
        let taken = state.withLockedValue { s -> Bool in
            guard s.offers[token] != nil else { return false }
            s.offers[token]?.link = link
            return true
        }
        guard taken, answers.resumeOldest(token, with: true) else {
            remove(link, failing: "the offer timed out")
            throw .failed(code: .noSuchStream, message: "stream \(token) timed out before it was accepted")
        }
        return StreamHandle(descriptor: try descriptor(of: link), info: info(link))
    }

    /// `stream-refuse TOKEN`: the owning app does not want it.
    func refuse(token: String) throws(ControlError) {
        guard answers.resumeOldest(token, with: false) else {
            throw .failed(code: .noSuchStream, message: "no stream \(token) waits to be accepted")
        }
    }

    // MARK: - Frames and sessions

    /// A stream frame from a peer, on its session's event loop.
    func frame(_ bytes: ByteBufferView, on session: LinkSession) {
        // A data frame, the bulk of a transfer, is read where it lies.
        if let data = StreamFrame.data(in: bytes),
            let link = state.withLockedValue({ $0.links[Key(peerID: session.peer.id, stream: data.stream)] })
        {
            link.dataFromPeer(at: data.offset, data.bytes, on: session)
            return
        }
        let frame: StreamFrame
        do throws(StreamFrameError) { frame = try StreamFrame(decoding: bytes) } catch {
            // A newer peer's frame type is ignored; a malformed one names no stream we could trust.
            return
        }
        let key = Key(peerID: session.peer.id, stream: frame.stream)
        if let link = state.withLockedValue({ $0.links[key] }) {
            link.fromPeer(frame, on: session)
            return
        }
        switch frame {
        case .data, .fin, .resume:
            // The stream is gone here (ended, or this daemon restarted): the peer's side ends too.
            // One answer a frame, each a write the session bounds in number: a peer that sends
            // many and does not read our answers is closed as stalled.
            session.sendStreamFrame(
                StreamFrame.reset(
                    stream: frame.stream, code: FailureCode.streamUnknown.rawValue,
                    message: "the stream is not open on the other machine (its handoffd may have restarted)"
                )
                .encoded(prefix: MessageKind.stream.rawValue))
        case .ack, .reset:
            break
        }
    }

    /// A session to a peer opened: its detached streams resume on it.
    func adopted(_ session: LinkSession) {
        let waiting = state.withLockedValue { $0.links.filter { $0.key.peerID == session.peer.id }.map(\.value) }
        for link in waiting { link.attach(session) }
    }

    /// A stream lost its session: another one to that peer, if open, takes it at once.
    private func detached(_ link: StreamLink) {
        let links = peers.links
        let peers = peers
        Task {
            // Unpaired (by either side): no stream outlives the pairing.
            if let trusted = try? peers.trusted(), !trusted.contains(where: { $0.identity.id == link.peerID }) {
                link.fail(code: .streamUnpaired, message: "\(link.peerName) is no longer paired with this machine; the stream ended")
                return
            }
            if let session = await links.current(link.peerID), session.channel.isActive { link.attach(session) }
        }
    }

    /// The peer was unpaired: none of its streams outlives the pairing.
    func drop(peerID: PeerID) {
        let doomed = state.withLockedValue { $0.links.filter { $0.key.peerID == peerID }.map(\.value) }
        for link in doomed { link.fail(code: .streamUnpaired, message: "the machine was unpaired; its streams ended") }
    }

    /// handoffd is stopping: every stream ends, and its apps hear why.
    func closeAll() {
        for link in state.withLockedValue({ Array($0.links.values) }) {
            link.fail(code: .streamDaemonStopping, message: "handoffd on \(device) is stopping")
        }
    }

    // MARK: - Links

    /// `loop`: the event loop of the session the stream rides, where the app's end is served too,
    /// so that a frame's way from one socket to the other never crosses threads.
    private func makeLink(
        key: Key, peerName: String, activityID: UUID, peerWindow: UInt64, loop: EventLoop?
    ) async throws(ControlError) -> StreamLink {
        let token = UUID.random().canonicalString
        let admitted = state.withLockedValue { s -> Bool in
            guard s.links[key] == nil, s.count(peer: key.peerID) < settings.maxPerPeer || s.offers.values.contains(where: { $0.key == key }),
                s.total < settings.maxTotal || s.offers.values.contains(where: { $0.key == key })
            else { return false }
            return true
        }
        guard admitted else {
            throw .failed(
                code: .tooManyStreams,
                message: "this machine holds its most streams (\(settings.maxPerPeer) per machine, \(settings.maxTotal) in all); close one first")
        }
        let link = StreamLink(
            facts: .init(token: token, id: key.stream, peerID: key.peerID, peerName: peerName, here: device, activityID: activityID),
            machine: StreamMachine(id: key.stream, settings: machineSettings, peerWindow: peerWindow),
            hooks: .init(
                resumeDeadline: .nanoseconds(Int64(settings.resumeDeadline.components.seconds) * 1_000_000_000), logger: logger,
                onDetached: { [weak self] in self?.detached($0) }, onEnd: { [weak self] in self?.ended($0) }))
        let handler = AppEndHandler(link: link)
        do {
            let (channel, theirs) = try await AppEnd.make(group: loop ?? group, chunk: Self.appRead) { handler }
            link.setApp(channel, handler: handler)
            state.withLockedValue {
                $0.links[key] = link
                $0.byToken[token] = key
            }
            pendingDescriptors.withLockedValue { $0[token] = theirs }
        } catch {
            if case .failed(let code, let message) = error as? StreamError { throw .failed(code: code, message: message) }
            throw .failed(code: .streamSocket, message: "\(error)")
        }
        return link
    }

    /// The app's end of each new link, until it is handed over.
    private let pendingDescriptors = NIOLockedValueBox<[String: OwnedDescriptor]>([:])

    private func descriptor(of link: StreamLink) throws(ControlError) -> OwnedDescriptor {
        guard let d = pendingDescriptors.withLockedValue({ $0.removeValue(forKey: link.token) }) else {
            throw .failed(code: .streamEnded, message: "the stream ended before it could be handed over")
        }
        return d
    }

    private func info(_ link: StreamLink) -> StreamInfo {
        StreamInfo(stream: link.token, activity: link.activityID, peer: link.peerName)
    }

    private func remove(_ link: StreamLink, failing why: String) {
        link.fail(code: .streamNotOpened, message: why)
    }

    private func ended(_ link: StreamLink) {
        state.withLockedValue { s in
            let key = Key(peerID: link.peerID, stream: link.id)
            if s.links[key] === link { s.links[key] = nil }
            s.byToken[link.token] = nil
        }
        pendingDescriptors.withLockedValue { _ = $0.removeValue(forKey: link.token) }
    }
}
