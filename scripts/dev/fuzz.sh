#!/usr/bin/env bash
# Runs the libFuzzer targets of Fuzz/ (the activity decoder, peer messages, control lines, TXT
# records, the YAML configuration), each from its seeds, and prints executions and findings per
# target. Every target checks round trips, not only crashes.
#
#   scripts/dev/fuzz.sh                      # CI: 20 s per target
#   scripts/dev/fuzz.sh --seconds 600        # longer, per target
#   scripts/dev/fuzz.sh --runs 10000000      # the long campaign: 10 million executions per target
#   scripts/dev/fuzz.sh --seconds 60 fuzz-txt fuzz-config
#   scripts/dev/fuzz.sh --build-only         # build the targets, run none (CI builds them early)
#   scripts/dev/fuzz.sh --jobs 1             # one target at a time (default: one per core)
#
# A finding is written to .build-fuzz-findings/<target>/ (crash-*, timeout-*, oom-*) and the
# script exits 1; replay one with `Fuzz/.build/release/<target> <file>`.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
# libFuzzer's own handler must see a crash to save its input; Swift's backtracer would take it first.
export SWIFT_BACKTRACE=enable=no

limit=(-max_total_time=20)
targets=()
build_only=""
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --build-only) build_only=1; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --seconds) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2"); shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz-activity fuzz-peer-message fuzz-control-line fuzz-txt fuzz-config)

build_log=$(mktemp /tmp/handoff-fuzz-build-XXXXXX)
work=""
# What this run made in /tmp goes, also when CI stops a build beside its tests (SIGTERM to the
# process group: bash runs the EXIT trap only if the signal has a trap of its own).
trap 'rm -f "$build_log"; [ -z "$work" ] || rm -rf "$work"' EXIT
trap 'exit 143' TERM INT
if ! swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld >"$build_log" 2>&1; then
  echo "fuzz: the fuzz targets do not build:" >&2
  grep -E "error:" "$build_log" | sort -u >&2 || tail -20 "$build_log" >&2
  rm -f "$build_log"
  exit 1
fi
rm -f "$build_log"
[ -z "$build_only" ] || exit 0
bin=$(swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld --show-bin-path)

work=$(mktemp -d /tmp/handoff-fuzz-XXXXXX)
# One target: its run's exit status and seconds go beside its log.
run_target() {
  local t=$1 start rc
  start=$(date +%s)
  set +e
  "$bin/$t" "${limit[@]}" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 -max_len=70000 \
    -artifact_prefix=".build-fuzz-findings/$t/" "$work/$t" "Fuzz/Seeds/$t" >"$work/$t.log" 2>&1
  rc=$?
  set -e
  echo "$rc $(( $(date +%s) - start ))" > "$work/$t.end"
}
# The targets run $jobs at a time (default: one per core), each single-threaded as libFuzzer is.
running=0
for t in "${targets[@]}"; do
  mkdir -p "$work/$t" ".build-fuzz-findings/$t"
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  run_target "$t" &
  running=$((running + 1))
done
wait
failed=0
printf '%-20s %14s %10s %8s %s\n' target executions exec/s seconds findings
for t in "${targets[@]}"; do
  findings=".build-fuzz-findings/$t"
  read -r rc seconds < "$work/$t.end"
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t.log" | grep -o '[0-9]*$' || true)
  # Without final stats (a finding stopped it), the last progress line says how far it got.
  [ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$work/$t.log" | tail -n 1 | tr -d '#')
  [ -n "$execs" ] || execs=0
  rate=$(( execs / (seconds > 0 ? seconds : 1) ))
  found=$(find "$findings" -type f | wc -l)
  printf '%-20s %14s %10s %8s %s\n' "$t" "$execs" "$rate" "$seconds" "$found"
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    failed=1
    tail -n 30 "$work/$t.log" >&2
  else
    rmdir "$findings" 2>/dev/null || true
  fi
done
rmdir .build-fuzz-findings 2>/dev/null || true
exit $failed
