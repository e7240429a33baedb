#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore

extension DaemonControl {
    /// The stream operations answer with a descriptor (the app's end of the stream); the others
    /// with values alone. One path for every door: the socket passes the descriptor with
    /// SCM_RIGHTS, D-Bus as a `h`.
    func performPassing(_ request: ControlRequest, from client: ControlClient, after turn: ControlTurn) async -> Result<
        (PropertyListValue?, OwnedDescriptor?), ControlError
    > {
        let streams = daemon.continuations.streams
        do throws(ControlError) {
            let handle: StreamHandle
            switch request.op {
            case StreamOpenRequest.name:
                let op = try StreamOpenRequest(request: request)
                handle = try await streams.open(activityID: op.activity, peer: op.peer, client: client)
            case StreamAcceptRequest.name:
                let op = try StreamAcceptRequest(request: request)
                handle = try await streams.accept(token: op.stream, client: client)
            default:
                return await perform(request, from: client, after: turn).map { ($0, nil) }
            }
            return .success((handle.info.propertyList, handle.descriptor))
        } catch {
            return .failure(error)
        }
    }

    /// `stream-refuse`; `stream-open` and `stream-accept` asked without a door that passes
    /// descriptors are refused (`performPassing` takes them).
    static func streamRoutes(_ routes: inout ControlRoutes) {
        routes.on(StreamRefuseRequest.self) { c, op, _, _ in
            try c.daemon.continuations.streams.refuse(token: op.stream)
            return Done()
        }
        for name in [StreamOpenRequest.name, StreamAcceptRequest.name] {
            routes.on(name) { _, r, _, _ throws(ControlError) in
                throw .failed(code: .needsDescriptor, message: "\(r.op) answers with a socket: ask it on the control socket or D-Bus")
            }
        }
    }
}
