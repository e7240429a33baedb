# Helpers for scripts that run handoffd on test hosts (sourced by demo.sh and the benchmarks).
# Needs: BIN (directory with handoffd and handoffctl), WORK (a scratch directory), SET (test host set).

# bench_start PRODUCTS...: what every benchmark does first: root (the test hosts are network
# namespaces), the release build of PRODUCTS (BIN: where they are), daemons logging little.
# BENCH_BIN=DIR runs the binaries in DIR instead (before and after a change, in one sitting:
# copy each build's binaries aside and run the same script on both). Either way the binaries are
# first evicted from the page cache (`evict_page_cache`), so that RSS compares across copies.
bench_start() {
  export PATH="/opt/swift/usr/bin:$PATH"
  [ "$(id -u)" -eq 0 ] || { echo "bench: run as root (it makes network namespaces)"; exit 1; }
  if [ -n "${BENCH_BIN:-}" ]; then
    local p
    for p in "$@"; do [ -x "$BENCH_BIN/$p" ] || { echo "bench: BENCH_BIN=$BENCH_BIN has no $p"; exit 1; }; done
    BIN=$BENCH_BIN
  else
    scripts/dev/build-release.sh "$@"
    BIN=$(scripts/dev/build-release.sh --bin-path)
  fi
  LOG_LEVEL=${LOG_LEVEL:-notice}
  local product
  for product in "$@"; do evict_page_cache "$BIN/$product"; done
}

# evict_page_cache FILE...: FILE's pages out of the page cache (written back first), so that a
# daemon maps its binary as read from disk. A binary just built or copied sits in the page cache
# in large folios, and a fault maps a whole folio: the same handoffd measured ~1 MiB more idle RSS
# from a fresh copy than from a copy run before (docs/PERFORMANCE.md, "Memory").
evict_page_cache() {
  python3 - "$@" <<'PY'
import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
PY
}

# duration_seconds TEXT: 90s, 2m or 120 as whole seconds (nothing printed if it is none of them).
duration_seconds() {
  case "$1" in
    *m) [[ "${1%m}" =~ ^[0-9]+$ ]] && echo $((${1%m} * 60)) ;;
    *s) [[ "${1%s}" =~ ^[0-9]+$ ]] && echo "${1%s}" ;;
    *) [[ "$1" =~ ^[0-9]+$ ]] && echo "$1" ;;
  esac
  return 0
}

# start_daemon INDEX NAME: handoffd on host SET<INDEX>, state and socket under $WORK/NAME.
start_daemon() {
  local i=$1 name=$2 dir="$WORK/$2"
  mkdir -p "$dir/apps"
  # Hawk Notes installed, as its package would: started from this build to continue its types.
  sed "s|^Exec=hawknotes |Exec=$BIN/hawknotes --library $REPO/config/library.json |" "$REPO/config/apps/org.handoffd.HawkNotes.app" > "$dir/apps/org.handoffd.HawkNotes.app"
  cat > "$dir/handoffd.yaml" <<YAML
device_name: $name
peer_port: 7340
state_directory: $dir/state
runtime_directory: $dir/run
app_directories: [$dir/apps]
log_level: ${LOG_LEVEL:-notice}
${DAEMON_EXTRA_CONFIG:-}
YAML
  # DAEMON_ENV: VAR=value words for the daemon's environment (a session bus, for instance).
  # shellcheck disable=SC2086
  Tests/Rigs/testhosts.sh exec "$SET$i" env ${DAEMON_ENV:-} "$BIN/handoffd" --config "$dir/handoffd.yaml" 2>>"$dir/handoffd.log" &
  echo $! > "$dir/launcher.pid"
  local n
  for n in $(seq 1 150); do
    # Its PID kept for stop_daemon, which must end it even if it no longer answers.
    ctl "$name" status --json 2>/dev/null | grep -q '"avahi" : "up"' && { daemon_pid "$name" > "$dir/daemon.pid"; return 0; }
    sleep 0.1
  done
  echo "handoffd $name did not come up; its log:" >&2
  cat "$dir/handoffd.log" >&2
  return 1
}

# ctl NAME ARGS...: handoffctl against NAME's daemon.
ctl() { local name=$1; shift; "$BIN/handoffctl" "$@" --socket "$(control_socket "$name")"; }
# hawknotes_publish NAME CHARACTER: Hawk Notes on NAME makes "viewing CHARACTER" current (kept).
hawknotes_publish() { "$BIN/hawknotes" publish --character "$2" --library "$REPO/config/library.json" --socket "$(control_socket "$1")"; }
control_socket() { echo "$WORK/$1/run/control.sock"; }

# daemon_pid NAME: the handoffd PID (as the daemon reports it; nothing from a daemon that does not
# answer within 10 s).
daemon_pid() { timeout 10 "$BIN/handoffctl" status --json --socket "$(control_socket "$1")" | sed -n 's/.*"pid" : \([0-9]*\).*/\1/p'; }

# stop_daemon NAME: SIGTERM to NAME's daemon, then its launcher waited for. A daemon still running
# STOP_SECONDS (10) after the SIGTERM is SIGKILLed, and the script says so: a stop that hangs is a
# bug to see, not a rig that hangs until CI gives up.
stop_daemon() {
  local name=$1 pid n limit=${STOP_SECONDS:-10}
  pid=$(daemon_pid "$name" 2>/dev/null || true)
  # One that does not answer: the PID start_daemon kept, if that process is still this daemon.
  [ -n "$pid" ] || pid=$(cat "$WORK/$name/daemon.pid" 2>/dev/null || true)
  [ -n "$pid" ] && ! tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--config $WORK/$name/handoffd.yaml" && pid=""
  if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
    local ended=""
    for n in $(seq 1 $((limit * 20))); do running "$pid" || { ended=1; break; }; sleep 0.05; done
    # The loop's answer, not running asked again: the process may be reaped in between.
    if [ -z "$ended" ]; then
      echo "handoffd $name did not stop within $limit s of SIGTERM: SIGKILLed; what it was doing:" >&2
      stuck_report "$pid" "$name" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  [ -f "$WORK/$name/launcher.pid" ] && wait "$(cat "$WORK/$name/launcher.pid")" 2>/dev/null || true
}

# stuck_report PID NAME: a daemon that will not stop, as it is: each thread's state and kernel wait,
# its threads' stacks when gdb is installed, and the end of its log.
stuck_report() {
  local t
  echo "  $(ps -o pid=,ppid=,stat=,etimes=,args= -p "$1" 2>&1)"
  for t in /proc/$1/task/*; do
    echo "  thread $(basename "$t") $(cat "$t/comm" 2>/dev/null) $(grep '^State' "$t/status" 2>/dev/null | tr -s '\t ' ' ') wchan=$(cat "$t/wchan" 2>/dev/null)"
  done
  if command -v gdb >/dev/null; then
    timeout 60 gdb -q -p "$1" -batch -ex 'set pagination off' -ex 'set complaints 0' -ex 'thread apply all bt 25' 2>/dev/null | grep -E '^(Thread|#)' | sed 's/^/  /' || true
  fi
  echo "  --- the end of $2's log"
  tail -20 "$WORK/$2/handoffd.log" 2>/dev/null | sed 's/^/  /' || true
}

# running PID: the process exists and has not ended (an ended one not yet reaped is a zombie).
# Its state is read once: a process reaped between two reads (its status file gone) once made
# this say "running" after it had said "ended", and stop_daemon SIGKILLed a PID with no process.
running() {
  local state
  state=$(grep '^State:' "/proc/$1/status" 2>/dev/null) || return 1
  [[ ! $state =~ ^State:[[:space:]]*[ZX] ]]
}

# json_field KEY: the first string value of KEY in JSON on stdin.
json_field() { sed -n "s/.*\"$1\" : \"\\([^\"]*\\)\".*/\\1/p" | head -1; }

# wait_listed NAME PEER: until NAME's daemon lists PEER (20 s: after an unpairing PEER's adverts
# are under a new key, and its new advert is announced after a random gap of up to 11 s).
wait_listed() {
  local n
  # One line per peer; a paired peer is in the list even before discovery lists it.
  for n in $(seq 1 200); do
    ctl "$1" peers --json | tr -d '\n' | tr '}' '\n' | grep "\"name\" : \"$2\"" | grep -q '"listed" : true' && return 0
    sleep 0.1
  done
  echo "$1 does not list $2" >&2; return 1
}

# pair_daemons A B: B accepts (its pairing advert shows its name while the window is open), A
# starts; each side is given the code the other shows, on its standard input, as a person types
# it: only a matching pair confirms. Returns once B lists A.
pair_daemons() {
  local d="$WORK/pairing" ca="" cb="" n accept asking=""
  rm -rf "$d"; mkdir -p "$d"; mkfifo "$d/accept.in" "$d/ask.in"
  ctl "$2" pair --accept --json --timeout 30 < "$d/accept.in" > "$d/accept.out" 2> "$d/accept.err" &
  accept=$!
  exec 7> "$d/accept.in"
  # Until B's window is open, A's attempt is refused; it is tried again.
  for n in $(seq 1 50); do
    ctl "$1" pair "$2" --json < "$d/ask.in" > "$d/ask.out" 2> "$d/ask.err" &
    asking=$!
    exec 8> "$d/ask.in"
    # (ask.out is made by the background shell: it may not exist yet)
    while kill -0 "$asking" 2> /dev/null && ! grep -qs '"code"' "$d/ask.out"; do sleep 0.05; done
    grep -qs '"code"' "$d/ask.out" && break
    exec 8>&-; wait "$asking" || true; asking=""; sleep 0.2
  done
  [ -n "$asking" ] || { exec 7>&-; echo "pairing failed: $(cat "$d/ask.err")" >&2; return 1; }
  # Both sides show the code once the handshake is done; on a loaded machine (CI, the rigs) the
  # accepting side's may come seconds after the asking side's: up to its --timeout.
  for n in $(seq 1 600); do grep -qs '"code"' "$d/accept.out" && break; sleep 0.05; done
  ca=$(head -n 1 "$d/ask.out" | code_field); cb=$(head -n 1 "$d/accept.out" | code_field)
  # Each code is written from a subshell: if that side has already given up, the write is a
  # SIGPIPE, which would end this shell silently (status 141, no EXIT trap: CI saw that once);
  # a subshell takes it, and the wait below says which side failed and why.
  ( echo "$cb" >&8 ) 2>/dev/null || true
  ( echo "$ca" >&7 ) 2>/dev/null || true
  exec 7>&- 8>&-
  if ! wait "$asking" || ! wait "$accept"; then
    echo "pairing failed (codes '$ca' and '$cb'): $(cat "$d/ask.err" "$d/accept.err")" >&2; return 1
  fi
  # The accepting side need not have resolved A's advert to pair (handoffd waits briefly for it
  # when asked to reach A; the scripts wait here so that their figures measure the rest).
  wait_listed "$2" "$1"
  echo "$ca"
}

# code_field: the "code" of the one-line JSON `pair --json` prints first.
code_field() { sed -n 's/.*"code":"\([0-9]*\)".*/\1/p' | head -1; }

# paired_hosts: test hosts SET1 and SET2, handoffd alpha on the first and beta on the second,
# paired (the benchmarks' common start).
paired_hosts() {
  Tests/Rigs/testhosts.sh up "$SET" 2 >/dev/null
  start_daemon 1 alpha
  start_daemon 2 beta
  pair_daemons alpha beta >/dev/null
}

# publish_pushed: alpha publishes the activity the push benchmarks push to beta; its id and type
# in $push_id and $push_type.
publish_pushed() {
  hawknotes_publish alpha "Lady Beatrice" >/dev/null
  push_id=$(ctl alpha activities --json | json_field activity)
  push_type=$(ctl alpha activities --json | json_field type)
}

# push N: N pushes of it to a live handler on beta, as bench-edges makes them
# (Benchmarks/scripts/bench-push.py: 0.22 s apart, an open client registered with `handle` on beta).
push() { python3 "$REPO/Benchmarks/scripts/bench-push.py" "$1" "$WORK/alpha/run/control.sock" "$WORK/beta/run/control.sock" "$push_id" "$push_type"; }

# stop_daemons NAME...: SIGTERM each daemon by the PID it reports, then its launcher.
stop_daemons() {
  local name
  for name in "$@"; do stop_daemon "$name"; done
}

# end_daemons_and_hosts: the EXIT trap of these scripts: daemons alpha and beta stopped, the test
# hosts of SET removed, WORK deleted.
end_daemons_and_hosts() {
  local name pid
  # SIGTERM to each daemon that answers; then the hosts go, and with them (by PID, inside our
  # namespaces) anything that did not answer, so that waiting for the launchers cannot hang.
  for name in alpha beta; do
    pid=$(daemon_pid "$name" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  Tests/Rigs/testhosts.sh down "$SET" >/dev/null 2>&1 || true
  for name in alpha beta; do
    [ -f "$WORK/$name/launcher.pid" ] && wait "$(cat "$WORK/$name/launcher.pid")" 2>/dev/null || true
  done
  rm -rf "$WORK"
}

# end_rig NAME...: the EXIT trap of the rigs (scale, chaos, soak): each daemon SIGCONTed (a probe
# that failed may have left one stopped) and SIGTERMed by the PID it reports, then the hosts of SET
# removed (and with them, by PID inside our namespaces, anything that did not answer), the
# launchers waited for, WORK deleted.
end_rig() {
  local name pid
  for name in "$@"; do
    pid=$(daemon_pid "$name" 2>/dev/null || true)
    [ -n "$pid" ] && { kill -CONT "$pid"; kill "$pid"; } 2>/dev/null || true
  done
  Tests/Rigs/testhosts.sh down "$SET" >/dev/null 2>&1 || true
  for name in "$@"; do
    [ -f "$WORK/$name/launcher.pid" ] && wait "$(cat "$WORK/$name/launcher.pid")" 2>/dev/null || true
  done
  # KEEP_LOGS=DIR: each daemon's log kept there (to read after a failed run).
  if [ -n "${KEEP_LOGS:-}" ]; then
    mkdir -p "$KEEP_LOGS"
    for name in "$@"; do cp "$WORK/$name/handoffd.log" "$KEEP_LOGS/$name.log" 2>/dev/null || true; done
  fi
  rm -rf "$WORK"
}

# until_true SECONDS WHAT COMMAND...: until COMMAND succeeds; past SECONDS the bench fails, naming WHAT.
until_true() {
  local limit=$1 what=$2
  shift 2
  local end=$((SECONDS + limit))
  until "$@"; do
    [ $SECONDS -lt $end ] || { echo "bench: timed out waiting for $what" >&2; exit 1; }
    sleep 0.01
  done
}

# stamp: each line of stdin prefixed with its arrival time (bash's clock, no fork per line).
stamp() { while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done; }

# first_after FILE T REGEX: the arrival time of the first stamped line after T matching REGEX.
first_after() { awk -v t="$2" -v p="$3" '$1 > t && $0 ~ p { print $1; exit }' "$1"; }

# wait_line FILE T REGEX [SECONDS]: waits (20 s) for such a line; prints its delay after T in ms.
wait_line() {
  local at="" end=$((SECONDS + ${4:-20}))
  while [ -z "$at" ]; do
    [ $SECONDS -lt $end ] || { echo "bench: nothing matching $3 after $2 in $1" >&2; tail -5 "$1" >&2; exit 1; }
    sleep 0.005
    at=$(first_after "$1" "$2" "$3")
  done
  awk -v a="$at" -v t="$2" 'BEGIN { printf "%.2f\n", (a - t) * 1000 }'
}
