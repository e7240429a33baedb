#!/usr/bin/env python3
"""Reading List: a small app on handoffd, over D-Bus alone (docs/APPS.md).

It shows one article at a time in a window whose state handoffd keeps (a scene), makes the
article it shows current so that a paired machine can continue it, continues articles from
paired machines (pulled or pushed), and hands the article's text over a continuation stream.

    reading_list.py [--scene ID] [--idle SECONDS]

Commands on stdin, one per line:  open URL TITLE | TEXT   (show an article, make it current)
What happens is printed as JSON lines on stdout (for people and for tests): ready, restored,
opened, continued, streamed.

handoffd starts it to continue an article when it is not running (org.example.ReadingList.app:
Exec=). Needs python3-dbus and python3-gi (Debian: apt install python3-dbus python3-gi).
"""
import argparse
import json
import os
import socket
import sys
import uuid

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

NAME, PATH, IFACE = "org.handoffd.Handoff", "/org/handoffd/Handoff", "org.handoffd.Handoff1"
TYPE = "org.example.readinglist.item"


def say(event, **fields):
    print(json.dumps({"event": event, **fields}), flush=True)


def reported(f):
    """A failure in a callback is said (an `error` line with handoffd's words), not lost."""
    def run(*args):
        try:
            return f(*args)
        except dbus.exceptions.DBusException as e:
            say("error", name=e.get_dbus_name(), message=e.get_dbus_message())
        except Exception as e:  # noqa: BLE001 - the app goes on with the next command
            say("error", message=str(e))
        return False
    return run


def variant(x):
    """A JSON value as a D-Bus variant, the way handoffd reads a{sv} (docs/DBUS.md, "Values")."""
    if isinstance(x, bool):
        return dbus.Boolean(x, variant_level=1)
    if isinstance(x, int):
        return dbus.Int64(x, variant_level=1)
    if isinstance(x, str):
        return dbus.String(x, variant_level=1)
    if isinstance(x, list):
        return dbus.Array([variant(i) for i in x], signature="v", variant_level=1)
    if isinstance(x, dict):
        return dbus.Dictionary({k: variant(v) for k, v in x.items()}, signature="sv", variant_level=1)
    raise ValueError(x)


def a_sv(d):
    return dbus.Dictionary({k: variant(v) for k, v in d.items()}, signature="sv")


def read_to_end(s):
    chunks = []
    while True:
        b = s.recv(65536)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


def plain(v):
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dbus.Boolean):
        return bool(v)
    if isinstance(v, (dbus.Int64, dbus.Int32, dbus.UInt32, dbus.Byte)):
        return int(v)
    if isinstance(v, dbus.String):
        return str(v)
    return v


class ReadingList:
    def __init__(self, bus, scene, idle):
        self.handoff = dbus.Interface(bus.get_object(NAME, PATH), IFACE)
        self.texts = {}          # url -> the article's text, what a stream hands over
        self.published = {}      # activity id -> url
        self.idle = idle
        self.last = GLib.get_monotonic_time()
        # The window: handoffd's scene; what it showed comes back, after a crash too.
        window = plain(self.handoff.ConnectScene(scene or "", "reading-list"))
        self.scene = window["scene"]
        if window.get("restored") and window.get("content"):
            stored = window.get("storage", {}).get("content", {}).get(window["content"], {})
            self.texts[window["content"]] = stored.get("text", "")
            say("restored", scene=self.scene, url=window["content"], title=stored.get("title", ""))
        bus.add_signal_receiver(self.event, signal_name="Event", dbus_interface=IFACE, bus_name=NAME)
        self.handoff.RegisterHandler([TYPE], "reading-list", self.scene)
        # Launched without a crash: restoring this window again is safe.
        self.handoff.SceneLaunched(self.scene)
        say("ready", scene=self.scene)

    def show(self, url, title, text, activity=None):
        """The window shows the article: kept in the scene, answered once durable."""
        self.texts[url] = text
        change = {"content": url, "set": [{"key": "title", "content": url, "value": title},
                                          {"key": "text", "content": url, "value": text}]}
        if activity:
            change["activity"] = activity
        self.handoff.UpdateScene(self.scene, a_sv(change))

    def open(self, url, title, text):
        activity = {"id": str(uuid.uuid4()).upper(), "version": 1, "type": TYPE, "title": title, "userInfo": {"url": url},
                    "required": ["url"], "keywords": [], "target": url, "handoff": True, "search": False,
                    "needsSave": False, "streams": True}
        self.show(url, title, text, activity)
        result = plain(self.handoff.PublishWith(a_sv(activity), a_sv({"scene": self.scene})))
        self.published[result["activity"]] = url
        say("opened", url=url, title=title, activity=result["activity"])

    def event(self, name, fields):
        self.last = GLib.get_monotonic_time()
        fields = plain(fields)
        if name == "continue":
            GLib.idle_add(self.continued, fields)
        elif name == "streamRequested" and fields.get("activity") in self.published:
            GLib.idle_add(self.give, fields)

    @reported
    def continued(self, fields):
        activity = fields["activity"]
        url = activity.get("userInfo", {}).get("url", "")
        text = ""
        if activity.get("streams"):
            # The text comes over a stream from the machine it was read on.
            _, fd = self.handoff.OpenStreamFrom(activity["id"], fields.get("fingerprint", ""), timeout=30)
            with socket.socket(fileno=fd.take()) as s:
                # Nothing to send: half-close at once, then read to the other side's end
                # (docs/STREAMS.md: a socket closed before both ends are reached fails the stream).
                s.shutdown(socket.SHUT_WR)
                text = read_to_end(s).decode("utf-8", "replace")
        self.show(url, activity.get("title", ""), text, activity)
        self.handoff.HandledIn(fields["token"], True, self.scene)
        say("continued", url=url, title=activity.get("title", ""), text=text, scene=self.scene, peer=fields.get("peer", ""))
        return False

    @reported
    def give(self, fields):
        _, fd = self.handoff.AcceptStream(fields["stream"])
        with socket.socket(fileno=fd.take()) as s:
            s.sendall(self.texts.get(self.published[fields["activity"]], "").encode())
            s.shutdown(socket.SHUT_WR)
            read_to_end(s)
        say("streamed", activity=fields["activity"], peer=fields.get("peer", ""))
        return False

    def command(self, source, condition):
        line = sys.stdin.readline()
        if not line:
            return False  # stdin closed: the app keeps running (handoffd starts it so)
        self.last = GLib.get_monotonic_time()
        words = line.strip().split(" ", 1)
        if words[0] == "open" and len(words) == 2:
            url, _, rest = words[1].partition(" ")
            title, _, text = rest.partition(" | ")
            reported(self.open)(url, title, text)
        return True

    def check_idle(self, loop):
        if self.idle and GLib.get_monotonic_time() - self.last > self.idle * 1_000_000:
            loop.quit()
            return False
        return True


def main():
    parser = argparse.ArgumentParser(description="Reading List, an app on handoffd over D-Bus.")
    parser.add_argument("--scene", help="the window to open (a scene id); a new one when absent")
    parser.add_argument("--idle", type=float, default=0, help="exit after this many seconds without anything to do")
    args = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    app = ReadingList(dbus.SessionBus(), args.scene, args.idle)
    loop = GLib.MainLoop()
    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, app.command)
    GLib.timeout_add(500, app.check_idle, loop)
    loop.run()


if __name__ == "__main__":
    main()
