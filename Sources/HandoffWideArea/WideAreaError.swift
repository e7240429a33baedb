/// What can go wrong with unicast DNS-SD; each says what happened and what to do.
public enum WideAreaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key file: missing, unreadable, open to others, not ours, or not a key statement.
    case keyFile(path: String, reason: String)
    /// The server's name or address could not be used.
    case server(String, reason: String)
    /// No answer from the server (down, unreachable, or filtered).
    case unreachable(server: String, reason: String)
    /// The server answered an update without a valid signature of our key: it does not know the
    /// key, or the secret differs.
    case keyRejected(server: String, key: String)
    /// The server refused an update or a query (REFUSED, NOTAUTH, NOTZONE, ...).
    case refused(server: String, rcode: String, during: String, key: String?)
    /// ldns could not build a record or a message from our text (a bug, or a bad domain).
    case record(String, reason: String)
    /// libldns (loaded only when wide_area is set) is not installed or not usable.
    case library(reason: String)

    public var description: String {
        switch self {
        case .keyFile(let path, let reason):
            "wide_area.key_file \(path): \(reason)"
        case .library(let reason):
            "wide_area needs libldns, which could not be loaded (\(reason)); install it with: apt install libldns3"
        case .server(let server, let reason):
            "wide_area.server '\(server)' \(reason); give the DNS server's address as host or host:port"
        case .unreachable(let server, let reason):
            "the DNS server \(server) did not answer (\(reason)); handoffd keeps trying, and mDNS and open sessions are unaffected; check that named runs there and that UDP and TCP port 53 are open"
        case .keyRejected(let server, let key):
            "the DNS server \(server) rejected TSIG key '\(key)' (it does not know that key, or its secret differs): copy the key statement the server uses into wide_area.key_file, or add this key to the server's configuration (docs/DEPLOYMENT.md)"
        case .refused(let server, let rcode, let during, let key):
            "the DNS server \(server) answered \(rcode) to \(during)"
                + (key.map { "; check that its update-policy lets key '\($0)' change this zone (docs/DEPLOYMENT.md)" } ?? "")
        case .record(let text, let reason):
            "could not make the DNS record '\(text)': \(reason); check wide_area.domain"
        }
    }
}
