#!/usr/bin/env bash
# The release build of handoffd and handoffctl, as installed and benchmarked:
#   scripts/dev/build-release.sh [PRODUCT...]    (default: handoffd handoffctl)
#   scripts/dev/build-release.sh --bin-path      prints the directory holding the binaries
#
# Why these flags (docs/PERFORMANCE.md, "Memory"): most of handoffd's RSS is file-backed code,
# and Linux maps it 64 KiB at a time around each touched page. So:
#   --static-swift-stdlib          the Swift runtime, Foundation and ICU are linked in, and only
#                                  what is used is loaded (no dynamic symbol lookups into them);
#   -function-sections (Swift, C)  every function in a section of its own, so the linker can...
#   --symbol-ordering-file         ...put the functions handoffd runs next to each other
#                                  (Sources/handoffd/symbol-order.txt, made by
#                                  scripts/dev/profile-symbol-order.sh); a stale list costs memory, not
#                                  correctness;
#   lld, -z pack-relative-relocs   relative relocations packed (DT_RELR, glibc >= 2.36), so the
#                                  loader reads a few KiB instead of MiBs of relocation records;
#   --disable-local-rpath          no RUNPATH $ORIGIN: the loader looked for each system library
#                                  in a dozen directories beside the binary (/usr/bin/glibc-hwcaps/...)
#                                  at every start before finding it where it is;
#   --no-export-dynamic            the Swift toolchain's static link exports every symbol of our
#                                  modules (21,800 in handoffd): a dynamic symbol table the loader
#                                  searches and the runtime's dladdr() scans at start, for nothing;
#   libstdc++ linked in            the Swift runtime is C++; loading libstdc++.so and binding its
#                                  4,300 symbolic relocations cost ~0.6 ms of every start (the
#                                  toolchain's static-stdlib-args.lnk names -lstdc++, so a directory
#                                  searched first holds only the static archive).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
# SwiftPM leaves directories in TMPDIR at every call (TemporaryDirectory.*, three for
# --show-bin-path alone, and every benchmark asks for it): this run's go in a directory of its
# own, removed on the way out with the build's log, also when test.sh stops this build (SIGTERM
# to its process group: bash runs the EXIT trap only if the signal has a trap of its own).
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/handoffd-release.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
trap 'exit 143' TERM INT
ORDER="$PWD/Sources/handoffd/symbol-order.txt"
# A build directory of its own: SwiftPM does not rebuild objects when only -Xswiftc/-Xcc flags
# change, so sharing .build/release with plain release builds would mix objects made without them.
STATIC_CXX="$PWD/.build/dist/static-cxx"
FLAGS=(-c release --scratch-path "$PWD/.build/dist" --static-swift-stdlib --disable-local-rpath
       -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
       -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
       -Xswiftc -Xclang-linker -Xswiftc "-L$STATIC_CXX")
[ -z "${NO_SYMBOL_ORDER:-}" ] && FLAGS+=(-Xlinker "--symbol-ordering-file=$ORDER" -Xlinker --no-warn-symbol-ordering)
if [ "${1:-}" = --bin-path ]; then swift build "${FLAGS[@]}" --show-bin-path; exit 0; fi
archive=$(clang -print-file-name=libstdc++.a)
[ -f "$archive" ] || { echo "build-release: no libstdc++.a (apt install libstdc++-12-dev)" >&2; exit 1; }
mkdir -p "$STATIC_CXX"
ln -sfn "$archive" "$STATIC_CXX/libstdc++.a"
[ $# -gt 0 ] || set -- handoffd handoffctl
# SwiftPM relinks only when an object or a flag changed, not when the order list did: a binary
# older than the list is removed, so that it is linked again with the list as it is now.
if [ -z "${NO_SYMBOL_ORDER:-}" ]; then
  bin_path=$(swift build "${FLAGS[@]}" --show-bin-path)
  for product in "$@"; do
    if [ "$bin_path/$product" -ot "$ORDER" ]; then rm -f "$bin_path/$product"; fi
  done
fi
# A warning from our code fails the build here as in the debug build (scripts/dev/check-warnings.py).
# The benchmark tools live in the Benchmarks package (its own build directory, the same flags)
# and are copied beside the daemon, so that one directory (BENCH_BIN) holds a whole run's binaries.
LOG=$TMPDIR/build.log
quiet() { tee -a "$LOG" | { grep -vE "^\[[0-9]+/[0-9]+\]|^Building|^Build of" || true; }; }
for product in "$@"; do
  case "$product" in
    handoff-*-bench)
      BENCH_FLAGS=("${FLAGS[@]/#$PWD\/.build\/dist/$PWD/Benchmarks/.build/dist}" --package-path Benchmarks)
      swift build "${BENCH_FLAGS[@]}" --product "$product" 2>&1 | quiet
      bench_bin=$(swift build "${BENCH_FLAGS[@]}" --show-bin-path)
      root_bin=$(swift build "${FLAGS[@]}" --show-bin-path)
      mkdir -p "$root_bin"
      cp -f "$bench_bin/$product" "$root_bin/$product.new" && mv -f "$root_bin/$product.new" "$root_bin/$product" ;;
    *) swift build "${FLAGS[@]}" --product "$product" 2>&1 | quiet ;;
  esac
done
"$(dirname "$0")/check-warnings.py" "$LOG" >/dev/null
