import HandoffControl
import HandoffCore

extension DaemonControl {
    /// The shared clipboard's operations (docs/CLIPBOARD.md). A paste waits on the machine that
    /// offered the copy: it overlaps the client's other requests rather than holding them up.
    static func clipboardRoutes(_ routes: inout ControlRoutes) {
        routes.on(ClipboardStatusRequest.self) { c, _, _, _ in await c.peers.clipboard.status() }
        routes.on(ClipboardCopyRequest.self) { c, op, client, _ in try await c.peers.clipboard.copy(op, from: client.key) }
        routes.on(ClipboardPasteRequest.self, place: .overlapping) { c, op, _, _ in
            var from: (id: PeerID, name: String)?
            if let name = op.peer {
                guard let trusted = try await c.peers.resolve(name).trusted else {
                    throw ControlError.failed(code: .notPaired, message: "\(name) is not paired with this machine: it offers no copy here")
                }
                from = (trusted.identity.id, trusted.name)
            }
            return try await c.peers.clipboard.paste(from: from, mime: op.mime, offset: op.offset)
        }
        routes.on(ClipboardSwitchRequest.self) { c, op, _, _ in
            try await c.peers.clipboard.setEnabled(op.enabled)
            return Done()
        }
        routes.on(ClipboardAgentRequest.self) { c, op, client, _ in
            await c.peers.clipboard.agent(client.key, backend: op.backend, problem: op.problem)
            return Done()
        }
    }
}
