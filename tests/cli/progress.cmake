# Progress lines of long runs (--progress, --no-progress), the memory guard
# (--max-memory) and plan --empty. Included from tests/cli/CMakeLists.txt.
#
# Progress lines are deterministic here: RAILYARD_PROGRESS_INTERVAL=0 (set on
# the tests below that need it) drops the 2 s delay and the 2 s interval, so
# every update the library reports becomes a line; ctest's stderr is not a
# terminal, so lines appear only with --progress. Expected counts by hand:
#
#   rail_fat_tree:hosts=8,hosts_per_su=8, job ep=64 (8 hosts x 8 GPUs):
#     pairwise all-to-all, n - 1 = 63 distinct steps; the memory estimate holds
#     64 x 63 = 4,032 stored transfers and 64 flows a step.
#   --generate permutation on the same cluster: 64 flows (every GPU sends one).
#   plan --empty, job a:tp=8,dp=4 on rail_fat_tree:hosts=64: stages = cc (1) +
#     dp and tp all-reduce x naive, railyard, bound (6) + tuner rules (1) +
#     isolation (1) = 9, the tuner stage noting its 2 x 4 = 8 simulations (ring
#     and tree at four sizes); no background, so first_fit takes hosts 0-3 (SU map
#     AAAA then free) and the report says the cluster is empty.

set(_small "rail_fat_tree:hosts=8,hosts_per_su=8")
set(_a2a ARGS simulate --cluster ${_small} --job ep=64 --collective alltoall --bytes 64MiB)

railyard_add_cli_test(
  NAME progress.simulate_lines
  ${_a2a} --progress
  STDOUT_REGEX "routing ecmp" "63 steps"
  STDERR_REGEX
    "^simulate: memory ~[0-9.]+ [kMG]?B estimated .4,032 stored transfers, 64 flows in the largest step., [0-9.]+ [kMG]?B available .MemAvailable"
    "\nsimulate: 0 of 63 steps done .0 %., 0 s\n"
    "\nsimulate: 62 of 63 steps done .98 %., "
    "\nsimulate: 63 of 63 steps done .100 %., [0-9]+ s\n$")
railyard_add_cli_test(
  NAME progress.simulate_quiet_by_default
  ${_a2a}
  STDOUT_REGEX "63 steps"
  STDERR_REGEX "^$")
railyard_add_cli_test(
  NAME progress.simulate_no_progress_wins
  ${_a2a} --progress --no-progress
  STDOUT_REGEX "63 steps"
  STDERR_REGEX "^$")
railyard_add_cli_test(
  NAME progress.traffic_lines
  ARGS simulate --cluster ${_small} --generate permutation --bytes 1MB --progress
  STDOUT_REGEX "64 flows"
  STDERR_REGEX "^simulate: memory ~[0-9.]+ [kMG]?B estimated .64 QP flows."
               "\nsimulate: 64 of 64 flows done .100 %., [0-9]+ s\n$")
railyard_add_cli_test(
  NAME progress.plan_lines
  ARGS plan --cluster rail_fat_tree:hosts=64 --jobs a:tp=8,dp=4 --empty --progress
  STDOUT_REGEX "1 of 1 jobs placed"
  STDERR_REGEX "^plan: 0 of 9 stages done .0 %., 0 s. deriving congestion control for a\n"
               "\nplan: 1 of 9 stages done .11 %., [0-9]+ s, ~[0-9]+ s left. simulating a dp allreduce .naive.\n"
               "\nplan: 7 of 9 stages done .77 %., [0-9]+ s, ~[0-9]+ s left. deriving tuner rules for a .dp allreduce: 8 of 8 simulations.\n"
               "\nplan: 9 of 9 stages done .100 %., [0-9]+ s\n$")
railyard_add_cli_test(
  NAME progress.plan_quiet_by_default
  ARGS plan --cluster rail_fat_tree:hosts=64 --jobs a:tp=8,dp=4 --empty
  STDOUT_REGEX "1 of 1 jobs placed"
  STDERR_REGEX "^$")
set_tests_properties(
  cli.progress.simulate_lines cli.progress.simulate_quiet_by_default
  cli.progress.simulate_no_progress_wins cli.progress.traffic_lines cli.progress.plan_lines
  cli.progress.plan_quiet_by_default
  PROPERTIES ENVIRONMENT "RAILYARD_PROGRESS_INTERVAL=0")

# Without the knob a run this short ends before the 2 s delay: nothing.
railyard_add_cli_test(
  NAME progress.short_run_says_nothing
  ${_a2a} --progress
  STDOUT_REGEX "63 steps"
  STDERR_REGEX "^$")

# The memory guard: the estimate, its terms, the limit and what to do.
railyard_cli_error_test(
  NAME progress.memory_guard_collective
  ${_a2a} --max-memory 1KiB
  STDERR_REGEX "^railyard: --max-memory=1KiB: simulate needs about [0-9.]+ kB .4,032 stored transfers, 64 flows in the largest step., more than this limit of 1.0 kB"
               "--group" "raise --max-memory")
railyard_cli_error_test(
  NAME progress.memory_guard_traffic
  ARGS simulate --cluster ${_small} --generate permutation --bytes 1MB --max-memory 1KiB
  STDERR_REGEX "^railyard: --max-memory=1KiB: simulate needs about [0-9.]+ kB .64 QP flows., more than this limit of 1.0 kB")
railyard_cli_error_test(
  NAME progress.memory_guard_bad_size
  ${_a2a} --max-memory 0
  STDERR_REGEX "^railyard: --max-memory=0: ")
railyard_add_cli_test(
  NAME progress.memory_guard_passes
  ${_a2a} --max-memory 1GiB
  STDOUT_REGEX "63 steps")
railyard_cli_error_test(
  NAME progress.max_memory_not_for_plan
  ARGS plan --max-memory 1GiB
  STDERR_REGEX "plan: flag --max-memory does not apply")

# plan --empty: no background, the job on the first hosts.
railyard_add_cli_test(
  NAME progress.plan_empty
  ARGS plan --cluster rail_fat_tree:hosts=64 --jobs a:tp=8,dp=4 --empty
  STDOUT_REGEX "\nbusy +0 hosts: an empty cluster .--empty: no background jobs.. 64 hosts free\n"
               "\n  su0 +AAAA\\.+  AAAA\\.+\n" "1 of 1 jobs placed")
railyard_add_cli_test(
  NAME progress.plan_empty_json
  ARGS plan --cluster rail_fat_tree:hosts=64 --jobs a:tp=8,dp=4 --empty --json
  STDOUT_REGEX "\"source\": \"--empty: no background jobs\"" "\"trace_jobs\": 0")
railyard_cli_error_test(
  NAME progress.plan_empty_and_trace
  ARGS plan --empty --trace ${CMAKE_CURRENT_SOURCE_DIR}/../data/job_trace.csv
  STDERR_REGEX "^railyard: plan: give --empty .no background jobs. or --trace FILE, not both\n$")
