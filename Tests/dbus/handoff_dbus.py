#!/usr/bin/python3
"""A handoffd client over D-Bus, written from docs/DBUS.md alone (python3-dbus), for the
end-to-end tests: every method of org.handoffd.Handoff1, a live handler, a watcher, and the
hostile calls a careless or malicious app could make. Prints one JSON object per line.

    handoff_dbus.py call METHOD [JSON-ARG...]   one call; prints {"ok": answer} or {"error", "message"}
    handoff_dbus.py handler TYPE SECONDS        RegisterHandler([TYPE]); accepts each continue
                                                event (Handled) and prints it; exits after SECONDS
    handoff_dbus.py watch SECONDS               Watch(); prints every Event for SECONDS
    handoff_dbus.py register-and-exit TYPE      RegisterHandler, print "registered", exit at once
    handoff_dbus.py scene-life KEY VALUE        on one connection: ConnectScene, UpdateScene (the scene's
                                                storage {KEY: VALUE}), SceneLaunched, ShowScene, DisconnectScene
    handoff_dbus.py hostile                     wrong types, huge strings, a 10,000-call burst
    handoff_dbus.py gnome TERMS...              the GNOME Shell search provider's calls
    handoff_dbus.py krunner QUERY               the KRunner runner's calls
"""
import json
import socket
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

NAME = "org.handoffd.Handoff"
PATH = "/org/handoffd/Handoff"
IFACE = "org.handoffd.Handoff1"

# Each method's argument signature, as docs/DBUS.md gives it.
SIGNATURES = {
    "Status": "", "ListPeers": "", "ListActivities": "", "ListRemoteActivities": "s",
    "Publish": "a{sv}s", "Resign": "s", "Invalidate": "s", "Refresh": "sa{sv}",
    "Continue": "sss", "Push": "ss", "RegisterHandler": "asss", "Handled": "sb", "HandledIn": "sbs", "Watch": "",
    "ListScenes": "", "ShowScene": "s", "SaveSceneStorage": "sa{sv}", "Search": "s",
    "OpenSearchResult": "s", "PublishFor": "a{sv}s", "PublishWith": "a{sv}a{sv}",
    "ConnectScene": "ss", "SceneLaunched": "s", "UpdateScene": "sa{sv}", "DisconnectScene": "s", "DestroyScene": "s",
    "DeleteSavedActivities": "as", "ListApps": "", "ListTrusted": "", "Pair": "s",
    "AcceptPairing": "x", "ConfirmPairing": "sbs", "Unpair": "s", "Connect": "s", "Disconnect": "s", "RotateAdvert": "",
}


def plain(v):
    """D-Bus values as JSON values; a {"$date": ...} stays a tagged object, as on the socket."""
    if isinstance(v, (dbus.Dictionary, dict)):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (dbus.Array, list, tuple, dbus.Struct)):
        if isinstance(v, dbus.Array) and v.signature == "y":
            return {"$data": bytes(v).hex()}
        return [plain(x) for x in v]
    if isinstance(v, dbus.Boolean):
        return bool(v)
    if isinstance(v, (dbus.Byte, dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64)):
        return int(v)
    if isinstance(v, dbus.Double):
        return float(v)
    if isinstance(v, (dbus.String, dbus.ObjectPath, dbus.Signature)):
        return str(v)
    return v


def variant_dict(d):
    """A JSON object as a{sv}: strings, integers (x), reals (d), booleans, lists (av), objects."""
    def one(x):
        if isinstance(x, bool):
            return dbus.Boolean(x, variant_level=1)
        if isinstance(x, int):
            return dbus.Int64(x, variant_level=1)
        if isinstance(x, float):
            return dbus.Double(x, variant_level=1)
        if isinstance(x, str):
            return dbus.String(x, variant_level=1)
        if isinstance(x, list):
            return dbus.Array([one(i) for i in x], signature="v", variant_level=1)
        if isinstance(x, dict):
            return dbus.Dictionary({k: one(i) for k, i in x.items()}, signature="sv", variant_level=1)
        raise ValueError(x)
    return dbus.Dictionary({k: one(v) for k, v in d.items()}, signature="sv")


def argument(value, sig):
    if sig == "a{sv}":
        return variant_dict(value)
    if sig == "as":
        return dbus.Array(value, signature="s")
    if sig == "b":
        return dbus.Boolean(value)
    if sig == "x":
        return dbus.Int64(value)
    return dbus.String(value)


def proxy(bus):
    return dbus.Interface(bus.get_object(NAME, PATH), IFACE)


def call(bus, method, args):
    sig = SIGNATURES[method]
    sigs = [] if not sig else ["a{sv}" if sig[i:].startswith("a{sv}") else ("as" if sig[i:].startswith("as") else sig[i])
                               for i in _starts(sig)]
    values = [argument(a, s) for a, s in zip(args, sigs)]
    try:
        answer = getattr(proxy(bus), method)(*values, signature=sig, timeout=60)
        return {"ok": plain(answer)}
    except dbus.exceptions.DBusException as e:
        return {"error": e.get_dbus_name(), "message": e.get_dbus_message()}


def _starts(sig):
    """Start offsets of the complete types of a signature made of s, b, as and a{sv}."""
    i = 0
    while i < len(sig):
        yield i
        i += 5 if sig[i:].startswith("a{sv}") else (2 if sig[i:].startswith("as") else 1)


def out(obj):
    print(json.dumps(obj), flush=True)


def events(bus, seconds, on_event):
    loop = GLib.MainLoop()
    bus.add_signal_receiver(lambda name, fields: on_event(str(name), plain(fields)), signal_name="Event",
                            dbus_interface=IFACE, bus_name=NAME)
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    mode = sys.argv[1]
    if mode == "call":
        out(call(bus, sys.argv[2], [json.loads(a) for a in sys.argv[3:]]))
    elif mode == "scene-life":
        made = call(bus, "ConnectScene", ["", "window"])
        out(made)
        scene = made["ok"]["scene"]
        storage = {"scene": {sys.argv[2]: sys.argv[3]}, "content": {}}
        for method, args in [("UpdateScene", [scene, {"storage": storage}]), ("SceneLaunched", [scene]),
                             ("ShowScene", [scene]), ("DisconnectScene", [scene])]:
            out(dict(call(bus, method, args), method=method))
    elif mode == "handler":
        out(call(bus, "RegisterHandler", [[sys.argv[2]], "python-handler", ""]))

        def on_event(name, fields):
            if name == "continue":
                answer = call(bus, "Handled", [fields["token"], True])
                out({"event": name, "fields": fields, "handled": answer})
        events(bus, float(sys.argv[3]), on_event)
    elif mode == "stream-handler":
        # The continuing app of a continuation with streams: takes the continuation, asks for a
        # stream (OpenStream answers with a{sv} and the socket as a h), sends a line, half-closes
        # and prints what comes back.
        out(call(bus, "RegisterHandler", [[sys.argv[2]], "python-streams", ""]))

        def on_stream_event(name, fields):
            if name != "continue":
                return
            call(bus, "Handled", [fields["token"], True])
            try:
                result, fd = proxy(bus).OpenStream(fields["activity"]["id"], signature="s", timeout=60)
            except dbus.exceptions.DBusException as e:
                out({"error": e.get_dbus_name(), "message": e.get_dbus_message()})
                return
            s = socket.socket(fileno=fd.take())
            s.sendall(b"hello over d-bus")
            s.shutdown(socket.SHUT_WR)
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            s.close()
            out({"stream": plain(result), "echoed": data.decode()})
        events(bus, float(sys.argv[3]), on_stream_event)
    elif mode == "watch":
        out(call(bus, "Watch", []))
        events(bus, float(sys.argv[2]), lambda name, fields: out({"event": name, "fields": fields}))
    elif mode == "register-and-exit":
        out(call(bus, "RegisterHandler", [[sys.argv[2]], "leaves-at-once", ""]))
        out({"registered": True})
    elif mode == "hostile":
        hostile(bus)
    elif mode == "gnome":
        gnome(bus, sys.argv[2:])
    elif mode == "krunner":
        krunner(bus, sys.argv[2])


def raw(bus, path, iface, method, sig, values):
    try:
        obj = bus.get_object(NAME, path)
        return {"ok": plain(obj.get_dbus_method(method, iface)(*values, signature=sig, timeout=60))}
    except dbus.exceptions.DBusException as e:
        return {"error": e.get_dbus_name(), "message": e.get_dbus_message()}


def hostile(bus):
    results = {}
    # Wrong types: an integer where a string goes, a string where an activity goes, no arguments.
    results["wrongType"] = raw(bus, PATH, IFACE, "Resign", "i", [dbus.Int32(7)])
    results["stringForActivity"] = raw(bus, PATH, IFACE, "Publish", "ss", ["x", ""])
    results["missingArguments"] = raw(bus, PATH, IFACE, "Continue", "", [])
    results["unknownMethod"] = raw(bus, PATH, IFACE, "Explode", "", [])
    # Huge strings: 4 MB as a peer name and as an activity title.
    huge = "x" * (4 * 1024 * 1024)
    results["hugePeer"] = raw(bus, PATH, IFACE, "ListRemoteActivities", "s", [huge])
    results["hugeTitle"] = raw(bus, PATH, IFACE, "Publish", "a{sv}s", [variant_dict({"title": huge}), ""])
    # Deep nesting.
    deep = {}
    # 20 levels: within what D-Bus allows (a deeper message is invalid and the bus drops its
    # sender), beyond the 16 handoffd takes.
    for _ in range(20):
        deep = {"d": deep}
    results["deep"] = raw(bus, PATH, IFACE, "Publish", "a{sv}s", [variant_dict({"userInfo": deep}), ""])
    # 10,000 calls in a burst, sent without waiting for answers; every one must be answered.
    loop = GLib.MainLoop()
    tally = {"ok": 0, "errors": {}, "answered": 0}
    obj = bus.get_object(NAME, PATH)
    status = obj.get_dbus_method("Status", IFACE)
    total = 10000

    def done():
        tally["answered"] += 1
        if tally["answered"] == total:
            loop.quit()

    def ok(*_):
        tally["ok"] += 1
        done()

    def err(e):
        name = e.get_dbus_name()
        tally["errors"][name] = tally["errors"].get(name, 0) + 1
        done()
    started = time.monotonic()
    for _ in range(total):
        status(reply_handler=ok, error_handler=err, timeout=120)
    GLib.timeout_add(120000, loop.quit)
    loop.run()
    tally["seconds"] = round(time.monotonic() - started, 2)
    results["burst"] = tally
    results["afterwards"] = call(bus, "Status", [])
    out(results)


def gnome(bus, terms):
    p = "/org/handoffd/Handoff/SearchProvider"
    i = "org.gnome.Shell.SearchProvider2"
    initial = raw(bus, p, i, "GetInitialResultSet", "as", [dbus.Array(terms, signature="s")])
    ids = initial.get("ok", [])
    sub = raw(bus, p, i, "GetSubsearchResultSet", "asas", [dbus.Array(ids, signature="s"), dbus.Array(terms, signature="s")])
    metas = raw(bus, p, i, "GetResultMetas", "as", [dbus.Array(ids, signature="s")])
    out({"initial": initial, "subsearch": sub, "metas": metas})
    if ids:
        out({"activate": raw(bus, p, i, "ActivateResult", "sasu", [ids[0], dbus.Array(terms, signature="s"), dbus.UInt32(0)])})


def krunner(bus, query):
    p = "/org/handoffd/Handoff/Runner"
    i = "org.kde.krunner1"
    actions = raw(bus, p, i, "Actions", "", [])
    matches = raw(bus, p, i, "Match", "s", [query])
    out({"actions": actions, "matches": matches})
    if matches.get("ok"):
        out({"run": raw(bus, p, i, "Run", "ss", [matches["ok"][0][0], ""])})


if __name__ == "__main__":
    main()
