#!/usr/bin/env bash
# The demo (root, fresh Debian 12): installs packages, builds, makes two test hosts, starts
# handoffd on each, pairs them, publishes "viewing a character in a book" on host A, continues it
# on host B, shows B's scene routed to that book tab and character, then opens the Hawk Notes app
# on B (in a terminal: tmux) and shows its screen at that character; then cleans everything up.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
export PATH="/opt/swift/usr/bin:$PATH"
[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (it makes network namespaces)"; exit 1; }

scripts/install-deps.sh
swift build --product handoffd
swift build --product handoffctl
swift build --product hawknotes
BIN=$(swift build --show-bin-path)
SET=demo
WORK=$(mktemp -d /tmp/handoffd-demo.XXXXXX)
source scripts/lib-daemons.sh
TMUX_SOCKET="$WORK/tmux.sock"
tmux_pid=""
# The tmux server the demo starts (inside host B) is ended by its PID, also on failure.
finish() { [ -n "$tmux_pid" ] && kill "$tmux_pid" 2>/dev/null || true; end_daemons_and_hosts; }
trap finish EXIT

step() { printf '\n== %s\n' "$*"; }
step "two test hosts (network namespaces, each with its own avahi-daemon)"
scripts/testhosts.sh up "$SET" 2 >/dev/null
echo "host A: ${SET}1 $(scripts/testhosts.sh addr ${SET}1)    host B: ${SET}2 $(scripts/testhosts.sh addr ${SET}2)"

step "handoffd on each host"
start_daemon 1 alpha
start_daemon 2 beta
ctl alpha status

step "what anyone on the network sees (avahi-browse on host B): random names, a sealed record"
# name ; SRV host ; TXT of each resolved IPv4 advert, once both are resolved. Each browse is
# given 4 s: avahi-browse -t can wait forever for an "all for now" (avahi issues 264 and 444).
adverts() { scripts/testhosts.sh exec "${SET}2" timeout -k 2 4 avahi-browse -prt _handoff._tcp 2>/dev/null | grep '^=;[^;]*;IPv4;' | cut -d';' -f4,7,10; }
for n in $(seq 1 50); do [ "$(adverts | wc -l)" -ge 2 ] && break; sleep 0.2; done
adverts

step "pairing (both machines show the same code; B's name is advertised only while it waits)"
code=$(pair_daemons alpha beta)
echo "both show code $code; paired"
ctl alpha trust

step "B now recognises A's advert by A's key"
ctl beta peers

step "A: the person views Lady Beatrice in The Burning Swift"
ctl alpha publish --character "Lady Beatrice"
id=$(ctl alpha activities --json | json_field activity)

step "B: activities offered by paired machines"
ctl beta activities --remote

step "B continues it"
ctl alpha watch --count 1 > "$WORK/events-alpha" &
watcher=$!
ctl beta continue alpha "$id"

step "B's scene: routed to the book tab and the character"
scene=$(ctl beta scenes --json | json_field scene)
ctl beta scene show "$scene"

step "A was told (userActivityWasContinued)"
wait $watcher
cat "$WORK/events-alpha"

step "B's Hawk Notes app (hawknotes in a terminal on B) opens at the continued character"
tm() { scripts/testhosts.sh exec "${SET}2" tmux -S "$TMUX_SOCKET" "$@"; }
tm new-session -d -x 80 -y 24 "exec env HANDOFF_SOCKET=$WORK/beta/run/control.sock HAWKNOTES_LIBRARY=$REPO/config/library.json TERM=xterm-256color $BIN/hawknotes"
tmux_pid=$(tm display-message -p '#{pid}')
for n in $(seq 1 100); do tm capture-pane -p | grep -q "in The Burning Swift" && break; sleep 0.1; done
tm capture-pane -p | sed '/^$/d'
tm capture-pane -p | grep -q "in The Burning Swift" || { echo "demo: hawknotes on B does not show the continued character" >&2; exit 1; }
