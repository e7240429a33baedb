import CLDNS
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// One DNS server, through ldns: plain queries (browsing is public), and dynamic updates signed
/// with the TSIG key (RFC 2136, RFC 8945). ldns builds and parses every message; the calls
/// block (at most `timeout` per try), so they run only on WideAreaDiscovery's own queue.
final class DNSClient {
    let server: String
    let key: TSIGKey
    /// The server's address (numeric), as `server` resolved to.
    let address: String
    private let queries: UnsafeMutablePointer<ldns_resolver>
    private let updates: UnsafeMutablePointer<ldns_resolver>

    /// `server` is an address, `host`, `host:port` or `[v6]:port`; a name is looked up once, here.
    init(server: String, key: TSIGKey, timeout: TimeInterval = 2) throws(WideAreaError) {
        self.server = server
        self.key = key
        if let failure = handoff_ldns_load() { throw .library(reason: String(cString: failure)) }
        let (host, port) = try Self.split(server)
        let address = try Self.resolve(host, server: server)
        self.address = address
        guard let q = ldns_resolver_new(), let u = ldns_resolver_new() else { throw .server(server, reason: "could not be set up (out of memory)") }
        queries = q
        updates = u
        for r in [q, u] {
            let type = address.contains(":") ? LDNS_RDF_TYPE_AAAA : LDNS_RDF_TYPE_A
            guard let ns = ldns_rdf_new_frm_str(type, address) else { throw .server(server, reason: "is not a usable address") }
            defer { ldns_rdf_deep_free(ns) }
            guard ldns_resolver_push_nameserver(r, ns) == LDNS_STATUS_OK else { throw .server(server, reason: "is not a usable address") }
            ldns_resolver_set_port(r, port)
            // The server is asked as the zone's authority: no recursion, no search list (ldns's
            // bool is an int8_t here).
            ldns_resolver_set_recursive(r, 0)
            ldns_resolver_set_defnames(r, 0)
            ldns_resolver_set_dnsrch(r, 0)
            ldns_resolver_set_fallback(r, 1)
            ldns_resolver_set_retry(r, 1)
            ldns_resolver_set_retrans(r, 1)
            ldns_resolver_set_timeout(r, timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6)))
        }
        ldns_resolver_set_tsig_keyname(u, key.name)
        ldns_resolver_set_tsig_algorithm(u, key.algorithm)
        ldns_resolver_set_tsig_keydata(u, key.secret)
    }

    deinit {
        ldns_resolver_deep_free(queries)
        ldns_resolver_deep_free(updates)
    }

    /// The records of `type` at `name` in the answer, each as its fields in presentation format
    /// (a TXT's strings, an SRV's priority, weight, port and target, an address); none for
    /// NXDOMAIN.
    func query(_ name: String, _ type: ldns_rr_type) throws(WideAreaError) -> [[String]] {
        guard let dname = ldns_dname_new_frm_str(name) else { throw .record(name, reason: "not a domain name") }
        defer { ldns_rdf_deep_free(dname) }
        var answer: UnsafeMutablePointer<ldns_pkt>?
        let status = ldns_resolver_query_status(&answer, queries, dname, type, LDNS_RR_CLASS_IN, 0)
        guard status == LDNS_STATUS_OK, let answer else {
            if let answer { ldns_pkt_free(answer) }
            throw .unreachable(server: server, reason: Self.text(status))
        }
        defer { ldns_pkt_free(answer) }
        let rcode = ldns_pkt_get_rcode(answer)
        if rcode == LDNS_RCODE_NXDOMAIN { return [] }
        guard rcode == LDNS_RCODE_NOERROR else { throw .refused(server: server, rcode: Self.text(rcode), during: "a query for \(name)", key: nil) }
        guard let list = ldns_pkt_rr_list_by_type(answer, type, LDNS_SECTION_ANSWER) else { return [] }
        defer { ldns_rr_list_deep_free(list) }
        return (0..<ldns_rr_list_rr_count(list)).compactMap { i in
            guard let rr = ldns_rr_list_rr(list, i) else { return nil }
            return (0..<ldns_rr_rd_count(rr)).map { Self.string(ldns_rr_rdf(rr, $0)) }
        }
    }

    /// One signed update of `zone`: the deletions, then the additions (zone-file lines), applied
    /// by the server all or nothing.
    func update(zone: String, deleting: [RecordDeletion], adding: [String]) throws(WideAreaError) {
        guard let list = ldns_rr_list_new() else { throw .record(zone, reason: "out of memory") }
        defer { ldns_rr_list_deep_free(list) }
        for d in deleting { _ = ldns_rr_list_push_rr(list, try Self.deletion(d)) }
        for line in adding { _ = ldns_rr_list_push_rr(list, try Self.record(line)) }
        guard let zoneName = ldns_dname_new_frm_str(zone) else { throw .record(zone, reason: "not a domain name") }
        // The packet owns the zone name from here.
        guard let packet = ldns_update_pkt_new(zoneName, LDNS_RR_CLASS_IN, nil, list, nil) else {
            throw .record(zone, reason: "could not make the update message")
        }
        defer { ldns_pkt_free(packet) }
        ldns_pkt_set_random_id(packet)
        let signed = ldns_update_pkt_tsig_add(packet, updates)
        guard signed == LDNS_STATUS_OK else { throw .keyRejected(server: server, key: key.name) }
        var answer: UnsafeMutablePointer<ldns_pkt>?
        let status = ldns_resolver_send_pkt(&answer, updates, packet)
        defer { if let answer { ldns_pkt_free(answer) } }
        if status == LDNS_STATUS_CRYPTO_TSIG_BOGUS || status == LDNS_STATUS_CRYPTO_TSIG_ERR {
            throw .keyRejected(server: server, key: key.name)
        }
        guard status == LDNS_STATUS_OK, let answer else { throw .unreachable(server: server, reason: Self.text(status)) }
        // A key the server does not know, or a wrong secret, gets an answer not signed with our key
        // (BOGUS above); NOTAUTH with a good signature means the server is not the zone's master.
        let rcode = ldns_pkt_get_rcode(answer)
        guard rcode == LDNS_RCODE_NOERROR else {
            throw .refused(server: server, rcode: Self.text(rcode), during: "an update of \(zone)", key: key.name)
        }
    }

    private static func record(_ line: String) throws(WideAreaError) -> UnsafeMutablePointer<ldns_rr> {
        var rr: UnsafeMutablePointer<ldns_rr>?
        let status = ldns_rr_new_frm_str(&rr, line, 0, nil, nil)
        guard status == LDNS_STATUS_OK, let rr else { throw .record(line, reason: text(status)) }
        return rr
    }

    private static func deletion(_ d: RecordDeletion) throws(WideAreaError) -> UnsafeMutablePointer<ldns_rr> {
        switch d {
        case .record(let line):
            let rr = try record(line)
            ldns_rr_set_class(rr, LDNS_RR_CLASS_NONE)
            ldns_rr_set_ttl(rr, 0)
            return rr
        case .name(let name):
            guard let rr = ldns_rr_new(), let owner = ldns_dname_new_frm_str(name) else { throw .record(name, reason: "not a domain name") }
            ldns_rr_set_owner(rr, owner)
            ldns_rr_set_type(rr, LDNS_RR_TYPE_ANY)
            ldns_rr_set_class(rr, LDNS_RR_CLASS_ANY)
            ldns_rr_set_ttl(rr, 0)
            return rr
        }
    }

    private static func string(_ rdf: UnsafeMutablePointer<ldns_rdf>?) -> String {
        guard let rdf, let c = ldns_rdf2str(rdf) else { return "" }
        defer { free(c) }
        return String(cString: c)
    }

    static func text(_ status: ldns_status) -> String {
        ldns_get_errorstr_by_id(status).map { String(cString: $0) } ?? "ldns status \(status.rawValue)"
    }

    static func text(_ rcode: ldns_pkt_rcode) -> String {
        switch rcode {
        case LDNS_RCODE_FORMERR: "FORMERR"
        case LDNS_RCODE_SERVFAIL: "SERVFAIL"
        case LDNS_RCODE_NXDOMAIN: "NXDOMAIN"
        case LDNS_RCODE_NOTIMPL: "NOTIMP"
        case LDNS_RCODE_REFUSED: "REFUSED"
        case LDNS_RCODE_YXDOMAIN: "YXDOMAIN"
        case LDNS_RCODE_YXRRSET: "YXRRSET"
        case LDNS_RCODE_NXRRSET: "NXRRSET"
        case LDNS_RCODE_NOTAUTH: "NOTAUTH (it is not the zone's primary server)"
        case LDNS_RCODE_NOTZONE: "NOTZONE (the zone is not served there)"
        default: "rcode \(rcode.rawValue)"
        }
    }

    static func split(_ server: String) throws(WideAreaError) -> (host: String, port: UInt16) {
        var host = server, port: UInt16 = 53
        if server.hasPrefix("[") {
            guard let close = server.firstIndex(of: "]") else { throw .server(server, reason: "has an unclosed '['") }
            host = String(server[server.index(after: server.startIndex)..<close])
            let rest = server[server.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":", let p = UInt16(rest.dropFirst()), p > 0 else { throw .server(server, reason: "has no valid port") }
                port = p
            }
        } else if server.filter({ $0 == ":" }).count == 1, let colon = server.firstIndex(of: ":") {
            host = String(server[..<colon])
            guard let p = UInt16(server[server.index(after: colon)...]), p > 0 else { throw .server(server, reason: "has no valid port") }
            port = p
        }
        guard !host.isEmpty else { throw .server(server, reason: "names no host") }
        return (host, port)
    }

    /// An address as given, or the first one getaddrinfo(3) finds for a name.
    static func resolve(_ host: String, server: String) throws(WideAreaError) -> String {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 { return host }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &result)
        guard rc == 0, let first = result else { throw .server(server, reason: "cannot be looked up (\(String(cString: gai_strerror(rc))))") }
        defer { freeaddrinfo(result) }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else {
            throw .server(server, reason: "has no usable address")
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
