import Glibc
import HandoffCore
import NIOCore
import NIOPosix

/// Why a connection to another machine failed, said so that a person can act on it. NIO's own
/// descriptions ("connection reset (error set): Connection refused) (errno: 111)", "DNS error:
/// SocketAddressError.UnknownHost ...") name the syscall, not the cause, and `pair` added "run
/// `handoffctl pair --accept` there first" to every one of them, a name that does not resolve too.
public enum ConnectFailure {
    /// The reason, to follow "cannot reach HOST: " or "pairing with HOST failed: ".
    public static func reason(_ error: any Error) -> String {
        switch error {
        case let e as LinkError: return e.description
        case let e as PairingRefusal: return e.description
        case let e as UnresolvedName: return unresolved(e.host)
        case let e as IOError: return reason(errno: e.errnoCode) ?? "\(e)"
        case ChannelError.connectTimeout(let after):
            return
                "it did not answer within \(Duration.nanoseconds(after.nanoseconds).spokenSeconds); check the address, and that no firewall drops the port"
        case let e as NIOConnectionError:
            // Every address the name gave failed: the first one's reason (a name that gives none
            // did not resolve).
            if let first = e.connectionErrors.first { return reason(first.error) }
            if e.dnsAError != nil || e.dnsAAAAError != nil { return unresolved(e.host) }
            return "\(e)"
        default: return "\(error)"
        }
    }

    /// Whether the connection failed because the name gave no address at all.
    public static func isUnresolvedName(_ error: any Error) -> Bool {
        if error is UnresolvedName { return true }
        guard let e = error as? NIOConnectionError else { return false }
        return e.connectionErrors.isEmpty && (e.dnsAError != nil || e.dnsAAAAError != nil)
    }

    static func unresolved(_ host: String) -> String {
        "the name \(host) cannot be resolved on this machine; check it, or give the machine's address"
    }

    static func reason(errno code: Int32) -> String? {
        switch code {
        case ECONNREFUSED:
            "nothing takes connections there (connection refused): handoffd is not running on it, or listens on another port (its peer_port, 7340 unless changed)"
        case ENETUNREACH: "its network cannot be reached from this machine (network unreachable); check the address and this machine's connection"
        case EHOSTUNREACH: "it does not answer on its network (host unreachable); is it on, and is the address right?"
        case ETIMEDOUT: "it did not answer (timed out); check the address, and that no firewall drops the port"
        case ECONNRESET: "it closed the connection at once (connection reset); is it handoffd that listens there?"
        default: nil
        }
    }
}
