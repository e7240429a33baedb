import CAvahi
import HandoffDiscovery
import Logging

/// Browsing: NEW starts a resolver if the name is wanted (`Discovery.resolve(only:)`; a NEW can
/// precede the publisher's probing, so only a resolved instance becomes a peer), freed once it
/// answers; a resolved instance that is followed (a paired
/// peer's advert, `Discovery.follow`) gets a record browser on its TXT record, which reports
/// changes in about 0.1 s where a kept-open resolver takes about 1 s. Every other instance is read
/// once: a record browser is a querier that avahi-daemon keeps asking on the link.
extension AvahiDiscovery {
    func startBrowsing() {
        guard browsing.browser == nil, let client else { return }
        browsing.browser = avahi_service_browser_new(
            client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
            serviceType, nil, AvahiLookupFlags(0), serviceBrowserCallback, context)
        if browsing.browser == nil {
            let code = avahi_client_errno(client)
            emit(.failure(.avahi(code: code, message: avahiErrorText(code), during: "starting the service browser")))
            schedule(.restartBrowser, afterMilliseconds: 1000)
        }
    }

    func browserEvent(
        _ b: OpaquePointer, interface: AvahiIfIndex, protocol proto: AvahiProtocol, event: AvahiBrowserEvent,
        name: String?, type: String?, domain: String?, flags: AvahiLookupResultFlags
    ) {
        if browsing.browser == nil { browsing.browser = b }
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name else { return }
            let key = PeerTable.InstanceKey(name: name, interfaceIndex: interface, protocolFamily: proto)
            if browsing.lookups[key] == nil { browsing.lookups[key] = Lookup(domain: domain ?? "local") }
            // Kept, not dropped: a peer's instance first seen while our own group probes the
            // same name is flagged ours, and the browser reports it NEW only once.
            browsing.lookups[key]?.judgedOwn = flags.rawValue & AVAHI_LOOKUP_RESULT_OUR_OWN.rawValue != 0
            startResolver(key)
        case AVAHI_BROWSER_REMOVE:
            guard let name else { return }
            let key = PeerTable.InstanceKey(name: name, interfaceIndex: interface, protocolFamily: proto)
            if let lookup = browsing.lookups.removeValue(forKey: key) { free(lookup) }
            emit(browsing.table.removed(key))
        case AVAHI_BROWSER_FAILURE:
            let code = client.map { avahi_client_errno($0) } ?? -1
            emit(.failure(.avahi(code: code, message: avahiErrorText(code), during: "browsing")))
            avahi_service_browser_free(b)
            browsing.browser = nil
            schedule(.restartBrowser, afterMilliseconds: 1000)
        default:
            break
        }
    }

    func startResolver(_ key: PeerTable.InstanceKey) {
        guard let client, let lookup = browsing.lookups[key], lookup.resolver == nil, !lookup.judgedOwn, browsing.wanted(key.name) else {
            return
        }
        let r = avahi_service_resolver_new(
            client, key.interfaceIndex, key.protocolFamily, key.name, serviceType, lookup.domain,
            key.protocolFamily, AvahiLookupFlags(0), serviceResolverCallback, context)
        browsing.lookups[key]?.resolver = r
        if r == nil { retryResolve(key) }
    }

    func retryResolve(_ key: PeerTable.InstanceKey) {
        guard let failures = browsing.lookups[key]?.failures else { return }
        browsing.lookups[key]?.failures = failures + 1
        // 250 ms, 500 ms, 1 s, ... up to 8 s, while the browser still lists the instance.
        let delay = UInt32(min(8000, 250 << min(failures, 5)))
        logger.debug("resolve failed; retrying", metadata: ["peer.name": "\(key.name)", "retry.ms": "\(delay)"])
        schedule(.retryResolve(key), afterMilliseconds: delay)
    }

    func resolverEvent(
        _ r: OpaquePointer, interface: AvahiIfIndex, protocol proto: AvahiProtocol, event: AvahiResolverEvent,
        name: String, hostName: String, address: UnsafePointer<AvahiAddress>?, port: UInt16,
        txt: [[UInt8]], flags: AvahiLookupResultFlags
    ) {
        let key = PeerTable.InstanceKey(name: name, interfaceIndex: interface, protocolFamily: proto)
        // One-shot: TXT changes come through the record browser.
        avahi_service_resolver_free(r)
        guard browsing.lookups[key]?.resolver == r else { return }
        browsing.lookups[key]?.resolver = nil
        guard event == AVAHI_RESOLVER_FOUND else {
            retryResolve(key)
            return
        }
        browsing.lookups[key]?.failures = 0
        let own =
            flags.rawValue & AVAHI_LOOKUP_RESULT_OUR_OWN.rawValue != 0
            || (flags.rawValue & AVAHI_LOOKUP_RESULT_LOCAL.rawValue != 0 && isOwnName(name))
        browsing.lookups[key]?.judgedOwn = own
        let peerAddress = address.map(Self.peerAddress(interface: interface))
        let events = browsing.table.resolved(key, hostName: hostName, address: peerAddress, port: port, txt: txt, isOwn: own)
        for case .foreignService(let n, let reason) in events {
            logger.notice("ignoring a _handoff._tcp service that is not a handoffd", metadata: ["peer.name": "\(n)", "reason": "\(reason)"])
        }
        emit(events)
        if browsing.followed.contains(name), browsing.table.peer(named: name) != nil { startRecordBrowser(key) }
    }

    /// Resolves the instances judged ours whose name none of our groups holds now: called after a
    /// collision moved or withdrew our advert.
    func lookAgainAtInstancesJudgedOwn() {
        let keys = browsing.lookups.filter { $0.value.judgedOwn && !isOwnName($0.key.name) }.keys
        for key in keys {
            browsing.lookups[key]?.judgedOwn = false
            logger.debug("resolving an instance avahi-daemon called ours: our name has moved on", metadata: ["peer.name": "\(key.name)"])
            startResolver(key)
        }
    }

    static func peerAddress(interface: AvahiIfIndex) -> (UnsafePointer<AvahiAddress>) -> PeerAddress {
        { a in
            var buf = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
            avahi_address_snprint(&buf, buf.count, a)
            let text = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return PeerAddress(
                address: text, interfaceIndex: interface,
                family: a.pointee.proto == AvahiProtocol(AVAHI_PROTO_INET6) ? .ipv6 : .ipv4)
        }
    }

    func startRecordBrowser(_ key: PeerTable.InstanceKey) {
        guard let client, let lookup = browsing.lookups[key], lookup.recordBrowser == nil else { return }
        var full = [CChar](repeating: 0, count: Int(AVAHI_DOMAIN_NAME_MAX))
        guard avahi_service_name_join(&full, full.count, key.name, serviceType, lookup.domain) == 0 else { return }
        guard
            let rb = avahi_record_browser_new(
                client, key.interfaceIndex, key.protocolFamily, full,
                UInt16(AVAHI_DNS_CLASS_IN), UInt16(AVAHI_DNS_TYPE_TXT),
                AvahiLookupFlags(0), recordBrowserCallback, context)
        else { return }
        browsing.lookups[key]?.recordBrowser = rb
        browsing.recordBrowsers[rb] = key
    }

    func stopRecordBrowser(_ key: PeerTable.InstanceKey) {
        guard let rb = browsing.lookups[key]?.recordBrowser else { return }
        avahi_record_browser_free(rb)
        browsing.recordBrowsers[rb] = nil
        browsing.lookups[key]?.recordBrowser = nil
    }

    func txtRecordEvent(_ b: OpaquePointer, event: AvahiBrowserEvent, rdata: UnsafeRawPointer?, size: Int) {
        guard event == AVAHI_BROWSER_NEW, let key = browsing.recordBrowsers[b], let strings = AvahiStrings.parse(rdata, size: size) else { return }
        emit(browsing.table.txtSeen(name: key.name, strings: strings))
    }

    func free(_ lookup: Lookup) {
        if let r = lookup.resolver { avahi_service_resolver_free(r) }
        if let rb = lookup.recordBrowser {
            avahi_record_browser_free(rb)
            browsing.recordBrowsers[rb] = nil
        }
        if let t = lookup.retryTimer {
            freeTimeout(t)
            connection.timers[t] = nil
        }
    }
}
