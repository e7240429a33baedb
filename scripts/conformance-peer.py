#!/usr/bin/python3
"""A second implementation of handoffd's peer side, written from docs/LINK.md, docs/PROTOCOL.md
and docs/ENCODING.md (and checked against docs/vectors/), with the Noise library Debian ships
(python3-dissononce). The end-to-end tests run it against a real handoffd: as a well-behaved
paired machine (pairing by address, sessions, list, fetch, continued, pushes both ways, being
dialled) and as a hostile one (bursts of sessions, floods, a peer that stops reading).

It is driven by JSON lines on standard input and answers with JSON lines on standard output:
    {"op": "identity"}
    {"op": "pair", "host": H, "port": P}          -> {"code": C}; then a line {"code": C'} (the
                                                     code the other machine shows) -> {"paired": FP}
    {"op": "listen", "port": P}                    sessions opened to us are answered
    {"op": "session", "host": H, "port": P, "listen": P}  -> {"hello": {...}}
    {"op": "request", "message": {...}}            -> {"reply": {...}} (an "id" is added)
    {"op": "send", "message": {...}}               one-way (continued, ...)
    {"op": "events"}                               -> {"events": [...]} what the daemon pushed
    {"op": "burst", "host": H, "port": P, "count": N}       -> {"opened": N, "open_after": M}
    {"op": "flood", "count": N, "bytes": B}        pushes of B bytes, without reading
    {"op": "stall"}                                stop reading the session (its receive buffer is small)
    {"op": "lists", "count": N}                    N `list` requests, not waiting for answers
    {"op": "quit"}
"""
import hashlib
import json
import os
import secrets
import socket
import struct
import sys
import threading
import time
import uuid
from datetime import datetime, timezone

from dissononce.cipher.chachapoly import ChaChaPolyCipher
from dissononce.dh.x25519.private import PrivateKey
from dissononce.dh.x25519.x25519 import X25519DH
from dissononce.hash.sha256 import SHA256Hash
from dissononce.processing.handshakepatterns.interactive.XX import XXHandshakePattern
from dissononce.processing.impl.cipherstate import CipherState
from dissononce.processing.impl.handshakestate import HandshakeState
from dissononce.processing.impl.symmetricstate import SymmetricState

# ---------------------------------------------------------------- the canonical encoding (ENCODING.md)
MAGIC = b"HO\x01"
EPOCH_2001 = 978307200.0


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class Date(float):
    """A date: seconds since 1970 (shown as such), encoded as seconds since 2001."""


def encode_value(v):
    if isinstance(v, bool):
        return b"\x05" if v else b"\x04"
    if isinstance(v, Date):
        return b"\x06" + struct.pack(">d", float(v) - EPOCH_2001)
    if isinstance(v, int):
        return b"\x02" + varint(v << 1 if v >= 0 else -2 * v - 1)
    if isinstance(v, float):
        return b"\x03" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        return b"\x01" + varint(len(b)) + b
    if isinstance(v, (bytes, bytearray)):
        return b"\x07" + varint(len(v)) + bytes(v)
    if isinstance(v, list):
        return b"\x08" + varint(len(v)) + b"".join(encode_value(x) for x in v)
    if isinstance(v, dict):
        items = sorted((k.encode(), x) for k, x in v.items())
        return b"\x09" + varint(len(items)) + b"".join(varint(len(k)) + k + encode_value(x) for k, x in items)
    raise TypeError(f"cannot encode {type(v)}")


def encode(v):
    return MAGIC + encode_value(v)


def decode(data):
    if data[:3] != MAGIC:
        raise ValueError("no HO 01 magic")
    pos = [3]

    def read_varint():
        n, shift = 0, 0
        while True:
            b = data[pos[0]]
            pos[0] += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    def take(n):
        if pos[0] + n > len(data):
            raise ValueError("truncated")
        out = data[pos[0] : pos[0] + n]
        pos[0] += n
        return out

    def value():
        tag = take(1)[0]
        if tag == 1:
            return take(read_varint()).decode()
        if tag == 2:
            z = read_varint()
            return (z >> 1) ^ -(z & 1)
        if tag == 3:
            return struct.unpack(">d", take(8))[0]
        if tag in (4, 5):
            return tag == 5
        if tag == 6:
            return Date(struct.unpack(">d", take(8))[0] + EPOCH_2001)
        if tag == 7:
            return bytes(take(read_varint()))
        if tag == 8:
            return [value() for _ in range(read_varint())]
        if tag == 9:
            out = {}
            for _ in range(read_varint()):
                k = take(read_varint()).decode()
                out[k] = value()
            return out
        raise ValueError(f"unknown tag {tag}")

    v = value()
    if pos[0] != len(data):
        raise ValueError("bytes after the value")
    return v


# ---------------------------------------------------------------- the link (LINK.md)
def fingerprint(public):
    d = hashlib.sha256(public).hexdigest()[:16]
    return "-".join(d[i : i + 4] for i in range(0, 16, 4))


class Closed(Exception):
    pass


class Link:
    """One connection: frames, the Noise XX handshake with the preamble as prologue, the
    acceptance byte, then transport messages."""

    def __init__(self, sock, keypair):
        self.sock, self.keypair = sock, keypair
        self.send_lock = threading.Lock()

    def write_frame(self, body):
        with self.send_lock:
            self.sock.sendall(struct.pack(">I", len(body)) + body)

    def read_frame(self):
        header = self._read(4)
        return self._read(struct.unpack(">I", header)[0])

    def _read(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise Closed("the connection closed")
            buf += chunk
        return bytes(buf)

    def handshake(self, initiator, mode, name=b""):
        preamble = b"HOFF\x01" + bytes([mode])
        hs = HandshakeState(SymmetricState(CipherState(ChaChaPolyCipher()), SHA256Hash()), X25519DH())
        if initiator:
            self.write_frame(preamble)
        else:
            got = self.read_frame()
            if got != preamble:
                raise Closed(f"bad preamble {got!r}")
        hs.initialize(XXHandshakePattern(), initiator, preamble, s=self.keypair)
        payload = name if mode == 2 else b""
        buf = bytearray()
        if initiator:
            hs.write_message(b"", buf)
            self.write_frame(bytes(buf))
            m2 = self.read_frame()
            if len(m2) == 2 and m2[0] == 0xFF:
                raise Closed(f"refused: {m2[1]} (1 not accepting, 2 busy, 3 locked out)")
            peer_name = bytearray()
            hs.read_message(m2, peer_name)
            buf = bytearray()
            ciphers = hs.write_message(payload, buf)
            self.write_frame(bytes(buf))
            self.tx, self.rx = ciphers
        else:
            hs.read_message(self.read_frame(), bytearray())
            buf = bytearray()
            hs.write_message(payload, buf)
            self.write_frame(bytes(buf))
            peer_name = bytearray()
            ciphers = hs.read_message(self.read_frame(), peer_name)
            self.rx, self.tx = ciphers
        self.peer_key = hs.rs.data
        self.peer_name = bytes(peer_name).decode(errors="replace")
        self.hash = hs.symmetricstate.get_handshake_hash()
        if initiator:
            answer = self.decrypt(self.read_frame())
            if answer == b"\x02":
                raise Closed("the other machine has unpaired us")
            if answer != b"\x01":
                raise Closed(f"not accepted: {answer!r}")
        else:
            self.send(b"\x01")

    def send(self, plaintext):
        self.write_frame(self.tx.encrypt_with_ad(b"", plaintext))

    def decrypt(self, frame):
        return self.rx.decrypt_with_ad(b"", frame)

    def receive(self):
        return self.decrypt(self.read_frame())


def stream_frame(f):
    """A stream frame (docs/PROTOCOL.md, "Continuation streams") as an event."""
    t, body = f[0], f[17:]
    ev = {"frame": t, "stream": int.from_bytes(f[1:9], "big"), "offset": int.from_bytes(f[9:17], "big")}
    if t == 1:
        ev["data"] = body.decode("latin-1")
    elif t == 2:
        ev["window"] = int.from_bytes(body, "big")
    elif t == 4:
        ev["code"] = body[1:1 + body[0]].decode()
        ev["message"] = body[1 + body[0]:].decode()
    return ev


def make_stream_frame(cmd):
    t = cmd["type"]
    body = b""
    if t == 1:
        body = cmd["data"].encode("latin-1")
    elif t == 2:
        body = cmd.get("window", 65536).to_bytes(4, "big")
    elif t == 4:
        code = cmd["code"].encode()
        body = bytes([len(code)]) + code + cmd.get("message", "").encode()
    return bytes([t]) + cmd["stream"].to_bytes(8, "big") + cmd.get("offset", 0).to_bytes(8, "big") + body


def pairing_code(h, na, nb):
    d = hashlib.sha256(b"handoffd pairing code" + h + na + nb).digest()
    return "%06d" % (struct.unpack(">I", d[:4])[0] % 1_000_000)


def ask_code(code):
    """Shows our code, then reads the code the other machine shows (as a person types it)."""
    out({"code": code})
    line = sys.stdin.readline()
    return json.loads(line).get("code") if line else None


def pair_as_initiator(link):
    na = secrets.token_bytes(16)
    link.send(b"\x01" + hashlib.sha256(b"handoffd pairing commit" + link.hash + na).digest())
    msg = link.receive()
    if msg[0] != 2 or len(msg) != 17:
        raise Closed(f"expected the responder's nonce, got {msg[:2].hex()}")
    link.send(b"\x03" + na)
    return finish_pairing(link, pairing_code(link.hash, na, msg[1:]))


def pair_as_responder(link):
    msg = link.receive()
    if msg[0] != 1 or len(msg) != 33:
        raise Closed("expected a commitment")
    nb = secrets.token_bytes(16)
    link.send(b"\x02" + nb)
    reveal = link.receive()
    if reveal[0] != 3 or hashlib.sha256(b"handoffd pairing commit" + link.hash + reveal[1:]).digest() != msg[1:]:
        link.send(b"\x05\x02")
        raise Closed("the commitment does not match the nonce")
    return finish_pairing(link, pairing_code(link.hash, reveal[1:], nb))


def finish_pairing(link, code):
    typed = ask_code(code)
    if typed != code:
        link.send(b"\x05\x01")
        return None
    link.send(b"\x04")
    answer = link.receive()
    if answer[:1] != b"\x04":
        return None
    return link.peer_key


# ---------------------------------------------------------------- the peer protocol (PROTOCOL.md)
out_lock = threading.Lock()


def out(obj):
    def plain(v):
        if isinstance(v, bytes):
            return v.hex()
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v

    with out_lock:
        sys.stdout.write(json.dumps(plain(obj)) + "\n")
        sys.stdout.flush()


REPLIES = {"hello", "activities", "activity", "outcome", "pong", "error", "streamAccepted"}


class Peer:
    def __init__(self, key_path, name, types):
        if os.path.exists(key_path):
            private = open(key_path, "rb").read()
        else:
            private = secrets.token_bytes(32)
            with open(key_path, "wb") as f:
                f.write(private)
        self.keypair = X25519DH().generate_keypair(PrivateKey(private))
        self.name, self.types = name, types
        self.pinned = set()
        self.events, self.waiting, self.lock = [], {}, threading.Lock()
        self.session = None
        self.listen_port = None
        self.reading = threading.Event()
        self.reading.set()

    @property
    def public(self):
        return self.keypair.public.data

    def connect(self, host, port, mode, rcvbuf=None):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(10)
        sock.connect((host, port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        link = Link(sock, self.keypair)
        link.handshake(True, mode, self.name.encode())
        return link

    def hello(self, request_id):
        h = {"type": "hello", "id": request_id, "protocol": 1, "device": self.name, "types": self.types}
        if self.listen_port:
            h["port"], h["addresses"] = self.listen_port, ["127.0.0.1"]
        return h

    def open_session(self, host, port, rcvbuf=None):
        link = self.connect(host, port, 1, rcvbuf)
        self.session = link
        threading.Thread(target=self.read_loop, args=(link,), daemon=True).start()
        return self.request(self.hello(0))

    def request(self, message, timeout=10):
        rid = message.get("id") or secrets.randbelow(2**62) + 1
        message = dict(message, id=rid)
        done = threading.Event()
        with self.lock:
            self.waiting[rid] = [done, None]
        self.session.send(b"\x00" + encode(message))
        if not done.wait(timeout):
            raise Closed(f"no answer to {message['type']} within {timeout} s")
        with self.lock:
            return self.waiting.pop(rid)[1]

    def read_loop(self, link):
        try:
            while True:
                self.reading.wait()
                m = link.receive()
                if m[:1] == b"\x01":
                    with self.lock:
                        self.events.append({"control": m[1:2].hex()})
                    continue
                if m[:1] == b"\x02":
                    with self.lock:
                        self.events.append(stream_frame(m[1:]))
                    continue
                msg = decode(m[1:])
                rid = msg.get("id")
                with self.lock:
                    pending = self.waiting.get(rid) if msg.get("type") in REPLIES else None
                    if pending:
                        pending[1] = msg
                        pending[0].set()
                        continue
                reply = self.answer(msg)
                if reply is not None:
                    link.send(b"\x00" + encode(reply))
                else:
                    with self.lock:
                        self.events.append(msg)
        except (Closed, OSError):
            with self.lock:
                self.events.append({"closed": True})

    def answer(self, msg):
        """What a paired machine answers: the daemon's requests to us."""
        t, rid = msg.get("type"), msg.get("id")
        if t == "hello":
            with self.lock:
                self.events.append(msg)
            return self.hello(rid)
        if t == "ping":
            return {"type": "pong", "id": rid}
        if t == "list":
            return {"type": "activities", "id": rid, "items": []}
        if t == "push":
            with self.lock:
                self.events.append(msg)
            return {"type": "outcome", "id": rid, "outcome": "continued"}
        if t == "fetch":
            return {"type": "error", "id": rid, "code": "not-found", "message": "nothing is current here"}
        return None

    def listen(self, port):
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen(8)
        self.listen_port = server.getsockname()[1]

        def serve():
            while True:
                sock, _ = server.accept()
                link = Link(sock, self.keypair)
                try:
                    link.handshake(False, 1)
                except Exception as e:  # noqa: BLE001 - reported, the listener goes on
                    out({"incoming_refused": str(e)})
                    continue
                with self.lock:
                    self.events.append({"incoming": fingerprint(link.peer_key)})
                threading.Thread(target=self.read_loop, args=(link,), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        return self.listen_port


def activity(type_, title, user_info):
    """An activity with every required field (ENCODING.md, "An activity")."""
    a = {
        "id": str(uuid.uuid4()).upper(), "version": 1, "type": type_, "userInfo": user_info, "required": [], "keywords": [],
        "handoff": True, "search": False, "needsSave": False,
    }
    if title is not None:
        a["title"] = title
    return a


def check_vectors(path):
    """Checks this implementation against docs/vectors/handoffd-vectors.json: the canonical
    encoding, the pairing messages and code, the link handshake with fixed keys, the control
    message and the sealed advert record."""
    import base64
    import hmac

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    v = json.load(open(path))
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got} want {want}")

    for name, hexed in v["peer_messages"].items():
        expect(f"peer message {name} round trip", encode(decode(bytes.fromhex(hexed))).hex(), hexed)
    p = v["pairing"]
    h, na, nb = (bytes.fromhex(p[k]) for k in ("handshake_hash", "initiator_nonce", "responder_nonce"))
    expect("commit", (b"\x01" + hashlib.sha256(b"handoffd pairing commit" + h + na).digest()).hex(), p["commit"])
    expect("nonce", (b"\x02" + nb).hex(), p["nonce"])
    expect("reveal", (b"\x03" + na).hex(), p["reveal"])
    expect("confirm", "04", p["confirm"])
    expect("reject", "0501", p["reject_codes_differ"])
    expect("code", pairing_code(h, na, nb), p["code"])

    lh = v["link_handshake"]
    dh = X25519DH()
    kp = {k: dh.generate_keypair(PrivateKey(bytes.fromhex(lh[k]))) for k in lh if k.endswith("_private")}
    prologue = bytes.fromhex(lh["preamble"])

    class FixedEphemeral(X25519DH):
        """Generates the vector's ephemeral key (dissononce makes its own when writing `e`)."""

        def __init__(self, ephemeral):
            super().__init__()
            self.ephemeral = ephemeral

        def generate_keypair(self, privatekey=None):
            return self.ephemeral if privatekey is None else super().generate_keypair(privatekey)

    def state(initiator):
        side = "initiator" if initiator else "responder"
        hs = HandshakeState(SymmetricState(CipherState(ChaChaPolyCipher()), SHA256Hash()), FixedEphemeral(kp[f"{side}_ephemeral_private"]))
        hs.initialize(XXHandshakePattern(), initiator, prologue, s=kp[f"{side}_static_private"])
        return hs

    a, b = state(True), state(False)
    m1 = bytearray()
    a.write_message(b"", m1)
    b.read_message(bytes(m1), bytearray())
    m2 = bytearray()
    b.write_message(lh["message2_payload"].encode(), m2)
    a.read_message(bytes(m2), bytearray())
    m3 = bytearray()
    a.write_message(lh["message3_payload"].encode(), m3)
    b_rx, b_tx = b.read_message(bytes(m3), bytearray())
    expect("message1", bytes(m1).hex(), lh["message1"])
    expect("message2", bytes(m2).hex(), lh["message2"])
    expect("message3", bytes(m3).hex(), lh["message3"])
    expect("handshake hash", b.symmetricstate.get_handshake_hash().hex(), lh["handshake_hash"])
    expect("acceptance", b_tx.encrypt_with_ad(b"", b"\x01").hex(), lh["acceptance_transport"])
    expect("fingerprint", fingerprint(kp["initiator_static_private"].public.data), lh["initiator_fingerprint"])

    ad = v["advert"]
    key, gen = bytes.fromhex(ad["advertising_key"]), int(ad["generation"])
    expect("control advertising key", (b"\x01\x01" + gen.to_bytes(4, "big") + key).hex(), v["link_control"]["advertising_key"])

    def hkdf(purpose, salt):
        info = f"handoffd-private-advert-2-{purpose}".encode() + gen.to_bytes(4, "big")
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(key)

    b64 = lambda raw: base64.urlsafe_b64encode(raw).decode().rstrip("=")  # noqa: E731
    salt = bytes.fromhex(ad["salt"])
    expect("advert n", b64(salt), ad["n"])
    expect("advert m", b64(hmac.new(hkdf("tag", None), salt, "sha256").digest()[:8]), ad["m"])
    token = uuid.UUID(ad["token_activity"]).bytes + hashlib.sha256(ad["token_type"].encode()).digest()[:4] + int(ad["token_version"]).to_bytes(4, "big")
    plain = int(ad["sequence"]).to_bytes(8, "big") + bytes([1]) + token
    plain += bytes(105 - len(plain))
    expect("advert b", b64(ChaCha20Poly1305(hkdf("seal", salt)).encrypt(bytes(12), plain, b"2")), ad["b"])
    for f in failures:
        print(f)
    print("vectors ok" if not failures else f"{len(failures)} vectors differ")
    return not failures


def main():
    args = dict(a.split("=", 1) for a in sys.argv[1:])
    if "check-vectors" in args:
        sys.exit(0 if check_vectors(args["check-vectors"]) else 1)
    peer = Peer(args.get("key", "/tmp/conformance-peer.key"), args.get("name", "conformance"), args.get("types", "").split(",") if args.get("types") else [])
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        try:
            if op == "identity":
                out({"fingerprint": fingerprint(peer.public)})
            elif op == "pair":
                link = peer.connect(cmd["host"], cmd["port"], 2)
                key = pair_as_initiator(link)
                out({"paired": fingerprint(key)} if key else {"refused": True})
            elif op == "listen":
                out({"listening": peer.listen(cmd.get("port", 0))})
            elif op == "session":
                out({"hello": peer.open_session(cmd["host"], cmd["port"], cmd.get("rcvbuf"))})
            elif op == "request":
                out({"reply": peer.request(cmd["message"], cmd.get("timeout", 10))})
            elif op == "send":
                peer.session.send(b"\x00" + encode(cmd["message"]))
                out({"sent": cmd["message"]["type"]})
            elif op == "frame":
                peer.session.send(b"\x02" + make_stream_frame(cmd))
                out({"sent": "frame"})
            elif op == "push":
                a = activity(cmd["activityType"], cmd.get("title"), cmd.get("userInfo", {}))
                out({"reply": peer.request({"type": "push", "activity": a})})
            elif op == "events":
                with peer.lock:
                    out({"events": peer.events})
            elif op == "burst":
                links, opened = [], 0
                for _ in range(cmd["count"]):
                    try:
                        links.append(peer.connect(cmd["host"], cmd["port"], 1))
                        opened += 1
                    except Exception:  # noqa: BLE001 - a refusal is what is counted
                        pass
                time.sleep(cmd.get("settle", 2))
                still = 0
                for link in links:
                    # What the daemon sent (acceptance, its key) is read first: then an end of
                    # stream means it closed the session, nothing to read means it is open.
                    link.sock.setblocking(False)
                    try:
                        while link.sock.recv(65536):
                            pass
                        alive = False
                    except BlockingIOError:
                        alive = True
                    except OSError:
                        alive = False
                    still += alive
                    link.sock.close()
                out({"opened": opened, "open_after": still})
            elif op == "flood":
                body = b"\x00" + encode({"type": "push", "id": 1, "activity": activity("org.example.flood", "x" * cmd["bytes"], {})})
                started, sent = time.monotonic(), 0
                peer.session.sock.settimeout(cmd.get("timeout", 30))
                try:
                    for _ in range(cmd["count"]):
                        peer.session.send(body)
                        sent += 1
                except OSError:
                    pass
                out({"sent": sent, "seconds": round(time.monotonic() - started, 3)})
            elif op == "stall":
                peer.reading.clear()
                out({"stalled": True})
            elif op == "lists":
                peer.session.sock.settimeout(cmd.get("timeout", 30))
                sent = 0
                try:
                    for _ in range(cmd["count"]):
                        peer.session.send(b"\x00" + encode({"type": "list", "id": secrets.randbelow(2**62) + 1}))
                        sent += 1
                except OSError:
                    pass
                out({"sent": sent})
            elif op == "close":
                peer.session.sock.close()
                out({"closed": True})
            elif op == "quit":
                out({"bye": True})
                return
            else:
                out({"error": f"unknown op {op}"})
        except Exception as e:  # noqa: BLE001 - every failure is an answer, the peer goes on
            out({"error": f"{type(e).__name__}: {e}"})


if __name__ == "__main__":
    main()
