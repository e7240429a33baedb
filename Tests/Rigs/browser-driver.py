#!/usr/bin/env python3
"""Drives a headless browser for the browser end-to-end tests, over its own remote protocol on
loopback: Chromium's DevTools protocol, Firefox's WebDriver BiDi (no chromedriver or geckodriver).
Run inside a test host; never in this machine's own network namespace.

    browser-driver.py chromium PORT            (Chromium started with --remote-debugging-port=PORT)
    browser-driver.py firefox PORT EXTENSION   (Firefox started with --remote-debugging-port=PORT;
                                                installs EXTENSION, a folder, as a temporary add-on)

Then one JSON command a line on stdin, one JSON answer a line on stdout:
    {"cmd": "open", "url": U}      a new tab showing U, made active
    {"cmd": "tabs"}                {"tabs": [url, ...]}: every page the browser shows
    {"cmd": "close-tab", "url": U} closes the tab showing U
  Chromium only:
    {"cmd": "open-private", "url": U}        U in a new window of a new (incognito-like) context
    {"cmd": "extension", "expression": E}    {"value": V}: E evaluated in the extension's background
    {"cmd": "page-text", "url": U}           {"value": T}: the text of the page showing U
"""
import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.request


class WebSocket:
    """A WebSocket client (RFC 6455) with the standard library: text frames, client masking."""

    def __init__(self, url):
        assert url.startswith("ws://")
        host_port, _, path = url[5:].partition("/")
        host, _, port = host_port.partition(":")
        self.sock = socket.create_connection((host, int(port or 80)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("the browser closed the WebSocket handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError(head.decode(errors="replace"))

    def send(self, text):
        data = text.encode()
        header = bytes([0x81])
        n = len(data)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _exact(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("the browser closed the WebSocket")
            out += chunk
        return out

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(n)
            op = b0 & 0x0F
            if op == 0x8:
                raise ConnectionError("the browser closed the WebSocket")
            if op == 0x9:  # ping: answered with the same payload
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()


class Protocol:
    """Commands with ids; events that arrive meanwhile are set aside."""

    def __init__(self, url):
        self.ws = WebSocket(url)
        self.next_id = 1

    def call(self, method, params=None, session=None):
        mid = self.next_id
        self.next_id += 1
        message = {"id": mid, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        while True:
            answer = json.loads(self.ws.recv())
            if answer.get("id") == mid:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})


def wait_for_port(port, path, seconds=30):
    deadline = time.time() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
                return r.read()
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)  # the browser is starting; this polls its port, it stands in for nothing


class Chromium:
    def __init__(self, port):
        version = json.loads(wait_for_port(port, "/json/version"))
        self.p = Protocol(version["webSocketDebuggerUrl"])

    def open(self, url):
        target = self.p.call("Target.createTarget", {"url": url})["targetId"]
        self.p.call("Target.activateTarget", {"targetId": target})
        return {"ok": True}

    def tabs(self):
        targets = self.p.call("Target.getTargets")["targetInfos"]
        return {"tabs": [t["url"] for t in targets if t["type"] == "page"]}

    def close_tab(self, url):
        for t in self.p.call("Target.getTargets")["targetInfos"]:
            if t["type"] == "page" and t["url"] == url:
                self.p.call("Target.closeTarget", {"targetId": t["targetId"]})
        return {"ok": True}

    def open_private(self, url):
        context = self.p.call("Target.createBrowserContext")["browserContextId"]
        target = self.p.call("Target.createTarget", {"url": url, "browserContextId": context, "newWindow": True})["targetId"]
        self.p.call("Target.activateTarget", {"targetId": target})
        return {"ok": True}

    def evaluate(self, target_match, expression):
        """`expression` evaluated in the first target `target_match` accepts; its value."""
        for t in self.p.call("Target.getTargets")["targetInfos"]:
            if target_match(t):
                session = self.p.call("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})["sessionId"]
                try:
                    result = self.p.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session)
                finally:
                    self.p.call("Target.detachFromTarget", {"sessionId": session})
                return {"value": result.get("result", {}).get("value")}
        return {"error": "no such target"}

    def extension(self, expression):
        """Evaluated in the extension's background (its service worker)."""
        return self.evaluate(lambda t: t["type"] == "service_worker" and t["url"].startswith("chrome-extension://"), expression)

    def page_text(self, url):
        return self.evaluate(lambda t: t["type"] == "page" and t["url"] == url, "document.body.innerText")


class Firefox:
    def __init__(self, port, extension):
        deadline = time.time() + 30
        while True:
            try:
                self.p = Protocol(f"ws://127.0.0.1:{port}/session")
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)  # the browser is starting; this polls its port, it stands in for nothing
        self.p.call("session.new", {"capabilities": {}})
        self.p.call("webExtension.install", {"extensionData": {"type": "path", "path": extension}})

    def contexts(self):
        return self.p.call("browsingContext.getTree", {})["contexts"]

    def open(self, url):
        context = self.p.call("browsingContext.create", {"type": "tab"})["context"]
        self.p.call("browsingContext.navigate", {"context": context, "url": url, "wait": "none"})
        self.p.call("browsingContext.activate", {"context": context})
        return {"ok": True}

    def tabs(self):
        return {"tabs": [c["url"] for c in self.contexts()]}

    def close_tab(self, url):
        for c in self.contexts():
            if c["url"] == url:
                self.p.call("browsingContext.close", {"context": c["context"]})
        return {"ok": True}


def main():
    kind, port = sys.argv[1], int(sys.argv[2])
    browser = Chromium(port) if kind == "chromium" else Firefox(port, sys.argv[3])
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        try:
            if command["cmd"] == "open":
                answer = browser.open(command["url"])
            elif command["cmd"] == "tabs":
                answer = browser.tabs()
            elif command["cmd"] == "close-tab":
                answer = browser.close_tab(command["url"])
            elif command["cmd"] == "open-private":
                answer = browser.open_private(command["url"])
            elif command["cmd"] == "extension":
                answer = browser.extension(command["expression"])
            elif command["cmd"] == "page-text":
                answer = browser.page_text(command["url"])
            else:
                answer = {"error": "unknown command"}
        except Exception as e:  # the test reads what went wrong
            answer = {"error": str(e)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
