#!/bin/sh
# Every doctest case must reach CTest as one test. doctest_discover_tests
# registers each case as `railyard_tests --test-case=<name>` and escapes commas,
# but a ';' is CMake's list separator: the name splits into two CTest tests
# whose filters match no case, and doctest passes with nothing run. Found on
# 21 cases that CTest had never run; this check keeps it from coming back.
#   check_case_names.sh <railyard_tests>
set -u
list=$("$1" --list-test-cases) || { echo "check_case_names: $1 --list-test-cases failed"; exit 2; }
count=$(printf '%s\n' "${list}" | grep -c 'test cases passing the current filters' || true)
if [ "${count}" -ne 1 ]; then
  echo "check_case_names: no case list from $1"
  exit 2
fi
bad=$(printf '%s\n' "${list}" | grep ';' || true)
if [ -n "${bad}" ]; then
  echo "check_case_names: test case names with ';' (CTest splits them and runs nothing):"
  printf '%s\n' "${bad}"
  exit 1
fi
cases=$(printf '%s\n' "${list}" | sed -n 's/.*test cases passing the current filters: *\([0-9]*\).*/\1/p')
echo "check_case_names: ${cases} case names, none with ';'"
