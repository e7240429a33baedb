/// What the discovery layer reports.
public enum DiscoveryEvent: Sendable, Equatable {
    /// The Avahi client reached avahi-daemon.
    case avahiUp
    /// avahi-daemon (or the D-Bus system bus) is gone; adverts will be re-published when it is back.
    case avahiDown(reason: String)
    /// Our advert is established under this name (after a collision, Avahi's alternative name).
    case published(name: String)
    case peerAppeared(DiscoveredPeer)
    case peerChanged(DiscoveredPeer)
    case peerRemoved(name: String)
    /// Something publishes `_handoff._tcp` that is not a handoffd (its TXT lacks our keys).
    case foreignService(name: String, reason: String)
    case failure(DiscoveryError)
    /// Unicast DNS-SD (`wide_area:`) works with its server now, or why it does not.
    case wideArea(WideAreaStatus)
}

public enum WideAreaStatus: Sendable, Equatable {
    case working(server: String)
    case failing(String)
}

public enum DiscoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidInstanceName(String, reason: String)
    case txt(TXTError)
    case dbusUnavailable(socket: String)
    /// libavahi-client.so.3 could not be loaded (dlerror's text).
    case clientLibrary(detail: String)
    case avahi(code: Int32, message: String, during: String)
    case stopped

    public var description: String {
        switch self {
        case .invalidInstanceName(let n, let reason):
            "instance name '\(n)' \(reason); set a shorter device name in the configuration"
        case .txt(let e):
            e.description
        case .dbusUnavailable(let socket):
            "the D-Bus system bus is not reachable at \(socket); start dbus (systemctl start dbus) so that handoffd can reach avahi-daemon"
        case .clientLibrary(let detail):
            "the Avahi client library cannot be loaded (\(detail)); install it (apt install libavahi-client3)"
        case .avahi(let code, let message, let during):
            "avahi error \(code) (\(message)) while \(during)"
        case .stopped:
            "discovery has been shut down"
        }
    }
}
