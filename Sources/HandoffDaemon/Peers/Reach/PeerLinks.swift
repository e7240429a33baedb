#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffCore
import HandoffLink
import HandoffProtocol
import Logging
import NIOCore

/// What PeerLinks tells Peers about presence: a peer's first session authenticated, or its last
/// one ended.
enum LinkPresence: Sendable {
    case present(PeerIdentity, LinkSession)
    case absent(PeerIdentity, SessionEnd)
}

/// The open sessions with paired peers, and request/answer over them. One session per peer is
/// used for our requests (`SessionTable` decides which when two open at once); every session,
/// ours or theirs, is read by `run()`, each in a child task, and the peer's requests on it are
/// served by `serve`, each in a child task of its session's reader (a slow dispatch does not hold
/// up pings); its notifications in order, as they are read. Request ids are random, and an answer is taken only from the session its request
/// was sent on.
public actor PeerLinks {
    public typealias Server = @Sendable (PeerMessage, LinkSession) async -> PeerMessage?

    private let endpoint: LinkEndpoint
    private let logger: Logger
    /// What serves the peer's requests, and who hears of every session adopted.
    private var hooks = Hooks()
    /// The decisions, kept apart from the sockets (LinkBook).
    private var book = LinkBook()
    /// Our requests' answers, by request id; the owner is the session the request went out on.
    private let answers = Waiters<Int64, PeerMessage>()
    /// Peers a connection is being opened to: concurrent requests wait for that one.
    private var opening = SessionsBeingOpened()
    /// Sessions to read, handed to `run()`.
    private let adopted: (stream: AsyncStream<LinkSession>, continuation: AsyncStream<LinkSession>.Continuation)
    /// First session up, last session down: read by Peers.
    nonisolated let presence: (stream: AsyncStream<LinkPresence>, continuation: AsyncStream<LinkPresence>.Continuation)

    public init(endpoint: LinkEndpoint, logger: Logger) {
        self.endpoint = endpoint
        self.logger = logger
        adopted = AsyncStream.makeStream(of: LinkSession.self)
        presence = AsyncStream.makeStream(of: LinkPresence.self)
    }

    struct Hooks {
        var serve: Server = { _, _ in nil }
        var onAdopt: (@Sendable (LinkSession) -> Void)?
    }

    public func setServer(_ server: @escaping Server) { hooks.serve = server }

    /// Told of every session adopted (the streams resume on it).
    public func setOnAdopt(_ hook: @escaping @Sendable (LinkSession) -> Void) { hooks.onAdopt = hook }

    /// The session our requests to a peer use now.
    public func sessionID(of peerID: PeerID) -> UInt64? { book.table.current(peerID)?.serial }

    /// The session our requests to a peer use now.
    public func current(_ peerID: PeerID) -> LinkSession? { book.table.current(peerID) }

    /// Every session with the peer that is kept open (normally one).
    public func sessions(of peerID: PeerID) -> [LinkSession] { book.table.open(peerID) }

    /// Peers with an open session right now (by identity id).
    public var connectedPeerIDs: Set<PeerID> { book.table.peerIDs }

    /// Reads every adopted session until cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await session in adopted.stream {
                group.addTask { await self.read(session) }
            }
        }
    }

    /// Starts reading a session (one a peer opened, or one we opened). If the peer has another
    /// one, the table says which to keep; the other is retired: no new request goes out on it, and
    /// `closeRetired` closes it once nothing is in flight on it (both ends retire the same one).
    public func adopt(_ session: LinkSession) async {
        let localKeyIsLower = endpoint.identity.identity.publicKey.lexicographicallyPrecedes(session.peer.publicKey)
        let (retired, first) = book.table.add(session, at: .now, localKeyIsLower: localKeyIsLower)
        adopted.continuation.yield(session)
        hooks.onAdopt?(session)
        if first { presence.continuation.yield(.present(session.peer, session)) }
        for s in retired {
            logger.info("retiring a duplicate session", metadata: ["peer.id": "\(s.peer.fingerprint)", "session.dialled": "\(s.initiatedLocally)"])
        }
    }

    /// The peer greeted us on a session it opened: the older ones it opened are retired.
    func chosenByPeer(_ session: LinkSession) {
        for s in book.table.chosenByPeer(session, at: .now) {
            logger.info("retiring a session the peer replaced", metadata: ["peer.id": "\(s.peer.fingerprint)"])
        }
    }

    /// Whether a retired session is still to close (`closeRetired`).
    var hasRetired: Bool { book.table.hasRetiredToClose }

    /// Closes the retired sessions that are idle (none of our requests waits for an answer on
    /// them, none of the peer's is being served) or have waited long enough.
    func closeRetired() async {
        // Read from a copy: the table's change below holds `book` exclusively.
        let admission = book.admission
        let due = book.table.retiredToClose(at: .now) { s in
            answers.count(owner: ObjectIdentifier(s)) == 0 && admission.serving(session: ObjectIdentifier(s)) == 0
        }
        for s in due { await s.close() }
    }

    /// Closes one session, saying why when it was the peer's last (ping timeout, our address gone).
    func close(_ session: LinkSession, because reason: SessionEnd) async {
        book.table.ending(session, reason)
        await session.close()
    }

    private func read(_ session: LinkSession) async {
        await withDiscardingTaskGroup { group in
            for await bytes in session.messages {
                // A closed session's backlog is dropped: nobody can be answered on it any more.
                // Its goodbye still counts: a stopping peer closes right after it, and the close
                // often arrives in the same read, before this loop has taken the goodbye.
                guard session.channel.isActive else {
                    if case .goodbye? = try? PeerMessage(decoding: bytes) { book.table.ending(session, .goodbye) }
                    continue
                }
                let message: PeerMessage
                do throws(PeerProtocolError) { message = try PeerMessage(decoding: bytes) } catch {
                    refused(session, error.code)
                    let reply = PeerMessage.errorReply(toUndecodable: bytes)
                    if reply.answer { send(.error(id: reply.id, code: error.code, message: error.description), on: session) }
                    continue
                }
                if case .goodbye = message {
                    logger.info("peer said goodbye", metadata: ["peer.id": "\(session.peer.fingerprint)"])
                    book.table.ending(session, .goodbye)
                    await session.close()
                    continue
                }
                // An answer counts only from the session its request went out on: another paired
                // peer that learnt or guessed the id must not answer for this one.
                if let id = message.answerID, answers.resumeOldest(id, with: message, ownedBy: ObjectIdentifier(session)) { continue }
                let serve = hooks.serve
                if message.isOneWay {
                    // Served in order, before the next message is read: a peer's pushes apply in
                    // the order it sent them, and a notification (a `continued` report) takes no
                    // place among its 8 requests, as the peer cannot know when we are done with it.
                    _ = await serve(message, session)
                    continue
                }
                if let refusal = admit(message, on: session) {
                    send(refusal, answering: message, on: session)
                    continue
                }
                if case .hello = message {
                    // Served before the next message is read: what the peer declares applies to
                    // everything it sends after.
                    served(message, reply: await serve(message, session), on: session)
                    continue
                }
                group.addTask {
                    let reply = await serve(message, session)
                    await self.served(message, reply: reply, on: session)
                }
            }
        }
        closed(session)
    }

    /// Logs a refusal once per peer and reason a minute, with how many there were.
    private func refused(_ session: LinkSession, _ reason: FailureCode) {
        guard let count = book.refusals.note(peerID: session.peer.id, reason: reason.rawValue, at: .now) else { return }
        logger.notice(
            "refused a peer's messages", metadata: ["peer.id": "\(session.peer.fingerprint)", "reason": "\(reason)", "count": "\(count)"])
    }

    /// nil if the request may be served now; else the error to answer with (the refusal logged).
    private func admit(_ message: PeerMessage, on session: LinkSession) -> PeerMessage? {
        guard let (reply, reason) = book.admit(message, on: ObjectIdentifier(session), peerID: session.peer.id) else { return nil }
        refused(session, reason)
        return reply
    }

    private func served(_ request: PeerMessage, reply: PeerMessage?, on session: LinkSession) {
        book.admission.served(session: ObjectIdentifier(session))
        if let reply, !request.isOneWay { send(reply, answering: request, on: session) }
    }

    /// Sends a reply; one that cannot be encoded or does not fit a frame becomes an error reply,
    /// so that the asking peer hears why instead of waiting for its timeout. Queued, not awaited
    /// (as every reply: a peer that does not read is closed at the write deadline).
    private func send(_ reply: PeerMessage, answering request: PeerMessage, on session: LinkSession) {
        let (bytes, problem) = PeerReply.bytes(reply, answering: request, maxMessage: session.maxMessage)
        if let problem {
            logger.warning("a reply could not be sent as it was", metadata: ["peer.id": "\(session.peer.fingerprint)", "reason": "\(problem)"])
        }
        session.post(bytes)
    }

    private func send(_ message: PeerMessage, on session: LinkSession) {
        guard let bytes = try? message.encoded() else { return }
        session.post(bytes)
    }

    private func closed(_ session: LinkSession) {
        // A peer that stopped taking what we write is absent as `stalled`, whatever else we knew.
        if session.closeReason == .stalled { book.table.ending(session, .stalled) }
        book.admission.closed(session: ObjectIdentifier(session))
        answers.end(owner: ObjectIdentifier(session))
        if let (reason, last) = book.table.remove(session), last { presence.continuation.yield(.absent(session.peer, reason)) }
    }

    /// An open session to `peer`, opening one at `host`:`port` if there is none; `opened` is true
    /// when this call opened it (the caller greets the peer first).
    public func session(to peer: PeerIdentity, host: String?, port: Int?) async throws(PeerRequestError) -> (session: LinkSession, opened: Bool) {
        if let s = book.table.current(peer.id), s.channel.isActive { return (s, false) }
        if opening.peers.contains(peer.id) {
            switch await opening.done.wait(for: peer.id) {
            case .value(let result): return (try result.get(), false)
            default: throw .unreachable(peer.fingerprint, reason: "the connection was abandoned")
            }
        }
        guard let host, let port else { throw .unreachable(peer.fingerprint, reason: "it is not listed on the network; is handoffd running there?") }
        opening.peers.insert(peer.id)
        defer { opening.peers.remove(peer.id) }
        do {
            let session = try await endpoint.connect(host: host, port: port, expecting: peer)
            await adopt(session)
            opening.done.resumeAll(peer.id, with: .success(session))
            return (session, true)
        } catch {
            let failure = PeerRequestError.unreachable(peer.fingerprint, reason: ConnectFailure.reason(error))
            opening.done.resumeAll(peer.id, with: .failure(failure))
            throw failure
        }
    }

    /// Sends a request and waits for its answer; an `error` answer becomes `.refused`.
    public func request(
        _ make: @Sendable (Int64) -> PeerMessage, to peer: PeerIdentity, host: String?, port: Int?,
        timeout: Duration = .seconds(5)
    ) async throws(PeerRequestError) -> PeerMessage {
        try await request(make, on: try await session(to: peer, host: host, port: port).session, timeout: timeout)
    }

    /// Sends a request on the peer's open session, if it has one (nil if not): the lookup and the
    /// request in one call into this actor.
    public func requestIfOpen(
        _ make: @Sendable (Int64) -> PeerMessage, peerID: PeerID, timeout: Duration
    ) async throws(PeerRequestError) -> PeerMessage? {
        guard let open = book.table.current(peerID), open.channel.isActive else { return nil }
        return try await request(make, on: open, timeout: timeout)
    }

    /// Sends a request on one session and waits for its answer there.
    public func request(
        _ make: @Sendable (Int64) -> PeerMessage, on session: LinkSession,
        timeout: Duration = .seconds(5)
    ) async throws(PeerRequestError) -> PeerMessage {
        let slot = ObjectIdentifier(session)
        if let ticket = book.window.take(slot, deadline: timeout) {
            // The window is copied out (it shares its waiters): `book` is not held across the
            // wait, while other requests on this actor change it.
            let window = book.window
            switch await window.wait(ticket) {
            case .value: break
            case .timedOut: throw .timedOut(session.peer.fingerprint, after: timeout)
            case .ended, .cancelled: throw .sessionClosed(session.peer.fingerprint)
            }
        }
        defer { book.window.give(slot) }
        return try await answer(try await ask(make, on: session, timeout: timeout))
    }

    /// A request sent, its answer still to be awaited (`answer`) or dropped (`forget`).
    public struct Asked: Sendable {
        fileprivate let ticket: Waiters<Int64, PeerMessage>.Ticket
        /// Named (its fingerprint) only if the answer fails: the name was a tenth of an ask.
        fileprivate let identity: PeerIdentity
        fileprivate let timeout: Duration
        fileprivate var peer: String { identity.fingerprint }
    }

    /// Sends a request without waiting for its answer: several can be in flight on one session.
    public func ask(
        _ make: @Sendable (Int64) -> PeerMessage, on session: LinkSession, timeout: Duration = .seconds(5)
    ) async throws(PeerRequestError) -> Asked {
        // Random, never counted: ids are seen by the peer (pings), and a counted one tells the next.
        var id = Int64.random(in: 1...Int64.max)
        while answers.count(id) > 0 { id = Int64.random(in: 1...Int64.max) }
        let ticket = answers.register(id, owner: ObjectIdentifier(session), deadline: timeout)
        // Queued, not awaited: the answer is what is waited for, and a write that fails closes
        // the session, which ends its waiting answers. Awaiting the write cost a hop back onto
        // this actor per request (docs/PERFORMANCE.md).
        guard let bytes = try? make(id).encoded(), session.post(bytes) else {
            answers.forget(ticket)
            throw .sessionClosed(session.peer.fingerprint)
        }
        return Asked(ticket: ticket, identity: session.peer, timeout: timeout)
    }

    /// The answer to a request sent with `ask`; an `error` answer becomes `.refused`.
    public nonisolated func answer(_ asked: Asked) async throws(PeerRequestError) -> PeerMessage {
        switch await answers.wait(asked.ticket) {
        case .value(.error(_, let code, let text)): throw .refused(code: code, message: text)
        case .value(let reply): return reply
        case .timedOut: throw .timedOut(asked.peer, after: asked.timeout)
        case .ended, .cancelled: throw .sessionClosed(asked.peer)
        }
    }

    /// Drops a request's answer that will not be awaited.
    public nonisolated func forget(_ asked: Asked) { answers.forget(asked.ticket) }

    /// Sends a notification (no answer) to each of `peerIDs` with an open session, encoded once,
    /// without waiting for a peer to take it: a peer that does not read holds up nobody (its
    /// session closes as `stalled` at the write deadline). How many sessions took it.
    @discardableResult
    /// On every open session of each peer, not only the current one: of two sessions the table
    /// is about to settle (both machines dialled at once), the one kept may be the other.
    public func notify(_ message: PeerMessage, peerIDs: some Sequence<PeerID>) -> Int {
        guard let bytes = try? message.encoded() else { return 0 }
        return peerIDs.reduce(0) { taken, id in taken + (book.table.open(id).map { $0.post(bytes) }.contains(true) ? 1 : 0) }
    }

    /// Closes every session with a peer (after unpairing, or `handoffctl disconnect`).
    public func drop(peerID: PeerID) async {
        for s in book.table.open(peerID) { await close(s, because: .closedHere) }
    }

    private static let goodbye = (try? PeerMessage.goodbye.encoded()) ?? []

    /// First thing at shutdown (`Farewell`): a goodbye queued on every session, so that peers mark
    /// this machine absent now, not once the other components have stopped; each peer closes its
    /// end. Queued, not awaited: a peer that stopped reading holds up no part of the shutdown.
    public func sayGoodbye() {
        for s in book.table.all { _ = s.post(Self.goodbye) }
    }

    /// At shutdown: a goodbye on every session, so that peers mark this machine absent at once
    /// instead of after their pings time out; then every session closes and `run()`'s intake ends.
    public func closeAll() async {
        let goodbye = Self.goodbye
        await withDiscardingTaskGroup { group in
            for s in book.table.all {
                book.table.ending(s, .closedHere)
                group.addTask {
                    try? await s.send(goodbye)
                    await s.close()
                }
            }
        }
        adopted.continuation.finish()
        presence.continuation.finish()
    }
}
