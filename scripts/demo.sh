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

scripts/install-deps.sh --demo
swift build --product handoffd
swift build --product handoffctl
swift build --product hawknotes
BIN=$(swift build --show-bin-path)
SET=demo
WORK=$(mktemp -d /tmp/handoffd-demo.XXXXXX)
source Tests/Rigs/lib-daemons.sh
TMUX_SOCKET="$WORK/tmux.sock"
tmux_pid=""
watcher=""
# The tmux server the demo starts (inside host B) and A's event watcher are ended by their PIDs,
# also on failure.
finish() {
  [ -n "$tmux_pid" ] && kill "$tmux_pid" 2>/dev/null || true
  [ -n "$watcher" ] && kill "$watcher" 2>/dev/null || true
  end_daemons_and_hosts
}
trap finish EXIT

step() { printf '\n== %s\n' "$*"; }
# within SECONDS WHAT COMMAND...: COMMAND succeeds within SECONDS (tried again every 0.1 s), or the
# demo fails saying that WHAT did not happen.
within() {
  local limit=$1 what=$2
  local end=$((SECONDS + limit))
  shift 2
  until "$@" > /dev/null 2>&1; do
    [ $SECONDS -lt $end ] || { echo "demo: $what did not happen within $limit s" >&2; exit 1; }
    sleep 0.1
  done
}
step "two test hosts (network namespaces, each with its own avahi-daemon)"
Tests/Rigs/testhosts.sh up "$SET" 2 >/dev/null
echo "host A: ${SET}1 $(Tests/Rigs/testhosts.sh addr ${SET}1)    host B: ${SET}2 $(Tests/Rigs/testhosts.sh addr ${SET}2)"

step "handoffd on each host"
start_daemon 1 alpha
start_daemon 2 beta
ctl alpha status

step "what anyone on the network sees (avahi-browse on host B): random names, a sealed record"
# name ; SRV host ; TXT of each resolved IPv4 advert, once both are resolved. Each browse is
# given 4 s: avahi-browse -t can wait forever for an "all for now" (avahi issues 264 and 444).
adverts() { Tests/Rigs/testhosts.sh exec "${SET}2" timeout -k 2 4 avahi-browse -prt _handoff._tcp 2>/dev/null | grep '^=;[^;]*;IPv4;' | cut -d';' -f4,7,10; }
both_adverts() { [ "$(adverts | wc -l)" -ge 2 ]; }
within 15 "host B seeing both adverts" both_adverts
adverts

step "pairing (both machines show the same code; B's name is advertised only while it waits)"
code=$(pair_daemons alpha beta)
echo "both show code $code; paired"
ctl alpha trust

step "B now recognises A's advert by A's key"
alpha_present() { ctl beta peers --json | grep -A8 '"alpha"' | grep -q '"present" : true'; }
within 10 "B showing alpha as paired and present" alpha_present
ctl beta peers

step "A: the person views Lady Beatrice in The Burning Swift"
# A's events from here on: the step that shows A was told waits for that event by its name.
"$BIN/handoffctl" watch --event userActivityWasContinued --count 1 --socket "$(control_socket alpha)" > "$WORK/events-alpha" &
watcher=$!
hawknotes_publish alpha "Lady Beatrice"
id=$(ctl alpha activities --json | json_field activity)

step "B: activities offered by paired machines"
listed_on_b() { ctl beta activities --remote --json | grep -q "$id"; }
within 10 "B listing A's activity $id" listed_on_b
ctl beta activities --remote

step "B continues it: handoffd on B starts Hawk Notes (the app that declares the type), which takes it"
ctl beta apps
ctl beta continue alpha "$id" | tee "$WORK/continued"
grep -q "Continued by hawknotes in scene .*Lady Beatrice" "$WORK/continued" || { echo "demo: B's continue did not reach Hawk Notes at Lady Beatrice" >&2; exit 1; }

step "B's scene: Hawk Notes' window, at the book and the character"
scene=$(sed -n 's/.* in scene \([0-9A-F-]*\):.*/\1/p' "$WORK/continued")
ctl beta scene show "$scene" | tee "$WORK/scene"
grep -q "Lady Beatrice" "$WORK/scene" || { echo "demo: B's scene does not show Lady Beatrice" >&2; exit 1; }

step "A was told (userActivityWasContinued)"
within 10 "A being told that B continued its activity (userActivityWasContinued)" grep -q userActivityWasContinued "$WORK/events-alpha"
cat "$WORK/events-alpha"

step "B's Hawk Notes app (hawknotes in a terminal on B) opens at the continued character"
tm() { Tests/Rigs/testhosts.sh exec "${SET}2" tmux -S "$TMUX_SOCKET" "$@"; }
tm new-session -d -x 80 -y 24 "exec env HANDOFF_SOCKET=$WORK/beta/run/control.sock HAWKNOTES_LIBRARY=$REPO/config/library.json TERM=xterm-256color $BIN/hawknotes"
tmux_pid=$(tm display-message -p '#{pid}')
for n in $(seq 1 100); do tm capture-pane -p | grep -q "in The Burning Swift" && break; sleep 0.1; done
tm capture-pane -p | sed '/^$/d'
tm capture-pane -p | grep -q "in The Burning Swift" || { echo "demo: hawknotes on B does not show the continued character" >&2; exit 1; }
