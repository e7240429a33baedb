import CLDNS
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Dispatch
import HandoffCore
import HandoffDiscovery
import Logging

/// Unicast DNS-SD (RFC 6763 over RFC 2136 dynamic updates) in one zone of a DNS server people
/// already run: our adverts' records (the same private, rotating ones as on the link) are added
/// with TSIG-signed updates, renewed, replaced at each rotation and deleted at stop; the zone is
/// browsed by polling (PTR, then each new instance's SRV, TXT and addresses).
///
/// Threading: every DNS exchange blocks (ldns), so all of them, and all the state below, live
/// on one serial queue of this object's own; the public methods hand work to it and return.
public final class WideAreaDiscovery: Discovery, @unchecked Sendable {
    public struct Settings: Sendable {
        public var domain: String
        public var server: String
        public var key: TSIGKey
        /// How often the zone is read; new instances show up within it.
        public var pollInterval: TimeInterval = 2
        /// How often our records are written again (a zone reloaded from an old file, or swept by
        /// its administrator, gets them back).
        public var renewInterval: TimeInterval = 300
        public var ttl: UInt32 = 120
        /// The file (in the state directory) of names this machine may have left in the zone.
        public var ledgerPath: String
        public var serviceType = "_handoff._tcp"
        /// This machine's addresses to publish for the advert's host name (no link-local ones:
        /// they mean nothing off the link).
        public var addresses: @Sendable () -> [String]

        public init(domain: String, server: String, key: TSIGKey, ledgerPath: String, addresses: @escaping @Sendable () -> [String]) {
            (self.domain, self.server, self.key, self.ledgerPath, self.addresses) = (domain, server, key, ledgerPath, addresses)
        }
    }

    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let settings: Settings
    private let logger: Logger
    private let queue = DispatchQueue(label: "handoffd.wide-area")

    // On `queue` only.
    private var client: DNSClient?
    private var publishing: ZonePublishing
    private var browsing = ZoneBrowsing()
    private var status: WideAreaStatus?
    /// The poll timer; nil once shut down.
    private var timer: DispatchSourceTimer?
    private var stopped: Bool { timer == nil }

    public init(settings: Settings, logger: Logger = Logger(label: "handoffd.wide-area")) {
        self.settings = settings
        self.logger = logger
        publishing = ZonePublishing(ledger: RecordLedger(path: settings.ledgerPath))
        (events, continuation) = AsyncStream.makeStream()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: settings.pollInterval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.tick() }
        self.timer = timer
        timer.resume()
    }

    public var sources: [AsyncStream<DiscoveryEvent>] { [events] }
    public var peers: [DiscoveredPeer] { queue.sync { browsing.listing.peers.values.sorted { $0.name < $1.name } } }

    public func publish(_ advert: ServiceAdvert, slot: AdvertSlot) throws(DiscoveryError) {
        var composed = advert
        composed.txt = try Self.compose(advert.txt)
        let full = composed
        queue.async {
            self.publishing.desired[slot] = full
            self.sync()
        }
    }

    public func updateTXT(_ txt: TXTRecord) throws(DiscoveryError) {
        let full = try Self.compose(txt)
        queue.async {
            self.publishing.desired[.main]?.txt = full
            self.sync()
        }
    }

    /// The record as the link's adverts carry it: `v` first (HandoffTXT).
    private static func compose(_ txt: TXTRecord) throws(DiscoveryError) -> TXTRecord {
        do throws(TXTError) { return try HandoffTXT.compose(txt) } catch { throw .txt(error) }
    }

    public func withdraw(slot: AdvertSlot) {
        queue.async {
            self.publishing.desired[slot] = nil
            self.sync()
        }
    }

    /// Deletes our records if the server is answering (else the ledger has them deleted at the
    /// next start) and stops.
    public func shutdown() {
        queue.sync {
            guard !stopped else { return }
            timer?.cancel()
            timer = nil
            publishing.desired = [:]
            if publishing.updateProblem == nil, browsing.browseProblem == nil { sync(force: true) }
        }
        continuation.finish()
    }

    // MARK: - On the queue

    private func tick() {
        guard !stopped else { return }
        guard connect() else { return }
        if Date() >= publishing.nextUpdate { sync() }
        browse()
    }

    /// The DNS client, made on first use (a server given by name is looked up then).
    private func connect() -> Bool {
        if client != nil { return true }
        do throws(WideAreaError) {
            client = try DNSClient(server: settings.server, key: settings.key, timeout: 1)
            return true
        } catch {
            publishing.updateProblem = error.description
            refreshStatus()
            return false
        }
    }

    /// Makes the zone hold our desired adverts and nothing else of ours: one update, all or
    /// nothing. Old names (a rotation, a withdrawn advert, a crash's leftovers in the ledger) are
    /// deleted, current ones written (again, when their renewal is due).
    private func sync(force: Bool = false) {
        guard !stopped || force, connect(), let client else { return }
        if !force, Date() < publishing.nextUpdate { return }
        let now = Date()
        var targets: [AdvertSlot: ZoneAdvert] = [:]
        for (slot, advert) in publishing.desired { targets[slot] = zoneAdvert(advert) }
        let plan = ZonePlan.make(
            targets: targets, inZone: publishing.inZone, ledger: publishing.ledger.entries, renewedAt: publishing.renewedAt, now: now,
            renewInterval: settings.renewInterval)
        guard !plan.isEmpty else { return }
        do {
            // Written down before they can be in the zone: a crash from here on leaves nothing
            // the next start does not delete.
            for t in targets.values { try publishing.ledger.insert(ZonePlan.entry(t)) }
        } catch {
            logger.error("cannot keep the list of our DNS names; the zone is not changed", metadata: ["error": "\(error)"])
            return
        }
        do throws(WideAreaError) {
            try client.update(zone: DNSText.absolute(settings.domain), deleting: plan.deleting, adding: plan.adding)
        } catch {
            publishing.nextUpdate = now.addingTimeInterval(publishing.backoff)
            publishing.backoff = min(publishing.backoff * 2, 30)
            forgetIfUnreachable(error)
            publishing.updateProblem = error.description
            refreshStatus()
            return
        }
        for e in plan.stale { try? publishing.ledger.remove(e) }
        publishing.inZone = targets
        for slot in plan.written { publishing.renewedAt[slot] = now }
        publishing.backoff = 1
        publishing.nextUpdate = .distantPast
        publishing.updateProblem = nil
        refreshStatus()
        logger.debug(
            "zone updated",
            metadata: ["dns.server": "\(settings.server)", "dns.deleted": "\(plan.deleting.count)", "dns.added": "\(plan.adding.count)"])
    }

    private func zoneAdvert(_ advert: ServiceAdvert) -> ZoneAdvert {
        ZoneAdvert(
            zone: settings.domain, serviceType: settings.serviceType, instance: advert.instanceName,
            host: advert.hostName ?? "h-" + advert.instanceName.lowercased().filter { $0.isLetter || $0.isNumber }, port: advert.port,
            txt: advert.txt, addresses: zoneAddresses(), ttl: settings.ttl)
    }

    /// Of this machine's addresses, only the one it sends from toward the server: the zone is
    /// read by anyone who can ask the server, and every address listed together would link them
    /// (a VPN's and the office's, IPv4 and a temporary IPv6) for all of them; the server sees
    /// this one in every update anyway, and peers that read the zone route to it as the server
    /// does. All of them only when the routing table names none of ours (docs/PRIVACY.md).
    private func zoneAddresses() -> [String] {
        let all = settings.addresses()
        guard let client, let source = InterfaceAddresses.source(toward: client.address), all.contains(source) else { return all }
        return [source]
    }

    /// The list under the service name is one record set every machine's key may change (BIND's
    /// policies match names, not the records' data): if ours is missing from it, someone deleted
    /// it, and it is written again now instead of at the next renewal (docs/SECURITY.md).
    private func rewriteIfDeleted(listed: Set<String>) {
        for (slot, advert) in publishing.inZone where !listed.contains(advert.instance) {
            logger.notice("our advert was missing from the zone's list; writing it again", metadata: ["service.name": "\(advert.instance)"])
            publishing.renewedAt[slot] = nil
            publishing.nextUpdate = .distantPast
        }
        if publishing.renewedAt.count < publishing.inZone.count { sync() }
    }

    /// Reads the zone: the instances under the service name (ours left out), each new one's SRV,
    /// TXT and addresses, and every fifth read the TXT of the others (activities change it).
    private func browse() {
        guard let client else { return }
        let service = "\(settings.serviceType).\(DNSText.absolute(settings.domain))"
        browsing.polls += 1
        do throws(WideAreaError) {
            let own = Set(publishing.desired.values.map(\.instanceName) + publishing.inZone.values.map(\.instance))
            var names: Set<String> = [], listed: Set<String> = []
            for ptr in try client.query(service, LDNS_RR_TYPE_PTR) {
                guard let target = ptr.first, let name = DNSText.firstLabel(of: target, under: service) else { continue }
                listed.insert(name)
                if !own.contains(name) { names.insert(name) }
            }
            rewriteIfDeleted(listed: listed)
            browsing.resolved = browsing.resolved.filter { names.contains($0.key) }
            let zone = DNSText.absolute(settings.domain).lowercased()
            for name in names.sorted() {
                // One instance's failure is its own: a record that cannot be read (a refused
                // query, an SRV target outside the zone) does not stop the others being listed.
                do throws(WideAreaError) {
                    try resolve(name, in: service, zone: zone, with: client)
                } catch {
                    if case .unreachable = error { throw error }
                    browsing.resolved[name] = nil
                    if browsing.badInstances.insert(name).inserted {
                        logger.notice("a zone record cannot be read; skipped", metadata: ["service.name": "\(name)", "error": "\(error)"])
                    }
                }
            }
            browsing.badInstances.formIntersection(names)
        } catch {
            forgetIfUnreachable(error)
            browsing.browseProblem = error.description
            refreshStatus()
            return
        }
        browsing.browseProblem = nil
        if publishing.updateProblem != nil {
            // The server answers again: our records go back at once, not after the backoff.
            publishing.nextUpdate = .distantPast
            publishing.backoff = 1
            sync()
        }
        refreshStatus()
        for e in browsing.listing.read(browsing.resolved) { continuation.yield(e) }
    }

    /// Reads one instance: its TXT again every fifth poll when known, else its SRV (a port and a
    /// target inside the zone: we never look up, nor dial, names a zone record points elsewhere),
    /// TXT and the target's addresses.
    private func resolve(_ name: String, in service: String, zone: String, with client: DNSClient) throws(WideAreaError) {
        let instance = "\(DNSText.label(name)).\(service)"
        if var known = browsing.resolved[name] {
            if browsing.polls % 5 == 0, let txt = try client.query(instance, LDNS_RR_TYPE_TXT).first { known.txt = Self.txt(txt) }
            browsing.resolved[name] = known
            return
        }
        guard let srv = try client.query(instance, LDNS_RR_TYPE_SRV).first, srv.count == 4, let port = UInt16(srv[2]), port != 0 else {
            throw .record(instance, reason: "no SRV record with a port")
        }
        let host = srv[3]
        guard host.lowercased().hasSuffix("." + zone) else { throw .record(instance, reason: "its SRV target \(host) is outside \(zone)") }
        let txt = try client.query(instance, LDNS_RR_TYPE_TXT).first.map(Self.txt) ?? .empty
        let v4 = try client.query(host, LDNS_RR_TYPE_A).compactMap(\.first).map { PeerAddress(address: $0, interfaceIndex: 0, family: .ipv4) }
        let v6 = try client.query(host, LDNS_RR_TYPE_AAAA).compactMap(\.first).map { PeerAddress(address: $0, interfaceIndex: 0, family: .ipv6) }
        browsing.resolved[name] = DiscoveredPeer(name: name, hostName: host, port: port, addresses: (v4 + v6).sorted(), txt: txt)
    }

    /// ldns marks a server that did not answer as unreachable for good (it is never asked again):
    /// the next try starts with a new client (and looks a server name up again).
    private func forgetIfUnreachable(_ error: WideAreaError) {
        if case .unreachable = error { client = nil }
    }

    private static func txt(_ strings: [String]) -> TXTRecord { TXTRecord(received: strings.map(DNSText.bytes)) }

    private func refreshStatus() {
        report((publishing.updateProblem ?? browsing.browseProblem).map { .failing($0) } ?? .working(server: settings.server))
    }

    /// Logs and emits a change of state once.
    private func report(_ new: WideAreaStatus) {
        guard new != status else { return }
        let was = status
        status = new
        switch new {
        case .working(let server):
            if was != nil { logger.notice("unicast DNS-SD works again", metadata: ["dns.server": "\(server)"]) }
        case .failing(let why):
            logger.error(
                "unicast DNS-SD failing; retrying until it works (logged again when it does)",
                metadata: ["dns.server": "\(settings.server)", "dns.key": "\(settings.key.name)", "error": "\(why)"])
        }
        continuation.yield(.wideArea(new))
    }
}
