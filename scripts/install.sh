#!/usr/bin/env bash
# Installs handoffd where Debian expects it (run as root, or with DESTDIR for packaging):
#   /usr/bin/handoffd, /usr/bin/handoffctl, /usr/bin/hawknotes (the Hawk Notes app)
#   the clipboard agent (docs/CLIPBOARD.md): /usr/libexec/handoffd/handoff-clipboard-agent, its user
#   unit and /etc/xdg/autostart/handoff-clipboard-agent.desktop
#   the browser extension (docs/BROWSER.md): its native host /usr/libexec/handoffd/handoff-browser-host,
#   the host's manifests for Chromium, Chrome and Firefox, and the extension itself where Debian's
#   webext-* packages put theirs (/usr/share/chromium/extensions, /usr/share/mozilla/extensions)
#   /lib/systemd/system/handoffd.service, /usr/lib/systemd/user/handoffd.service,
#   /usr/lib/sysusers.d/handoffd.conf (the system user)
#   /etc/handoffd/handoffd.yaml (kept if it exists), /usr/share/handoffd/library.json, Hawk Notes' app file (/usr/share/handoffd/apps) and handoff-zone-policy.py
#   man pages, shell completions (bash, zsh, fish), /usr/share/doc/handoffd
#   the desktop (docs/DBUS.md): D-Bus activation and the system bus policy, the GNOME Shell search
#   provider, the KRunner runner, Hawk Notes' .desktop entry
# Then: systemctl enable --now handoffd   (or per user: systemctl --user enable --now handoffd)
#   DESTDIR=/tmp/pkg scripts/install.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
D=${DESTDIR:-}

# In the release build's own directory: the debug build's (.build) is locked while a `swift
# test` runs, and scripts/test.sh packages beside the end-to-end suites.
scripts/dev/build-release.sh handoffd handoffctl hawknotes handoff-browser-host handoff-clipboard-agent
BIN=$(scripts/dev/build-release.sh --bin-path)

install -d "$D/usr/bin" "$D/lib/systemd/system" "$D/usr/lib/systemd/user" "$D/usr/lib/sysusers.d" "$D/etc/handoffd" "$D/usr/share/handoffd" \
  "$D/usr/share/man/man1" "$D/usr/share/bash-completion/completions" "$D/usr/share/zsh/vendor-completions" \
  "$D/usr/share/fish/vendor_completions.d" "$D/usr/share/doc/handoffd"
install -d "$D/usr/libexec/handoffd"
install -m 0755 "$BIN/handoffd" "$BIN/handoffctl" "$BIN/hawknotes" "$D/usr/bin/"
install -m 0755 "$BIN/handoff-browser-host" "$BIN/handoff-clipboard-agent" "$D/usr/libexec/handoffd/"
# Shipped stripped of debug info and symbols (the symbol table alone is tens of MB of mangled
# names). With DEBUG_SYMBOLS=DIR, each binary's debug info and symbols are kept there first, under
# .build-id/xx/rest.debug as gdb and eu-addr2line look for them (a crash's addresses in the journal
# resolve with them: `eu-addr2line -e DIR/.build-id/...debug ADDRESS`).
for installed in usr/bin/handoffd usr/bin/handoffctl usr/bin/hawknotes usr/libexec/handoffd/handoff-browser-host usr/libexec/handoffd/handoff-clipboard-agent; do
  b=$(basename "$installed")
  if [ -n "${DEBUG_SYMBOLS:-}" ]; then
    id=$(readelf -n "$BIN/$b" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
    install -d "$DEBUG_SYMBOLS/.build-id/${id:0:2}"
    objcopy --only-keep-debug "$BIN/$b" "$DEBUG_SYMBOLS/.build-id/${id:0:2}/${id:2}.debug"
  fi
  strip --strip-all "$D/$installed"
done
install -m 0644 systemd/handoffd.service "$D/lib/systemd/system/handoffd.service"
install -m 0644 systemd/user/handoffd.service "$D/usr/lib/systemd/user/handoffd.service"
# The clipboard's session agent: a user unit of the graphical session, and XDG autostart for
# sessions without one (docs/CLIPBOARD.md).
install -m 0644 systemd/user/handoff-clipboard-agent.service "$D/usr/lib/systemd/user/"
install -d "$D/etc/xdg/autostart"
install -m 0644 config/desktop/handoff-clipboard-agent.desktop "$D/etc/xdg/autostart/"
install -m 0644 systemd/sysusers.d/handoffd.conf "$D/usr/lib/sysusers.d/handoffd.conf"
[ -e "$D/etc/handoffd/handoffd.yaml" ] || install -m 0644 config/handoffd.yaml "$D/etc/handoffd/handoffd.yaml"
install -m 0644 config/library.json "$D/usr/share/handoffd/library.json"
install -d -m 0755 "$D/usr/share/handoffd/apps"
install -m 0644 config/apps/org.handoffd.HawkNotes.app "$D/usr/share/handoffd/apps/org.handoffd.HawkNotes.app"
# For the DNS server of a site with a zone key per machine (docs/DEPLOYMENT.md), not run here
# (run with python3, which the package does not need).
install -m 0644 packaging/handoff-zone-policy.py "$D/usr/share/handoffd/handoff-zone-policy.py"
# Blank lines are not mdoc (groff warns about each).
# The manual pages are in the tree (config/man; scripts/dev/man-pages.sh writes handoffctl's and
# hawknotes' from their --help, ManualPageTests checks they name every command and option).
for page in config/man/handoffctl.1 config/man/handoffd.1 config/man/hawknotes.1; do sed '/^$/d' "$page" | gzip -9n > "$D/usr/share/man/man1/$(basename "$page").gz"; done
# A completion file is sourced, not run: no "#!" line.
"$BIN/handoffctl" --generate-completion-script bash | sed '1{/^#!/d}' > "$D/usr/share/bash-completion/completions/handoffctl"
"$BIN/handoffctl" --generate-completion-script zsh > "$D/usr/share/zsh/vendor-completions/_handoffctl"
"$BIN/handoffctl" --generate-completion-script fish > "$D/usr/share/fish/vendor_completions.d/handoffctl.fish"
install -d "$D/usr/share/dbus-1/services" "$D/usr/share/dbus-1/system.d" "$D/usr/share/gnome-shell/search-providers" \
  "$D/usr/share/krunner/dbusplugins" "$D/usr/share/applications"
install -m 0644 config/dbus/org.handoffd.Handoff.service "$D/usr/share/dbus-1/services/"
install -m 0644 config/dbus/org.handoffd.Handoff.conf "$D/usr/share/dbus-1/system.d/"
install -m 0644 config/desktop/org.handoffd.Handoff.search-provider.ini "$D/usr/share/gnome-shell/search-providers/"
install -m 0644 config/desktop/org.handoffd.Handoff.krunner.desktop "$D/usr/share/krunner/dbusplugins/org.handoffd.Handoff.desktop"
install -m 0644 config/desktop/hawknotes.desktop "$D/usr/share/applications/"
# The browser extension, on in every browser of the machine with no download: Debian's chromium
# loads each folder of /usr/share/chromium/extensions (its wrapper's --load-extension), and Debian's
# firefox-esr takes unsigned add-ons in the system scope and enables them there
# (extensions.unsignedScopes 12, autoDisableScopes 3). A person turns it off in the browser's
# extension list or in its options. The host's manifests name the installed host.
DESTDIR="$D" browser/install-host.sh --system /usr/libexec/handoffd/handoff-browser-host >/dev/null
for dir in "$D/usr/share/chromium/extensions/handoffd" "$D/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/browser@handoffd.org"; do
  install -d -m 0755 "$dir"
  install -m 0644 browser/extension/* "$dir/"
done
install -m 0644 README.md docs/*.md "$D/usr/share/doc/handoffd/"
"$D/usr/bin/handoffd" --check-config --config "$D/etc/handoffd/handoffd.yaml"
if [ -z "$D" ] && [ -d /run/systemd/system ]; then systemd-sysusers handoffd.conf; systemctl daemon-reload; fi
echo "installed; start with: systemctl enable --now handoffd"
