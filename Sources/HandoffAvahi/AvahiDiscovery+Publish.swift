import CAvahi
import HandoffDiscovery
import Logging

/// Carries out the advertiser machine's actions on the entry group.
extension AvahiDiscovery {
    func execute(_ actions: [AdvertiserMachine.Action]) {
        for action in actions {
            switch action {
            case .addService(let name, let port, let txt):
                guard let client else { continue }
                if group == nil { group = avahi_entry_group_new(client, entryGroupCallback, context) }
                guard let group else {
                    emit(
                        .failure(
                            .avahi(
                                code: avahi_client_errno(client), message: avahiErrorText(avahi_client_errno(client)),
                                during: "creating an entry group")))
                    return
                }
                let rc = AvahiStrings.withList(txt.strings) { list in
                    avahi_entry_group_add_service_strlst(
                        group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                        AvahiPublishFlags(0), name, serviceType, nil, nil, port, list)
                }
                if rc == Int32(AVAHI_ERR_COLLISION) {
                    // Another client of this same daemon holds the name.
                    logger.info("service name taken locally; renaming", metadata: ["service.name": "\(name)"])
                    execute(machine.collision())
                    return
                }
                if rc < 0 {
                    emit(.failure(.avahi(code: rc, message: avahiErrorText(rc), during: "adding the service")))
                    return
                }
            case .commit:
                guard let group else { continue }
                let rc = avahi_entry_group_commit(group)
                if rc < 0 { emit(.failure(.avahi(code: rc, message: avahiErrorText(rc), during: "committing the service"))) }
            case .updateTXT(let name, let txt):
                guard let group else { continue }
                let rc = AvahiStrings.withList(txt.strings) { list in
                    avahi_entry_group_update_service_txt_strlst(
                        group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                        AvahiPublishFlags(0), name, serviceType, nil, list)
                }
                if rc < 0 { emit(.failure(.avahi(code: rc, message: avahiErrorText(rc), during: "updating the TXT record"))) }
            case .resetGroup:
                if let group { avahi_entry_group_reset(group) }
            case .discardGroup:
                // Freeing withdraws the records (peers get the goodbye) and forgets the group's
                // commit count.
                if let group { avahi_entry_group_free(group) }
                group = nil
            case .emit(let event):
                if case .published(let name) = event { logger.info("advertising", metadata: ["service.name": "\(name)"]) }
                emit(event)
            }
        }
    }

    func entryGroupStateChanged(_ g: OpaquePointer, _ state: AvahiEntryGroupState) {
        // Inside avahi_entry_group_new the pointer is not stored yet.
        if group == nil { group = g }
        guard g == group else { return }
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            execute(machine.groupEstablished())
        case AVAHI_ENTRY_GROUP_COLLISION:
            logger.info("service name collision on the network; renaming", metadata: ["service.name": "\(machine.nameInUse ?? "")"])
            execute(machine.collision())
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = client.map { avahi_client_errno($0) } ?? -1
            execute(machine.groupFailed(code: code, message: avahiErrorText(code)))
        default:
            break
        }
    }
}
