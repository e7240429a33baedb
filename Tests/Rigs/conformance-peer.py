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
    {"op": "changed", "items": [{...}]}            its own activity list, told (a summary's
                                                     "updated": seconds since 1970, sent as a date)
    {"op": "events"}                               -> {"events": [...]} what the daemon pushed
    {"op": "frame", "type": T, "stream": S, ...}   one stream frame (docs/PROTOCOL.md)
    {"op": "frames", "type": T, "stream": S, "count": N, ...}  N stream frames, not waiting
                                                     (or for "seconds": S)
    {"op": "burst", "host": H, "port": P, "count": N}       -> {"opened": N, "open_after": M}
    {"op": "flood", "count": N, "bytes": B}        pushes of B bytes, without reading
    {"op": "stall"}                                stop reading the session (its receive buffer is small)
    {"op": "lists", "count": N}                    N `list` requests, not waiting for answers
    {"op": "close"}                                the session closes, without a goodbye
    {"op": "goodbye"}                              a goodbye, and the session closes at once
    {"op": "quit"}
"""

import json
import os
import secrets
import socket
import sys
import threading
import time
import uuid

# The parts beside this script (Tests/Rigs/conformance/); no bytecode left in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dissononce.dh.x25519.private import PrivateKey
from dissononce.dh.x25519.x25519 import X25519DH
from conformance.encoding import Date, encode, decode, fingerprint
from conformance.link import Closed, Link, stream_frame, make_stream_frame, pair_as_initiator
from conformance.lines import out
from conformance.vectors import check_vectors

# ---------------------------------------------------------------- the peer protocol (PROTOCOL.md)
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
        # Its current activities, as summaries: what it tells (op "changed") and lists.
        self.items = []
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
            return {"type": "activities", "id": rid, "items": self.items}
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
            elif op == "changed":
                items = [dict(i, **({"updated": Date(i["updated"])} if "updated" in i else {})) for i in cmd["items"]]
                peer.items = items
                peer.session.send(b"\x00" + encode({"type": "changed", "items": items}))
                out({"sent": "changed"})
            elif op == "frame":
                peer.session.send(b"\x02" + make_stream_frame(cmd))
                out({"sent": "frame"})
            elif op == "frames":
                # Many stream frames at once, without waiting: a hostile machine's resume storms,
                # one-byte data frames, frames for streams that do not exist. "each_stream" names a
                # new stream in every frame, "each_offset" moves the offset past the last frame's data.
                # "seconds": go on until that long has passed (the count then bounds each round).
                frame, sent = dict(cmd), 0
                size = len(cmd.get("data", ""))
                peer.session.sock.settimeout(cmd.get("timeout", 30))
                until = time.monotonic() + cmd.get("seconds", 0)
                count = cmd.get("count", 1_000_000_000 if "seconds" in cmd else 1)
                try:
                    for i in range(count):
                        if "seconds" in cmd and time.monotonic() >= until:
                            break
                        if cmd.get("each_stream"):
                            frame["stream"] = cmd["stream"] + i
                        if cmd.get("each_offset"):
                            frame["offset"] = cmd.get("offset", 0) + i * size
                        peer.session.send(b"\x02" + make_stream_frame(frame))
                        sent += 1
                except OSError:
                    pass
                out({"sent": sent})
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
            elif op == "goodbye":
                # As a stopping machine does (PROTOCOL.md): goodbye, then the close at once, so
                # that both reach the other side together.
                peer.session.send(b"\x00" + encode({"type": "goodbye"}))
                peer.session.sock.shutdown(socket.SHUT_RDWR)
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
