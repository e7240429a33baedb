"""Checks this implementation against docs/vectors/handoffd-vectors.json."""
import hashlib
import json
import uuid

from dissononce.cipher.chachapoly import ChaChaPolyCipher
from dissononce.dh.x25519.private import PrivateKey
from dissononce.dh.x25519.x25519 import X25519DH
from dissononce.hash.sha256 import SHA256Hash
from dissononce.processing.handshakepatterns.interactive.XX import XXHandshakePattern
from dissononce.processing.impl.cipherstate import CipherState
from dissononce.processing.impl.handshakestate import HandshakeState
from dissononce.processing.impl.symmetricstate import SymmetricState

from conformance.encoding import encode, decode, fingerprint
from conformance.link import pairing_code


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
    # The instance name: 16 random characters and the first 30 bits of an HMAC of them, 5 bits
    # a character (docs/PROTOCOL.md, "The advert").
    alphabet = "abcdefghijklmnopqrstuvwxyz234567"
    bits = int.from_bytes(hmac.new(key, b"handoffd advert name v1:" + ad["name_prefix"].encode(), "sha256").digest()[:4], "big")
    expect("advert name", ad["name_prefix"] + "".join(alphabet[(bits >> (27 - 5 * i)) & 31] for i in range(6)), ad["name"])
    for f in failures:
        print(f)
    print("vectors ok" if not failures else f"{len(failures)} vectors differ")
    return not failures
