#!/usr/bin/env bash
# cmake/fuzz.sh — build railyard's libFuzzer binary with clang (ASan+UBSan)
# and run every fuzz target for a bounded time from its seed corpus, two at a
# time. Prints one line per target (executions, executions per second, corpus
# growth) and fails if any target found a crash, a sanitizer report, a timeout,
# an out-of-memory or a violated property.
#
#   bash cmake/fuzz.sh                    # every target, 60 s each
#   bash cmake/fuzz.sh 300 cluster_spec   # one target, 5 minutes
#
# Environment:
#   RAILYARD_FUZZ_SECONDS  seconds per target when not given as $1 (default 60)
#   RAILYARD_FUZZ_DIR      build directory (default <repo>/build-fuzz)
#   RAILYARD_FUZZ_JOBS     targets run at once (default: nproc)
#   CXX / CC               clang++ / clang unless set
#
# A finding is kept in <build>/findings/<target>-crash-... Reproduce it with
#   RAILYARD_FUZZ_TARGET=<target> <build>/tests/fuzz/railyard_fuzz <file>
# and, once fixed, copy it to tests/fuzz/regressions/<target>/ so CTest
# replays it (fuzz.replay.<target>) in every build from then on.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RAILYARD_FUZZ_DIR:-$root/build-fuzz}"
seconds="${1:-${RAILYARD_FUZZ_SECONDS:-60}}"
shift || true
jobs="${RAILYARD_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"

if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: seconds per target must be a positive integer, got '$seconds'" >&2
  exit 2
fi
cxx="${CXX:-clang++}"
cc="${CC:-clang}"
if ! command -v "$cxx" >/dev/null; then
  echo "fuzz.sh: $cxx not found; install clang and libclang-rt-14-dev (Debian 12)" >&2
  exit 2
fi

mkdir -p "$build"
generator=()
if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
CXX="$cxx" CC="$cc" cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRAILYARD_FUZZ=ON \
  -DRAILYARD_BUILD_TESTS=ON \
  -DRAILYARD_BUILD_EXAMPLES=OFF \
  -DRAILYARD_BUILD_BENCH=OFF \
  -DRAILYARD_SANITIZE=OFF \
  -DRAILYARD_WERROR=OFF >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target railyard_fuzz -j "$jobs"
fuzzer="$build/tests/fuzz/railyard_fuzz"

if [[ $# -gt 0 ]]; then
  targets=("$@")
else
  mapfile -t targets < <(RAILYARD_FUZZ_TARGET=--list "$fuzzer")
fi
logs="$build/fuzz-logs"
findings="$build/findings"
mkdir -p "$logs" "$findings"

# run_target <name>: fuzz one target; its log ends with libFuzzer's final stats.
run_target() {
  local name="$1"
  local seeds="$root/tests/fuzz/corpus/$name"
  local work="$build/corpus/$name"
  mkdir -p "$work"
  local extra=()
  [[ -f "$root/tests/fuzz/dict/$name.dict" ]] && extra+=(-dict="$root/tests/fuzz/dict/$name.dict")
  local dirs=("$work")
  [[ -d "$seeds" ]] && dirs+=("$seeds")
  [[ -d "$root/tests/fuzz/regressions/$name" ]] && dirs+=("$root/tests/fuzz/regressions/$name")
  local status=0
  RAILYARD_FUZZ_TARGET="$name" \
  ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -malloc_limit_mb=2560 \
    -print_final_stats=1 -artifact_prefix="$findings/$name-" "${extra[@]}" "${dirs[@]}" \
    >"$logs/$name.log" 2>&1 || status=$?
  echo "$status" >"$logs/$name.status"
}
export -f run_target
export root build seconds fuzzer logs findings

echo "fuzz.sh: ${#targets[@]} targets x ${seconds} s, ${jobs} at a time"
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_target "$1"' _ {}

failed=0
printf '\n%-16s %8s %12s %10s %8s  %s\n' target seconds executions exec/s corpus result
for name in "${targets[@]}"; do
  log="$logs/$name.log"
  status="$(cat "$logs/$name.status" 2>/dev/null || echo 1)"
  final_stat() { grep -E "^stat::$1:" "$log" | tail -n 1 | awk '{print $2}'; }
  execs="$(final_stat number_of_executed_units || true)"
  rate="$(final_stat average_exec_per_sec || true)"
  time_used="$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 | awk '{print $5}' || true)"
  corpus="$(find "$build/corpus/$name" -type f 2>/dev/null | wc -l)"
  result=ok
  if [[ "$status" != 0 ]]; then
    result="FAILED (exit $status)"
    failed=1
  fi
  printf '%-16s %8s %12s %10s %8s  %s\n' "$name" "${time_used:-?}" "${execs:-?}" "${rate:-?}" \
    "$corpus" "$result"
done
if [[ $failed -ne 0 ]]; then
  for name in "${targets[@]}"; do
    [[ "$(cat "$logs/$name.status" 2>/dev/null || echo 1)" == 0 ]] && continue
    echo
    echo "=== $name: $logs/$name.log (last 40 lines)"
    tail -n 40 "$logs/$name.log"
  done
  echo
  echo "findings in $findings/ — reproduce with RAILYARD_FUZZ_TARGET=<target> $fuzzer <file>" >&2
  exit 1
fi
echo "fuzz.sh: every target ran ${seconds} s without a finding"
