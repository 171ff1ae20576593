# Clusters with a partial last SU or pod (include/railyard/topology/shape.hpp)
# through every subcommand. Included from tests/cli/CMakeLists.txt; the numeric
# checks (at least, exactly) are in partial_su_check.cmake. Expected numbers are
# worked out by hand:
#
#   rail_fat_tree:hosts=100 (hosts_per_su=32): ceil(100/32) = 4 SUs, the last
#     with hosts 96-99. Every SU is cabled as a full one: 4 x 8 = 32 leaves with
#     32 down and 32 up ports, 32 x 32 / 64 = 16 spines. Host-leaf cables 800; the
#     partial SU's 8 leaves each leave 28 down ports free: 224. Bisection: hosts
#     0-49 against 50-99, non-blocking: 50 x 8 x 400 = 160000 Gb/s.
#     Host 99 on rail 3 is under leaf 3 x 8 + 3 = 27; host 0's leaf 3 reaches each
#     of the 16 spines over 2 cables, as does leaf 27: 16 x 2 x 2 = 64 paths.
#     A ring all-reduce of 1 GiB on all 800 GPUs (100 NVLink domains) crosses
#     2 x 99 x 2^30 B over 100 x 8 x 400 Gb/s: at least 5315.0 us.
#   rail_fat_tree:hosts=70,hosts_per_su=16,tiers=3,sus_per_pod=2: 5 SUs (the last
#     with hosts 64-69) in 3 pods (the last with SU 4 only). A pod's 16 leaves x
#     16 uplinks over spines of 32 down ports: 8 spines per pod, in the partial
#     pod too, with 16 of their 32 down ports free: 24 spines, 128 free ports.
#     Host 0 to host 69 crosses pods: 8 spines x 2 x 2 cables, then 2 cores of
#     16 cables from each spine: 32 x 2 x 16 x 16 = 16384 paths; spine 0 of pod 2
#     is spine 16, above leaf 4 x 8 = 32, and spine 0's core group is cores 0-1.
#     Ring bound:
#     2 x 69 x 2^30 B over 70 x 8 x 400 Gb/s = 5292.0 us.

set(_partial "rail_fat_tree:hosts=100")
set(_partial_pod "rail_fat_tree:hosts=70,hosts_per_su=16,tiers=3,sus_per_pod=2")

# describe: counts, free ports, what the partial SU and pod are.
railyard_add_cli_test(
  NAME partial_su.describe
  ARGS describe --cluster ${_partial}
  STDOUT_REGEX "\nhosts +100 x 8 GPUs = 800 GPUs"
               "\ngroups +4 SUs of 32 hosts \\(the last has 4\\), 1 pod,"
               "\nleaf +32 +800 +1024 +224 +0.781:1\n"
               "\nspine +16 +1024 +0 +0 "
               "host-leaf 800, leaf-spine 1024"
               "bisection 160 Tb/s"
               "\npartial +the last SU has 4 of 32 hosts; its leaves are cabled as in a full SU, "
               "each using 4 of its 32 down ports\n")
railyard_add_cli_test(
  NAME partial_su.describe_pod
  ARGS describe --cluster ${_partial_pod}
  STDOUT_REGEX "\ngroups +5 SUs of 16 hosts \\(the last has 6\\), 3 pods \\(the last has 1 of 2 SUs\\)"
               "\nspine +24 +640 +768 +128 "
               "\ncore +16 +768 +0 +256 "
               "bisection 112 Tb/s"
               "\npartial +the last pod has 1 of 2 SUs; its spines are those of a full pod")
railyard_add_cli_test(
  NAME partial_su.describe_tor
  ARGS describe --cluster tor_fat_tree:hosts=100
  STDOUT_REGEX "\nleaf +32 +800 +1024 +224 "
               "\\(1 of 8 ToR leaves hold hosts\\)")
add_test(NAME cli.partial_su.describe_json
  COMMAND ${CMAKE_COMMAND} -DRAILYARD=$<TARGET_FILE:railyard_cli> -DCHECK=describe
          -P ${CMAKE_CURRENT_SOURCE_DIR}/partial_su_check.cmake)
add_test(NAME cli.partial_su.describe_pod_json
  COMMAND ${CMAKE_COMMAND} -DRAILYARD=$<TARGET_FILE:railyard_cli> -DCHECK=describe_pod
          -P ${CMAKE_CURRENT_SOURCE_DIR}/partial_su_check.cmake)
railyard_cli_error_test(
  NAME partial_su.one_tier_refused
  ARGS describe --cluster=rail_only:hosts=20,tiers=1,hosts_per_su=32
  STDERR_REGEX "hosts_per_su=32: .*a one-tier cluster has no partial SU")

# order: the whole cluster, and a job over SU 2's last 6 hosts and the partial
# SU: each DP ring enters and leaves the partial SU once.
railyard_add_cli_test(
  NAME partial_su.order_all
  ARGS order --cluster ${_partial} --job tp=8,dp=100
  STDOUT_REGEX "^job +800 ranks on 100 hosts \\(0-99\\)\n" "most SUs spanned 4")
railyard_add_cli_test(
  NAME partial_su.order_span
  ARGS order --cluster ${_partial} --job tp=8,dp=10 --hosts 96,90,97,91,98,92,99,93,94,95
  STDOUT_REGEX "80 ranks on 10 hosts"
               "spine crossings per ring at most 2 \\(naive "
               "most SUs spanned 2")

# place: a 4-host job fits the partial SU exactly (best fit takes it); a 5-host
# job does not fit there; when every SU is full nothing more is placed.
railyard_add_cli_test(
  NAME partial_su.place
  ARGS place --cluster ${_partial} --jobs "a:gpus=32;b:gpus=40"
  STDOUT_REGEX "\na +a: 32 GPUs on hosts 96-99 \\(SU 3;"
               "\nb +b: 40 GPUs on hosts 0-4 \\(SU 0;"
               "\n  su03 aaaa +0 free\n"
               "free hosts 91, largest job without splitting an SU 32 hosts")
railyard_add_cli_test(
  NAME partial_su.place_full
  ARGS place --cluster ${_partial} --jobs "a:gpus=256;b:gpus=256;c:gpus=256;d:gpus=32;e:gpus=8"
  EXIT_CODE 3
  STDOUT_REGEX "\nd +d: 32 GPUs on hosts 96-99 \\(SU 3;"
               "e: 8 GPUs NOT PLACED: .*0 of 100 hosts free")
railyard_add_cli_test(
  NAME partial_su.place_pod
  ARGS place --cluster ${_partial_pod} --jobs "a:gpus=48;b:gpus=320"
  STDOUT_REGEX "\na +a: 48 GPUs on hosts 64-69 \\(SU 4;"
               "\n  su04 aaaaaa +0 free\n")
add_test(NAME cli.partial_su.place_json
  COMMAND ${CMAKE_COMMAND} -DRAILYARD=$<TARGET_FILE:railyard_cli> -DCHECK=place_json
          -P ${CMAKE_CURRENT_SOURCE_DIR}/partial_su_check.cmake)

# spray: paths into the partial SU and across into the partial pod; host 100
# does not exist.
railyard_add_cli_test(
  NAME partial_su.spray
  ARGS spray --cluster ${_partial} --src 0:3 --dst 99:3
  STDOUT_REGEX "^connection host0.nic3.p0 -> host99.nic3.p0: 64 usable paths over 32 first-hop"
               "host0.nic3.p0 > leaf3 > spine0 > leaf27 > host99.nic3.p0\n")
railyard_add_cli_test(
  NAME partial_su.spray_pod
  ARGS spray --cluster ${_partial_pod} --src 0:0 --dst 69:0
  STDOUT_REGEX "16384 usable paths over 16 first-hop uplinks"
               "host0.nic0.p0 > leaf0 > spine0 > core(0|1) > spine16 > leaf32 > host69.nic0.p0\n")
railyard_cli_error_test(
  NAME partial_su.spray_missing_host
  ARGS spray --cluster ${_partial} --src 0:3 --dst 100:3
  STDERR_REGEX "--dst=100:3: host=100: must be between 0 and 99")

# simulate: a ring on every GPU; time finite and at least the hand bound.
railyard_add_cli_test(
  NAME partial_su.simulate
  ARGS simulate --cluster ${_partial} --collective allreduce --bytes 1GiB --job dp=800
       --algorithm ring
  STDOUT_REGEX "1 x 800 ranks"
               "\nbound +5315.0 us: "
               "over 320000 Gb/s")
# The heat map's summary rows group leaves by (plane, pod): plane 0's partial last
# pod (900 hosts: 29 SUs, pods of 4, the last with SU 28 only) is its own row of
# 8 leaves (224-231), and plane 1 starts at leaf 232.
railyard_add_cli_test(
  NAME partial_su.simulate_heat_map_rows
  ARGS simulate --cluster rail_fat_tree:hosts=900,tiers=3,sus_per_pod=4,planes=2,nic_gbps=200
       --collective allreduce --bytes 64MiB --job tp=8,dp=16 --hosts 884-899 --svg /dev/stdout
  STDOUT_REGEX "group7 leaf224..leaf231: each cell shows the maximum over 8 switches"
               "group8 leaf232..leaf263: each cell shows the maximum over 32 switches")
add_test(NAME cli.partial_su.simulate_bound
  COMMAND ${CMAKE_COMMAND} -DRAILYARD=$<TARGET_FILE:railyard_cli> -DCHECK=simulate
          -P ${CMAKE_CURRENT_SOURCE_DIR}/partial_su_check.cmake)
add_test(NAME cli.partial_su.simulate_pod_bound
  COMMAND ${CMAKE_COMMAND} -DRAILYARD=$<TARGET_FILE:railyard_cli> -DCHECK=simulate_pod
          -P ${CMAKE_CURRENT_SOURCE_DIR}/partial_su_check.cmake)

# cc: a job over the partial SU; its path classes reach the spine (2 tiers) or
# the core (3 tiers).
railyard_add_cli_test(
  NAME partial_su.cc
  ARGS cc --cluster ${_partial} --job tp=8,dp=10 --hosts 90-99
  STDOUT_REGEX "^cluster +rail_fat_tree:hosts=100: 400 Gb/s links"
               "\n  via_spine +3 "
               "incast +1 sender")
railyard_add_cli_test(
  NAME partial_su.cc_pod
  ARGS cc --cluster ${_partial_pod} --job tp=8,dp=70
  STDOUT_REGEX "\n  via_core +5 ")

# plan: on the empty cluster a 4-host job goes to the partial SU for railyard
# (best fit) and to hosts 0-3 for the naive first fit; the map row is 4 wide.
railyard_add_cli_test(
  NAME partial_su.plan
  ARGS plan --cluster ${_partial} --empty --jobs "a:gpus=32,tp=8,dp=4"
  STDOUT_REGEX "^railyard plan on rail_fat_tree:hosts=100: 100 hosts x 8 GPUs, 4 SUs of 32 hosts "
               "\\(the last has 4\\)"
               "\n  su3 +\\.\\.\\.\\. +AAAA\n"
               "SUs 0 -> 3;")

# export: every format that takes a spec names exactly the hosts that exist.
railyard_add_cli_test(
  NAME partial_su.export_slurm_tree
  ARGS export --cluster ${_partial} --format slurm-tree
  STDOUT_REGEX "5 switches on 2 levels, 100 nodes"
               "\nSwitchName=su3 Nodes=node.0096-0099.\n"
               "\nSwitchName=spine Switches=su.0-3.\n$")
railyard_add_cli_test(
  NAME partial_su.export_slurm_tree_pod
  ARGS export --cluster ${_partial_pod} --format slurm-tree
  STDOUT_REGEX "\nSwitchName=su4 Nodes=node.0064-0069.\n"
               "\nSwitchName=pod2 Switches=su4\n"
               "\nSwitchName=core Switches=pod.0-2.\n$")
railyard_add_cli_test(
  NAME partial_su.export_slurm_block
  ARGS export --cluster ${_partial} --format slurm-block
  STDOUT_REGEX "scalable unit \\(32 nodes\\), 3 blocks, 100 nodes"
               "\n# The partial last SU's 4 nodes \\(node.0096-0099.\\) are in no block: "
               "\nBlockName=su2 Nodes=node.0064-0095.\nBlockSizes=32,64\n$")
railyard_add_cli_test(
  NAME partial_su.export_slurm_yaml
  ARGS export --cluster ${_partial} --format slurm-yaml
  STDOUT_REGEX "\n      - switch: su3\n        nodes: node.0096-0099.\n"
               "4 nodes \\(node.0096-0099.\\) are in no block"
               "\n      - block: su2\n        nodes: node.0064-0095.\n$")
railyard_add_cli_test(
  NAME partial_su.export_k8s_labels
  ARGS export --cluster ${_partial} --format k8s-labels
  STDOUT_REGEX "name: \"node0099\"\n +labels:\n +fabric.topograph.run/tier-0: \"su3\"\n")
railyard_add_cli_test(
  NAME partial_su.export_k8s_label_script
  ARGS export --cluster ${_partial_pod} --format k8s-label-script
  STDOUT_REGEX "\nkubectl label node node0069 fabric.topograph.run/tier-0=su4 "
               "fabric.topograph.run/tier-1=pod2 fabric.topograph.run/tier-2=core --overwrite\n$")
railyard_add_cli_test(
  NAME partial_su.export_csv
  ARGS export --cluster ${_partial} --format csv
  STDOUT_REGEX "^host,leaf,spine\n" "\nnode0099,su3,spine\n$")
add_test(NAME cli.partial_su.export_csv_rows
  COMMAND ${CMAKE_COMMAND} -DRAILYARD=$<TARGET_FILE:railyard_cli> -DCHECK=csv
          -P ${CMAKE_CURRENT_SOURCE_DIR}/partial_su_check.cmake)
railyard_add_cli_test(
  NAME partial_su.export_nccl_xml
  ARGS export --cluster ${_partial} --format nccl-xml --vm --host 99
  STDOUT_REGEX "^<!-- railyard nccl-xml host=99 vm cluster=rail_fat_tree:hosts=100,")
railyard_cli_error_test(
  NAME partial_su.export_nccl_xml_missing_host
  ARGS export --cluster ${_partial} --format nccl-xml --vm --host 100
  STDERR_REGEX "100")
railyard_add_cli_test(
  NAME partial_su.export_rankfile
  ARGS export --cluster ${_partial} --format rankfile --job tp=8,dp=10 --hosts 90-99
  STDOUT_REGEX "\nrank 79=node0099 slot=7\n$")
railyard_add_cli_test(
  NAME partial_su.export_hostfile
  ARGS export --cluster ${_partial} --format hostfile --job tp=8,dp=100
  STDOUT_REGEX "^node0000\n" "\nnode0099\n$")
set_tests_properties(
  cli.partial_su.describe_json cli.partial_su.describe_pod_json cli.partial_su.place_json
  cli.partial_su.simulate_bound cli.partial_su.simulate_pod_bound cli.partial_su.export_csv_rows
  PROPERTIES LABELS "cli" TIMEOUT 300)
