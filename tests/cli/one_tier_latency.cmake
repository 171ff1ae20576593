# One-tier clusters (tiers=1), the switch_radix bound and the latency constants
# (--switch-ns, --nic-ns, --nvswitch-ns, the spec's cable lengths) through every
# subcommand. Included from tests/cli/CMakeLists.txt. Expected numbers are
# worked out by hand:
#
#   rail_only:hosts=64,tiers=1: one SU of 64 hosts, one 64-port switch per rail:
#     8 switches, 512 host ports, no uplinks, no spine.
#   tor_fat_tree:hosts=8,tiers=1: one switch for all 8 x 8 = 64 NICs.
#   Ring all-reduce of 2 ranks on two hosts under one switch, unpipelined
#     (--chunk off: every step alpha + transfer, docs/models.md#pipelining): 2 steps, each
#     cable 2 x 30 m x 5 ns/m = 300 ns + 1 switch + 2 NICs: 2 x (300 + 600 +
#     2 x 500) = 3800 ns at the defaults; --switch-ns 0: 2 x 1300 = 2.6 us;
#     --switch-ns 1000 --nic-ns 100: 2 x (300 + 1000 + 200) = 3.0 us;
#     host_leaf_m=100: 2 x (1000 + 600 + 1000) = 5.2 us.
#   plan, job tp=8,dp=4 on rail_only:hosts=64,tiers=1: the dp all-reduce is 8
#     rings of 4 hosts on their own rail switch, at the bound 2(n-1)/n S / 400 Gb/s
#     = 1.5 x 2^30 B / 50000 B/us = 32212.255 us, pipelined in 2 MiB chunks: 2^30 /
#     (4 ranks x 2 MiB) = 128 loops, each paying one hop of fill, (300 + switch +
#     2 NIC) ns: 32212.255 + 128 x 0.3 = 32250.655 us with --switch-ns 0 --nic-ns 0,
#     32212.255 + 128 x 1.8 = 32442.655 us with --switch-ns 1000 --nic-ns 250.
#   cc, same switch, --switch-ns 0 --nic-ns 0: RTT 2 x (300 ns + one 4158 B
#     frame at 50000 B/us = 83.16 ns) = 0.766 us.

set(_one "rail_only:hosts=64,tiers=1")
set(_one_tor "tor_fat_tree:hosts=8,tiers=1")
set(_pair "rail_only:hosts=2,gpus_per_host=1,nics_per_host=1,scale_up=1,tiers=1")

railyard_add_cli_test(
  NAME one_tier.describe_rail_only
  ARGS describe --cluster ${_one}
  STDOUT_REGEX "hosts_per_su=64,switch_radix=64,oversub=1:1,tiers=1,"
               "\nleaf +8 +512 +0 +0 " "leaf-spine 0, spine-core 0")
railyard_add_cli_test(
  NAME one_tier.describe_tor
  ARGS describe --cluster ${_one_tor}
  STDOUT_REGEX "\nleaf +1 +64 +0 +0 " "64 copper, 0 optical")
railyard_add_cli_test(
  NAME one_tier.order
  ARGS order --cluster ${_one} --job tp=8,dp=8
  STDOUT_REGEX "\n  leaf +112 +112\n  spine +0 +0\n")
railyard_add_cli_test(
  NAME one_tier.place
  ARGS place --cluster ${_one} --jobs a:gpus=256
  STDOUT_REGEX "a: 256 GPUs on hosts 0-31 .SU 0" "free hosts 32")
railyard_add_cli_test(
  NAME one_tier.spray
  ARGS spray --cluster ${_one} --src 0:0 --dst 5:0
  STDOUT_REGEX "1 usable paths over 1 first-hop uplinks" "host0.nic0.p0 > leaf0 > host5.nic0.p0")
railyard_cli_error_test(
  NAME one_tier.spray_cross_rail
  ARGS spray --cluster ${_one} --src 0:0 --dst 5:1
  STDERR_REGEX "--dst=5:1: dst.nic=1: no network path from src.nic=0 on a rail_only fabric")
railyard_add_cli_test(
  NAME one_tier.simulate_latency_default
  ARGS simulate --cluster ${_pair} --job dp=2 --collective allreduce --bytes 1MiB --chunk off
  STDOUT_REGEX "routing ecmp" "2 steps" "latency 3.8 us")
railyard_add_cli_test(
  NAME one_tier.simulate_ecmp
  ARGS simulate --cluster ${_one} --job tp=8,dp=8 --collective allreduce --bytes 1GiB
       --routing ecmp
  STDOUT_REGEX "routing ecmp" "126 steps")
railyard_add_cli_test(
  NAME latency.simulate_switch_ns
  ARGS simulate --cluster ${_pair} --job dp=2 --collective allreduce --bytes 1MiB --switch-ns 0
       --chunk off
  STDOUT_REGEX "latency 2.6 us")
railyard_add_cli_test(
  NAME latency.simulate_switch_and_nic_ns
  ARGS simulate --cluster ${_pair} --job dp=2 --collective allreduce --bytes 1MiB
       --switch-ns 1000 --nic-ns 100 --nvswitch-ns 0 --chunk off
  STDOUT_REGEX "latency 3.0 us")
railyard_add_cli_test(
  NAME latency.simulate_cable_key
  ARGS simulate --cluster ${_pair},host_leaf_m=100 --job dp=2 --collective allreduce
       --bytes 1MiB --chunk off
  STDOUT_REGEX "latency 5.2 us")
railyard_add_cli_test(
  NAME latency.plan_constants
  ARGS plan --cluster ${_one} --jobs a:tp=8,dp=4 --json --switch-ns 0 --nic-ns 0
  STDOUT_REGEX "\"naive\": .\n +\"time_us\": 32250.655,"
               "\"railyard\": .\n +\"time_us\": 32250.655,")
railyard_add_cli_test(
  NAME latency.plan_constants_moved
  ARGS plan --cluster ${_one} --jobs a:tp=8,dp=4 --json --switch-ns 1000 --nic-ns 250
  STDOUT_REGEX "\"railyard\": .\n +\"time_us\": 32442.655,")
railyard_add_cli_test(
  NAME latency.cc_rtt
  ARGS cc --cluster ${_one} --switch-ns 0 --nic-ns 0
  STDOUT_REGEX "\n  same_leaf +1 +60.0 +0.766 ")
railyard_cli_error_test(
  NAME latency.error_simulate_switch_ns
  ARGS simulate --cluster ${_pair} --job dp=2 --collective allreduce --bytes 1MiB
       --switch-ns 100001
  STDERR_REGEX "^railyard: --switch-ns=100001: must be in .0, 100000. ns\n$")
railyard_cli_error_test(
  NAME latency.error_simulate_nvswitch_ns
  ARGS simulate --cluster ${_pair} --job dp=2 --collective allreduce --bytes 1MiB
       --nvswitch-ns=-1
  STDERR_REGEX "^railyard: --nvswitch-ns=-1: must be in .0, 100000. ns\n$")
railyard_cli_error_test(
  NAME latency.error_plan_nic_ns
  ARGS plan --cluster ${_one} --jobs a:tp=8,dp=4 --nic-ns 200000
  STDERR_REGEX "^railyard: --nic-ns=200000: must be in .0, 100000. ns\n$")
railyard_cli_error_test(
  NAME latency.error_cc_nic_ns
  ARGS cc --cluster ${_one} --nic-ns=-0.5
  STDERR_REGEX "^railyard: --nic-ns=-0.5: must be in .0, 100000. ns\n$")
railyard_cli_error_test(
  NAME latency.error_cc_nvswitch_ns
  ARGS cc --cluster ${_one} --nvswitch-ns 100
  STDERR_REGEX "--nvswitch-ns" "cross no NVLink switch")
railyard_cli_error_test(
  NAME latency.error_cable_key
  ARGS describe --cluster rail_fat_tree:hosts=64,spine_core_m=100001
  STDERR_REGEX "^railyard: --cluster: spine_core_m=100001: must be between 0 and 100000\n$")
railyard_add_cli_test(
  NAME one_tier.cc
  ARGS cc --cluster ${_one_tor}
  STDOUT_REGEX "\n  same_leaf +1 +6.0 +3.426 ")
railyard_add_cli_test(
  NAME one_tier.plan
  ARGS plan --cluster ${_one} --jobs a:tp=8,dp=4
  STDOUT_REGEX "1 of 1 jobs placed" "leaf-spine 0.0 -> 0.0 GiB")
railyard_add_cli_test(
  NAME one_tier.export_slurm_tree
  ARGS export --cluster ${_one} --format slurm-tree
  STDOUT_REGEX "# 1 switch on 1 level, 64 nodes" "\nSwitchName=su0 Nodes=node.0000-0063.\n")
railyard_add_cli_test(
  NAME one_tier.export_slurm_tree_tor
  ARGS export --cluster ${_one_tor} --format slurm-tree
  STDOUT_REGEX "\nSwitchName=leaf0 Nodes=node.0000-0007.\n")
railyard_add_cli_test(
  NAME one_tier.export_slurm_block
  ARGS export --cluster ${_one} --format slurm-block
  STDOUT_REGEX "\nBlockName=su0 Nodes=node.0000-0063.\nBlockSizes=64\n")
railyard_add_cli_test(
  NAME one_tier.export_nccl_xml
  ARGS export --cluster ${_one} --format nccl-xml --vm --host 63
  STDOUT_REGEX "railyard nccl-xml host=63 vm cluster=rail_only:hosts=64,[^ ]*tiers=1," "</system>")
railyard_cli_error_test(
  NAME one_tier.export_csv_refused
  ARGS export --cluster ${_one} --format csv
  STDERR_REGEX "the tree has one switch level. host,leaf,spine.,core. CSV needs 2 or 3")
railyard_cli_error_test(
  NAME one_tier.error_rail_fat_tree
  ARGS describe --cluster rail_fat_tree:hosts=64,tiers=1
  STDERR_REGEX "--cluster: tiers=1: a rail_fat_tree with 8 NICs per host needs spines"
               "write rail_only")
railyard_cli_error_test(
  NAME one_tier.error_switch_too_small
  ARGS describe --cluster rail_only:hosts=65,tiers=1
  STDERR_REGEX "--cluster: switch_radix=64: tiers=1 puts 65 hosts .one port each. on one switch. needs switch_radix >= 65")
railyard_cli_error_test(
  NAME one_tier.error_oversub
  ARGS describe --cluster rail_only:hosts=64,tiers=1,oversub=2:1
  STDERR_REGEX "--cluster: oversub=2:1: only applies to tiers=2 or 3")
railyard_add_cli_test(
  NAME radix.largest
  ARGS describe --cluster ${_one},switch_radix=65536
  STDOUT_REGEX "\nleaf +8 +512 +0 +523776 ")
railyard_cli_error_test(
  NAME radix.beyond
  ARGS describe --cluster ${_one},switch_radix=65537
  STDERR_REGEX "^railyard: --cluster: switch_radix=65537: must be between 2 and 65536\n$")
