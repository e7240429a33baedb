"""The conformance peer's parts, written from the docs (see scripts/conformance-peer.py)."""
