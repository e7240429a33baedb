#!/usr/bin/env python3
"""Where a running handoffd's resident binary pages go, by the module that owns each page's code
or data (root: it reads /proc/PID/pagemap).

    scripts/dev/resident-by-module.py PID [BINARY]

BINARY is the unstripped build the process runs (default: its /proc/PID/exe), for the symbols.
Each resident page of the binary's mappings is given to the symbol at or before it: Swift
symbols by their module ($s4GRDB..., $s10Foundation...), the Swift runtime, ICU, SQLite,
libyaml and BoringSSL by their C names; the rest by the first characters of their name.
"""
import bisect
import collections
import os
import re
import struct
import subprocess
import sys

ICU = re.compile(r"(u|ucol|ubrk|ures|udata|uprv|uloc|ulocimp|ucnv|unum|udat|ucal|utrans|uset|ustr|uhash|ucase|uchar|unorm)_")


def owner(name):
    plain = name.lstrip("_")
    if plain.startswith("$s"):
        m = re.match(r"(\d+)", plain[2:])
        if not m:
            return "Swift (standard library)"
        n = int(m.group(1))
        module = plain[2 + len(m.group(1)):2 + len(m.group(1)) + n]
        return "Swift (standard library)" if module == "s" else module
    if ICU.match(name) or name.startswith("_ZN6icu_"):
        return "ICU"
    if name.startswith(("_ZN5swift", "swift_", "_swift")):
        return "Swift runtime"
    for prefix, what in (("sqlite3", "SQLite"), ("yaml_", "libyaml"), ("CCryptoBoringSSL", "BoringSSL")):
        if name.startswith(prefix):
            return what
    return "other: " + name[:16]


def main():
    pid = sys.argv[1]
    binary = sys.argv[2] if len(sys.argv) > 2 else os.readlink(f"/proc/{pid}/exe")
    maps = []
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        if len(f) >= 6 and os.path.realpath(f[5]) == os.path.realpath(binary):
            start, end = (int(x, 16) for x in f[0].split("-"))
            maps.append((start, end, int(f[2], 16), f[1]))
    if not maps:
        sys.exit(f"no mapping of {binary} in process {pid}")
    base = min(m[0] - m[2] for m in maps if m[2] == 0)
    symbols = []
    nm = subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True).stdout
    for line in nm.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            symbols.append((int(parts[0], 16), parts[2]))
    if not symbols:
        sys.exit(f"{binary} has no symbols: give the unstripped build")
    addresses = [s[0] for s in symbols]
    pages = collections.Counter()
    total = 0
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for start, end, _, perms in maps:
            for page in range(start, end, 4096):
                pagemap.seek(page // 4096 * 8)
                if not struct.unpack("Q", pagemap.read(8))[0] >> 63:
                    continue
                total += 1
                i = bisect.bisect_right(addresses, page - base) - 1
                pages[(perms, owner(symbols[i][1]) if i >= 0 else "?")] += 1
    print(f"{binary}: {total * 4} KiB resident in process {pid}")
    for (perms, who), n in pages.most_common(30):
        print(f"{n * 4:8d} KiB  {perms}  {who}")


if __name__ == "__main__":
    main()
