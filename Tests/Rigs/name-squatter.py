#!/usr/bin/python3
"""A stranger that claims a name on the link: announces NAME._handoff._tcp.local. with records of
its own (python3-zeroconf) without probing first, as a hostile machine may, so that the machine
holding the name sees a conflict. Prints "announced", then keeps answering for the name until its
standard input closes.

Used by the privacy end-to-end test inside a test host's network namespace; never run it in this
machine's own namespace (it sends multicast).
    name-squatter.py NAME ADDRESS      (ADDRESS: this test host's IPv4 address)
"""
import socket
import sys

from zeroconf import ServiceInfo, Zeroconf

name, address = sys.argv[1], sys.argv[2]
zeroconf = Zeroconf()
info = ServiceInfo(
    "_handoff._tcp.local.", f"{name}._handoff._tcp.local.", port=9, properties={"v": "2"},
    server="squatter.local.", addresses=[socket.inet_aton(address)])
# cooperating_responders: no probe, so no yielding to the name's holder: straight to announcing.
zeroconf.register_service(info, allow_name_change=False, cooperating_responders=True)
print("announced", flush=True)
sys.stdin.read()
zeroconf.close()
