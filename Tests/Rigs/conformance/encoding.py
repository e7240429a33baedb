"""The canonical encoding (docs/ENCODING.md): values, messages, fingerprints."""
import hashlib
import struct

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
