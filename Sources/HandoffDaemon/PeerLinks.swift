import Foundation
import HandoffCore
import HandoffLink
import Logging

/// Why a request to a peer did not get an answer.
public enum PeerRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    case notPaired(String)
    case unreachable(String, reason: String)
    case timedOut(String, after: Duration)
    case sessionClosed(String)
    case refused(code: String, message: String)
    case unexpectedReply(String)

    public var code: String {
        switch self {
        case .notPaired: "not-paired"
        case .unreachable: "peer-unreachable"
        case .timedOut: "peer-timeout"
        case .sessionClosed: "peer-gone"
        case .refused(let code, _): code
        case .unexpectedReply: "unexpected-reply"
        }
    }

    public var description: String {
        switch self {
        case .notPaired(let p): "\(p) is not paired with this machine; pair first with `handoffctl pair \(p)`"
        case .unreachable(let p, let why): "cannot reach \(p) (\(why)); is handoffd running there?"
        case .timedOut(let p, let d): "\(p) did not answer within \(d)"
        case .sessionClosed(let p): "the session with \(p) closed before it answered"
        case .refused(_, let message): message
        case .unexpectedReply(let what): "the peer answered with \(what)"
        }
    }
}

/// The open sessions with paired peers, and request/answer over them. One session per peer is
/// used for our requests (the newest); every session, ours or theirs, is read, and the peer's
/// requests on it are answered by `serve`. Request ids are random, and an answer is taken only
/// from the session its request was sent on.
public actor PeerLinks {
    public typealias Server = @Sendable (PeerMessage, LinkSession) async -> PeerMessage?

    private let endpoint: LinkEndpoint
    private let logger: Logger
    private var serve: Server = { _, _ in nil }
    private var byPeer: [String: LinkSession] = [:]
    private var waiting: [Int64: (session: ObjectIdentifier, continuation: CheckedContinuation<PeerMessage, Error>)] = [:]
    /// Connections being opened, so that concurrent requests share one.
    private var connecting: [String: Task<LinkSession, Error>] = [:]
    /// Requests of each session being served now, and each peer's allowance of pushes: a paired
    /// peer may not make us run unbounded work (dispatches, exec children, scene writes).
    private var inFlight: [ObjectIdentifier: Int] = [:]
    private var pushAllowance: [String: TokenBucket] = [:]
    public static let maxInFlightPerSession = 8
    public static let pushBurst = 20
    public static let pushesPerSecond = 5.0

    public init(endpoint: LinkEndpoint, logger: Logger) {
        self.endpoint = endpoint
        self.logger = logger
    }

    public func setServer(_ server: @escaping Server) { serve = server }

    /// Peers with an open session right now (by identity id).
    public var connectedPeerIDs: Set<String> { Set(byPeer.keys) }

    /// Starts reading a session (one a peer opened, or one we opened).
    public func adopt(_ session: LinkSession) {
        byPeer[session.peer.id] = session
        Task { await self.read(session) }
    }

    private func read(_ session: LinkSession) async {
        for await bytes in session.messages {
            let message: PeerMessage
            do throws(PeerProtocolError) { message = try PeerMessage(decoding: bytes) } catch {
                logger.notice("undecodable peer message", metadata: ["peer.id": "\(session.peer.fingerprint)", "error": "\(error.code)"])
                await send(.error(id: nil, code: error.code, message: error.description), answering: .ping(id: 0), on: session)
                continue
            }
            // An answer counts only from the session its request went out on: another paired
            // peer that learnt or guessed the id must not answer for this one.
            if let id = message.answerID, let waiter = waiting[id], waiter.session == ObjectIdentifier(session) {
                waiting[id] = nil
                waiter.continuation.resume(returning: message)
                continue
            }
            if let refusal = admit(message, on: session) {
                await send(refusal, answering: message, on: session)
                continue
            }
            let serve = self.serve
            // Each request is served on its own, so a slow dispatch does not hold up pings.
            Task {
                let reply = await serve(message, session)
                await self.served(message, reply: reply, on: session)
            }
        }
        closed(session)
    }

    /// nil if the request may be served now; else the error to answer with.
    private func admit(_ message: PeerMessage, on session: LinkSession) -> PeerMessage? {
        let key = ObjectIdentifier(session)
        if inFlight[key, default: 0] >= Self.maxInFlightPerSession {
            return .error(id: message.requestID, code: "busy",
                          message: "too many requests at once (at most \(Self.maxInFlightPerSession)); wait for answers before asking more")
        }
        if case .push = message {
            var bucket = pushAllowance[session.peer.id] ?? TokenBucket(burst: Self.pushBurst, perSecond: Self.pushesPerSecond)
            let ok = bucket.take()
            pushAllowance[session.peer.id] = bucket
            if !ok {
                logger.notice("refused a push: rate limit", metadata: ["peer.id": "\(session.peer.fingerprint)"])
                return .error(id: message.requestID, code: "rate-limited",
                              message: "too many pushes (at most \(Int(Self.pushesPerSecond)) a second); try again shortly")
            }
        }
        inFlight[key, default: 0] += 1
        return nil
    }

    private func served(_ request: PeerMessage, reply: PeerMessage?, on session: LinkSession) async {
        let key = ObjectIdentifier(session)
        if let n = inFlight[key] { inFlight[key] = n > 1 ? n - 1 : nil }
        if let reply { await send(reply, answering: request, on: session) }
    }

    /// Sends a reply; one that cannot be encoded or does not fit a frame becomes an error reply,
    /// so that the asking peer hears why instead of waiting for its timeout.
    private func send(_ reply: PeerMessage, answering request: PeerMessage, on session: LinkSession) async {
        var bytes: [UInt8]
        do throws(CodecError) {
            bytes = try reply.encoded()
        } catch {
            logger.warning("a reply could not be encoded", metadata: ["peer.id": "\(session.peer.fingerprint)", "error": "\(error)"])
            bytes = (try? PeerMessage.error(id: request.requestID, code: "reply-too-large",
                                            message: "the answer could not be encoded: \(error)").encoded()) ?? []
        }
        if bytes.count > session.maxMessage {
            logger.warning("a reply does not fit a frame", metadata: ["peer.id": "\(session.peer.fingerprint)", "reply.bytes": "\(bytes.count)"])
            bytes = (try? PeerMessage.error(id: request.requestID, code: "reply-too-large",
                                            message: "the answer is \(bytes.count) bytes, more than a link frame carries (\(session.maxMessage))").encoded()) ?? []
        }
        try? await session.send(bytes)
    }

    private func closed(_ session: LinkSession) {
        let peer = session.peer.id
        inFlight[ObjectIdentifier(session)] = nil
        if byPeer[peer] === session { byPeer[peer] = nil }
        for (id, w) in waiting where w.session == ObjectIdentifier(session) {
            waiting[id] = nil
            w.continuation.resume(throwing: PeerRequestError.sessionClosed(session.peer.fingerprint))
        }
    }

    /// An open session to `peer`, opening one at `address` if there is none.
    public func session(to peer: PeerIdentity, host: String?, port: Int?) async throws -> LinkSession {
        if let s = byPeer[peer.id], s.channel.isActive { return s }
        if let pending = connecting[peer.id] { return try await pending.value }
        guard let host, let port else { throw PeerRequestError.unreachable(peer.fingerprint, reason: "it is not listed on the network") }
        let endpoint = self.endpoint
        let task = Task { try await endpoint.connect(host: host, port: port, expecting: peer) }
        connecting[peer.id] = task
        defer { connecting[peer.id] = nil }
        do {
            let session = try await task.value
            adopt(session)
            return session
        } catch {
            throw PeerRequestError.unreachable(peer.fingerprint, reason: "\(error)")
        }
    }

    /// Sends a request and waits for its answer; an `error` answer becomes `.refused`.
    public func request(_ make: @Sendable (Int64) -> PeerMessage, to peer: PeerIdentity, host: String?, port: Int?,
                        timeout: Duration = .seconds(5)) async throws -> PeerMessage {
        let session = try await session(to: peer, host: host, port: port)
        // Random, never counted: ids are seen by the peer (pings), and a counted one tells the next.
        var fresh = Int64.random(in: 1...Int64.max)
        while waiting[fresh] != nil { fresh = Int64.random(in: 1...Int64.max) }
        let id = fresh
        let message = make(id)
        let timer = Timeout.after(timeout, on: session.channel.eventLoop) {
            Task { await self.abandon(id, peer: peer.fingerprint, after: timeout) }
        }
        defer { timer.cancel() }
        let reply = try await awaitAnswer(id: id, sending: message, on: session)
        if case .error(_, let code, let text) = reply { throw PeerRequestError.refused(code: code, message: text) }
        return reply
    }

    private func awaitAnswer(id: Int64, sending message: PeerMessage, on session: LinkSession) async throws -> PeerMessage {
        try await withCheckedThrowingContinuation { c in
            waiting[id] = (ObjectIdentifier(session), c)
            Task {
                do { try await session.send(message.encoded()) } catch {
                    self.fail(id, PeerRequestError.sessionClosed(session.peer.fingerprint))
                }
            }
        }
    }

    private func fail(_ id: Int64, _ error: Error) { waiting.removeValue(forKey: id)?.continuation.resume(throwing: error) }

    private func abandon(_ id: Int64, peer: String, after timeout: Duration) {
        waiting.removeValue(forKey: id)?.continuation.resume(throwing: PeerRequestError.timedOut(peer, after: timeout))
    }

    /// Sends a notification (no answer) to a peer with an open session; false if there is none.
    @discardableResult
    public func notify(_ message: PeerMessage, peerID: String) async -> Bool {
        guard let s = byPeer[peerID] else { return false }
        do { try await s.send(message.encoded()) } catch { return false }
        return true
    }

    /// Closes every session to a peer (after unpairing, or at shutdown).
    public func drop(peerID: String) async {
        if let s = byPeer.removeValue(forKey: peerID) { await s.close() }
    }

    public func closeAll() async {
        for s in byPeer.values { await s.close() }
        byPeer = [:]
    }
}

extension PeerMessage {
    /// The id of an answer to one of our requests (hello is both a request and its answer).
    var answerID: Int64? {
        switch self {
        case .hello(let id, _, _, _), .activities(let id, _), .activity(let id, _), .outcome(let id, _), .pong(let id): id
        case .error(let id, _, _): id
        default: nil
        }
    }
}
