"""The link (docs/LINK.md): framing, the Noise_XX session, stream frames (docs/PROTOCOL.md) and
pairing by a compared code."""
import hashlib
import json
import secrets
import struct
import sys
import threading

from dissononce.cipher.chachapoly import ChaChaPolyCipher
from dissononce.dh.x25519.x25519 import X25519DH
from dissononce.hash.sha256 import SHA256Hash
from dissononce.processing.handshakepatterns.interactive.XX import XXHandshakePattern
from dissononce.processing.impl.cipherstate import CipherState
from dissononce.processing.impl.handshakestate import HandshakeState
from dissononce.processing.impl.symmetricstate import SymmetricState

from conformance.lines import out


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
            self._write(body)

    def send(self, plaintext):
        # Sealed and written under one lock: the reader thread answers the daemon's requests
        # while the main thread sends its own, and two messages sealed with consecutive nonces
        # but written the other way round fail authentication at the other end (LINK.md, 4).
        with self.send_lock:
            self._write(self.tx.encrypt_with_ad(b"", plaintext))

    def _write(self, body):
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

    def decrypt(self, frame):
        return self.rx.decrypt_with_ad(b"", frame)

    def receive(self):
        return self.decrypt(self.read_frame())


def stream_frame(f):
    """A stream frame (docs/PROTOCOL.md, "Continuation streams") as an event."""
    t, body = f[0], f[17:]
    ev = {"frame": t, "stream": int.from_bytes(f[1:9], "big"), "offset": int.from_bytes(f[9:17], "big")}
    if t == 1:
        # A long body is counted, not kept: the events are listed whole on every "events" op.
        ev.update({"data": body.decode("latin-1")} if len(body) <= 256 else {"bytes": len(body)})
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
