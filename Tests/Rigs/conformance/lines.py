"""What the peer tells its driver: one JSON line each, bytes as hex, never two lines interleaved."""
import json
import sys
import threading

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
