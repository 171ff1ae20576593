#!/usr/bin/env bash
# railyard quick start, for a fresh Debian 12.
#
#   bash cmake/quickstart.sh main   build the CLI (Release, build/) and run the main job
#   bash cmake/quickstart.sh test   build everything with warnings as errors (build/),
#                                   run the test suite, build and test again under
#                                   ASan+UBSan (build-asan/), run the path advisor's
#                                   concurrency tests under TSan (build-tsan/), then fuzz every input
#                                   boundary for a bounded time with clang's libFuzzer
#                                   (build-fuzz/, cmake/fuzz.sh)
#
# Missing Debian packages are installed when running as root; otherwise the
# script names them and stops. In test mode, as root, it also tries to install
# Slurm's controller, node daemon and munge for the real-Slurm checks
# (tests/slurm), Go for the cgo example (examples/go), and pybind11 and PyTorch
# for the Python package and its real torchrun test (tests/python), and ip(8)
# for the net plugin's network-namespace test (tests/plugin); if that
# fails the script goes on and those tests report
# themselves skipped.
set -euo pipefail

# The main job's subcommand: `railyard plan`, the whole pipeline on the embedded
# tenant mix (the README's first command).
RAILYARD_MAIN_JOB="plan"

readonly MAIN_PACKAGES=(g++ cmake make libabsl-dev)
# clang and its runtime (libFuzzer, sanitizers) for the fuzzing pass;
# rsvg-convert (librsvg2-bin) renders heat maps to PNG for heat.render.
readonly TEST_PACKAGES=(doctest-dev libbenchmark-dev clang libclang-rt-14-dev librsvg2-bin)
# Seconds each fuzz target runs in the test pass (cmake/fuzz.sh runs two at a time).
RAILYARD_CI_FUZZ_SECONDS="${RAILYARD_CI_FUZZ_SECONDS:-12}"
# Optional: slurmctld, slurmd, scontrol/srun/sbatch and munged for tests/slurm.
readonly SLURM_TEST_PACKAGES=(slurmctld slurmd slurm-client munge)
# Optional: Go for examples/go, the cgo program over the C API (c.go_example is
# skipped without it).
readonly GO_TEST_PACKAGES=(golang-go)
# Optional: the Python package (pybind11, Python's headers), and PyTorch for its
# real torchrun test (tests/python; python3-torch is ~50 MB to download).
readonly PYTHON_TEST_PACKAGES=(python3-dev pybind11-dev python3-pybind11)
readonly TORCH_TEST_PACKAGES=(python3-torch)
# Optional: ip(8) for the net plugin's run between network namespaces joined by
# a veth pair (tests/plugin/net_namespaces.sh; skipped without it).
readonly NETNS_TEST_PACKAGES=(iproute2)

usage() {
  echo "usage: bash cmake/quickstart.sh main|test" >&2
  exit 2
}

[[ $# -eq 1 ]] || usage
mode="$1"
case "${mode}" in
  main) packages=("${MAIN_PACKAGES[@]}") ;;
  test) packages=("${MAIN_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  *) usage ;;
esac

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"

# --- Debian packages -------------------------------------------------------
# missing_packages <pkg>...: prints, space-separated, those not installed.
missing_packages() {
  local pkg status out=()
  for pkg in "$@"; do
    status="$(dpkg-query -W -f='${db:Status-Status}' "${pkg}" 2>/dev/null || true)"
    [[ "${status}" == "installed" ]] || out+=("${pkg}")
  done
  echo "${out[*]}"
}

ensure_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "quickstart: dpkg-query not found; not checking for Debian packages" >&2
    return 0
  fi
  local missing=()
  read -r -a missing <<<"$(missing_packages "$@")"
  [[ ${#missing[@]} -eq 0 ]] && return 0

  if [[ "$(id -u)" -eq 0 ]]; then
    echo "quickstart: installing ${missing[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  else
    printf 'railyard needs these Debian packages: %s\nInstall them with: sudo apt-get install %s\n' \
      "${missing[*]}" "${missing[*]}" >&2
    exit 1
  fi
}

ensure_packages "${packages[@]}"

optional_index_updated=0
# try_packages <purpose> <pkg>...: like ensure_packages, but for optional
# packages: a failed install, or not being root, only prints a note.
try_packages() {
  local purpose="$1"
  shift
  command -v dpkg-query >/dev/null 2>&1 || return 0
  local missing=()
  read -r -a missing <<<"$(missing_packages "$@")"
  [[ ${#missing[@]} -eq 0 ]] && return 0

  if [[ "$(id -u)" -eq 0 ]]; then
    echo "quickstart: installing ${missing[*]} (optional, for ${purpose})"
    # One index update for all the optional groups.
    if [[ "${optional_index_updated}" -eq 1 ]] || apt-get update; then
      optional_index_updated=1
      if DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}"; then
        return 0
      fi
    fi
    echo "quickstart: could not install ${missing[*]}; ${purpose} will be skipped" >&2
  else
    echo "quickstart: ${missing[*]} not installed; ${purpose} will be skipped" \
      "(sudo apt-get install ${missing[*]} to run them)" >&2
  fi
}

if [[ "${mode}" == "test" ]]; then
  try_packages "the real-Slurm checks" "${SLURM_TEST_PACKAGES[@]}"
  try_packages "the Go example" "${GO_TEST_PACKAGES[@]}"
  try_packages "the Python tests" "${PYTHON_TEST_PACKAGES[@]}"
  try_packages "the torchrun test" "${TORCH_TEST_PACKAGES[@]}"
  try_packages "the net plugin's namespace test" "${NETNS_TEST_PACKAGES[@]}"
fi

# --- Build helpers ---------------------------------------------------------
jobs="$(nproc 2>/dev/null || echo 2)"

generator_args=()
if command -v ninja >/dev/null 2>&1; then
  generator_args=(-G Ninja)
fi

# configure <build-dir> <cmake args...>: a build dir keeps the generator it was
# first configured with, so only pass -G for a fresh one.
configure() {
  local dir="$1"
  shift
  if [[ -f "${dir}/CMakeCache.txt" ]]; then
    cmake -S . -B "${dir}" "$@"
  else
    cmake -S . -B "${dir}" "${generator_args[@]}" "$@"
  fi
}

# --- main ------------------------------------------------------------------
if [[ "${mode}" == "main" ]]; then
  configure build \
    -DCMAKE_BUILD_TYPE=Release \
    -DRAILYARD_BUILD_TESTS=OFF \
    -DRAILYARD_BUILD_EXAMPLES=ON \
    -DRAILYARD_BUILD_BENCH=OFF \
    -DRAILYARD_WERROR=OFF \
    -DRAILYARD_SANITIZE=OFF
  cmake --build build --target railyard_cli -j "${jobs}"
  echo "+ ./build/examples/railyard ${RAILYARD_MAIN_JOB}"
  exec ./build/examples/railyard "${RAILYARD_MAIN_JOB}"
fi

# --- test ------------------------------------------------------------------
summary=()
failed=0

# run_pass <name> <build-dir> <ctest args> <build targets> -- <cmake configure args...>
# (empty build targets: everything)
run_pass() {
  local name="$1" dir="$2" ctest_extra="$3" targets="$4"
  shift 5
  local log="${dir}/quickstart-ctest.log"
  echo
  echo "=== ${name}: configure and build in ${dir}/"
  if ! configure "${dir}" "$@"; then
    summary+=("${name}: configure FAILED")
    failed=1
    return 0
  fi
  local target_args=()
  for target in ${targets}; do target_args+=(--target "${target}"); done
  if ! cmake --build "${dir}" -j "${jobs}" "${target_args[@]}"; then
    summary+=("${name}: build FAILED")
    failed=1
    return 0
  fi
  echo "=== ${name}: ctest"
  # shellcheck disable=SC2086  # ctest_extra is a list of words on purpose
  if ctest --test-dir "${dir}" --output-on-failure -j "${jobs}" ${ctest_extra} 2>&1 | tee "${log}"; then
    summary+=("${name}: $(grep -E 'tests passed' "${log}" | tail -n 1 || true)")
  else
    summary+=("${name}: $(grep -E 'tests passed|tests failed' "${log}" | tail -n 1 || true)")
    while IFS= read -r line; do
      summary+=("    ${line}")
    done < <(sed -n '/The following tests FAILED/,$p' "${log}" | grep -E '^[[:space:]]+[0-9]+ - ' || true)
    failed=1
  fi
}

run_pass "warnings-as-errors" build "" "" -- \
  -DCMAKE_BUILD_TYPE=Release \
  -DRAILYARD_BUILD_TESTS=ON \
  -DRAILYARD_BUILD_EXAMPLES=ON \
  -DRAILYARD_BUILD_BENCH=ON \
  -DRAILYARD_WERROR=ON \
  -DRAILYARD_SANITIZE=OFF

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Under ASan+UBSan: not the header check (a compile-only check the first pass
# ran), not the CLI runs labelled long_simulation (the cc --simulate search,
# 30-50 s each instrumented; its code runs instrumented in the library tests and
# in the cli.cc_simulate_json/_svg runs), not those labelled optimized_only (the
# README's examples, whose commands the cli.* tests run instrumented), and a
# quarter of each random sweep (tests/support/budget.hpp). Not the C API
# (librailyard_c.so, ~100 s of compiling for one translation unit): it is glue
# over code these tests instrument, and the optimized pass tests it.
# Compiled at -Og with line tables only (-g1, enough for the sanitizers'
# symbolized reports): against plain Debug (-O0 -g) a test file took 11 % longer
# to compile and its tests ran 4.5x faster (the folded-vs-unfolded simulation
# check: 21 s against 95 s instrumented). Assertions stay on.
run_pass "asan+ubsan" build-asan "-LE packaging|long_simulation|optimized_only" "" -- \
  -DCMAKE_BUILD_TYPE=Debug \
  "-DCMAKE_CXX_FLAGS_DEBUG=-Og -g1" \
  "-DCMAKE_C_FLAGS_DEBUG=-Og -g1" \
  -DRAILYARD_HEADER_CHECK=OFF \
  -DRAILYARD_BUILD_C_API=OFF \
  -DRAILYARD_BUILD_TESTS=ON \
  -DRAILYARD_BUILD_EXAMPLES=ON \
  -DRAILYARD_BUILD_BENCH=OFF \
  -DRAILYARD_WERROR=ON \
  -DRAILYARD_SANITIZE=ON

# ThreadSanitizer on what runs concurrently: the path advisor (lock-free lookups
# while connects publish) and its C API's per-thread errors.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"
run_pass "tsan (path advisor)" build-tsan "-R ^advisor" railyard_tests -- \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRAILYARD_BUILD_TESTS=ON \
  -DRAILYARD_BUILD_EXAMPLES=OFF \
  -DRAILYARD_BUILD_BENCH=OFF \
  -DRAILYARD_WERROR=ON \
  -DRAILYARD_SANITIZE=OFF \
  -DRAILYARD_TSAN=ON \
  "-DRAILYARD_TEST_ONLY=plugin/advisor_test"

echo
echo "=== fuzz: every target ${RAILYARD_CI_FUZZ_SECONDS} s (clang, libFuzzer, ASan+UBSan) in build-fuzz/"
mkdir -p build-fuzz
fuzz_log="build-fuzz/quickstart-fuzz.log"
if RAILYARD_FUZZ_DIR="${repo_root}/build-fuzz" bash cmake/fuzz.sh "${RAILYARD_CI_FUZZ_SECONDS}" 2>&1 |
  tee "${fuzz_log}"; then
  summary+=("fuzz: $(grep -cE ' ok$' "${fuzz_log}" || true) targets ran ${RAILYARD_CI_FUZZ_SECONDS} s each without a finding")
else
  summary+=("fuzz: FAILED")
  while IFS= read -r line; do
    summary+=("    ${line}")
  done < <(grep -E 'FAILED \(exit' "${fuzz_log}" || true)
  failed=1
fi

echo
echo "=== railyard test summary"
for line in "${summary[@]}"; do
  echo "  ${line}"
done
if [[ ${failed} -ne 0 ]]; then
  echo "FAILED" >&2
  exit 1
fi
echo "all passed"
