#!/usr/bin/python3
"""The DNS server's side of per-machine zone keys (docs/DEPLOYMENT.md): a policy daemon
for BIND 9's `external` update-policy rule, so that the holder of one machine's key cannot delete
or replace another machine's records.

    handoff-zone-policy.py --socket PATH --zone ZONE KEYFILE...
    handoff-zone-policy.py --check-name KEYFILE NAME      (prints whose tag NAME carries)
    handoff-zone-policy.py --self-test

named.conf (each machine's key in a KEYFILE, as tsig-keygen writes it, and included there too):

    zone "handoff.example.internal" {
        type primary; file "...";
        update-policy { grant "local:/run/handoff-zone-policy/policy.sock" external * ANY; };
    };

handoffd, given a zone key, names its adverts with 10 random characters and a 6-character tag,
the first 30 bits of HMAC-SHA256(key secret, "handoffd zone name v1:" + the 10)
(Sources/HandoffAdvert/OwnedNames.swift). For each record an update touches, named asks here with
the key that signed it and the record's name; the answer is:

- the service's list (`_handoff._tcp.ZONE`, PTR): yes for every key. BIND tells this daemon the
  name and type, never the data, so nothing can tell one machine's PTR from another's; handoffd
  writes its own again when it finds it gone (docs/SECURITY.md says what remains);
- a name whose first label carries the signer's tag: yes;
- a name whose first label carries another known key's tag: no (logged);
- any other name under the zone (a pairing advert under a device name): yes; nothing else: no.

BIND's protocol (ARM, "external"): one request per connection on a Unix stream socket: version
(4 bytes, 1), length (4 bytes), then signer, name, address, type and key as NUL-terminated
strings, a 4-byte token length and the token; the answer is 4 bytes, 1 (allow) or 0 (deny),
network byte order. Anything this daemon cannot read is denied.
"""
import argparse
import base64
import hmac
import hashlib
import os
import re
import socket
import struct
import sys
import threading

ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
CONTEXT = b"handoffd zone name v1:"
SERVICE = "_handoff._tcp"


def tag(secret, nonce):
    mac = hmac.new(secret, CONTEXT + nonce.encode(), hashlib.sha256).digest()
    bits = int.from_bytes(mac[:4], "big")
    return "".join(ALPHABET[(bits >> (27 - 5 * i)) & 31] for i in range(6))


def owns(secret, label):
    # 16 characters, or 22 when a private advert's name goes on with the tag its paired peers
    # recognise (docs/PROTOCOL.md); the zone's tag is always characters 11-16.
    label = label.lower()
    if len(label) not in (16, 22) or any(c not in ALPHABET for c in label):
        return False
    return hmac.compare_digest(label[10:16], tag(secret, label[:10]))


def read_keys(path):
    """Every `key "NAME" { algorithm ...; secret "..."; };` in a file: {name: secret bytes}."""
    text = open(path).read()
    keys = {}
    for m in re.finditer(r'key\s+"?([^"\s{]+)"?\s*\{(.*?)\}\s*;', text, re.S):
        secret = re.search(r'secret\s+"([^"]+)"', m.group(2))
        if secret:
            keys[m.group(1).rstrip(".").lower()] = base64.b64decode(secret.group(1))
    if not keys:
        raise SystemExit(f"handoff-zone-policy: {path} holds no key statement (the output of tsig-keygen)")
    return keys


class Policy:
    def __init__(self, zone, keys):
        self.zone = zone.rstrip(".").lower()
        self.keys = keys

    def decide(self, signer, name, rtype):
        """(allowed, why)"""
        signer = signer.rstrip(".").lower()
        name = name.rstrip(".").lower()
        if signer not in self.keys:
            return False, f"unknown key {signer!r}"
        if name != self.zone and not name.endswith("." + self.zone):
            return False, f"{name} is outside {self.zone}"
        if name == f"{SERVICE}.{self.zone}" and rtype in ("PTR", "ANY"):
            return True, "the service's list (shared by every key)"
        label = name.split(".")[0]
        owners = [k for k, secret in self.keys.items() if owns(secret, label)]
        if signer in owners:
            return True, "its own name"
        if owners:
            return False, f"{name} belongs to key {owners[0]!r}"
        if name in (self.zone, f"{SERVICE}.{self.zone}"):
            return False, f"{name} is the zone's own"
        return True, "a name no key owns"


def parse(request):
    """signer, name, address, type, key from BIND's request (after the 8-byte header)."""
    fields = request.split(b"\0", 5)
    if len(fields) < 6:
        raise ValueError("fewer than five strings")
    return [f.decode("utf-8", "replace") for f in fields[:5]]


def complete(data):
    """True once DATA (header included) holds the five strings, the token length and the token."""
    body = data[8:]
    parts = body.split(b"\0", 5)
    if len(parts) < 6 or len(parts[5]) < 4:
        return False
    return len(parts[5]) >= 4 + struct.unpack(">I", parts[5][:4])[0]


def serve_one(conn, policy):
    conn.settimeout(2)
    allowed = False
    try:
        data = b""
        while len(data) < 8 or not complete(data):
            chunk = conn.recv(4096)
            if not chunk:
                raise ValueError("the request ended early")
            data += chunk
            if len(data) > 65536:
                raise ValueError("the request is too long")
        version = struct.unpack(">I", data[:4])[0]
        if version != 1:
            raise ValueError(f"protocol version {version}")
        signer, name, address, rtype, _ = parse(data[8:])
        allowed, why = policy.decide(signer, name, rtype)
        print(f"{'allow' if allowed else 'DENY'} {signer} {rtype} {name}: {why}", file=sys.stderr, flush=True)
    except (OSError, ValueError) as e:
        print(f"DENY: cannot read the request: {e}", file=sys.stderr, flush=True)
    try:
        conn.sendall(struct.pack(">I", 1 if allowed else 0))
    except OSError:
        pass
    conn.close()


def serve(path, policy):
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o660)
    server.listen(64)
    print(f"handoff-zone-policy: {len(policy.keys)} keys for {policy.zone}, on {path}", file=sys.stderr, flush=True)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve_one, args=(conn, policy), daemon=True).start()


def self_test():
    secret = bytes(range(32))
    assert tag(secret, "abcdefghij") == SELF_TEST_TAG, tag(secret, "abcdefghij")
    assert owns(secret, "abcdefghij" + SELF_TEST_TAG) and owns(secret, ("abcdefghij" + SELF_TEST_TAG).upper())
    assert not owns(bytes(32), "abcdefghij" + SELF_TEST_TAG)
    assert owns(secret, "abcdefghij" + SELF_TEST_TAG + "4tajml") and not owns(secret, "abcdefghij" + SELF_TEST_TAG + "4taj")
    p = Policy("handoff.test", {"a": secret, "b": bytes(32)})
    mine, theirs = "abcdefghij" + SELF_TEST_TAG, "abcdefghij" + tag(bytes(32), "abcdefghij")
    assert p.decide("a", f"{mine}._handoff._tcp.handoff.test", "SRV")[0]
    assert not p.decide("b", f"{mine}._handoff._tcp.handoff.test", "SRV")[0]
    assert not p.decide("a", f"{theirs}.handoff.test", "A")[0]
    assert p.decide("b", "_handoff._tcp.handoff.test", "PTR")[0]
    assert not p.decide("b", "_handoff._tcp.handoff.test", "TXT")[0]
    assert not p.decide("c", f"{mine}.handoff.test", "A")[0]
    assert not p.decide("a", "www.example.org", "A")[0]
    print("handoff-zone-policy: self-test passed")


# The vector of docs/DEPLOYMENT.md and OwnedNamesTests: key bytes 0..31, nonce "abcdefghij".
SELF_TEST_TAG = "tzdefl"


def main():
    ap = argparse.ArgumentParser(description="BIND 9 external update-policy for handoffd's per-machine zone keys")
    ap.add_argument("--socket")
    ap.add_argument("--zone")
    ap.add_argument("--check-name", nargs=2, metavar=("KEYFILE", "NAME"))
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("keyfiles", nargs="*")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if a.check_name:
        keys = read_keys(a.check_name[0])
        label = a.check_name[1].split(".")[0]
        owners = [k for k, s in keys.items() if owns(s, label)]
        print(owners[0] if owners else "no key owns it")
        return
    if not a.socket or not a.zone or not a.keyfiles:
        ap.error("--socket, --zone and at least one KEYFILE are needed")
    keys = {}
    for path in a.keyfiles:
        keys.update(read_keys(path))
    serve(a.socket, Policy(a.zone, keys))


if __name__ == "__main__":
    main()
