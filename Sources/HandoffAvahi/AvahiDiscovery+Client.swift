import CAvahi
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffDiscovery
import Logging

/// The client's life: created with NO_FAIL (it waits for a missing daemon), replaced after it
/// fails, retried while the D-Bus system bus is missing. Everything runs under the poll lock.
extension AvahiDiscovery {
    /// Where libdbus looks for the system bus.
    static var systemBusSocket: String {
        if let address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"],
            let path = address.split(separator: ",").first(where: { $0.hasPrefix("unix:path=") })
        {
            return String(path.dropFirst("unix:path=".count))
        }
        return "/run/dbus/system_bus_socket"
    }

    /// Makes the client on the poll thread (once; `start()` and the init both come here).
    func beginClient() {
        guard !connection.clientBegun else { return }
        connection.clientBegun = true
        schedule(.reconnect, afterMilliseconds: 0)
    }

    func makeClient() {
        // Loaded here, on the poll thread, rather than at exec (cavahi.h: why). A missing library
        // is retried like a missing daemon: installing it later needs no restart.
        if let failure = handoff_avahi_client_load() { return retryClient(after: .clientLibrary(detail: String(cString: failure))) }
        var error: Int32 = 0
        let made = avahi_client_new(avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, clientCallback, context, &error)
        guard let made else {
            let socket = Self.systemBusSocket
            let problem: DiscoveryError =
                FileManager.default.fileExists(atPath: socket)
                ? .avahi(code: error, message: avahiErrorText(error), during: "connecting to avahi-daemon")
                : .dbusUnavailable(socket: socket)
            return retryClient(after: problem)
        }
        client = made
    }

    /// Reports why no client could be made and tries again later, the delay doubling up to 10 s.
    private func retryClient(after problem: DiscoveryError) {
        report(problem, retrying: connection.reconnectDelayMs)
        schedule(.reconnect, afterMilliseconds: connection.reconnectDelayMs)
        connection.reconnectDelayMs = min(connection.reconnectDelayMs * 2, 10_000)
    }

    /// Logs and emits a problem once until it changes or clears, so a long outage is one line
    /// (it says that handoffd keeps trying; the return is logged too).
    func report(_ problem: DiscoveryError, retrying delayMs: UInt32? = nil) {
        guard connection.reportedProblem != problem.description else { return }
        connection.reportedProblem = problem.description
        var metadata: Logger.Metadata = ["error": "\(problem)"]
        if let delayMs {
            metadata["retry.firstAfterMillis"] = "\(delayMs)"
            metadata["retry.maxIntervalSeconds"] = "10"
        }
        logger.error("discovery unavailable; retrying until it works (logged again when it does)", metadata: metadata)
        emit(.failure(problem))
    }

    func clientStateChanged(_ c: OpaquePointer, _ state: AvahiClientState) {
        // Inside avahi_client_new the pointer is not stored yet: use the one passed here.
        client = c
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            connection.reconnectDelayMs = 500
            if connection.reportedProblem != nil { logger.notice("discovery available again: avahi-daemon answers over D-Bus") }
            connection.reportedProblem = nil
            logger.debug("avahi client running", metadata: ["avahi.version": "\(String(cString: avahi_client_get_version_string(c)))"])
            for slot in AdvertSlot.allCases { advance(slot) { $0.clientBecameRunning() } }
            startBrowsing()
        case AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION:
            for slot in AdvertSlot.allCases { advance(slot) { $0.serverNotRunning() } }
        case AVAHI_CLIENT_CONNECTING:
            if connection.reportedProblem == nil {
                connection.reportedProblem = "waiting"
                logger.warning("avahi-daemon is not running; waiting for it (start it with: systemctl start avahi-daemon)")
            }
            forgetClientObjects(reason: "avahi-daemon is not running")
        case AVAHI_CLIENT_FAILURE:
            let code = avahi_client_errno(c)
            let reason = avahiErrorText(code)
            logger.warning("lost avahi-daemon; reconnecting", metadata: ["avahi.error": "\(reason)"])
            forgetClientObjects(reason: reason)
            // Not freed here, inside its own callback: a zero-delay timer replaces it.
            schedule(.reconnect, afterMilliseconds: 0)
        default:
            break
        }
    }

    /// The client's group, browser, resolvers and record browsers die with it; drop our pointers
    /// and everything the peers table learnt through them.
    func forgetClientObjects(reason: String) {
        publishing.groups = [:]
        browsing.browser = nil
        for lookup in browsing.lookups.values {
            if let t = lookup.retryTimer {
                freeTimeout(t)
                connection.timers[t] = nil
            }
        }
        browsing.lookups = [:]
        browsing.recordBrowsers = [:]
        for slot in AdvertSlot.allCases { advance(slot) { $0.clientLost(reason: reason) } }
        emit(browsing.table.removeAll())
    }

    func reconnect() {
        guard !connection.stopped else { return }
        if let client { avahi_client_free(client) }
        client = nil
        makeClient()
    }

    func schedule(_ purpose: TimerPurpose, afterMilliseconds ms: UInt32) {
        guard let api = avahi_threaded_poll_get(poll) else { return }
        var tv = timeval()
        avahi_elapse_time(&tv, ms, 0)
        guard let t = api.pointee.timeout_new(api, &tv, timeoutCallback, context) else { return }
        connection.timers[t] = purpose
        if case .retryResolve(let key) = purpose { browsing.lookups[key]?.retryTimer = t }
    }

    func freeTimeout(_ t: OpaquePointer) {
        avahi_threaded_poll_get(poll)?.pointee.timeout_free(t)
    }

    func timerFired(_ t: OpaquePointer) {
        guard let purpose = connection.timers.removeValue(forKey: t) else { return }
        freeTimeout(t)
        guard !connection.stopped else { return }
        switch purpose {
        case .runDeferred:
            let work = connection.deferred
            connection.deferred = []
            for w in work { w() }
        case .reconnect:
            reconnect()
        case .restartBrowser:
            startBrowsing()
        case .retryResolve(let key):
            browsing.lookups[key]?.retryTimer = nil
            startResolver(key)
        }
    }
}
