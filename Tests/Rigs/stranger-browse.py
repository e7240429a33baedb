#!/usr/bin/python3
"""A stranger on the network: browses _handoff._tcp with python3-zeroconf (not Avahi, not
handoffd) and prints, one JSON object per line, everything it can read of each advert: the
instance name, the SRV target and port, the addresses and every TXT entry; and, as `seen`, the
moment each change (added, updated, removed) reached it, for the timing observer
(Tests/Rigs/advert-timing.sh).

Used by the privacy end-to-end test inside a test host's network namespace; never run
it in this machine's own namespace (it sends multicast queries).
"""
import json
import sys
import threading
import time

from zeroconf import ServiceBrowser, ServiceStateChange, Zeroconf

SERVICE = "_handoff._tcp.local."
lock = threading.Lock()
# How many times each instance was withdrawn: a resolution that finishes after its advert was
# withdrawn is not "added" (the advert is no longer listed), it is told apart.
withdrawals = {}


def emit(record):
    record["time"] = time.time()
    with lock:
        sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")
        sys.stdout.flush()


def instance(name):
    return name[: -len("." + SERVICE)] if name.endswith("." + SERVICE) else name


def on_change(zeroconf, service_type, name, state_change):
    # The moment the stranger saw the change, before any resolution: what a timing observer keeps.
    emit({"event": "seen", "state": state_change.name.lower(), "name": instance(name)})
    if state_change is ServiceStateChange.Removed:
        with lock:
            withdrawals[name] = withdrawals.get(name, 0) + 1
        emit({"event": "removed", "name": instance(name)})
        return
    # Handlers run one at a time on the browser's thread: resolving there would queue every
    # new advert behind a slow one (or one withdrawn before it resolved), and rotated adverts
    # live only seconds in the tests.
    threading.Thread(target=resolve, args=(zeroconf, service_type, name, state_change), daemon=True).start()


def resolve(zeroconf, service_type, name, state_change):
    with lock:
        generation = withdrawals.get(name, 0)
    info = zeroconf.get_service_info(service_type, name, timeout=3000)
    with lock:
        late = withdrawals.get(name, 0) != generation
    if info is None:
        emit({"event": "unresolved", "name": instance(name)})
        return
    txt = {}
    for key, value in (info.properties or {}).items():
        k = key.decode("utf-8", "replace")
        txt[k] = None if value is None else value.decode("utf-8", "replace")
    if late:
        event = "resolved-after-withdrawal"
    else:
        event = "added" if state_change is ServiceStateChange.Added else "updated"
    emit({
        "event": event,
        "name": instance(name),
        "server": info.server,
        "port": info.port,
        "addresses": sorted(info.parsed_addresses()),
        "txt": txt,
    })


def main():
    zc = Zeroconf()
    ServiceBrowser(zc, SERVICE, handlers=[on_change])
    emit({"event": "browsing"})
    try:
        # Runs until the test ends it (SIGTERM) or closes stdin.
        sys.stdin.read()
    finally:
        zc.close()


if __name__ == "__main__":
    main()
