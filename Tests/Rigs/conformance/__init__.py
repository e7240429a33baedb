"""The conformance peer's parts, written from the docs (see Tests/Rigs/conformance-peer.py)."""
