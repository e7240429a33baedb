import CAvahi

// C callbacks must be global, non-capturing closures: a capturing closure passed as a C callback
// crashes swiftc in Swift 6 mode. Each recovers the AvahiDiscovery from `userdata` and hands over.
// They run on the threaded poll's thread with its lock held.

private func owner(_ userdata: UnsafeMutableRawPointer?) -> AvahiDiscovery? {
    userdata.map { Unmanaged<AvahiDiscovery>.fromOpaque($0).takeUnretainedValue() }
}

let clientCallback: AvahiClientCallback = { client, state, userdata in
    guard let client else { return }
    owner(userdata)?.clientStateChanged(client, state)
}

let entryGroupCallback: AvahiEntryGroupCallback = { group, state, userdata in
    guard let group else { return }
    owner(userdata)?.entryGroupStateChanged(group, state)
}

let serviceBrowserCallback: AvahiServiceBrowserCallback = { browser, interface, proto, event, name, type, domain, flags, userdata in
    guard let browser else { return }
    owner(userdata)?.browserEvent(
        browser, interface: interface, protocol: proto, event: event,
        name: name.map { String(cString: $0) }, type: type.map { String(cString: $0) },
        domain: domain.map { String(cString: $0) }, flags: flags)
}

let serviceResolverCallback: AvahiServiceResolverCallback = {
    resolver, interface, proto, event, name, type, domain, hostName, address, port, txt, flags, userdata in
    guard let resolver else { return }
    owner(userdata)?.resolverEvent(
        resolver, interface: interface, protocol: proto, event: event,
        name: name.map { String(cString: $0) } ?? "",
        hostName: hostName.map { String(cString: $0) } ?? "",
        address: address, port: port, txt: AvahiStrings.read(txt), flags: flags)
}

let recordBrowserCallback: AvahiRecordBrowserCallback = { browser, _, _, event, _, _, _, rdata, size, _, userdata in
    guard let browser else { return }
    owner(userdata)?.txtRecordEvent(browser, event: event, rdata: rdata, size: size)
}

let timeoutCallback: AvahiTimeoutCallback = { timeout, userdata in
    guard let timeout else { return }
    owner(userdata)?.timerFired(timeout)
}

let inboxCallback: AvahiWatchCallback = { _, _, _, userdata in
    owner(userdata)?.drainInbox()
}
