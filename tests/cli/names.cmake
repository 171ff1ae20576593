# Real node names wherever hosts are taken (--hosts by name or Slurm hostlist,
# in order, simulate, cc and export; one host by name in spray --src/--dst and
# export --host; --node-pattern offsets), launcher formats on imported
# clusters, the torchrun script, and the Kueue Topology by API version.
# Included from tests/cli/CMakeLists.txt. Expected facts worked out by hand:
#
#   Default cluster h100-1024-2to1: 128 hosts, SUs of 32 (hosts 0-31 = SU 0 ...),
#   names node0000 ... node0127. With --node-pattern gpu-a{host+1:03}, host h is
#   gpu-a<h+1>, three digits (largest value 128): host 2 = gpu-a003, host 34 =
#   gpu-a035, and SU 0 = gpu-a[001-032].
#   tests/cli/golden/export_slurm_tree_default.conf is that cluster's
#   topology.conf (su0..su3 under spine, node0000 ... node0127).
#   tests/data/bad/good.csv: gpu00 under leaf0, gpu01 under leaf1, one spine.
#   tests/data/cables/rail-2su.csv: hosts gpu01 ... gpu08 = ids 0 ... 7, SUs of 4.
#   h100-1024-dualplane: the default's 128 hosts (node0000 ... node0127), 2 planes.

set(_conf "${CMAKE_CURRENT_SOURCE_DIR}/golden/export_slurm_tree_default.conf")
set(_csv "${PROJECT_SOURCE_DIR}/tests/data/bad/good.csv")
set(_cables "${PROJECT_SOURCE_DIR}/tests/data/cables/rail-2su.csv")
# Rank k's host on line k: 8 lines per host (gpus_per_host = 8).
function(_names_lines out)
  set(text "")
  foreach(host IN LISTS ARGN)
    string(REPEAT "${host}\n" 8 block)
    string(APPEND text "${block}")
  endforeach()
  set(${out} "^${text}$" PARENT_SCOPE)
endfunction()

# --hosts by name gives the file --hosts by id gives (cli.export_hostfile_seq: ids 40,3).
_names_lines(_hosts_3_40 node0003 node0040)
railyard_add_cli_test(
  NAME names.hostfile_by_name
  ARGS export --format hostfile --job tp=8,dp=2 --hosts node0040,node0003
  STDOUT_REGEX "${_hosts_3_40}" STDERR_REGEX "^$")
# SLURM_JOB_NODELIST text as Slurm writes it, names numbered from 1.
_names_lines(_nodelist gpu-a003 gpu-a004 gpu-a035 gpu-a036)
railyard_add_cli_test(
  NAME names.slurm_nodelist_offset
  ARGS export --format slurm-hostfile --job tp=8,dp=4 --node-pattern gpu-a{host+1:03}
       --hosts gpu-a[003-004,035-036] --order naive
  STDOUT_REGEX "${_nodelist}")
railyard_add_cli_test(
  NAME names.slurm_tree_offset
  ARGS export --format slurm-tree --node-pattern gpu-a{host+1:03}
  STDOUT_REGEX "\nSwitchName=su0 Nodes=gpu-a\\[001-032\\]\n" "\nSwitchName=su3 Nodes=gpu-a\\[097-128\\]\n")
# order takes --node-pattern; names resolve to ids 0 and 1.
railyard_add_cli_test(
  NAME names.order_node_pattern
  ARGS order --job tp=8,dp=2 --node-pattern gpu-a{host+1:03} --hosts gpu-a[001-002]
  STDOUT_REGEX "job +16 ranks on 2 hosts \\(0-1\\)")
railyard_cli_error_test(
  NAME names.unknown_name
  ARGS export --format hostfile --job tp=8,dp=2 --hosts node0003,gpu7
  STDERR_REGEX "--hosts=gpu7: no host of the cluster is named 'gpu7' \\(its 128 hosts are named node0000 \\.\\.\\. node0127\\)")
railyard_cli_error_test(
  NAME names.unknown_from_range
  ARGS order --job tp=8,dp=3 --hosts node[0126-0128]
  STDERR_REGEX "--hosts=node\\[0126-0128\\]: no host of the cluster is named 'node0128'")
railyard_cli_error_test(
  NAME names.repeated_name
  ARGS simulate --collective allreduce --bytes 1MiB --job tp=8,dp=2 --hosts node[0003,0003]
  STDERR_REGEX "--hosts=node\\[0003,0003\\]: host 'node0003' is listed twice")
railyard_cli_error_test(
  NAME names.bad_hostlist
  ARGS order --job tp=8,dp=2 --hosts node[0001-0002
  STDERR_REGEX "--hosts=node\\[0001-0002: hostlist item \"node\\[0001-0002\": '\\[' without '\\]'")
# Names that are bare numbers: "3,4" is hosts 3,4 as ids but hosts 2,3 as names.
railyard_cli_error_test(
  NAME names.ambiguous_numbers
  ARGS order --job tp=8,dp=2 --node-pattern {host+1} --hosts 3,4
  STDERR_REGEX "--hosts=3,4: ambiguous")
railyard_cli_error_test(
  NAME names.bad_offset
  ARGS order --job tp=8,dp=2 --node-pattern n{host+x} --hosts n1,n2
  STDERR_REGEX "--node-pattern=n\\{host\\+x\\}: bad offset '\\+x'")

# Imported clusters: the file's names.
_names_lines(_gpu07_08 gpu07 gpu08)
railyard_add_cli_test(
  NAME names.cables_file_names
  ARGS export --format hostfile --cables ${_cables} --job tp=8,dp=2 --hosts gpu08,gpu07
  STDOUT_REGEX "${_gpu07_08}")
railyard_cli_error_test(
  NAME names.cables_unknown
  ARGS order --cables ${_cables} --job tp=8,dp=2 --hosts gpu01,node0001
  STDERR_REGEX "--hosts=node0001: no host of the cluster is named 'node0001' \\(its 8 hosts are named gpu01 \\.\\.\\. gpu08\\)")
railyard_cli_error_test(
  NAME names.order_pattern_with_cables
  ARGS order --cables ${_cables} --job tp=8 --node-pattern x{host}
  STDERR_REGEX "--node-pattern applies only to a cluster spec")
# Every launcher format on a topology.conf and a CSV (no spec): railyard groups
# node0003 (su0) before node0040 (su1), naive keeps the order given.
railyard_add_cli_test(
  NAME names.conf_slurm_hostfile
  ARGS export --format slurm-hostfile --topology-conf ${_conf} --job tp=8,dp=2 --hosts node[0040,0003]
  STDOUT_REGEX "${_hosts_3_40}")
foreach(_format hostfile hostfile-slots rankfile slurm-hostfile rank-env torchrun megatron)
  railyard_add_cli_test(
    NAME names.conf_${_format}
    ARGS export --format ${_format} --topology-conf ${_conf} --job tp=8,dp=2 --hosts 3,40
    STDOUT_REGEX "node0003|tensor-model-parallel-size 8" STDERR_REGEX "^$")
endforeach()
railyard_add_cli_test(
  NAME names.csv_slots_grouped
  ARGS export --format hostfile-slots --topology-csv ${_csv} --job tp=4,dp=2 --gpus-per-host 4
       --hosts gpu01,gpu00
  STDOUT_REGEX "^gpu00 slots=4\ngpu01 slots=4\n$")
railyard_add_cli_test(
  NAME names.csv_slots_naive
  ARGS export --format hostfile-slots --topology-csv ${_csv} --job tp=4,dp=2 --gpus-per-host 4
       --hosts gpu01,gpu00 --order naive
  STDOUT_REGEX "^gpu01 slots=4\ngpu00 slots=4\n$")
railyard_cli_error_test(
  NAME names.conf_unknown_host
  ARGS export --format hostfile --topology-conf ${_conf} --job tp=8,dp=2 --hosts node0003,node0200
  STDERR_REGEX "--hosts=node0200: no host of the cluster is named 'node0200'")
railyard_cli_error_test(
  NAME names.csv_too_few_hosts
  ARGS export --format hostfile --topology-csv ${_csv} --job tp=8,dp=4
  STDERR_REGEX "--job: job=[^:]*: needs 4 hosts of 8 GPUs, more than the 2 of the tree")
railyard_cli_error_test(
  NAME names.gpus_per_host_with_spec
  ARGS export --format hostfile --job tp=8 --gpus-per-host 4
  STDERR_REGEX "--gpus-per-host applies only to the launcher formats with --topology-conf")
railyard_cli_error_test(
  NAME names.gpus_per_host_zero
  ARGS export --format hostfile --topology-csv ${_csv} --job tp=4 --gpus-per-host 0
  STDERR_REGEX "--gpus-per-host=0: must be in \\[1, 1024\\]")

# The same command with a host by name and by id prints the same thing
# (names_same_check.cmake compares the two outputs whole).
function(_names_same name)
  cmake_parse_arguments(PARSE_ARGV 1 SAME "" "" "A;B")
  list(JOIN SAME_A "|" a)
  list(JOIN SAME_B "|" b)
  add_test(NAME cli.names.${name}
    COMMAND ${CMAKE_COMMAND} -DRAILYARD=$<TARGET_FILE:railyard_cli> "-DA=${a}" "-DB=${b}"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/names_same_check.cmake)
  set_tests_properties(cli.names.${name} PROPERTIES LABELS "cli" TIMEOUT 300)
endfunction()

# simulate and cc take --node-pattern for the names in --hosts: gpu-a[001-004]
# are hosts 0-3; gpu-a004 and gpu-a041 are hosts 3 and 40 (SUs 0 and 1, so the
# ring crosses the spines: every leaf_spine link it uses carries the same load).
_names_same(simulate_node_pattern
  A simulate --collective allreduce --bytes 1MiB --job tp=8,dp=4
    --node-pattern gpu-a{host+1:03} --hosts gpu-a[001-004]
  B simulate --collective allreduce --bytes 1MiB --job tp=8,dp=4 --hosts 0-3)
_names_same(simulate_node_pattern_two_sus
  A simulate --collective allreduce --bytes 1MiB --job tp=8,dp=2
    --node-pattern gpu-a{host+1:03} --hosts gpu-a[041,004] --json
  B simulate --collective allreduce --bytes 1MiB --job tp=8,dp=2 --hosts 40,3 --json)
railyard_add_cli_test(
  NAME names.simulate_node_pattern_spines
  ARGS simulate --collective allreduce --bytes 1MiB --job tp=8,dp=2
       --node-pattern gpu-a{host+1:03} --hosts gpu-a004,gpu-a041
  STDOUT_REGEX "\nleaf_spine +32 / 1024 " STDERR_REGEX "^$")
railyard_cli_error_test(
  NAME names.simulate_unknown_name
  ARGS simulate --collective allreduce --bytes 1MiB --job tp=8,dp=4
       --node-pattern gpu-a{host+1:03} --hosts gpu-a[001-003],gpu-a200
  STDERR_REGEX "--hosts=gpu-a200: no host of the cluster is named 'gpu-a200' \\(its 128 hosts are named gpu-a001 \\.\\.\\. gpu-a128\\)")
railyard_cli_error_test(
  NAME names.simulate_pattern_with_cables
  ARGS simulate --cables ${_cables} --collective allreduce --bytes 1MiB --job tp=8,dp=2
       --node-pattern x{host}
  STDERR_REGEX "simulate: --node-pattern applies only to a cluster spec")
railyard_cli_error_test(
  NAME names.simulate_pattern_with_traffic
  ARGS simulate --generate incast:4 --bytes 1MiB --node-pattern x{host}
  STDERR_REGEX "simulate: --node-pattern does not apply with --traffic or --generate")
_names_same(cc_node_pattern
  A cc --job tp=8,dp=4 --collective allreduce --node-pattern gpu-a{host+1:03}
    --hosts gpu-a[033-034,001-002] --json
  B cc --job tp=8,dp=4 --collective allreduce --hosts 32-33,0-1 --json)
railyard_cli_error_test(
  NAME names.cc_unknown_name
  ARGS cc --job tp=8,dp=4 --node-pattern gpu-a{host+1:03} --hosts gpu-a[001-003],node0003
  STDERR_REGEX "--hosts=node0003: no host of the cluster is named 'node0003' \\(its 128 hosts are named gpu-a001 \\.\\.\\. gpu-a128\\)")
railyard_cli_error_test(
  NAME names.cc_pattern_needs_job
  ARGS cc --incast 4 --node-pattern gpu-a{host+1:03}
  STDERR_REGEX "cc: --node-pattern needs --job")

# One host by name: spray's --src/--dst HOST and export --host. node0040 and
# gpu-a041 (--node-pattern gpu-a{host+1:03}) are host 40; in rail-2su.csv gpu01
# is host 0 and gpu05 host 4.
_names_same(spray_by_name
  A spray --src node0000:3 --dst node0040:3
  B spray --src 0:3 --dst 40:3)
_names_same(spray_node_pattern
  A spray --node-pattern gpu-a{host+1:03} --src gpu-a001:3 --dst gpu-a041:3 --json
  B spray --src 0:3 --dst 40:3 --json)
_names_same(spray_cables_names
  A spray --cables ${_cables} --src gpu01:0 --dst gpu05:0
  B spray --cables ${_cables} --src 0:0 --dst 4:0)
_names_same(spray_plane_by_name
  A spray --cluster h100-1024-dualplane --src node0000:3:1 --dst node0040:3:1
  B spray --cluster h100-1024-dualplane --src 0:3:1 --dst 40:3:1)
railyard_cli_error_test(
  NAME names.spray_unknown_name
  ARGS spray --src node0200:3 --dst 40:3
  STDERR_REGEX "^railyard: --src=node0200: no host of the cluster is named 'node0200' \\(its 128 hosts are named node0000 \\.\\.\\. node0127\\)\n$")
railyard_cli_error_test(
  NAME names.spray_cables_unknown
  ARGS spray --cables ${_cables} --src gpu01:0 --dst node0004:0
  STDERR_REGEX "^railyard: --dst=node0004: no host of the cluster is named 'node0004' \\(its 8 hosts are named gpu01 \\.\\.\\. gpu08\\)\n$")
# A GPU out of range after a name shows the value as typed, never the id.
railyard_cli_error_test(
  NAME names.spray_name_gpu_range
  ARGS spray --src node0000:8 --dst 40:3
  STDERR_REGEX "^railyard: --src=node0000:8: gpu=8: must be between 0 and 7\n$")
railyard_cli_error_test(
  NAME names.spray_two_hosts
  ARGS spray --src node[0001-0002]:3 --dst 40:3
  STDERR_REGEX "^railyard: --src=node\\[0001-0002\\]: names 2 hosts; give one\n$")
railyard_cli_error_test(
  NAME names.spray_ambiguous_numbers
  ARGS spray --node-pattern {host+1} --src 3:0 --dst 40:0
  STDERR_REGEX "^railyard: --src=3: ambiguous")
railyard_cli_error_test(
  NAME names.spray_pattern_with_cables
  ARGS spray --cables ${_cables} --node-pattern x{host} --src 0:0 --dst 4:0
  STDERR_REGEX "spray: --node-pattern applies only to a cluster spec")
_names_same(xml_host_by_name
  A export --format nccl-xml --vm --host node0003
  B export --format nccl-xml --vm --host 3)
_names_same(xml_host_cables_name
  A export --format nccl-xml --vm --cables ${_cables} --host gpu05
  B export --format nccl-xml --vm --cables ${_cables} --host 4)
railyard_add_cli_test(
  NAME names.xml_host_node_pattern
  ARGS export --format nccl-xml --vm --node-pattern gpu-a{host+1:03} --host gpu-a004
  STDOUT_REGEX "^<!-- railyard nccl-xml host=3 vm cluster=" STDERR_REGEX "^$")
railyard_cli_error_test(
  NAME names.xml_host_unknown
  ARGS export --format nccl-xml --vm --host node0128
  STDERR_REGEX "^railyard: --host=node0128: no host of the cluster is named 'node0128' \\(its 128 hosts are named node0000 \\.\\.\\. node0127\\)\n$")
railyard_cli_error_test(
  NAME names.xml_host_pattern_unknown
  ARGS export --format nccl-xml --vm --node-pattern gpu-a{host+1:03} --host node0003
  STDERR_REGEX "^railyard: --host=node0003: no host of the cluster is named 'node0003' \\(its 128 hosts are named gpu-a001 \\.\\.\\. gpu-a128\\)\n$")
railyard_cli_error_test(
  NAME names.xml_host_pattern_with_cables
  ARGS export --format nccl-xml --vm --cables ${_cables} --node-pattern x{host} --host x4
  STDERR_REGEX "export: --node-pattern applies only to a cluster spec")

# torchrun: one script for every node, its --node-rank picked by host name.
railyard_add_cli_test(
  NAME names.torchrun_script
  ARGS export --format torchrun --job tp=8,dp=2 --hosts node0040,node0003 --master-port 29400
  STDOUT_REGEX "^#!/bin/sh\n" "\n  node0003\\) rank=0 ;;  # ranks 0-7\n  node0040\\) rank=1 ;;  # ranks 8-15\n"
               "\nexec torchrun --nnodes=2 --nproc_per_node=8 --node_rank=\"\\$rank\" --rdzv_backend=static --master_addr=node0003 --master_port=29400 \"\\$@\"\n$")
railyard_add_cli_test(
  NAME names.torchrun_out
  ARGS export --format torchrun --job tp=8,dp=2 --hosts 3,40 --out torchrun-files
  STDOUT_REGEX "^files  3 written to torchrun-files: torchrun.sh torchrun-node-0.sh torchrun-node-1.sh\n$")
railyard_cli_error_test(
  NAME names.out_not_for_hostfile
  ARGS export --format hostfile --job tp=8 --out x
  STDERR_REGEX "--out applies only to --format torchrun or k8s-labels")

# Kueue: the Topology alone, by API version.
railyard_add_cli_test(
  NAME names.kueue_topology_v1alpha1
  ARGS export --format kueue-topology --kueue-api v1alpha1
  STDOUT_REGEX "served by Kueue 0.9 to 0.13"
               "\napiVersion: kueue.x-k8s.io/v1alpha1\nkind: Topology\nmetadata:\n  name: \"railyard\"\nspec:\n  levels:\n  - nodeLabel: \"fabric.topograph.run/tier-1\"\n  - nodeLabel: \"fabric.topograph.run/tier-0\"\n  - nodeLabel: \"kubernetes.io/hostname\"\n$")
railyard_add_cli_test(
  NAME names.k8s_labels_two_documents
  ARGS export --format k8s-labels
  STDOUT_REGEX "^# Kubernetes node labels" "\napiVersion: v1\nkind: List\n"
               "\n---\n# Kueue Topology written by railyard" "\napiVersion: kueue.x-k8s.io/v1beta2\n")
railyard_add_cli_test(
  NAME names.k8s_labels_out
  ARGS export --format k8s-labels --kueue-api v1beta1 --out k8s
  STDOUT_REGEX "^files  2 written to k8s: k8s-node-labels.yaml kueue-topology.yaml\n$")
railyard_cli_error_test(
  NAME names.kueue_api_bad
  ARGS export --format kueue-topology --kueue-api v2
  STDERR_REGEX "--kueue-api=v2: use v1alpha1 \\(Kueue 0.9-0.13\\), v1beta1 \\(0.14\\+\\) or v1beta2")
railyard_cli_error_test(
  NAME names.kueue_api_not_slurm
  ARGS export --format slurm-tree --kueue-api v1beta1
  STDERR_REGEX "--kueue-api applies only to --format k8s-labels or kueue-topology")

# --help names the seven launcher formats with what each is for (the words may wrap).
railyard_add_cli_test(
  NAME names.help_launchers
  ARGS export --help
  STDOUT_REGEX "[ \n]hostfile[ \n]\\(Open[ \n]MPI[ \n]--map-by[ \n]seq" "[ \n]hostfile-slots[ \n]\\(host"
               "[ \n]rankfile[ \n]\\(Open[ \n]MPI[ \n]rankfile\\)" "[ \n]slurm-hostfile[ \n]\\(SLURM_HOSTFILE"
               "[ \n]rank-env[ \n]\\(torchrun's" "[ \n]torchrun[ \n]\\(a[ \n]script[ \n]every[ \n]node"
               "[ \n]megatron[ \n]\\(Megatron-LM" "[ \n]kueue-topology[ \n]\\(the[ \n]Topology"
               "--kueue-api=VERSION +\\(default: \"v1beta2\"\\)" "--gpus-per-host=G +\\(default: 8\\)")

# The torchrun commands through the installed PyTorch's own torchrun argument
# parser (torch.distributed.run.get_args_parser): a flag torchrun does not know
# fails it (PyTorch 1.13, Debian 12's, has no dashed aliases such as
# --nproc-per-node). Skipped (77) without PyTorch; Debian's interpreter first,
# since python3-torch installs for it.
find_program(RAILYARD_TEST_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT RAILYARD_TEST_PYTHON3)
  find_program(RAILYARD_TEST_PYTHON3 NAMES python3)
endif()
if(RAILYARD_TEST_PYTHON3)
  add_test(NAME names.torchrun_args_parse
    COMMAND "${RAILYARD_TEST_PYTHON3}" "${CMAKE_CURRENT_SOURCE_DIR}/torchrun_args_check.py"
      "$<TARGET_FILE:railyard_cli>")
else()
  add_test(NAME names.torchrun_args_parse
    COMMAND sh -c "echo 'SKIPPED: no python3 to import PyTorch with'; exit 77")
endif()
set_tests_properties(names.torchrun_args_parse PROPERTIES
  SKIP_RETURN_CODE 77 LABELS "cli;optimized_only" TIMEOUT 120)
