import HandoffCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore

/// One pairing in progress, on either machine. Shows the code, takes the user's decision, and
/// reports whether the peer's key was pinned.
public final class PairingSession: Sendable {
    public let peer: PeerIdentity
    public let peerName: String
    let codePromise: EventLoopPromise<String>
    let outcomePromise: EventLoopPromise<TrustedPeer>
    let channel: Channel
    let handler: NIOLoopBoundBox<PairingHandler?>

    init(peer: PeerIdentity, peerName: String, channel: Channel) {
        self.peer = peer
        self.peerName = peerName
        self.channel = channel
        codePromise = channel.eventLoop.makePromise()
        outcomePromise = channel.eventLoop.makePromise()
        handler = NIOLoopBoundBox(nil, eventLoop: channel.eventLoop)
        let ended = self.ended
        outcomePromise.futureResult.whenComplete { _ in ended.withLockedValue { $0 = true } }
    }

    private let ended = NIOLockedValueBox(false)

    /// Whether the pairing is over (pinned, refused, or ended by either side or the link).
    public var hasEnded: Bool { ended.withLockedValue { $0 } }

    /// The other machine's address ("host:port"), shown beside the code so the person can tell
    /// whether the attempt comes from the machine they mean.
    public var remoteAddress: String? { channel.remoteAddress.flatMap(PeerEndpoint.init(socketAddress:))?.description }

    /// The 6-digit code both machines show; throws if pairing fails before it is known.
    public func code() async throws -> String { try await codePromise.futureResult.get() }

    /// The pinned peer once both users confirmed, or why not.
    public func outcome() async -> Result<TrustedPeer, LinkError> {
        do { return .success(try await outcomePromise.futureResult.get()) } catch {
            return .failure((error as? LinkError) ?? .closed)
        }
    }

    /// The user here saw the same code on both machines.
    public func confirm() { onLoop { $0.confirm() } }
    /// The user here saw different codes.
    public func reject() { abort(.rejectedHere) }
    public func cancel() { abort(.cancelled) }

    func abort(_ reason: PairingFailure) { onLoop { $0.abort(reason) } }

    private func onLoop(_ body: @escaping @Sendable (PairingHandler) -> Void) {
        let h = handler
        channel.eventLoop.execute { if let handler = h.value { body(handler) } }
    }
}
