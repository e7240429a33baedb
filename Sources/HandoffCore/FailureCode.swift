/// A failure's stable identifier: on the wire (peer messages, stream resets), in control answers,
/// as D-Bus error names, and for scripts (`handoffctl --json`). Every code handoffd sends is a
/// static member here, listed in `all`, with what it means (docs/CONTROL.md, "Failure codes", is
/// checked against it). A code that arrives from another machine or a newer daemon is carried as
/// it came (`init(_:)`): a peer's reason is reported, never reinterpreted.
public struct FailureCode: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// A code as received; one of ours is one of the static members.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }

    /// Whether handoffd sends this code itself (a D-Bus error name exists for it).
    public var isKnown: Bool { Self.meanings[self] != nil }
    /// What the code means, for one of ours.
    public var meaning: String? { Self.meanings[self] }

    // A request on the control socket or D-Bus
    /// The request line is longer than the daemon reads.
    public static let lineTooLong = FailureCode("line-too-long")
    /// The request is not JSON.
    public static let notJson = FailureCode("not-json")
    /// The request is not a JSON object.
    public static let notAnObject = FailureCode("not-an-object")
    /// The request names no operation.
    public static let missingOp = FailureCode("missing-op")
    /// The daemon has no such operation.
    public static let unknownOp = FailureCode("unknown-op")
    /// An argument is missing, of the wrong type or out of range.
    public static let badArgument = FailureCode("bad-argument")
    /// The connecting user may not use this daemon.
    public static let permissionDenied = FailureCode("permission-denied")
    /// The daemon holds as many client connections as it serves.
    public static let tooManyClients = FailureCode("too-many-clients")
    /// A connection opened ahead was used for one operation already.
    public static let connectionUsed = FailureCode("connection-used")
    /// The operation needs a file descriptor passed with it (D-Bus).
    public static let needsDescriptor = FailureCode("needs-descriptor")
    /// An operation failed for a reason with no code of its own.
    public static let failed = FailureCode("failed")
    /// The daemon or the peer is at its bound for this work; try again.
    public static let busy = FailureCode("busy")
    /// What the request names (activity, scene, question, result) is not here.
    public static let notFound = FailureCode("not-found")

    // Continuing an activity
    /// No app handles the type and it has no webpage URL.
    public static let noHandler = FailureCode("no-handler")
    /// The type is not declared here.
    public static let undeclaredType = FailureCode("undeclared-type")
    /// The other machine does not declare the type.
    public static let typeNotDeclared = FailureCode("type-not-declared")
    /// The activity lacks a key its type requires.
    public static let missingRequiredKey = FailureCode("missing-required-key")
    /// The activity expired.
    public static let expired = FailureCode("expired")
    /// The activity is not eligible for Handoff.
    public static let notEligible = FailureCode("not-eligible")
    /// The activity's payload cannot be decoded.
    public static let payloadDecodeFailed = FailureCode("payload-decode-failed")
    /// The content the activity points at is not on this machine.
    public static let contentNotFound = FailureCode("content-not-found")
    /// The activity is above the size limit.
    public static let tooLarge = FailureCode("too-large")
    /// The app or command that took it failed.
    public static let handlerFailed = FailureCode("handler-failed")
    /// The activity is for another paired machine.
    public static let notForPeer = FailureCode("not-for-peer")
    /// A search result has nothing to open.
    public static let nothingToOpen = FailureCode("nothing-to-open")
    /// The other machine refuses pushes from this one.
    public static let pushRefused = FailureCode("push-refused")

    // Peers
    /// The machine is not paired with this one.
    public static let notPaired = FailureCode("not-paired")
    /// No paired or present machine has this name.
    public static let unknownPeer = FailureCode("unknown-peer")
    /// More than one machine has this name.
    public static let ambiguousPeer = FailureCode("ambiguous-peer")
    /// The machine cannot be reached.
    public static let peerUnreachable = FailureCode("peer-unreachable")
    /// The machine did not answer in time.
    public static let peerTimeout = FailureCode("peer-timeout")
    /// The session closed before the machine answered.
    public static let peerGone = FailureCode("peer-gone")
    /// The machine answered with a message of another kind.
    public static let unexpectedReply = FailureCode("unexpected-reply")
    /// The machine sent a message that is not a request.
    public static let unexpected = FailureCode("unexpected")
    /// The machine speaks a protocol version this one does not.
    public static let unsupportedVersion = FailureCode("unsupported-version")
    /// The machine opens sessions faster than allowed.
    public static let rateLimited = FailureCode("rate-limited")
    /// An answer is above the message bound.
    public static let replyTooLarge = FailureCode("reply-too-large")
    /// A message could not be decoded.
    public static let undecodable = FailureCode("undecodable")
    /// A message of a kind this version does not know.
    public static let unknownMessage = FailureCode("unknown-message")
    /// A message's field is missing or of the wrong type.
    public static let badField = FailureCode("bad-field")

    // Pairing
    /// The pairing did not complete.
    public static let pairingFailed = FailureCode("pairing-failed")
    /// The other side did not answer the pairing in time.
    public static let pairingTimeout = FailureCode("pairing-timeout")
    /// The other machine is not accepting pairings.
    public static let pairingWindowClosed = FailureCode("pairing-window-closed")
    /// The two machines show different codes.
    public static let codesDiffer = FailureCode("codes-differ")
    /// The person on the other machine refused.
    public static let refusedThere = FailureCode("refused-there")
    /// The pinned key could not be written.
    public static let storeFailed = FailureCode("store-failed")

    // Search
    /// Search is turned off in the configuration.
    public static let searchOff = FailureCode("search-off")
    /// The index could not answer.
    public static let searchFailed = FailureCode("search-failed")

    // Scenes
    /// A scene's state could not be saved.
    public static let saveFailed = FailureCode("save-failed")
    /// A scene's state is not what the operation needs.
    public static let badSceneState = FailureCode("bad-scene-state")

    // Continuation streams
    /// No stream with this id is open here.
    public static let noSuchStream = FailureCode("no-such-stream")
    /// The app that published the activity is gone.
    public static let noStreamApp = FailureCode("no-stream-app")
    /// The activity was not continued by the asking machine.
    public static let notContinued = FailureCode("not-continued")
    /// The machine holds as many streams as it allows.
    public static let tooManyStreams = FailureCode("too-many-streams")
    /// The app refused the stream.
    public static let streamRefused = FailureCode("stream-refused")
    /// The app did not accept the stream in time.
    public static let streamNotAccepted = FailureCode("stream-not-accepted")
    /// The stream was never opened.
    public static let streamNotOpened = FailureCode("stream-not-opened")
    /// A stream with this id is open already.
    public static let streamExists = FailureCode("stream-exists")
    /// The other handoffd no longer knows the stream (it restarted).
    public static let streamUnknown = FailureCode("stream-unknown")
    /// The machines were unpaired while the stream was open.
    public static let streamUnpaired = FailureCode("stream-unpaired")
    /// The app closed its end with an error.
    public static let streamAppClosed = FailureCode("stream-app-closed")
    /// The app's socket failed.
    public static let streamSocket = FailureCode("stream-socket")
    /// The link stayed down past the resume window.
    public static let streamLinkLost = FailureCode("stream-link-lost")
    /// The other side broke the stream protocol.
    public static let streamProtocol = FailureCode("stream-protocol")
    /// The stream ended before the operation.
    public static let streamEnded = FailureCode("stream-ended")
    /// Handoffd is stopping.
    public static let streamDaemonStopping = FailureCode("stream-daemon-stopping")
    /// The activity is offered by more than one machine; name the peer.
    public static let ambiguousOrigin = FailureCode("ambiguous-origin")

    // Clipboard
    /// The shared clipboard is off on this machine.
    public static let clipboardOff = FailureCode("clipboard-off")
    /// A password manager marked the copy secret.
    public static let clipboardSecret = FailureCode("clipboard-secret")
    /// The copy came from a paired machine.
    public static let clipboardEcho = FailureCode("clipboard-echo")
    /// None of the copy's types is shared.
    public static let clipboardNothingShared = FailureCode("clipboard-nothing-shared")
    /// No offer (or no longer: expired, replaced, its machine gone) to paste from.
    public static let clipboardNoOffer = FailureCode("clipboard-no-offer")
    /// The offer has no such type.
    public static let clipboardNoType = FailureCode("clipboard-no-type")

    // The client library, on its own side
    /// No daemon listens on the control socket.
    public static let daemonNotRunning = FailureCode("daemon-not-running")
    /// The control socket's path is not usable.
    public static let socketPath = FailureCode("socket-path")
    /// The connection to the daemon closed.
    public static let connectionLost = FailureCode("connection-lost")
    /// The daemon's answer could not be read.
    public static let badResponse = FailureCode("bad-response")
    /// The daemon did not answer within the bound.
    public static let noAnswer = FailureCode("no-answer")
    /// An answer could not be decoded.
    public static let unreadableAnswer = FailureCode("unreadable-answer")

    /// Every code handoffd sends, with what it means, in the order docs/CONTROL.md lists them.
    public static let all: [(code: FailureCode, meaning: String)] = [
        (.lineTooLong, "the request line is longer than the daemon reads"),
        (.notJson, "the request is not JSON"),
        (.notAnObject, "the request is not a JSON object"),
        (.missingOp, "the request names no operation"),
        (.unknownOp, "the daemon has no such operation"),
        (.badArgument, "an argument is missing, of the wrong type or out of range"),
        (.permissionDenied, "the connecting user may not use this daemon"),
        (.tooManyClients, "the daemon holds as many client connections as it serves"),
        (.connectionUsed, "a connection opened ahead was used for one operation already"),
        (.needsDescriptor, "the operation needs a file descriptor passed with it (D-Bus)"),
        (.failed, "an operation failed for a reason with no code of its own"),
        (.busy, "the daemon or the peer is at its bound for this work; try again"),
        (.notFound, "what the request names (activity, scene, question, result) is not here"),
        (.noHandler, "no app handles the type and it has no webpage URL"),
        (.undeclaredType, "the type is not declared here"),
        (.typeNotDeclared, "the other machine does not declare the type"),
        (.missingRequiredKey, "the activity lacks a key its type requires"),
        (.expired, "the activity expired"),
        (.notEligible, "the activity is not eligible for Handoff"),
        (.payloadDecodeFailed, "the activity's payload cannot be decoded"),
        (.contentNotFound, "the content the activity points at is not on this machine"),
        (.tooLarge, "the activity is above the size limit"),
        (.handlerFailed, "the app or command that took it failed"),
        (.notForPeer, "the activity is for another paired machine"),
        (.nothingToOpen, "a search result has nothing to open"),
        (.pushRefused, "the other machine refuses pushes from this one"),
        (.notPaired, "the machine is not paired with this one"),
        (.unknownPeer, "no paired or present machine has this name"),
        (.ambiguousPeer, "more than one machine has this name"),
        (.peerUnreachable, "the machine cannot be reached"),
        (.peerTimeout, "the machine did not answer in time"),
        (.peerGone, "the session closed before the machine answered"),
        (.unexpectedReply, "the machine answered with a message of another kind"),
        (.unexpected, "the machine sent a message that is not a request"),
        (.unsupportedVersion, "the machine speaks a protocol version this one does not"),
        (.rateLimited, "the machine opens sessions faster than allowed"),
        (.replyTooLarge, "an answer is above the message bound"),
        (.undecodable, "a message could not be decoded"),
        (.unknownMessage, "a message of a kind this version does not know"),
        (.badField, "a message's field is missing or of the wrong type"),
        (.pairingFailed, "the pairing did not complete"),
        (.pairingTimeout, "the other side did not answer the pairing in time"),
        (.pairingWindowClosed, "the other machine is not accepting pairings"),
        (.codesDiffer, "the two machines show different codes"),
        (.refusedThere, "the person on the other machine refused"),
        (.storeFailed, "the pinned key could not be written"),
        (.searchOff, "search is turned off in the configuration"),
        (.searchFailed, "the index could not answer"),
        (.saveFailed, "a scene's state could not be saved"),
        (.badSceneState, "a scene's state is not what the operation needs"),
        (.noSuchStream, "no stream with this id is open here"),
        (.noStreamApp, "the app that published the activity is gone"),
        (.notContinued, "the activity was not continued by the asking machine"),
        (.tooManyStreams, "the machine holds as many streams as it allows"),
        (.streamRefused, "the app refused the stream"),
        (.streamNotAccepted, "the app did not accept the stream in time"),
        (.streamNotOpened, "the stream was never opened"),
        (.streamExists, "a stream with this id is open already"),
        (.streamUnknown, "the other handoffd no longer knows the stream (it restarted)"),
        (.streamUnpaired, "the machines were unpaired while the stream was open"),
        (.streamAppClosed, "the app closed its end with an error"),
        (.streamSocket, "the app's socket failed"),
        (.streamLinkLost, "the link stayed down past the resume window"),
        (.streamProtocol, "the other side broke the stream protocol"),
        (.streamEnded, "the stream ended before the operation"),
        (.streamDaemonStopping, "handoffd is stopping"),
        (.ambiguousOrigin, "the activity is offered by more than one machine; name the peer"),
        (.clipboardOff, "the shared clipboard is off on this machine"),
        (.clipboardSecret, "a password manager marked the copy secret; it stays on its machine"),
        (.clipboardEcho, "the copy came from a paired machine and is not offered back"),
        (.clipboardNothingShared, "none of the copy's types is shared"),
        (.clipboardNoOffer, "no offer to paste (none, expired, replaced, or its machine is gone)"),
        (.clipboardNoType, "the offer has no such type"),
        (.daemonNotRunning, "no daemon listens on the control socket"),
        (.socketPath, "the control socket's path is not usable"),
        (.connectionLost, "the connection to the daemon closed"),
        (.badResponse, "the daemon's answer could not be read"),
        (.noAnswer, "the daemon did not answer within the bound"),
        (.unreadableAnswer, "an answer could not be decoded")
    ]

    static let meanings: [FailureCode: String] = Dictionary(all.map { ($0.code, $0.meaning) }, uniquingKeysWith: { a, _ in a })
}
