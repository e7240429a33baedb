import CAvahi
import HandoffCore
import HandoffDiscovery
import Logging

/// Carries out each advertiser machine's actions on its own entry group.
extension AvahiDiscovery {
    func execute(_ actions: [AdvertiserMachine.Action], slot: AdvertSlot) {
        for action in actions {
            switch action {
            case .addService(let name, let port, let txt):
                guard let client else { continue }
                if publishing.groups[slot] == nil {
                    publishing.creatingGroup = slot
                    publishing.groups[slot] = avahi_entry_group_new(client, entryGroupCallback, context)
                    publishing.creatingGroup = nil
                }
                guard let group = publishing.groups[slot] else {
                    emit(
                        .failure(
                            .avahi(
                                code: avahi_client_errno(client), message: avahiErrorText(avahi_client_errno(client)),
                                during: "creating an entry group")))
                    return
                }
                let target = machines.withLock { $0[slot]!.desired?.hostName }.flatMap { publishAddresses(as: $0 + ".local", in: group) }
                let rc = AvahiStrings.withList(txt.strings) { list in
                    avahi_entry_group_add_service_strlst(
                        group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                        AvahiPublishFlags(0), name, serviceType, nil, target, port, list)
                }
                if rc == Int32(AVAHI_ERR_COLLISION) {
                    // Another client of this same daemon holds the name.
                    logger.info("service name taken locally", metadata: ["service.name": "\(name)"])
                    collision(slot)
                    return
                }
                if rc < 0 {
                    emit(.failure(.avahi(code: rc, message: avahiErrorText(rc), during: "adding the service")))
                    return
                }
            case .commit:
                guard let group = publishing.groups[slot] else { continue }
                let rc = avahi_entry_group_commit(group)
                if rc < 0 { emit(.failure(.avahi(code: rc, message: avahiErrorText(rc), during: "committing the service"))) }
            case .updateTXT(let name, let txt):
                guard let group = publishing.groups[slot] else { continue }
                let rc = AvahiStrings.withList(txt.strings) { list in
                    avahi_entry_group_update_service_txt_strlst(
                        group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                        AvahiPublishFlags(0), name, serviceType, nil, list)
                }
                if rc < 0 { emit(.failure(.avahi(code: rc, message: avahiErrorText(rc), during: "updating the TXT record"))) }
            case .resetGroup:
                if let group = publishing.groups[slot] { avahi_entry_group_reset(group) }
            case .discardGroup:
                // Freeing withdraws the records (peers get the goodbye) and forgets the group's
                // commit count.
                if let group = publishing.groups[slot] { avahi_entry_group_free(group) }
                publishing.groups[slot] = nil
            case .emit(let event):
                if case .published(let name) = event {
                    logger.info("advertising", metadata: ["service.name": "\(name)", "advert.slot": "\(slot)"])
                }
                // The client's comings and goings are reported once, by the main advert's machine.
                if slot == .main || { if case .failure = event { true } else { false } }() { emit(event) }
            }
        }
    }

    /// Publishes this machine's addresses under `host` in the group (without reverse records,
    /// which the system host name holds); returns `host` if at least one was, else nil (the
    /// SRV record then points at the system host name, and the log says why).
    func publishAddresses(as host: String, in group: OpaquePointer) -> String? {
        var published = 0
        for a in InterfaceAddresses.current() ?? [] {
            var address = AvahiAddress()
            guard avahi_address_parse(a.bare, AvahiProtocol(AVAHI_PROTO_UNSPEC), &address) != nil else { continue }
            let rc = avahi_entry_group_add_address(
                group, AvahiIfIndex(a.interfaceIndex), address.proto, AvahiPublishFlags(AVAHI_PUBLISH_NO_REVERSE.rawValue), host, &address)
            if rc < 0 {
                logger.notice("could not publish an address for the advert's host name", metadata: ["avahi.error": "\(avahiErrorText(rc))"])
            } else {
                published += 1
            }
        }
        if published == 0 { logger.notice("the advert points at the system host name: no address could be published under a random one") }
        return published > 0 ? host : nil
    }

    func entryGroupStateChanged(_ g: OpaquePointer, _ state: AvahiEntryGroupState) {
        // Inside avahi_entry_group_new the pointer is not stored yet.
        if let creating = publishing.creatingGroup, publishing.groups[creating] == nil { publishing.groups[creating] = g }
        guard let slot = publishing.groups.first(where: { $0.value == g })?.key else { return }
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            advance(slot) { $0.groupEstablished() }
        case AVAHI_ENTRY_GROUP_COLLISION:
            let machine = machines.withLock { $0[slot]! }
            logger.info(
                machine.desired?.onCollision == .withdraw
                    ? "service name collision on the network; withdrawn for a new name" : "service name collision on the network; renaming",
                metadata: ["service.name": "\(machine.nameInUse ?? "")"])
            collision(slot)
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = client.map { avahi_client_errno($0) } ?? -1
            advance(slot) { $0.groupFailed(code: code, message: avahiErrorText(code)) }
        default:
            break
        }
    }
}
