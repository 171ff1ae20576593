#!/usr/bin/env bash
# bench/compile_time.sh — what including railyard costs a user: the CPU time and
# peak memory of compiling a translation unit that includes one header and an
# empty main(), for every layer's umbrella header, railyard.hpp, and the
# translation units the NCCL plugins compile (RAILYARD_STANDALONE_STATUS).
#
#   bash bench/compile_time.sh            # 3 runs per header, the median is reported
#   RAILYARD_COMPILE_RUNS=5 bash bench/compile_time.sh
#
# Flags: those of a Release build of railyard's own targets (-std=c++20 -O3
# -DNDEBUG), with the compiler in $CXX (default c++). CPU = user + system time of
# the compiler process (GNU time); memory = its maximum resident set. Targets
# (the issue on layout and compile time): a layer's umbrella <= 3 s CPU,
# railyard.hpp <= 5 s, measured on the 2-core reference machine.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cxx="${CXX:-c++}"
runs="${RAILYARD_COMPILE_RUNS:-3}"
timer=/usr/bin/time
if [[ ! -x "$timer" ]]; then
  echo "compile_time.sh: needs GNU time at /usr/bin/time (Debian package 'time')" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# header | target seconds | extra flags
rows=(
  "railyard/core/core.hpp|3|"
  "railyard/topology/topology.hpp|3|"
  "railyard/collective/collective.hpp|3|"
  "railyard/placement/placement.hpp|3|"
  "railyard/routing/routing.hpp|3|"
  "railyard/sim/sim.hpp|3|"
  "railyard/cc/cc.hpp|3|"
  "railyard/tune/tune.hpp|3|"
  "railyard/pipeline/pipeline.hpp|3|"
  "railyard/export/export.hpp|3|"
  "railyard/report/report.hpp|3|"
  "railyard/plugin/plugin.hpp|3|"
  "railyard/railyard.hpp|5|"
  "railyard/plugin/tuner.hpp|3|-DRAILYARD_STANDALONE_STATUS"
  "railyard/plugin/advisor.hpp|3|-DRAILYARD_STANDALONE_STATUS"
)

# measure <header> <flags>: prints "<cpu seconds> <peak MB>" (median over runs).
measure() {
  local header="$1" flags="$2" i
  printf '#include "%s"\nint main() {}\n' "$header" >"$work/tu.cpp"
  local samples=()
  for ((i = 0; i < runs; ++i)); do
    # shellcheck disable=SC2086  # flags is a list of words on purpose
    "$timer" -f "%U %S %M" -o "$work/time.txt" \
      "$cxx" -std=c++20 -O3 -DNDEBUG $flags -I"$root/include" -c "$work/tu.cpp" -o "$work/tu.o"
    samples+=("$(awk '{ printf "%.2f %.0f\n", $1 + $2, $3 / 1024 }' "$work/time.txt")")
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2)'
}

printf '%-38s %-30s %8s %8s %7s %s\n' "header" "flags" "cpu_s" "target" "peak_MB" "verdict"
failed=0
for row in "${rows[@]}"; do
  IFS='|' read -r header target flags <<<"$row"
  read -r cpu mb <<<"$(measure "$header" "$flags")"
  verdict="ok"
  if awk -v c="$cpu" -v t="$target" 'BEGIN { exit !(c > t) }'; then
    verdict="OVER"
    failed=1
  fi
  printf '%-38s %-30s %8s %8s %7s %s\n' "$header" "${flags:--}" "$cpu" "<= $target" "$mb" "$verdict"
done
printf '\n%s, %d runs per header (median), %s\n' "$("$cxx" --version | head -n 1)" "$runs" \
  "$(nproc) CPUs"
exit "$failed"
