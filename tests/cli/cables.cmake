# Real fabrics from cable lists (--cables) and ibnetdiscover output
# (--ibnetdiscover) through every subcommand. Included from
# tests/cli/CMakeLists.txt. Expected facts are worked out by hand from the files:
#
#   tests/data/cables/rail-2su.csv: 2 SUs of 4 hosts (gpu01-gpu08), 4 rails
#     (eth0-eth3), leaf-s<SU>-r<rail>, each leaf one cable to each of 4 spines.
#     A leaf has 4 host ports and 4 uplinks (1:1), so the smallest radix is 8,
#     and 8 leaves x 4 uplinks / 8 ports = 4 spines: the design has 32 host and
#     32 leaf-spine cables, the file 63. Leaf l sends uplink j to spine
#     (4l + j) mod 4 = j.
#     missing:  leaf-s0-r0 (leaf 0) -- spine1: leaf0/0 is down.
#     miswired: gpu06 (host 5) eth1 sits on leaf-s1-r0: down where it belongs
#               (host 5 NIC 1 on leaf-s1-r1), and host 5 is drained.
#   Host 0 NIC 0 to host 4 NIC 0 crosses leaf 0 and leaf 4 (both rail 0): 4
#   spines, one lost with leaf0/0 -> 3 paths; --down leaf4/1 (leaf 4's uplink
#   to spine2) also -> spine3 and spine4 remain, 2 paths.
#   tests/data/cables/ib-2su.topo: 4 DGX hosts (dgx01-dgx04) with 2 HCAs each
#     (mlx5_0, mlx5_1), SUs of 2 on ib-leaf-0..3, each leaf one cable to each of
#     ib-spine-0 and ib-spine-1, NDR (400 Gb/s); ib-leaf-3's cable to ib-spine-1
#     is absent. 2 host ports + 2 uplinks -> radix 4, 4 leaves x 2 / 4 = 2 spines.

set(_cables "${PROJECT_SOURCE_DIR}/tests/data/cables/rail-2su.csv")
set(_ib "${PROJECT_SOURCE_DIR}/tests/data/cables/ib-2su.topo")
# The same cluster as rail-2su.csv without its two faults, for contrast.
set(_healthy "rail_fat_tree:hosts=8,nics_per_host=4,hosts_per_su=4,switch_radix=8")
set(_ib_healthy "rail_fat_tree:hosts=4,nics_per_host=2,hosts_per_su=2,switch_radix=4")

railyard_add_cli_test(
  NAME cables.describe
  ARGS describe --cables ${_cables}
  STDOUT_REGEX
    "fitted +--cables=[^\n]*rail-2su.csv: rail_fat_tree:hosts=8,gpus_per_host=8,nics_per_host=4,"
    "nic_gbps=400,hosts_per_su=4,switch_radix=8,oversub=1:1,tiers=2,"
    "\nfile +63 cables; the design has 64; 1 missing, 1 miswired, 0 extra, 0 slow\n"
    "\nmissing +leaf-s0-r0 uplink 0 -- spine1 .leaf0/0.: down\n"
    "\nmiswired +gpu06 eth1 -- leaf-s1-r0 swp9 .line 28.: belongs gpu06 eth1 -- leaf-s1-r1 .host 5 nic 1.: down there\n"
    "\ndrained +5 .gpu06.: "
    "\nhosts +0 gpu01, 1 gpu02, 2 gpu03, 3 gpu04, 4 gpu05, 5 gpu06, 6 gpu07, 7 gpu08\n"
    "\nleaf +8 +32 +32 +0 +1:1\n")
railyard_add_cli_test(
  NAME cables.describe_json
  ARGS describe --cables ${_cables} --json
  STDOUT_REGEX "\"missing\": 1," "\"miswired\": 1," "\"drained\": .\n +5\n"
               "\"expected_switch\": \"leaf-s1-r1\"")
# Hosts with a bad host cable get no job: b skips host 5; a job of all 8 hosts
# cannot be placed (7 in service).
railyard_add_cli_test(
  NAME cables.place
  ARGS place --cables ${_cables} --jobs "a:gpus=32;b:gpus=24"
  STDOUT_REGEX "a: 32 GPUs on hosts 0-3 " "b: 24 GPUs on hosts 4,6-7 " "su01 bxbb "
               "'x' drained" "\ndrained +hosts 5 .gpu06.")
railyard_add_cli_test(
  NAME cables.place_all_hosts
  ARGS place --cables ${_cables} --jobs "c:gpus=64"
  EXIT_CODE 3
  STDOUT_REGEX "c: 64 GPUs NOT PLACED: .*7 of 8 hosts free" "free hosts 7,")
railyard_add_cli_test(
  NAME cables.order
  ARGS order --cables ${_cables} --job tp=8,dp=4 --hosts 4-7
  STDOUT_REGEX "drained hosts in the job: 5 .gpu06." "the numbering is the same")
railyard_add_cli_test(
  NAME cables.spray
  ARGS spray --cables ${_cables} --src 0:0 --dst 4:0
  STDOUT_REGEX "3 usable paths over 3 first-hop uplinks"
               "gpu01:eth0 > leaf-s0-r0 > spine2 > leaf-s1-r0 > gpu05:eth0")
railyard_add_cli_test(
  NAME cables.spray_healthy
  ARGS spray --cluster ${_healthy} --src 0:0 --dst 4:0
  STDOUT_REGEX "4 usable paths over 4 first-hop uplinks")
railyard_add_cli_test(
  NAME cables.spray_with_down
  ARGS spray --cables ${_cables} --src 0:0 --dst 4:0 --down leaf4/1
  STDOUT_REGEX "2 usable paths over 2 first-hop uplinks")
# An all-to-all across both SUs: every leaf-spine link carries traffic on the
# healthy cluster, the missing cable's two links none.
railyard_add_cli_test(
  NAME cables.simulate
  ARGS simulate --cables ${_cables} --job tp=8,dp=7 --hosts 0-4,6,7 --collective alltoall
       --bytes 64MiB --routing adaptive
  STDOUT_REGEX "\nleaf_spine +([0-5][0-9]|6[0-2]) / 64 " "\nfailures +missing and miswired")
railyard_add_cli_test(
  NAME cables.simulate_healthy
  ARGS simulate --cluster ${_healthy} --job tp=8,dp=7 --hosts 0-4,6,7 --collective alltoall
       --bytes 64MiB --routing adaptive
  STDOUT_REGEX "\nleaf_spine +64 / 64 ")
# A job on the drained host: its NIC 1 has no working cable, so no path.
railyard_cli_error_test(
  NAME cables.simulate_drained_host
  ARGS simulate --cables ${_cables} --job tp=8,dp=2 --hosts 4,5 --collective allreduce
       --bytes 1MiB
  STDERR_REGEX "simulate: ")
railyard_add_cli_test(
  NAME cables.cc
  ARGS cc --cables ${_cables} --incast 4
  STDOUT_REGEX "1 missing and 1 miswired cables do not change these settings"
               "cluster +--cables=[^\n]*rail-2su.csv: 400 Gb/s links")
railyard_add_cli_test(
  NAME cables.plan
  ARGS plan --cables ${_cables} --empty --jobs "a:gpus=32,tp=8,dp=4;b:gpus=24,tp=8,dp=3"
  STDOUT_REGEX "\n  su1 +B#BB +B#BB\n" "2 of 2 jobs placed" "\ndrained +hosts 5 .gpu06."
               "in every simulation")
railyard_add_cli_test(
  NAME cables.export_hostfile
  ARGS export --cables ${_cables} --format hostfile --job tp=8,dp=2 --hosts 4,6
  STDOUT_REGEX "^(gpu05\n)+(gpu07\n)+$")
railyard_add_cli_test(
  NAME cables.export_slurm
  ARGS export --cables ${_cables} --format slurm-tree
  STDOUT_REGEX "\nSwitchName=su0 Nodes=gpu.01-04.\n" "\nSwitchName=su1 Nodes=gpu.05-08.\n")
railyard_add_cli_test(
  NAME cables.replay
  ARGS replay --cables ${_cables} --trace ${PROJECT_SOURCE_DIR}/tests/data/job_trace.csv
  STDOUT_REGEX "best_fit" "drained ones too")

# ibnetdiscover: the fit, and a simulation that loses one of ib-leaf-3's two uplinks.
railyard_add_cli_test(
  NAME cables.ib_describe
  ARGS describe --ibnetdiscover ${_ib}
  STDOUT_REGEX
    "rail_fat_tree:hosts=4,gpus_per_host=8,nics_per_host=2,nic_gbps=400,hosts_per_su=2,"
    "switch_radix=4,oversub=1:1,tiers=2,"
    "1 missing, 0 miswired, 0 extra, 0 slow"
    "hosts are the file's channel adapters .Ca.; NICs by port name: mlx5_0/1=0, mlx5_1/1=1"
    "\nmissing +ib-leaf-3 uplink 1 -- ib-spine-1 .leaf3/1.: down\n"
    "\nhosts +0 dgx01, 1 dgx02, 2 dgx03, 3 dgx04\n")
railyard_add_cli_test(
  NAME cables.ib_simulate
  ARGS simulate --ibnetdiscover ${_ib} --job tp=8,dp=4 --collective alltoall --bytes 64MiB
       --routing adaptive
  STDOUT_REGEX "\nleaf_spine +1[0-5] / 16 ")
# Slower than the same cluster without the fault: both runs, times compared.
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cli/check_slower.cmake" [=[
# cmake -DPROGRAM=<exe> -DSLOW=<a|b> -DFAST=<a|b> -P check_slower.cmake: the first
# run's "time_us" (simulate --json) must exceed the second's.
foreach(run IN ITEMS SLOW FAST)
  string(REPLACE "|" ";" args "${${run}}")
  execute_process(COMMAND "${PROGRAM}" ${args} --json OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${run} run exited with ${rc}")
  endif()
  if(NOT out MATCHES "\"time_us\": ([0-9.]+)")
    message(FATAL_ERROR "${run} run printed no time_us:\n${out}")
  endif()
  set(time_${run} "${CMAKE_MATCH_1}")
endforeach()
if(NOT time_SLOW GREATER time_FAST)
  message(FATAL_ERROR "with the fault ${time_SLOW} us, without ${time_FAST} us: not slower")
endif()
]=])
set(_ib_job "--job|tp=8,dp=4|--collective|alltoall|--bytes|64MiB|--routing|adaptive")
add_test(NAME cli.cables.ib_simulate_slower
  COMMAND "${CMAKE_COMMAND}" "-DPROGRAM=$<TARGET_FILE:railyard_cli>"
          "-DSLOW=simulate|--ibnetdiscover|${_ib}|${_ib_job}"
          "-DFAST=simulate|--cluster|${_ib_healthy}|${_ib_job}"
          -P "${CMAKE_CURRENT_BINARY_DIR}/cli/check_slower.cmake")
set_tests_properties(cli.cables.ib_simulate_slower PROPERTIES LABELS cli)

# Input errors name the flag, the line, the column and the token.
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cli/cables/bad_gbps.csv"
     "a_node,a_port,b_node,b_port,gbps\ngpu1,eth0,leaf1,swp1,400\ngpu2,eth0,leaf1,swp2,fast\n")
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cli/cables/two_host_types.csv"
     "h1,e0,l0,p1\nh1,e1,l1,p1\nh2,e0,l0,p2\nh3,e0,l0,p3\nh4,e0,l0,p4\n"
     "l0,u1,s0,p1\nl0,u2,s0,p2\nl0,u3,s0,p3\nl0,u4,s0,p4\nl0,u5,s0,p5\nl0,u6,s0,p6\n"
     "l1,u1,s0,p7\nl1,u2,s0,p8\nl1,u3,s0,p9\nl1,u4,s0,p10\nl1,u5,s0,p11\nl1,u6,s0,p12\n")
railyard_cli_error_test(
  NAME cables.error_bad_gbps
  ARGS describe --cables ${CMAKE_CURRENT_BINARY_DIR}/cli/cables/bad_gbps.csv
  STDERR_REGEX "--cables=[^ ]*bad_gbps.csv: line 3: gbps=fast: expected a whole number of Gb/s")
railyard_cli_error_test(
  NAME cables.error_with_cluster
  ARGS simulate --cables ${_cables} --cluster h100-1024 --job dp=2 --collective allreduce
       --bytes 1MiB
  STDERR_REGEX "give one of --cluster, --cables, --ibnetdiscover")
railyard_cli_error_test(
  NAME cables.error_irregular
  ARGS describe --cables ${CMAKE_CURRENT_BINARY_DIR}/cli/cables/two_host_types.csv
  STDERR_REGEX "hosts have different NIC counts: only 1 of 4 hosts have all 2 NIC ports")
railyard_cli_error_test(
  NAME cables.error_no_file
  ARGS order --cables ${CMAKE_CURRENT_BINARY_DIR}/cli/cables/absent.csv --job dp=2
  STDERR_REGEX "--cables=")
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/cli/cables/bad_line.topo"
     "Switch\t8 \"S-1\"\t\t# \"leaf1\" enhanced port 0 lid 1 lmc 0\nbogus line\n")
railyard_cli_error_test(
  NAME cables.error_ib_bad_line
  ARGS simulate --ibnetdiscover ${CMAKE_CURRENT_BINARY_DIR}/cli/cables/bad_line.topo --job dp=2
       --collective allreduce --bytes 1MiB
  STDERR_REGEX "--ibnetdiscover=[^ ]*bad_line.topo: line 2: row=bogus line: not an ibnetdiscover line")
# The file names the hosts: --node-pattern does not apply.
railyard_cli_error_test(
  NAME cables.error_node_pattern
  ARGS export --cables ${_cables} --format slurm-tree --node-pattern "n{host}"
  STDERR_REGEX "export: --node-pattern applies only to a cluster spec .an imported topology names")
