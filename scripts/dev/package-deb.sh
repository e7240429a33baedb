#!/usr/bin/env bash
# Builds the Debian package: dist/handoffd_<version>_amd64.deb (binaries, both units, the sysusers
# entry, the configuration as a conffile, the library, man pages, completions, docs), with
# maintainer scripts that create the user and reload systemd, stop the service on removal and
# remove its state on purge. Then runs lintian on it (remaining tags are explained in
# packaging/debian/lintian-overrides).
#   scripts/dev/package-deb.sh            build and check
#   scripts/dev/package-deb.sh --path     print where the .deb is (after a build)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
VERSION=$(cat packaging/VERSION)
ARCH=$(dpkg --print-architecture)
OUT="$PWD/dist/handoffd_${VERSION}_${ARCH}.deb"
if [ "${1:-}" = --path ]; then echo "$OUT"; exit 0; fi

stage=$(mktemp -d /tmp/handoffd-deb-XXXXXX)
chmod 0755 "$stage"  # the package's "./": never 0700
shlib=""
lint=""
# Also when scripts/test.sh stops this run (SIGTERM to its process group: bash runs the EXIT trap
# only if the signal has a trap of its own).
trap 'rm -rf "$stage"; [ -z "$shlib" ] || rm -rf "$shlib"; [ -z "$lint" ] || rm -rf "$lint"' EXIT
trap 'exit 143' TERM INT
# The binaries' debug info and symbols stay beside the package (dist/debug), not in it.
rm -rf dist/debug
DESTDIR="$stage" DEBUG_SYMBOLS="$PWD/dist/debug" scripts/install.sh >/dev/null

# Documentation as Debian wants it: changelog and copyright beside the docs.
doc="$stage/usr/share/doc/handoffd"
install -m 0644 packaging/debian/copyright "$doc/copyright"
# A native package (no Debian revision): changelog.gz.
gzip -9n < packaging/debian/changelog > "$doc/changelog.gz"
install -d "$stage/usr/share/lintian/overrides"
install -m 0644 packaging/debian/lintian-overrides "$stage/usr/share/lintian/overrides/handoffd"

install -d "$stage/DEBIAN"
for script in postinst prerm postrm; do install -m 0755 "packaging/debian/$script" "$stage/DEBIAN/$script"; done
# The files in /etc are conffiles: kept (or asked about) on upgrade and removal.
(cd "$stage" && find etc -type f | sort | sed 's|^|/|') > "$stage/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
# Shared libraries the binaries link, as package dependencies (dpkg-shlibdeps wants a debian/control).
shlib=$(mktemp -d /tmp/handoffd-shlibs-XXXXXX)
mkdir "$shlib/debian" && printf 'Source: handoffd\n\nPackage: handoffd\nArchitecture: any\n' > "$shlib/debian/control"
libs=$(cd "$shlib" && dpkg-shlibdeps -O -e"$stage/usr/bin/handoffd" -e"$stage/usr/bin/handoffctl" -e"$stage/usr/bin/hawknotes" -e"$stage/usr/libexec/handoffd/handoff-browser-host" -e"$stage/usr/libexec/handoffd/handoff-clipboard-agent" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
rm -rf "$shlib"
[ -n "$libs" ] || { echo "package-deb: could not compute the shared library dependencies" >&2; exit 1; }
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@SIZE@/$size/" -e "s/@SHLIBS@/$libs/" packaging/debian/control > "$stage/DEBIAN/control"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -print0 | sort -z | xargs -0 md5sum | sed 's| \./| |') > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"

mkdir -p dist
dpkg-deb --root-owner-group -Zxz -z9 --build "$stage" "$OUT" >/dev/null
echo "built $OUT ($(du -h "$OUT" | cut -f1))"
if command -v lintian >/dev/null; then
  # Its temporary files in a scratch directory of ours: lintian leaves one (mldbm-elf-*) in TMPDIR.
  lint=$(mktemp -d /tmp/handoffd-lintian-XXXXXX)
  TMPDIR="$lint" lintian --fail-on error,warning "$OUT"
  echo "lintian: no errors or warnings (each override is explained in packaging/debian/lintian-overrides)"
fi
