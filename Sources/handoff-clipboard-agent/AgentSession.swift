#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffClient
import HandoffControl
import HandoffCore

/// The agent's life with handoffd: connected (again, after handoffd restarts), it says what it
/// watches, offers each copy, and follows `clipboardChanged` to own or give up the display's
/// clipboard.
struct AgentSession: Sendable {
    let display: DisplayClipboard?
    let problem: String?
    let socket: String
    /// The paired machine's offer the display's clipboard holds for it now.
    let holding = Holding()

    final class Holding: @unchecked Sendable {
        private let lock = ThreadLock()
        private var offer: UUID?
        /// Records `offer` (nil: none); true if it differs from what was held.
        func swap(_ new: UUID?) -> Bool {
            lock.withLock {
                defer { offer = new }
                return offer != new
            }
        }
    }

    func run() async {
        var wait = Duration.milliseconds(200)
        while !Task.isCancelled {
            do throws(ClientError) {
                try await serve()
                wait = .milliseconds(200)
            } catch {
                log("handoffd: \(error.description); trying again")
            }
            display?.release()
            _ = holding.swap(nil)
            try? await Task.sleep(for: wait)
            wait = min(wait * 2, .seconds(5))
        }
    }

    /// One connection's life: ends when handoffd goes.
    private func serve() async throws(ClientError) {
        let events = try await HandoffClient.connect(socketPath: socket)
        let requests = try await HandoffClient.connect(socketPath: socket)
        defer {
            Task {
                await events.close()
                await requests.close()
            }
        }
        _ = try await events.perform(ClipboardAgentRequest(backend: display?.name, problem: problem))
        _ = try await events.perform(WatchRequest())
        guard let display else {
            for await _ in events.events {}
            return
        }
        let copying = Task {
            for await copy in display.copies {
                do throws(ClientError) {
                    _ = try await requests.copyToClipboard(copy.items.map { ($0.mime, Data($0.bytes)) })
                } catch {
                    // A secret, an echo, the switch off, a type not shared: kept here by design.
                    if ![.clipboardSecret, .clipboardEcho, .clipboardOff, .clipboardNothingShared].contains(error.code) {
                        log("a copy was not offered: \(error.description)")
                    }
                }
            }
        }
        defer { copying.cancel() }
        // What the clipboard holds now, and each change after.
        follow(try await requests.perform(ClipboardStatusRequest()), display: display, requests: requests)
        for await event in events.events where event.name == "clipboardChanged" || event.name == "peerAbsent" {
            follow(try await requests.perform(ClipboardStatusRequest()), display: display, requests: requests)
        }
    }

    /// Owns the display's clipboard for a paired machine's offer; gives it up when none is live.
    private func follow(_ status: ClipboardStatus, display: DisplayClipboard, requests: HandoffClient) {
        // A copy here: the program that made it owns the display's clipboard.
        guard status.owner != "this machine" else {
            _ = holding.swap(nil)
            return
        }
        guard let offer = status.offers.first(where: { $0.peer == status.owner }) else {
            if holding.swap(nil) { display.release() }
            return
        }
        guard holding.swap(offer.offer) else { return }
        let peer = offer.peer
        display.own(offer.types) { mime in
            await Timeout.race(ClipboardAgent.pasteWithin) {
                do throws(ClientError) { return [UInt8](try await requests.pasteFromClipboard(peer: peer, mime: mime).bytes) } catch {
                    log("a paste got nothing: \(error.description)")
                    return nil
                }
            }
        }
    }
}
