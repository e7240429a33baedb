#!/usr/bin/env bash
# The work a push to a live handler costs each daemon, in instructions (root, two test hosts):
#   Benchmarks/scripts/bench-push-work.sh [PUSHES] [TOP] [ROUNDS]   (defaults 100, 0: no function list, 3)
# bench-edges times the push; on this VM its median moves 0.1 ms from run to run with how fast
# idle cores wake, more than most single cuts in the daemons save. This counts instead: both
# daemons run under valgrind's callgrind; PUSHES pushes are made as bench-edges makes them (paced
# 0.22 s apart, an open client registered with `handle` on beta), then the daemons idle as long,
# ROUNDS times; Benchmarks/scripts/bench-push-work.py subtracts each idle window and prints instructions per
# push on each side (the median round and each round's), and with TOP the functions that cost
# most in the median round. The daemons run about 50x slower than natively, so the pushes'
# window also holds the answer to each push (handled -> outcome). The figure moves about ±3 %
# from run to run (what else falls in the windows: a heartbeat, a ping, Avahi's traffic).
# BENCH_BIN=DIR counts the binaries in DIR (before and after a change: copy each build aside);
# KEEP=DIR keeps each window's callgrind file there (for callgrind_annotate --inclusive=yes).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
PUSHES=${1:-100}
TOP=${2:-0}
ROUNDS=${3:-3}
[[ "$PUSHES" =~ ^[1-9][0-9]*$ && "$TOP" =~ ^[0-9]+$ && "$ROUNDS" =~ ^[1-9][0-9]*$ ]] ||
  { echo "usage: bench-push-work.sh [PUSHES] [TOP] [ROUNDS]" >&2; exit 2; }
source Tests/Rigs/lib-daemons.sh
bench_start handoffd handoffctl hawknotes
command -v valgrind >/dev/null || apt-get install -y -q valgrind >/dev/null
SET=pwork
WORK=$(mktemp -d /tmp/handoffd-pushwork.XXXXXX)
# Valgrind's gdbserver pipes (callgrind_control talks through them) are left in TMPDIR when the
# hosts' teardown SIGKILLs a daemon still under valgrind: removed by our daemons' PIDs.
pids=()
end_push_work() {
  end_daemons_and_hosts
  local pid
  for pid in "${pids[@]}"; do [ -z "$pid" ] || rm -f "${TMPDIR:-/tmp}"/vgdb-pipe-*-"$pid"-by-*; done
}
trap end_push_work EXIT
# handoffd under callgrind, counting from the start; valgrind 3.19 cannot read clang's DWARF 5, so
# the binary without its debug sections (the symbol table names the functions).
REAL_BIN=$BIN
BIN=$WORK/bin
mkdir -p "$BIN" "$WORK/cg"
cp "$REAL_BIN/handoffctl" "$BIN/handoffctl"
objcopy --strip-debug "$REAL_BIN/handoffd" "$BIN/handoffd.real"
printf '#!/bin/sh\nexec valgrind -q --tool=callgrind --compress-strings=no --compress-pos=no --callgrind-out-file=%s/cg/%%p.out %s "$@"\n' \
  "$WORK" "$BIN/handoffd.real" > "$BIN/handoffd"
chmod +x "$BIN/handoffd"
# Swift seeds each process's hashing at random: dictionaries' order and probes, and so the
# instructions, differed by up to 7 % from one pair of daemons to the next. Seeded the same here.
DAEMON_ENV="SWIFT_DETERMINISTIC_HASHING=1"
paired_hosts
publish_pushed
pids=("$(daemon_pid alpha)" "$(daemon_pid beta)")
# The first pushes run code for the first time (lazy bindings, caches): not counted.
push 5 >/dev/null
dumped() { compgen -G "$WORK/cg/$1.out.*" >/dev/null; }
# dump TAG: each daemon's counts since the last dump or zeroing, as $WORK/TAG-{alpha,beta}.out.
dump() {
  local i name
  for i in 0 1; do
    name=$([ "$i" = 0 ] && echo alpha || echo beta)
    rm -f "$WORK/cg/${pids[$i]}.out".*
    callgrind_control -d "${pids[$i]}" >/dev/null 2>&1
    until_true 30 "callgrind's dump of $name" dumped "${pids[$i]}"
    mv "$(compgen -G "$WORK/cg/${pids[$i]}.out.*" | head -1)" "$WORK/$1-$name.out"
  done
}
for pid in "${pids[@]}"; do callgrind_control -z "$pid" >/dev/null 2>&1; done
# Rounds of pushes, each followed by as long idle; the median round is the figure. One round's
# figure moves by a few per cent with what else falls in its windows (a heartbeat, a ping).
files=()
for round in $(seq 1 "$ROUNDS"); do
  start=$EPOCHREALTIME
  push "$PUSHES" >/dev/null
  window=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
  dump "push$round"
  sleep "$window"
  dump "idle$round"
  files+=("$WORK/push$round-alpha.out" "$WORK/idle$round-alpha.out" "$WORK/push$round-beta.out" "$WORK/idle$round-beta.out")
done
echo "instructions per push ($ROUNDS rounds of $PUSHES pushes, each minus as long idle):"
python3 Benchmarks/scripts/bench-push-work.py "$PUSHES" "$TOP" "${files[@]}"
[ -z "${KEEP:-}" ] || { mkdir -p "$KEEP" && cp "${files[@]}" "$KEEP"/; }
