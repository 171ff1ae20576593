# Numeric checks of railyard's JSON and CSV output on clusters with a partial
# last SU or pod (tests/cli/partial_su.cmake runs it once per CHECK):
#
#   cmake -DRAILYARD=<railyard> -DCHECK=<name> -P partial_su_check.cmake
#
# Regexes cannot say "at least"; this script reads the numbers (string(JSON))
# and compares them with the hand computations in partial_su.cmake's header.

if(NOT RAILYARD OR NOT CHECK)
  message(FATAL_ERROR "partial_su_check: -DRAILYARD=<program> and -DCHECK=<name> are required")
endif()

set(_c2 "rail_fat_tree:hosts=100")
set(_c3 "rail_fat_tree:hosts=70,hosts_per_su=16,tiers=3,sus_per_pod=2")

# Runs railyard with the given arguments; its stdout in ${out_var}, exit status 0 required.
function(run out_var)
  execute_process(COMMAND "${RAILYARD}" ${ARGN}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "railyard ${ARGN}: exit ${rc}: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# expect_eq(<json> <expected> <key>...): the JSON value at the key path equals expected.
function(expect_eq json expected)
  string(JSON value GET "${json}" ${ARGN})
  if(NOT value EQUAL expected)
    message(FATAL_ERROR "${ARGN}: ${value}, expected ${expected}")
  endif()
endfunction()

# A ring all-reduce of S bytes over k hosts of 8 x 400 Gb/s NICs crosses
# 2(k-1)S bytes through the hosts' k x 8 x 400 Gb/s of injection: the bound in
# microseconds as a decimal string (integer arithmetic: bits over bits per ns).
function(ring_bound_us out_var hosts bytes)
  math(EXPR bits "2 * (${hosts} - 1) * ${bytes} * 8")
  math(EXPR ns "${bits} / (${hosts} * 8 * 400)")
  math(EXPR whole "${ns} / 1000")
  math(EXPR frac "${ns} % 1000")
  string(LENGTH "${frac}" n)
  while(n LESS 3)
    string(PREPEND frac "0")
    string(LENGTH "${frac}" n)
  endwhile()
  set(${out_var} "${whole}.${frac}" PARENT_SCOPE)
endfunction()

# simulate: a ring all-reduce of 1 GiB on every GPU; its time is finite, at
# least the hand bound, and the reported lower bound is that bound.
function(check_simulate cluster hosts)
  math(EXPR gpus "${hosts} * 8")
  run(json simulate --cluster ${cluster} --collective allreduce --bytes 1GiB --job dp=${gpus}
      --algorithm ring --json)
  ring_bound_us(bound ${hosts} 1073741824)
  expect_eq("${json}" ${gpus} ranks)
  string(JSON time GET "${json}" time_us)
  string(JSON lower GET "${json}" lower_bound_us)
  if(NOT time MATCHES "^[0-9.]+$")
    message(FATAL_ERROR "time_us is not a finite number: ${time}")
  endif()
  if(time LESS bound)
    message(FATAL_ERROR "time_us ${time} below the ring bound ${bound} us")
  endif()
  # The reported bound agrees with the hand one to the microsecond.
  string(REGEX REPLACE "\\..*$" "" lower_whole "${lower}")
  string(REGEX REPLACE "\\..*$" "" bound_whole "${bound}")
  if(NOT lower_whole EQUAL bound_whole)
    message(FATAL_ERROR "lower_bound_us ${lower}, hand bound ${bound}")
  endif()
  message(STATUS "${cluster}: time_us ${time} >= bound ${bound} (reported ${lower})")
endfunction()

if(CHECK STREQUAL "describe")
  # 4 SUs (the last with 4 hosts), cabled as 4 full SUs: 32 leaves x (32 down +
  # 32 up), 16 spines; 800 host ports used, so 8 leaves x 28 ports stay free;
  # hosts 0-49 against 50-99 on a non-blocking fabric: 50 x 8 x 400 Gb/s.
  run(json describe --cluster ${_c2} --json)
  expect_eq("${json}" 100 hosts)
  expect_eq("${json}" 4 sus)
  expect_eq("${json}" 32 switches leaf)
  expect_eq("${json}" 16 switches spine)
  expect_eq("${json}" 800 ports leaf down)
  expect_eq("${json}" 1024 ports leaf up)
  expect_eq("${json}" 224 ports leaf free)
  expect_eq("${json}" 800 links host_leaf)
  expect_eq("${json}" 3648 transceivers)
  expect_eq("${json}" 160000 bisection_gbps)
elseif(CHECK STREQUAL "describe_pod")
  # 5 SUs of 16 (the last with 6) in pods of 2: 3 pods, the last with one SU.
  # 40 leaves x 16 up; 8 spines per pod (16 leaves x 16 / 32 down ports), 24 in
  # all, 32 up each; the last pod's spines miss 8 x 16 leaf cables: 8 x 16 free.
  # Cores: G = ceil(3 x 32 / 64) = 2 per spine index, 16 in all. Bisection:
  # 35 hosts x 8 x 400 Gb/s.
  run(json describe --cluster ${_c3} --json)
  expect_eq("${json}" 70 hosts)
  expect_eq("${json}" 5 sus)
  expect_eq("${json}" 3 pods)
  expect_eq("${json}" 40 switches leaf)
  expect_eq("${json}" 24 switches spine)
  expect_eq("${json}" 16 switches core)
  expect_eq("${json}" 640 ports spine down)
  expect_eq("${json}" 128 ports spine free)
  expect_eq("${json}" 560 links host_leaf)
  expect_eq("${json}" 112000 bisection_gbps)
elseif(CHECK STREQUAL "simulate")
  check_simulate(${_c2} 100)
elseif(CHECK STREQUAL "simulate_pod")
  check_simulate(${_c3} 70)
elseif(CHECK STREQUAL "place_json")
  # A 4-host job best-fits the partial SU exactly; a 5-host one cannot go there.
  # (Called directly: the ';' of the job list would split run()'s argument list.)
  execute_process(COMMAND "${RAILYARD}" place --cluster ${_c2} --jobs "small:gpus=32;five:gpus=40"
                          --json
    OUTPUT_VARIABLE json RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "railyard place: exit ${rc}")
  endif()
  expect_eq("${json}" 96 jobs 0 hosts 0)
  expect_eq("${json}" 99 jobs 0 hosts 3)
  expect_eq("${json}" 3 jobs 0 sus 0)
  expect_eq("${json}" 0 jobs 1 sus 0)
  expect_eq("${json}" 0 fragmentation free_hosts_per_su 3)
  expect_eq("${json}" 27 fragmentation free_hosts_per_su 0)
  string(JSON n LENGTH "${json}" fragmentation free_hosts_per_su)
  expect_eq("${json}" 91 free_hosts)
  if(NOT n EQUAL 4)
    message(FATAL_ERROR "free_hosts_per_su has ${n} SUs, expected 4")
  endif()
elseif(CHECK STREQUAL "csv")
  # One row per existing host, nothing for the partial SU's missing 28.
  run(csv export --cluster ${_c2} --format csv)
  string(REGEX MATCHALL "\n" rows "${csv}")
  list(LENGTH rows n)
  if(NOT n EQUAL 101)
    message(FATAL_ERROR "csv: ${n} lines, expected a header and 100 hosts")
  endif()
  if(csv MATCHES "node0100")
    message(FATAL_ERROR "csv names a host that does not exist: node0100")
  endif()
  run(csv3 export --cluster ${_c3} --format csv)
  string(REGEX MATCHALL "\n" rows "${csv3}")
  list(LENGTH rows n)
  if(NOT n EQUAL 71 OR NOT csv3 MATCHES "\nnode0069,su4,pod2,core\n$")
    message(FATAL_ERROR "csv (3 tiers): ${n} lines, expected 71 ending node0069,su4,pod2,core")
  endif()
else()
  message(FATAL_ERROR "partial_su_check: unknown CHECK '${CHECK}'")
endif()
