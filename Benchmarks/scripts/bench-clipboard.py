#!/usr/bin/env python3
"""The measurements of Benchmarks/scripts/bench-clipboard.sh, run inside alpha's test host: the
copying program is this process's X client on alpha's display; the watching and pasting program
is the same file run with --beta inside beta's host, spoken to in JSON lines. Times are
CLOCK_MONOTONIC, one clock for both hosts (one kernel)."""
import hashlib
import json
import os
import select
import subprocess
import sys
import time

from Xlib import X, Xatom, display as xdisplay
from Xlib.ext import xfixes
from Xlib.protocol import event as xevent

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
now = time.monotonic
PART = 64 * 1024  # a request of python-xlib has a 16-bit length (no BIG-REQUESTS)


class Client:
    """One X client: a window, the atoms, events with a deadline."""

    def __init__(self, name):
        self.d = xdisplay.Display(name)
        self.w = self.d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent, event_mask=X.PropertyChangeMask)
        self.clip = self.atom("CLIPBOARD")
        self.d.flush()

    def atom(self, name):
        return self.d.intern_atom(name)

    def next_event(self, until):
        while not self.d.pending_events():
            left = until - now()
            if left <= 0:
                return None
            select.select([self.d.fileno()], [], [], left)
        return self.d.next_event()


class Copier(Client):
    """The program that copies on alpha: owns CLIPBOARD and serves it (INCR when large)."""

    def __init__(self, name):
        super().__init__(name)
        self.content = {}
        self.sending = {}

    def copy(self, items):
        self.content = {}
        for mime, data in items.items():
            names = [mime, "UTF8_STRING", "text/plain", "STRING"] if mime == "text/plain;charset=utf-8" else [mime]
            for n in names:
                self.content[self.atom(n)] = data
        self.w.set_selection_owner(self.clip, X.CurrentTime)
        self.d.flush()
        return now()

    def pump(self, seconds):
        until = now() + seconds
        while (e := self.next_event(until)) is not None:
            if e.type == X.SelectionRequest:
                self.answer(e)
            elif e.type == X.PropertyNotify and e.state == X.PropertyDelete and (e.window.id, e.atom) in self.sending:
                self.next_part(e.window, e.atom)
            elif e.type == X.SelectionClear:
                self.content = {}

    def answer(self, e):
        prop = e.property or e.target
        if e.target == self.atom("TARGETS"):
            e.requestor.change_property(prop, Xatom.ATOM, 32, [self.atom("TARGETS")] + list(self.content))
        elif e.target in self.content:
            data = self.content[e.target]
            if len(data) <= PART:
                e.requestor.change_property(prop, e.target, 8, data)
            else:
                e.requestor.change_attributes(event_mask=X.PropertyChangeMask)
                e.requestor.change_property(prop, self.atom("INCR"), 32, [len(data)])
                self.sending[(e.requestor.id, prop)] = [e.target, data, 0]
        else:
            prop = X.NONE
        e.requestor.send_event(xevent.SelectionNotify(time=e.time, requestor=e.requestor, selection=e.selection, target=e.target, property=prop))
        self.d.flush()

    def next_part(self, window, prop):
        target, data, offset = self.sending[(window.id, prop)]
        part = data[offset:offset + PART]
        window.change_property(prop, target, 8, part)
        if not part:
            del self.sending[(window.id, prop)]
        else:
            self.sending[(window.id, prop)][2] = offset + len(part)
        self.d.flush()


class Paster(Client):
    """The program on beta: told of every change of CLIPBOARD's owner (XFixes), and pastes."""

    def __init__(self, name):
        super().__init__(name)
        self.d.xfixes_query_version()
        self.d.xfixes_select_selection_input(self.w, self.clip, xfixes.XFixesSetSelectionOwnerNotifyMask)
        self.d.flush()

    def owner_change(self, seconds):
        until = now() + seconds
        while (e := self.next_event(until)) is not None:
            # By name: python-xlib makes the extension's event classes per display.
            if type(e).__name__ == "SetSelectionOwnerNotify":
                return now(), e.owner
        return None, None

    def paste(self, target, seconds=10):
        prop = self.atom("HANDOFF_BENCH")
        started = now()
        self.w.convert_selection(self.clip, self.atom(target), prop, X.CurrentTime)
        self.d.flush()
        until = now() + seconds
        while (e := self.next_event(until)) is not None:
            if e.type == X.SelectionNotify:
                break
        else:
            return None
        if e.property == X.NONE:
            return None
        reply = self.w.get_full_property(prop, X.AnyPropertyType, sizehint=1 << 26)
        self.w.delete_property(prop)
        self.d.flush()
        if reply.property_type != self.atom("INCR"):
            return started, now(), bytes(reply.value)
        data = bytearray()
        while (e := self.next_event(until)) is not None:
            if e.type == X.PropertyNotify and e.atom == prop and e.state == X.PropertyNewValue:
                part = self.w.get_full_property(prop, X.AnyPropertyType, sizehint=1 << 22)
                self.w.delete_property(prop)
                self.d.flush()
                if not part.value:
                    return started, now(), bytes(data)
                data += bytes(part.value)
        return None


def beta_main(name):
    """--beta DISPLAY: JSON commands on stdin, answers on stdout."""
    paster = Paster(name)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "owner":
            t, owner = paster.owner_change(cmd.get("seconds", 10))
            answer = {"t": t, "owner": owner.id if owner else None}
        elif cmd["cmd"] == "paste":
            got = paster.paste(cmd["target"])
            answer = {"ok": False} if got is None else {
                "ok": True, "t0": got[0], "t1": got[1], "bytes": len(got[2]), "sha": hashlib.sha256(got[2]).hexdigest()}
        print(json.dumps(answer), flush=True)


def agent_rss(work):
    """Beta's agent's RSS in MiB (the PID the script started it with: one kernel, one PID space)."""
    with open(os.path.join(work, "agent-beta.pid")) as f:
        pid = f.read().strip()
    # The script's PID is testhosts.sh's; nsenter, below it, became the agent.
    while not os.readlink(f"/proc/{pid}/exe").endswith("/handoff-clipboard-agent"):
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            pid = f.read().split()[0]
    with open(f"/proc/{pid}/status") as f:
        return int(next(line.split()[1] for line in f if line.startswith("VmRSS"))) / 1024


def figures(name, values, unit="ms", scale=1000):
    v = sorted(values)
    pick = lambda q: v[min(len(v) - 1, int(q * len(v)))] * scale
    print(f"{name}: n={len(v)} p50={pick(0.5):.1f} {unit} p90={pick(0.9):.1f} {unit} min={v[0] * scale:.1f} {unit}", flush=True)


def link_tx_bytes(hostset):
    out = subprocess.run(["ip", "-s", "-j", "link", "show"], capture_output=True, text=True).stdout
    return sum(link["stats64"]["tx"]["bytes"] for link in json.loads(out) if link["ifname"] != "lo")


def main():
    work, hostset, n, alpha_display, beta_display = sys.argv[1:6]
    n = int(n)
    copier = Copier(alpha_display)
    beta = subprocess.Popen(
        [os.path.join(REPO, "Tests", "Rigs", "testhosts.sh"), "exec", hostset + "2", "/usr/bin/python3", os.path.abspath(__file__), "--beta", beta_display],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if json.loads(beta.stdout.readline()).get("ready") is not True:
        sys.exit("bench: beta's probe did not start")

    def copied_and_owned(items):
        """A copy on alpha; when beta's agent owned beta's clipboard for it (the pump serves alpha's agent meanwhile)."""
        beta.stdin.write(json.dumps({"cmd": "owner", "seconds": 10}) + "\n")
        beta.stdin.flush()
        t0 = copier.copy(items)
        while not select.select([beta.stdout], [], [], 0)[0]:
            copier.pump(0.001)
        answer = json.loads(beta.stdout.readline())
        if answer["t"] is None:
            for name in ("alpha", "beta"):
                with open(os.path.join(work, f"agent-{name}.log")) as f:
                    print(f"{name}'s agent: {f.read()[-2000:]}")
            sys.exit(f"bench: beta's clipboard never took alpha's copy: {answer}")
        return t0, answer["t"]

    # Warm: both agents connected (the script waited for them) and a first copy through.
    copied_and_owned({"text/plain;charset=utf-8": b"warm"})
    copier.pump(2)
    print(f"beta's agent idle (target 8 MiB): RSS {agent_rss(work):.1f} MiB", flush=True)

    owned = []
    for i in range(n):
        t0, t1 = copied_and_owned({"text/plain;charset=utf-8": f"copy {i} {time.time_ns()}".encode()})
        owned.append(t1 - t0)
        copier.pump(0.1)  # past the 50 ms announce interval: each copy is told at once
    figures("copy on alpha -> beta's clipboard owned (target 20 ms)", owned)

    def paste_after_copy(mime, data, target):
        copied_and_owned({mime: data})
        beta.stdin.write(json.dumps({"cmd": "paste", "target": target}) + "\n")
        beta.stdin.flush()
        while not select.select([beta.stdout], [], [], 0)[0]:
            copier.pump(0.001)
        got = json.loads(beta.stdout.readline())
        if not got["ok"] or got["sha"] != hashlib.sha256(data).hexdigest():
            sys.exit(f"bench: the paste of {mime} came back wrong: {got}")
        return got["t1"] - got["t0"]

    text = (b"tide tables " * 6000)[:65536]
    figures("paste on beta, 64 KB of text -> the last byte in the program (target 10 ms)",
            [paste_after_copy("text/plain;charset=utf-8", text + str(i).encode(), "UTF8_STRING") for i in range(max(5, n // 2))])
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(10_000_000)
    figures("paste on beta, a 10 MB PNG -> the last byte in the program (target 100 ms)",
            [paste_after_copy("image/png", png[:-1] + bytes([i]), "image/png") for i in range(5)])

    # Bytes on alpha's link: 100 copies nobody pastes, 60 ms apart (each told), beside as long idle.
    copier.pump(1)
    before = link_tx_bytes(hostset)
    started = now()
    copier.pump(100 * 0.06)
    idle = link_tx_bytes(hostset) - before
    before = link_tx_bytes(hostset)
    for i in range(100):
        copier.copy({"text/plain;charset=utf-8": f"unpasted {i} {time.time_ns()}".encode()})
        copier.pump(0.06)
    busy = link_tx_bytes(hostset) - before
    print(f"bytes alpha sent while 100 copies were offered and none pasted: {busy} ({idle} in as long idle): "
          f"{(busy - idle) / 100:.0f} bytes a copy on the wire (target 200: the offer alone)", flush=True)

    print(f"beta's agent after the pastes (a 10 MB PNG five times): RSS {agent_rss(work):.1f} MiB", flush=True)
    beta.stdin.close()
    beta.wait(10)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--beta":
        beta_main(sys.argv[2])
    else:
        main()
