# The bad-input tour of the command line: one malformed input per case, across
# every subcommand's flags and every file the tool reads (topology.conf, CSV
# topology, job trace, measured hash table; under tests/data/bad/). Each case
# goes through railyard_cli_error_test() (tests/cli/CMakeLists.txt): exit
# status 2, nothing on stdout, one line `railyard: ...` on stderr, and the
# STDERR_REGEXes here, which name the field (flag, key, file line or token)
# and the offending value. Included from tests/cli/CMakeLists.txt.
#
# Regexes are CMake's: '.' stands in for braces and brackets, specials are
# escaped, and no ';' (ARGS travel as a CMake list).

set(_bad "${CMAKE_CURRENT_LIST_DIR}/../data/bad")

# ---------------------------------------------------------------------------
# The command line itself: flags, values, subcommands.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.flag_unknown ARGS describe --colour=red
  STDERR_REGEX "unknown flag '--colour'")
railyard_cli_error_test(
  NAME bad_input.flag_int_not_a_number ARGS spray --src 0:3 --dst 40:3 --qps=three
  STDERR_REGEX "^railyard: --qps=three: expected an integer\n$")
railyard_cli_error_test(
  NAME bad_input.flag_int_overflow ARGS export --format nccl-xml --host 99999999999
  STDERR_REGEX "--host=99999999999: ")
railyard_cli_error_test(
  NAME bad_input.flag_uint_negative ARGS place --jobs a:gpus=8 --seed=-1
  STDERR_REGEX "--seed=-1: ")
railyard_cli_error_test(
  NAME bad_input.flag_bool_not_a_boolean ARGS describe --json=perhaps
  STDERR_REGEX "--json=perhaps: not a boolean")
railyard_cli_error_test(
  NAME bad_input.flag_double_not_a_number
  ARGS describe --topology-csv ${_bad}/good.csv --host-gbps=fast
  STDERR_REGEX "--host.gbps=fast: ")
railyard_cli_error_test(
  NAME bad_input.flag_not_for_subcommand ARGS replay --qps 4
  STDERR_REGEX "^railyard: replay: flag --qps does not apply")
railyard_cli_error_test(
  NAME bad_input.subcommand_unknown ARGS describ
  STDERR_REGEX "unknown subcommand 'describ'")
railyard_cli_error_test(
  NAME bad_input.help_unknown_subcommand ARGS help simulat
  STDERR_REGEX "^railyard: help: unknown subcommand 'simulat'")

# ---------------------------------------------------------------------------
# describe: cluster specs and imported topologies.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.cluster_unknown_key ARGS describe --cluster=rail_fat_tree:hosts=64,radix=64
  STDERR_REGEX "^railyard: --cluster: radix=64: unknown key for rail_fat_tree")
railyard_cli_error_test(
  NAME bad_input.cluster_duplicate_key ARGS describe --cluster=rail_fat_tree:hosts=64,hosts=32
  STDERR_REGEX "--cluster: hosts: key given twice .hosts=64, then hosts=32.")
railyard_cli_error_test(
  NAME bad_input.cluster_missing_value ARGS describe --cluster=rail_fat_tree:hosts=64,oversub
  STDERR_REGEX "--cluster: spec entry 'oversub': expected key=value")
railyard_cli_error_test(
  NAME bad_input.cluster_radix_range ARGS describe --cluster=rail_fat_tree:hosts=64,switch_radix=1
  STDERR_REGEX "--cluster: switch_radix=1: must be between 2 and 65536")
railyard_cli_error_test(
  NAME bad_input.cluster_hosts_range ARGS describe --cluster=rail_fat_tree:hosts=2000000
  STDERR_REGEX "--cluster: hosts=2000000: must be between 1 and 1048576")
railyard_cli_error_test(
  NAME bad_input.cluster_oversub_below_one ARGS describe --cluster=rail_fat_tree:hosts=64,oversub=1:2
  STDERR_REGEX "--cluster: oversub=1:2: ")
railyard_cli_error_test(
  NAME bad_input.cluster_three_tiers_one_pod
  ARGS describe --cluster=rail_fat_tree:hosts=128,tiers=3,sus_per_pod=4
  STDERR_REGEX "--cluster: sus_per_pod=4: covers all 4 SUs")
railyard_cli_error_test(
  NAME bad_input.cluster_planes_zero ARGS describe --cluster=rail_fat_tree:hosts=64,planes=0
  STDERR_REGEX "--cluster: planes=0: must be positive")
railyard_cli_error_test(
  NAME bad_input.cluster_layout_unknown
  ARGS describe --cluster=rail_fat_tree:hosts=64,switch_layout=fancy
  STDERR_REGEX "--cluster: switch_layout=fancy: expected one of reference, vms")
railyard_cli_error_test(
  NAME bad_input.cluster_preset_with_keys ARGS describe --cluster=h100-1024:hosts=64
  STDERR_REGEX "^railyard: --cluster: 'h100-1024': a preset takes no keys. write its spec .rail_fat_tree:hosts=128.")
railyard_cli_error_test(
  NAME bad_input.conf_unknown_key ARGS describe --topology-conf ${_bad}/unknown_key.conf
  STDERR_REGEX "--topology-conf=[^ ]*unknown_key\\.conf: topology\\.conf line 3: Bogus=1: unknown key")
railyard_cli_error_test(
  NAME bad_input.conf_cycle ARGS describe --topology-conf ${_bad}/cycle.conf
  STDERR_REGEX "topology\\.conf line 4: Switches=spine0: cycle: ")
railyard_cli_error_test(
  NAME bad_input.conf_missing_file ARGS describe --topology-conf /nonexistent/x.conf
  STDERR_REGEX "^railyard: --topology-conf=/nonexistent/x\\.conf: cannot open the file")
railyard_cli_error_test(
  NAME bad_input.csv_duplicate_host ARGS describe --topology-csv ${_bad}/duplicate_host.csv
  STDERR_REGEX "--topology-csv=[^ ]*duplicate_host\\.csv: line 5: host=gpu00: listed twice")
railyard_cli_error_test(
  NAME bad_input.csv_two_parents ARGS describe --topology-csv ${_bad}/two_parents.csv
  STDERR_REGEX "line 5: leaf=leaf0: under spine 'spine1' here but under 'spine0' on line 3")
railyard_cli_error_test(
  NAME bad_input.csv_negative_speed
  ARGS describe --topology-csv ${_bad}/good.csv --leaf-up-gbps=-5
  STDERR_REGEX "--leaf.up.gbps=-5: must be a positive")

# ---------------------------------------------------------------------------
# export: formats, host ids, bus ids, name patterns, launcher options.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.export_format_unknown ARGS export --format=yaml
  STDERR_REGEX "^railyard: --format=yaml: unknown format")
railyard_cli_error_test(
  NAME bad_input.export_host_range ARGS export --format nccl-xml --host 128
  STDERR_REGEX "^railyard: --host=128: out of range")
railyard_cli_error_test(
  NAME bad_input.export_gpu_busids ARGS export --format nccl-xml --gpu-busids=zz
  STDERR_REGEX "^railyard: --gpu-busids=zz: expected 8 bus ids")
railyard_cli_error_test(
  NAME bad_input.export_node_pattern_brace ARGS export --format slurm-tree --node-pattern "node{host"
  STDERR_REGEX "^railyard: --node-pattern=node.host: '.' without a matching")
railyard_cli_error_test(
  NAME bad_input.export_node_pattern_clash ARGS export --format k8s-labels --node-pattern "n{su}"
  STDERR_REGEX "^railyard: --node-pattern=n.su.: two hosts would both be named 'n0'")
railyard_cli_error_test(
  NAME bad_input.export_cores_per_rank ARGS export --format rankfile --job tp=8 --cores-per-rank 0
  STDERR_REGEX "^railyard: --cores-per-rank=0: must be in .1, 4096.")
railyard_cli_error_test(
  NAME bad_input.export_master_port ARGS export --format torchrun --job tp=8 --master-port 70000
  STDERR_REGEX "^railyard: --master-port=70000: must be in .1, 65535.")
railyard_cli_error_test(
  NAME bad_input.export_hosts_range ARGS export --format hostfile --job tp=8 --hosts 0-200
  STDERR_REGEX "^railyard: --hosts=0-200: host 200 is out of range")
railyard_cli_error_test(
  NAME bad_input.export_block_from_csv ARGS export --format slurm-block --topology-csv ${_bad}/good.csv
  STDERR_REGEX "^railyard: --format=slurm-block: needs a cluster spec .--cluster., not --topology-csv=")

# ---------------------------------------------------------------------------
# order: job plans, order strings, host lists.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.plan_order_short ARGS order --job tp=8,order=tp-cp-ep-dp
  STDERR_REGEX "--job: order=tp-cp-ep-dp: must name each of tp, cp, ep, dp, pp once")
railyard_cli_error_test(
  NAME bad_input.plan_duplicate_key ARGS order --job tp=8,tp=4
  STDERR_REGEX "--job: tp: key given twice .tp=8, then tp=4.")
railyard_cli_error_test(
  NAME bad_input.plan_size_zero ARGS order --job tp=0
  STDERR_REGEX "--job: tp=0: must be positive")
railyard_cli_error_test(
  NAME bad_input.plan_bytes_suffix ARGS order --job tp=8,tp_bytes=4GB/s
  STDERR_REGEX "--job: tp_bytes=4GB/s: unknown size suffix 'GB/s'")
# 8 x 2^60 ranks wrapped int64 to 0: the plan passed and `order` crashed (SIGSEGV).
railyard_cli_error_test(
  NAME bad_input.plan_world_overflow ARGS order --job tp=8,cp=1048576,ep=1048576,dp=1048576
  STDERR_REGEX "--job: job=tp=8,cp=1048576,ep=1048576,dp=1048576: world of more than 2\\^63 ranks")
railyard_cli_error_test(
  NAME bad_input.hosts_backwards ARGS order --job tp=8 --hosts 1-0
  STDERR_REGEX "^railyard: --hosts=1-0: range '1-0' runs backwards")
railyard_cli_error_test(
  NAME bad_input.order_unknown ARGS order --job tp=8 --order=random
  STDERR_REGEX "^railyard: --order=random: use railyard or naive")

# ---------------------------------------------------------------------------
# place: job lists and policies.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.jobs_duplicate_gpus ARGS place --jobs a:gpus=8,gpus=16
  STDERR_REGEX "--jobs: job 'a': gpus=16: key given twice .gpus=8, then gpus=16.")
railyard_cli_error_test(
  NAME bad_input.jobs_duplicate_tenant ARGS place --jobs a:gpus=8,tenant=t1,tenant=t2
  STDERR_REGEX "--jobs: job 'a': tenant=t2: key given twice .tenant=t1, then tenant=t2.")
railyard_cli_error_test(
  NAME bad_input.jobs_gpus_not_a_number ARGS place --jobs a:gpus=abc
  STDERR_REGEX "--jobs: job 'a': gpus=abc: ")
railyard_cli_error_test(
  NAME bad_input.jobs_unknown_key ARGS place --jobs a:gpu=8
  STDERR_REGEX "--jobs: job 'a': gpu=8: unknown key")
railyard_cli_error_test(
  NAME bad_input.jobs_no_name ARGS place --jobs :gpus=8
  STDERR_REGEX "--jobs: job 1 .':gpus=8'.: name is empty")
railyard_cli_error_test(
  NAME bad_input.policy_unknown ARGS place --jobs a:gpus=8 --policy=best
  STDERR_REGEX "^railyard: --policy=best: unknown policy")

# ---------------------------------------------------------------------------
# replay: job traces.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.trace_header ARGS replay --trace ${_bad}/trace_header.csv
  STDERR_REGEX "--trace=[^ ]*trace_header\\.csv: line 2: header=time,name,gpus: ")
railyard_cli_error_test(
  NAME bad_input.trace_gpus ARGS replay --trace ${_bad}/trace_gpus.csv
  STDERR_REGEX "--trace=[^ ]*trace_gpus\\.csv: line 4: gpus=eight: ")
railyard_cli_error_test(
  NAME bad_input.trace_duplicate_name ARGS replay --trace ${_bad}/trace_duplicate.csv
  STDERR_REGEX "line 5: name=job1: duplicate job name .first on line 3.")
railyard_cli_error_test(
  NAME bad_input.trace_negative_duration ARGS replay --trace ${_bad}/trace_negative.csv
  STDERR_REGEX "line 3: duration=-5: expected non-negative seconds")
railyard_cli_error_test(
  NAME bad_input.trace_missing_file ARGS replay --trace /nonexistent/trace.csv
  STDERR_REGEX "^railyard: --trace=/nonexistent/trace\\.csv: cannot open the file")

# ---------------------------------------------------------------------------
# spray: endpoints, failure specs, hash models and measured tables.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.spray_gpu_range ARGS spray --src 0:8 --dst 40:3
  STDERR_REGEX "^railyard: --src=0:8: gpu=8: must be between 0 and 7")
railyard_cli_error_test(
  NAME bad_input.spray_endpoint_shape ARGS spray --src 0-3 --dst 40:3
  STDERR_REGEX "^railyard: --src=0-3: expected HOST:GPU")
railyard_cli_error_test(
  NAME bad_input.spray_plane_range ARGS spray --cluster h100-1024-dualplane --src 0:3 --dst 40:3:2
  STDERR_REGEX "^railyard: --dst=40:3:2: plane=2: must be between 0 and 1")
railyard_cli_error_test(
  NAME bad_input.spray_same_port ARGS spray --src 0:3 --dst 0:3
  STDERR_REGEX "^railyard: --dst=0:3: same NIC port as src")
railyard_cli_error_test(
  NAME bad_input.spray_qps_range ARGS spray --src 0:3 --dst 40:3 --qps 300
  STDERR_REGEX "qps=300: must be in .1, 256.")
# A 2-tier spine has no uplinks: this said "numbered 0..-1".
railyard_cli_error_test(
  NAME bad_input.down_spine_uplink ARGS spray --src 0:3 --dst 40:3 --down spine0/0
  STDERR_REGEX "^railyard: --down=spine0/0: spine switches have no uplinks")
railyard_cli_error_test(
  NAME bad_input.down_fraction ARGS spray --src 0:3 --dst 40:3 --down leaf0/1@1.5
  STDERR_REGEX "^railyard: --down=leaf0/1@1\\.5: a degraded fraction")
# strtod read hex floats: 0x0.8 was taken as 0.5.
railyard_cli_error_test(
  NAME bad_input.down_fraction_hex ARGS spray --src 0:3 --dst 40:3 --down leaf0/1@0x0.8
  STDERR_REGEX "^railyard: --down=leaf0/1@0x0\\.8: a degraded fraction")
railyard_cli_error_test(
  NAME bad_input.down_unknown_kind ARGS spray --src 0:3 --dst 40:3 --down router3
  STDERR_REGEX "^railyard: --down=router3: unknown switch kind")
railyard_cli_error_test(
  NAME bad_input.hash_unknown ARGS spray --src 0:3 --dst 40:3 --hash CRC32
  STDERR_REGEX "^railyard: --hash=CRC32: unknown model")
railyard_cli_error_test(
  NAME bad_input.hash_table_sport ARGS spray --src 0:3 --dst 40:3 --hash table:${_bad}/hash_sport.txt
  STDERR_REGEX "--hash=table:[^ ]*hash_sport\\.txt: line 2, token 3 .sport. '0x1000': ")
railyard_cli_error_test(
  NAME bad_input.hash_table_duplicate
  ARGS spray --src 0:3 --dst 40:3 --hash table:${_bad}/hash_duplicate.txt
  STDERR_REGEX "line 3: duplicate entry 'src_leaf_up 3 49153', first given on line 2")
railyard_cli_error_test(
  NAME bad_input.hash_table_short ARGS spray --src 0:3 --dst 40:3 --hash table:${_bad}/hash_short.txt
  STDERR_REGEX "line 2: expected 4 tokens .*got 3 .'src_leaf_up 3 0xC001'.")
railyard_cli_error_test(
  NAME bad_input.hash_table_missing ARGS spray --src 0:3 --dst 40:3 --hash table:/nonexistent/t.txt
  STDERR_REGEX "^railyard: --hash=table:/nonexistent/t\\.txt: cannot open the file")

# ---------------------------------------------------------------------------
# simulate: collectives, sizes, algorithms, routing, groups, channels.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.simulate_collective ARGS simulate --collective all_reduce --bytes 1GiB --job tp=8
  STDERR_REGEX "^railyard: --collective=all_reduce: unknown collective")
railyard_cli_error_test(
  NAME bad_input.simulate_bytes_fraction ARGS simulate --collective allreduce --bytes 1.5GiB --job tp=8
  STDERR_REGEX "^railyard: --bytes=1\\.5GiB: fractions are not accepted")
railyard_cli_error_test(
  NAME bad_input.simulate_algorithm_case
  ARGS simulate --collective allreduce --bytes 1GiB --job tp=8 --algorithm=Ring
  STDERR_REGEX "^railyard: --algorithm=Ring: unknown algorithm")
railyard_cli_error_test(
  NAME bad_input.simulate_routing
  ARGS simulate --collective allreduce --bytes 1GiB --job tp=8 --routing=oracle
  STDERR_REGEX "^railyard: --routing=oracle: use ecmp, steered")
railyard_cli_error_test(
  NAME bad_input.simulate_group ARGS simulate --collective allreduce --bytes 1GiB --job tp=8 --group=mp
  STDERR_REGEX "^railyard: --group=mp: unknown dimension")
railyard_cli_error_test(
  NAME bad_input.simulate_channels
  ARGS simulate --collective allreduce --bytes 1GiB --job tp=8 --channels 100
  STDERR_REGEX "^railyard: --channels=100: must be in .0, 64.")
railyard_cli_error_test(
  NAME bad_input.simulate_qps_negative
  ARGS simulate --collective allreduce --bytes 1GiB --job tp=8 --qps=-3
  STDERR_REGEX "^railyard: --qps=-3: must be in .1, 256.")
railyard_cli_error_test(
  NAME bad_input.simulate_down_fraction
  ARGS simulate --collective allreduce --bytes 1GiB --job tp=8,dp=2 --down leaf0@2
  STDERR_REGEX "^railyard: --down=leaf0@2: a degraded fraction")
railyard_cli_error_test(
  NAME bad_input.simulate_from_csv
  ARGS simulate --collective allreduce --bytes 1GiB --job tp=8 --topology-csv ${_bad}/good.csv
  STDERR_REGEX "^railyard: --topology-csv=[^ ]*good\\.csv: simulate needs a cluster spec")

# ---------------------------------------------------------------------------
# cc: incast, buffer, link speed, message size, algorithm, start rate.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.cc_incast_range ARGS cc --incast 70000
  STDERR_REGEX "^railyard: --incast=70000: must be in .1, 65536.")
railyard_cli_error_test(
  NAME bad_input.cc_buffer_exponent ARGS cc --buffer-mb 1e3
  STDERR_REGEX "^railyard: --buffer-mb=1e3: expected a number of MB")
railyard_cli_error_test(
  NAME bad_input.cc_buffer_below_bdp ARGS cc --buffer-mb 0.001
  STDERR_REGEX "^railyard: --buffer-mb=0\\.001: buffer_bytes=1000: smaller than one BDP")
railyard_cli_error_test(
  NAME bad_input.cc_link_speed ARGS cc --cluster rail_fat_tree:hosts=128,nic_gbps=1600
  STDERR_REGEX "^railyard: --cluster: nic_gbps=1600: no published PFC response bound")
railyard_cli_error_test(
  NAME bad_input.cc_message_bytes ARGS cc --message-bytes 4MB/s
  STDERR_REGEX "^railyard: --message-bytes=4MB/s: unknown size suffix 'MB/s'")
railyard_cli_error_test(
  NAME bad_input.cc_algorithm_mismatch ARGS cc --job tp=8,dp=2 --collective alltoall --algorithm tree
  STDERR_REGEX "^railyard: --algorithm=tree: has no schedule for collective alltoall")
railyard_cli_error_test(
  NAME bad_input.cc_collective ARGS cc --job tp=8 --collective gather
  STDERR_REGEX "^railyard: --collective=gather: unknown collective")
railyard_cli_error_test(
  NAME bad_input.cc_start_rate ARGS cc --simulate --start-rate 2/1
  STDERR_REGEX "^railyard: --start-rate=2/1: must be a fraction in .0, 1.")
railyard_cli_error_test(
  NAME bad_input.cc_start_rate_hex ARGS cc --simulate --start-rate 0x1
  STDERR_REGEX "^railyard: --start-rate=0x1: expected a fraction such as 0.25 or 1/4")
railyard_cli_error_test(
  NAME bad_input.cc_start_rate_space ARGS cc --simulate "--start-rate= 0.5"
  STDERR_REGEX "^railyard: --start-rate= 0.5: expected a fraction such as 0.25 or 1/4")
railyard_cli_error_test(
  NAME bad_input.export_master_port_unused ARGS export --format rankfile --job tp=8 --master-port -1
  STDERR_REGEX "^railyard: --master-port=-1: must be in .1, 65535.")
railyard_cli_error_test(
  NAME bad_input.describe_leaf_up_gbps ARGS describe --topology-csv ${_bad}/good.csv --leaf-up-gbps=-5
  STDERR_REGEX "^railyard: --leaf-up-gbps=-5: must be a positive Gb/s")
railyard_cli_error_test(
  NAME bad_input.cc_jobs_duplicate_key ARGS cc --jobs a:gpus=8,gpus=16
  STDERR_REGEX "--jobs: job 'a': gpus=16: key given twice .gpus=8, then gpus=16.")

# ---------------------------------------------------------------------------
# plan: tenant mixes, traces, launcher options, name patterns.
# ---------------------------------------------------------------------------
railyard_cli_error_test(
  NAME bad_input.plan_jobs_size_zero ARGS plan --jobs a:tp=8,dp=2,pp=0
  STDERR_REGEX "^railyard: --jobs: job 'a': pp=0: must be positive")
railyard_cli_error_test(
  NAME bad_input.plan_jobs_duplicate_key ARGS plan --jobs a:tp=8,tp=4
  STDERR_REGEX "--jobs: job 'a': tp=4: key given twice .tp=8, then tp=4.")
railyard_cli_error_test(
  NAME bad_input.plan_jobs_world_overflow ARGS plan --jobs a:tp=8,cp=1048576,ep=1048576,dp=1048576
  STDERR_REGEX "--jobs: job 'a': job=tp=8,cp=1048576,ep=1048576,dp=1048576: world of more than")
railyard_cli_error_test(
  NAME bad_input.plan_master_port ARGS plan --master-port 0
  STDERR_REGEX "^railyard: --master-port=0: must be in .1, 65535.")
railyard_cli_error_test(
  NAME bad_input.plan_cores_per_rank ARGS plan --cores-per-rank 5000
  STDERR_REGEX "^railyard: --cores-per-rank=5000: must be in .1, 4096.")
railyard_cli_error_test(
  NAME bad_input.plan_node_pattern ARGS plan --node-pattern "n{slot}"
  STDERR_REGEX "^railyard: --node-pattern=n.slot.: two hosts would both be named 'n0'")
railyard_cli_error_test(
  NAME bad_input.plan_trace ARGS plan --trace ${_bad}/trace_negative.csv
  STDERR_REGEX "--trace=[^ ]*trace_negative\\.csv: line 3: duration=-5: ")
railyard_cli_error_test(
  NAME bad_input.plan_cluster_ratio ARGS plan --cluster=rail_fat_tree:hosts=64,oversub=0
  STDERR_REGEX "^railyard: --cluster: oversub=0: ratio terms must be positive")

unset(_bad)
