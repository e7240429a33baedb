# The Python peer (Tests/Rigs/conformance-peer.py) as a hostile paired machine, for the benchmarks
# (sourced after lib-daemons.sh). Needs: REPO, WORK, SET, BIN.
#   start_peer HOST NAME       the peer in test host HOST, a coprocess (say/hear talk to it)
#   pair_peer MACHINE          pairs it with handoffd MACHINE (in the same host) by address
#   say JSON / hear KEY        a command; the peer's next line holding KEY (or an error) in LINE
#   field KEY                  a JSON field of standard input (numbers and strings)
#   alive, fds, rss_mib, hwm_mib   the daemon PID: running, its descriptors, RSS and peak RSS
#   ms_since NANOS             milliseconds since a `date +%s%N`

start_peer() {
  coproc PEER { Tests/Rigs/testhosts.sh exec "${SET}$1" /usr/bin/python3 "$REPO/Tests/Rigs/conformance-peer.py" key="$WORK/$2.key" name="$2" types=org.hawknotes.bookDetail,org.example.stream,org.handoffd.file 2>"$WORK/peer.err"; }
}
say() { echo "$1" >&"${PEER[1]}"; }
# (Not in a command substitution: a coprocess's descriptors are not open in subshells.)
LINE=""
hear() {
  while IFS= read -r -t 120 LINE <&"${PEER[0]}"; do
    case "$LINE" in *"\"$1\""* | *'"error"'*) return 0 ;; esac
  done
  echo "bench: the peer said nothing with $1; its stderr:" >&2; cat "$WORK/peer.err" >&2; exit 1
}
field() { sed -n "s/.*\"$1\" *: *\\([^,}]*\\).*/\\1/p" | head -1 | tr -d '" '; }

# pair_peer MACHINE: the accepting side as this build's handoffctl wants it.
pair_peer() {
  if "$BIN/handoffctl" pair --help 2>&1 | grep -q -- '--code'; then
    mkfifo "$WORK/accept.in"
    ctl "$1" pair --accept --json --timeout 30 < "$WORK/accept.in" > "$WORK/accept.out" 2>&1 &
    exec 7> "$WORK/accept.in"
  else
    ctl "$1" pair --accept --yes --json --timeout 30 > "$WORK/accept.out" 2>&1 &
  fi
  local code="" n
  for n in $(seq 1 50); do
    say '{"op": "pair", "host": "127.0.0.1", "port": 7340}'
    hear code
    code=$(field code <<< "$LINE")
    [ -n "$code" ] && break
    sleep 0.2
  done
  [ -n "$code" ] || { echo "bench: the peer could not reach $1's window" >&2; exit 1; }
  # Both sides show the same code here (no one is in the middle on this host): each is given it.
  ( echo "$code" >&7 ) 2>/dev/null || true  # a subshell: a SIGPIPE would end this shell
  say "{\"code\": \"$code\"}"
  hear paired
  exec 7>&-
  rm -f "$WORK/accept.in"
  PAIR_CODE=$code
}

alive() { kill -0 "$PID" 2>/dev/null && echo yes || echo "no (it died)"; }
fds() { ls "/proc/$PID/fd" 2>/dev/null | wc -l; }
rss_mib() { awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$PID/status" 2>/dev/null || echo "-"; }
hwm_mib() { awk '/^VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$PID/status" 2>/dev/null || echo "-"; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
