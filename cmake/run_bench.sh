#!/usr/bin/env bash
# cmake/run_bench.sh — build every railyard benchmark (Release, build-bench/),
# run each with repetitions and print one summary table: benchmark, target
# (from the issues), median CPU and wall time, growth (the fitted complexity of
# the family) and counters.
#
#   bash cmake/run_bench.sh                  # everything, ~2-3 minutes
#   bash cmake/run_bench.sh 'PathCount'      # only benchmarks matching a regex
#
# Environment:
#   RAILYARD_BENCH_DIR          build directory          (default: <repo>/build-bench)
#   RAILYARD_BENCH_REPETITIONS  repetitions per run      (default: 5)
#   RAILYARD_BENCH_MIN_TIME     seconds per repetition   (default: 0.2)
#   RAILYARD_BENCH_CPU          pin to this CPU with taskset, e.g. 1 (default: no pinning)
#
# Raw results (console text and JSON, one pair per executable) are kept in
# <build>/bench-results/ for comparisons between runs.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RAILYARD_BENCH_DIR:-$root/build-bench}"
repetitions="${RAILYARD_BENCH_REPETITIONS:-5}"
min_time="${RAILYARD_BENCH_MIN_TIME:-0.2}"
cpu="${RAILYARD_BENCH_CPU:-}"
filter="${1:-}"

mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAILYARD_BUILD_BENCH=ON \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target railyard_bench

results="$build/bench-results"
mkdir -p "$results"
pin=()
if [[ -n "$cpu" ]]; then pin=(taskset -c "$cpu"); fi

# One executable per bench/**/<name>_bench.cpp, as bench/CMakeLists.txt builds them.
mapfile -t sources < <(cd "$root/bench" && find . -name '*_bench.cpp' | sort)
jsons=()
for source in "${sources[@]}"; do
  name="$(basename "$source" .cpp)"
  exe="$build/bench/$name"
  if [[ ! -x "$exe" ]]; then
    echo "run_bench: $exe was not built" >&2
    exit 1
  fi
  echo "-- running $name"
  args=(--benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true
        --benchmark_min_time="$min_time"
        --benchmark_out="$results/$name.json" --benchmark_out_format=json)
  if [[ -n "$filter" ]]; then args+=(--benchmark_filter="$filter"); fi
  "${pin[@]}" "$exe" "${args[@]}" >"$results/$name.txt" 2>&1 || {
    cat "$results/$name.txt"
    exit 1
  }
  jsons+=("$results/$name.json")
done

if ! command -v python3 >/dev/null; then
  echo "run_bench: python3 not found; raw results:" >&2
  cat "$results"/*.txt
  exit 0
fi

python3 - "${jsons[@]}" <<'PY'
import json
import re
import sys


NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def fmt_time(value, unit):
    ns = value * NS[unit]
    for u in ("s", "ms", "us"):
        if ns >= NS[u]:
            return f"{ns / NS[u]:.3g} {u}"
    return f"{ns:.3g} ns"


def fmt(v):
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e9:
        return f"{v / 1e9:.3g}G"
    if a >= 1e6:
        return f"{v / 1e6:.3g}M"
    if a >= 1e4:
        return f"{v / 1e3:.3g}k"
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.3g}"


# Targets set by the issues, by benchmark name (regex over the run name).
TARGETS = [
    (r"BM_Fabric_Materialize(Cold)?/131072", "<= 100 ms, 256 MB"),
    (r"BM_Descriptor_(LeafOf|SuOf|PathCount).*", "<= 5 ns, 0 alloc"),
    (r"BM_Ordering_OrderRanks/131072", "<= 20 ms"),
    (r"BM_Allocator_Replay<.*", "<= 100 us/op"),
    (r"BM_Spray_SourcePort/.*", "<= 20 ns, 0 alloc"),
    (r"BM_Collective_RingAllReduce/1024", "<= 50 ms"),
    (r"BM_(Collective_AllToAll(Step|Pairwise)(Ecmp)?|FlowSim_AllToAllStep)/1024", "<= 5 s"),
    (r"BM_Collective_RingStepEcmp(Interleaved)?/32768", "<= 2 s"),
    (r"BM_Tuner_GetCollInfo/.*", "<= 100 ns, 0 alloc"),
    (r"BM_Advisor_(SourcePort|FlowLabel|SourcePortC|SourcePortDuringConnect)(/.*)?", "<= 20 ns, 0 alloc"),
]


def target_of(run_name):
    for pattern, text in TARGETS:
        if re.fullmatch(pattern, run_name):
            return text
    return ""


standard = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
            "repetitions", "repetition_index", "threads", "aggregate_name", "aggregate_unit",
            "iterations", "real_time", "cpu_time", "time_unit", "error_occurred",
            "error_message", "items_per_second", "bytes_per_second", "label"}
rows = []
growth = {}
context = None
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        continue  # the filter matched nothing in this executable: no JSON written
    context = context or data["context"]
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            rows.append((b["run_name"], "skipped", "", "", b.get("error_message", "")))
            continue
        agg = b.get("aggregate_name")
        if agg == "BigO":
            coef = fmt_time(b["cpu_coefficient"], b["time_unit"])
            big_o = b["big_o"]
            growth[b["run_name"]] = f"O(1) {coef}" if big_o == "(1)" else f"O({big_o}) {coef}*{big_o}"
        if agg != "median" and b.get("run_type") != "iteration":
            continue
        unit = b["time_unit"]
        counters = " ".join(f"{k}={fmt(v)}" for k, v in sorted(b.items()) if k not in standard)
        rows.append((b["run_name"], fmt_time(b["cpu_time"], unit), fmt_time(b["real_time"], unit),
                     b["family_index"], counters))

w = max([len(r[0]) for r in rows] + [9])
print()
print(f"{'benchmark':<{w}}  {'target':<18}  {'median cpu':>12}  {'median wall':>12}  "
      f"{'growth':<18}  counters")
print("-" * (w + 82))
for r in rows:
    base = r[0].split("/")[0]
    # The family's fitted growth, on each of its rows: "O(1) c" or "O(f) c*f".
    gtxt = growth.get(base, "")
    print(f"{r[0]:<{w}}  {target_of(r[0]):<18}  {r[1]:>12}  {r[2]:>12}  {gtxt:<18}  {r[4]}")
if context:
    print()
    print(f"{context['date']}  {context['num_cpus']} CPUs @ {context['mhz_per_cpu']} MHz  "
          f"load {' '.join(f'{x:.2f}' for x in context.get('load_avg', []))}")
PY
