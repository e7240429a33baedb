#!/usr/bin/env bash
# Installs the Debian packages handoffd needs to build and test. Safe to run again: it calls
# apt-get only when a package is missing.
#
# avahi-daemon's package starts the daemon on install. Our rule is that no avahi-daemon ever runs
# in this machine's own network namespace, so service starts are denied while we install.
set -euo pipefail

# What the demo needs (scripts/demo.sh): build, test hosts with avahi, Hawk Notes in tmux.
DEMO=(
  pkg-config            # SwiftPM finds libldns through it
  libavahi-client-dev   # the Avahi client library handoffd links
  avahi-daemon          # started only inside test network namespaces
  avahi-utils           # avahi-browse: what anyone on the network sees (the demo shows it)
  dbus-daemon           # each test host runs its own system bus
  iproute2              # ip netns, veth, bridge
  util-linux            # nsenter, unshare
  libsqlite3-dev        # SQLite (HandoffState, through its C API)
  libyaml-dev           # libyaml: the configuration file (HandoffConfig)
  procps                # pgrep/ps in test harnesses
  libldns-dev           # DNS queries and TSIG-signed dynamic updates: unicast DNS-SD (wide_area)
  libncurses-dev        # ncursesw: the Hawk Notes terminal app
  tmux                  # the terminal the demo shows Hawk Notes in (inside a test host)
  libsystemd-dev        # sd-bus and sd-event: the D-Bus API (HandoffBus)
  libxcb1-dev           # libxcb: the X11 clipboard (HandoffX11, the clipboard agent)
  libxcb-xfixes0-dev    # ... its XFixes extension: told when the clipboard changes
  libwayland-dev        # libwayland-client: a Wayland session's clipboard (HandoffWayland)
)
# What the tests and the package add (scripts/test.sh, .ci/run).
TESTS=(
  libstdc++-12-dev      # libstdc++.a: linked into the release binaries (scripts/dev/build-release.sh)
  systemd               # systemd-analyze: the unit's security exposure is tested
  mmdebstrap            # a Debian 12 tree that boots systemd for the systemd suite
  systemd-container     # systemd-nspawn (without recommends: libnss-mymachines edits nsswitch.conf)
  dpkg-dev              # dpkg-shlibdeps: the package's library dependencies
  lintian               # checks the .deb
  python3-zeroconf      # an mDNS browser that is not Avahi: the privacy test's stranger
  python3-dissononce    # Noise for the conformance peer: a second implementation, from the docs
  bind9                 # named, run only inside test namespaces: the wide-area tests' DNS server
  bind9-dnsutils        # dig and nsupdate: the tests check the zone with them
  python3-dbus          # the D-Bus end-to-end tests' client, written from docs/DBUS.md
  python3-gi            # its main loop (GLib), for signals
  libglib2.0-bin        # gdbus: the search providers' calls with their exact signatures
  dunst                 # a real notification server (org.freedesktop.Notifications), in test hosts
  xvfb                  # the display dunst needs, in test hosts
  nftables              # random loss and outages on test links only (Tests/Rigs/chaos.sh; no netem here)
  nodejs                # the browser extension's tests (node --test browser/tests/)
  chromium              # the browser end-to-end tests: the extension in Chromium, headless
  firefox-esr           # ... and in Firefox ESR, installed over WebDriver BiDi
  xclip                 # the clipboard tests' X11 program that copies and pastes
  sway                  # a Wayland compositor with data-control, headless, in test hosts
  wl-clipboard          # wl-copy and wl-paste: the clipboard tests' Wayland programs
  python3-xlib          # the clipboard benchmark's copying and pasting X programs
)
# scripts/install-deps.sh [--demo] [--list]: --demo installs what the demo needs alone; --list
# prints the packages instead of installing them.
PACKAGES=("${DEMO[@]}" "${TESTS[@]}")
list=0
for arg in "$@"; do
  case "$arg" in
    --demo) PACKAGES=("${DEMO[@]}") ;;
    --list) list=1 ;;
    *) echo "install-deps: unknown option $arg (--demo, --list)" >&2; exit 64 ;;
  esac
done
if [ "$list" = 1 ]; then printf '%s\n' "${PACKAGES[@]}"; exit 0; fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run this script as root to install them" >&2
  exit 1
fi

made_policy=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
  made_policy=1
fi
cleanup() { [ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d; true; }
trap cleanup EXIT

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
# avahi-daemon and named run only inside test namespaces: the packages' own services are not
# started (policy-rc.d above) and not enabled for the next boot either (links only; PID 1 is not
# asked), so a reboot of this machine does not start them in its own network namespace.
disable_units() {  # PACKAGE UNIT...
  local package=$1; shift
  [[ " ${missing[*]} " == *" $package "* ]] && command -v deb-systemd-helper >/dev/null || return 0
  local unit
  for unit in "$@"; do DPKG_MAINTSCRIPT_PACKAGE=$package deb-systemd-helper disable "$unit" >/dev/null 2>&1 || true; done
}
disable_units avahi-daemon avahi-daemon.service avahi-daemon.socket
disable_units bind9 named.service
