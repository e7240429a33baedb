import HandoffAsync
import HandoffCore
import HandoffLink
import HandoffProtocol

/// What PeerLinks decides without I/O: which session serves our requests (`SessionTable`), what a
/// peer may have in flight and how fast it may push (`PeerAdmission`), how many of our requests
/// wait on a session (`RequestWindow`), and which refusals are logged (`RefusalLog`).
struct LinkBook {
    var table = SessionTable()
    var admission = PeerAdmission()
    var window = RequestWindow()
    var refusals = RefusalLog()

    /// A peer's request on a session: nil to serve it now, else the error to answer with and the
    /// reason to log.
    mutating func admit(_ message: PeerMessage, on session: ObjectIdentifier, peerID: PeerID) -> (reply: PeerMessage, reason: FailureCode)? {
        let isPush = if case .push = message { true } else { false }
        switch admission.admit(isPush: isPush, session: session, peerID: peerID) {
        case nil:
            return nil
        case .busy:
            let text = "too many requests at once (at most \(PeerAdmission.maxInFlightPerSession)); wait for answers before asking more"
            return (.error(id: message.requestID, code: .busy, message: text), .busy)
        case .rateLimited:
            let text = "too many pushes (at most \(Int(PeerAdmission.pushesPerSecond)) a second); try again shortly"
            return (.error(id: message.requestID, code: .rateLimited, message: text), .rateLimited)
        }
    }
}

/// A reply's bytes: one that cannot be encoded or does not fit a frame becomes an error reply, so
/// that the asking peer hears why instead of waiting for its timeout.
enum PeerReply {
    static func bytes(_ reply: PeerMessage, answering request: PeerMessage, maxMessage: Int) -> (bytes: [UInt8], problem: String?) {
        let bytes: [UInt8]
        do throws(CodecError) { bytes = try reply.encoded() } catch {
            let text = "the answer could not be encoded: \(error)"
            return ((try? PeerMessage.error(id: request.requestID, code: .replyTooLarge, message: text).encoded()) ?? [], text)
        }
        guard bytes.count > maxMessage else { return (bytes, nil) }
        let text = "the answer is \(bytes.count) bytes, more than a link frame carries (\(maxMessage))"
        return ((try? PeerMessage.error(id: request.requestID, code: .replyTooLarge, message: text).encoded()) ?? [], text)
    }
}

extension PeerMessage {
    /// The id of an answer to one of our requests (hello is both a request and its answer).
    var answerID: Int64? {
        switch self {
        case .hello(let id, _), .activities(let id, _), .activity(let id, _), .outcome(let id, _), .pong(let id): id
        case .streamAccepted(let id, _, _): id
        case .error(let id, _, _): id
        case .clipboard(.data(let id, _, _, _)): id
        default: nil
        }
    }
}

/// Peers a session is being opened to, and the requests waiting for that one instead of
/// opening their own.
struct SessionsBeingOpened {
    var peers: Set<PeerID> = []
    let done = Waiters<PeerID, Result<LinkSession, PeerRequestError>>()
}
