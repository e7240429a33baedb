#!/usr/bin/env python3
"""Builds the extension's packages for the stores from browser/extension:

    browser/build-packages.py [--out DIR]     (default DIR: dist)

writes DIR/handoffd-browser-VERSION.zip (Chrome Web Store) and DIR/handoffd-browser-VERSION.xpi
(addons.mozilla.org, which signs it), VERSION from the extension's manifest. Both leave out the
manifest's `key`: it pins the id of the unpacked extension the .deb installs, and a store gives a
listing its own id (add that id to the host's allowed ids before shipping a store build,
docs/BROWSER.md). The archives are reproducible: sorted names, fixed times and modes.
"""
import argparse
import json
import pathlib
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent
EXTENSION = ROOT / "extension"


def entries():
    manifest = json.loads((EXTENSION / "manifest.json").read_text())
    version = manifest["version"]
    manifest.pop("key", None)
    files = {"manifest.json": (json.dumps(manifest, indent=2) + "\n").encode()}
    for path in sorted(EXTENSION.iterdir()):
        if path.is_file() and path.name != "manifest.json":
            files[path.name] = path.read_bytes()
    missing = referenced(manifest) - files.keys()
    if missing:
        sys.exit(f"build-packages: the manifest names files that are not in browser/extension: {sorted(missing)}")
    return version, files


def referenced(manifest):
    names = set(manifest.get("icons", {}).values())
    background = manifest.get("background", {})
    names.update(background.get("scripts", []))
    if "service_worker" in background:
        names.add(background["service_worker"])
    if "default_popup" in manifest.get("action", {}):
        names.add(manifest["action"]["default_popup"])
    if "page" in manifest.get("options_ui", {}):
        names.add(manifest["options_ui"]["page"])
    return names


def write(path, files):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])


def main():
    parser = argparse.ArgumentParser(description="Builds the extension's store packages.")
    parser.add_argument("--out", default=str(ROOT.parent / "dist"), help="where the packages go (default: dist)")
    out = pathlib.Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    version, files = entries()
    for suffix, store in ((".zip", "Chrome Web Store"), (".xpi", "addons.mozilla.org")):
        path = out / f"handoffd-browser-{version}{suffix}"
        write(path, files)
        print(f"built {path} ({len(files)} files) for {store}")


if __name__ == "__main__":
    main()
