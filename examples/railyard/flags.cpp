// railyard CLI — the flag table, the argv parser and the error rendering (flags.hpp).
#include "flags.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/node_names.hpp"

namespace railyard::cli {
namespace {

constexpr std::string_view kClusterHelp =
    "the cluster, as a preset name or a spec KIND:key=value,... with KIND one of rail_fat_tree, "
    "tor_fat_tree, rail_only and keys hosts (required), gpus_per_host, nics_per_host, nic_gbps, "
    "hosts_per_su, switch_radix, oversub, tiers (1, 2 or 3), sus_per_pod, pod_oversub, "
    "scale_up, nvlink_gbps, planes, switch_layout, host_leaf_m, leaf_spine_m, spine_core_m "
    "(docs/cluster-spec.md). Example: "
    "--cluster=rail_fat_tree:hosts=256,oversub=2:1 (256 hosts, 2:1 leaf oversubscription). "
    "Presets: h100-1024, h100-1024-2to1, h100-1024-tor, h100-1024-railonly, "
    "h100-1024-dualplane, gb200-nvl72-576, h100-16k-3tier, h100-128k-3tier (see 'railyard "
    "presets').";

// The help text above names every preset; keep it so when presets are added.
consteval bool cluster_help_names_every_preset() {
  for (const topology::Preset& preset : topology::kPresets)
    if (kClusterHelp.find(preset.name) == std::string_view::npos) return false;
  return true;
}
static_assert(cluster_help_names_every_preset(),
              "kClusterHelp must name every preset of railyard::topology::kPresets");

using K = FlagKind;
constexpr FlagQuote kSpec = FlagQuote::kSpec;

// Help texts say which subcommands use the flag; examples are one invocation.
constexpr std::array<FlagSpec, 65> kFlagTable = {{
    {"cluster", K::kText, "SPEC", topology::kDefaultCluster, kClusterHelp,
     "--cluster=h100-16k-3tier", kSpec},
    {"src", K::kText, "HOST:GPU", "",
     "spray: the source GPU as HOST:GPU (or HOST:GPU:PLANE on multi-plane clusters); its paired "
     "NIC sends. HOST is a host id or a node name (from --node-pattern, or the name an imported "
     "--cables/--ibnetdiscover file gives it).",
     "--src 0:3"},
    {"dst", K::kText, "HOST:GPU", "",
     "spray: the destination GPU as HOST:GPU[:PLANE], HOST an id or a node name as for --src.",
     "--dst 40:3"},
    {"qps", K::kInt, "K", "8",
     "spray: queue pairs for the connection, 1..256 (default 8); simulate: queue pairs per "
     "connection (with --generate: per flow), 1..256 (default 1).",
     "--qps 16"},
    {"hash", K::kText, "MODEL", "crc32",
     "spray, simulate --routing ecmp or steered: the switches' ECMP hash: crc32, crc32c (5-tuple "
     "CRC with per-switch seeds), qp (also hashes the destination QP), random (unknown hash: "
     "expected statistics only) or table:FILE (measured 'kind switch sport uplink' lines). "
     "simulate's default (collectives and --traffic/--generate): random for ecmp, crc32 for "
     "steered.",
     "--hash qp"},
    {"down", K::kText, "LINKS", "",
     "spray, simulate: failed or degraded cables: leaf<L>/<j> (leaf L uplink j), spine<S>/<k>, a "
     "whole switch leaf<L>|spine<S>|core<C>, each optionally @fraction for degraded; with "
     "--cables or --ibnetdiscover, added to the file's failures.",
     "--down leaf0/3,spine2,leaf0/5@0.5"},
    {"jobs", K::kText, "LIST", "",
     "place, cc: tenant jobs to place in order on an empty cluster, ';'-separated "
     "name:key=value lists with gpus (required, whole hosts) and tenant (default: the name); cc "
     "derives per-QP rate limits for them. plan: the mix to place on the busy cluster, in order; "
     "the keys may also be a parallelism plan's (tp, cp, ep, dp, pp, order, <dim>_bytes; gpus "
     "then defaults to the plan's world, and a job with gpus only gets tp=GPUs per host); names "
     "are letters, digits, '.', '_', '-'. Default for plan: "
     "ft-a:tp=8,dp=8;ft-b:tp=4,dp=8;ft-c:tp=8,dp=2;moe:tp=4,ep=8,dp=8;pretrain:tp=8,pp=4,dp=16; "
     "a mix with plans: \"llm:tp=8,pp=2,dp=8;ft:gpus=64,tenant=lab2\".",
     "--jobs \"pretrain:gpus=512;moe:gpus=256,tenant=lab2;ft:gpus=64\"", kSpec},
    {"policy", K::kText, "POLICY", "best_fit",
     "place: best_fit (smallest level that holds the job: one SU, then one pod), first_fit "
     "(lowest free host ids) or random (seeded by --seed).",
     "--policy first_fit"},
    {"trace", K::kText, "FILE", "",
     "replay: a job trace CSV with a header and rows time,name,gpus,duration (seconds), replayed "
     "under every policy. plan: the cluster's busy state: the trace is replayed under first_fit "
     "up to its last arrival and the jobs running then hold their hosts while the mix is placed "
     "(default: jobs job0029-job0068 of tests/data/job_trace.csv, embedded).",
     "--trace tests/data/job_trace.csv"},
    {"seed", K::kUint, "N", "1",
     "place --policy random: seed of the random policy; replay: of its random policy; spray: of "
     "the switches' hash; simulate --routing ecmp or steered: of the switches' hash; plan: of "
     "the switches' hash (both sides).",
     "--seed 7"},
    {"master-port", K::kInt, "PORT", "29500",
     "export --format torchrun or rank-env, plan --out: the rendezvous port, 1..65535.",
     "--master-port 29400"},
    {"cores-per-rank", K::kInt, "N", "1",
     "export --format rankfile, plan --out: CPU cores each rank binds to (slot=<first>-<last>), "
     "1..4096.",
     "--cores-per-rank 12"},
    {"job", K::kText, "PLAN", "",
     "order, simulate, cc, launcher formats of export: the job's parallelism plan: tp, cp, ep, "
     "dp, pp sizes (product = GPUs), optional order=tp-cp-ep-dp-pp (Megatron, first = fastest) "
     "and <dim>_bytes=SIZE (bytes per rank per step).",
     "--job tp=8,pp=4,dp=32", kSpec},
    {"hosts", K::kText, "LIST", "",
     "order, simulate, cc, launcher formats of export (with --job): the hosts the job was given, "
     "in the order a launcher would use them: host ids and ranges when the value holds only "
     "digits, ',' and '-' (0-15,32-47); otherwise node names as a Slurm hostlist, e.g. "
     "$SLURM_JOB_NODELIST as is (gpu-a[003-010,035-042]), named by --node-pattern or by the "
     "imported file. Default: the first hosts of the cluster.",
     "--hosts 'node[0000-0015,0032-0047]'"},
    {"order", K::kText, "railyard|naive", "railyard",
     "order, simulate, launcher formats of export: which numbering to use: railyard (grouped "
     "hosts, best order string) or naive (hosts as given, the plan's order string).",
     "--order naive"},
    {"json", K::kBool, "", "false",
     "print one JSON object on stdout instead of the text report (--json=true too; --nojson "
     "turns it off).",
     "railyard describe --json"},
    {"format", K::kText, "FORMAT", "",
     "export: the file to write on stdout: nccl-xml (NCCL_TOPO_FILE for one host), slurm-tree "
     "(topology.conf, topology/tree), slurm-block (topology.conf, topology/block), slurm-yaml "
     "(topology.yaml, Slurm 25.05+), k8s-labels (node labels, then a Kueue Topology: two YAML "
     "documents), kueue-topology (the Topology alone), k8s-label-script (kubectl label "
     "commands), csv (host,leaf,spine[,core]); the launcher formats, for --job: hostfile (Open "
     "MPI --map-by seq, one line per rank), hostfile-slots (host slots=G), rankfile (Open MPI "
     "rankfile), slurm-hostfile (SLURM_HOSTFILE for srun --distribution=arbitrary), rank-env "
     "(torchrun's variables per rank), torchrun (a script every node runs: it picks its "
     "--node_rank by host name; --out DIR also writes torchrun-node-<k>.sh), megatron "
     "(Megatron-LM arguments). cc: "
     "what to print: text (default), json (as --json), nvue (Cumulus Linux nv set qos "
     "commands), sonic (config_db JSON), connectx (mlnx_qos, cc_params, mlxconfig), nccl-env "
     "(NCCL and UCX variables) (docs/cc-config.md).",
     "--format slurm-tree"},
    {"gpus-per-host", K::kInt, "G", "8",
     "export, launcher formats with --topology-conf or --topology-csv: GPUs per host (those "
     "files do not say).",
     "--gpus-per-host 4"},
    {"kueue-api", K::kText, "VERSION", "v1beta2",
     "export --format k8s-labels or kueue-topology: the Kueue Topology API version: v1alpha1 "
     "(Kueue 0.9 to 0.13), v1beta1 (0.14 and later) or v1beta2 (0.15 and later).",
     "--kueue-api v1beta1"},
    {"host", K::kText, "H", "0",
     "export --format nccl-xml: the host whose topology file to write: its id, or its node name "
     "(from --node-pattern, or the name an imported --cables/--ibnetdiscover file gives it).",
     "--host node0003"},
    {"vm", K::kBool, "", "false",
     "export --format nccl-xml: write the skeleton NCCL needs inside a VM (CPU/NUMA nodes, PCIe "
     "switches with bus ids in domain ffff, bare GPU/NIC functions; placeholder ids in domain "
     "ffff unless --gpu-busids/--nic-busids or sysfs give real ones).",
     "--vm"},
    {"sysfs-root", K::kText, "DIR", "/sys",
     "export --format nccl-xml: where to read the host's GPUs and RDMA NICs (bus ids, NUMA "
     "nodes, CPUs, bridges; DIR/bus/pci/devices, DIR/class/infiniband). Without real ids, from "
     "here or --gpu-busids/--nic-busids, a bare-metal file is refused.",
     "--sysfs-root tests/data/sysfs/hgx_h100"},
    {"gpu-busids", K::kText, "LIST", "",
     "export --format nccl-xml: the host's real GPU bus ids in GPU order, comma-separated "
     "(instead of sysfs's).",
     "--gpu-busids=0001:00:00.0,0002:00:00.0,..."},
    {"nic-busids", K::kText, "LIST", "",
     "export --format nccl-xml: the host's real NIC bus ids in NIC order, comma-separated.",
     "--nic-busids=0101:00:00.0,..."},
    {"nccl-rail-plane", K::kBool, "", "true",
     "export --format nccl-xml: write rail= and plane= on each <net> (NCCL >= 2.30). NCCL "
     "2.30.7 keeps the file's values: they silently win over NCCL_IB_HCA name:port:rail:plane; "
     "--no-nccl-rail-plane leaves them to NCCL_IB_HCA and the net plugin.",
     "--no-nccl-rail-plane"},
    {"node-pattern", K::kText, "PATTERN", topology::kDefaultNodePattern,
     "export (slurm-*, k8s-*, kueue-topology, csv and launcher formats, from --cluster), plan "
     "--out, and the names --hosts takes in order, simulate, cc and export, --host in export "
     "--format nccl-xml and --src/--dst in spray: host names from a "
     "pattern with {host}, {su}, {pod}, {slot} (host in its SU) and {domain}; {x+N} adds N "
     "(numbering from 1 as Slurm sites do: gpu-a{host+1:03} names host 0 gpu-a001); {x:0N} "
     "zero-pads to at least N digits (more when needed, so names sort in topology order).",
     "--node-pattern \"gpu-{su:02}-{slot:03}\""},
    {"legacy-labels", K::kBool, "", "false",
     "export --format k8s-labels or k8s-label-script: also write the older "
     "network.topology.nvidia.com/* keys.",
     "--legacy-labels"},
    {"topology-conf", K::kText, "FILE", "",
     "describe, export: read the cluster from a Slurm topology.conf (topology/tree) instead of "
     "--cluster; link speeds from --host-gbps, --leaf-up-gbps, --spine-up-gbps.",
     "--topology-conf /etc/slurm/topology.conf"},
    {"topology-csv", K::kText, "FILE", "",
     "describe, export: read the cluster from a CSV of host,leaf,spine[,core] rows instead of "
     "--cluster.",
     "--topology-csv dump.csv"},
    {"cables", K::kText, "FILE", "",
     "every subcommand: the cluster from a cable list, rows a_node,a_port,b_node,b_port[,gbps] "
     "(LLDP neighbour tables, cabling plans), instead of --cluster: fitted to a regular spec, "
     "missing cables down and miswired ones down at the place they belong (docs/import.md).",
     "--cables cables.csv"},
    {"ibnetdiscover", K::kText, "FILE", "",
     "every subcommand: the cluster from InfiniBand ibnetdiscover output, instead of --cluster; "
     "fitted as --cables is (docs/import.md).",
     "--ibnetdiscover fabric.topo"},
    {"host-gbps", K::kDecimal, "GBPS", "400",
     "with --topology-conf or --topology-csv: host-leaf link speed in Gb/s (Slurm ignores "
     "LinkSpeed).",
     "--host-gbps 400"},
    {"leaf-up-gbps", K::kDecimal, "GBPS", "400",
     "with --topology-conf or --topology-csv: leaf-spine link speed in Gb/s.",
     "--leaf-up-gbps 400"},
    {"spine-up-gbps", K::kDecimal, "GBPS", "400",
     "with --topology-conf or --topology-csv: spine-core link speed in Gb/s.",
     "--spine-up-gbps 800"},
    {"collective", K::kText, "KIND", "",
     "simulate: the collective: allreduce, allgather, reducescatter or alltoall; cc (with --job): "
     "the collective whose incast to derive, instead of the job's whole training step.",
     "--collective allreduce"},
    {"bytes", K::kText, "SIZE", "",
     "simulate: the collective's size S per group (nccl-tests convention: the all-reduce buffer, "
     "the all-gather output, each rank's all-to-all send buffer), 1 byte to 2^50; plain bytes or "
     "KiB MiB GiB TiB (K M G T: powers of 1000); with --generate: the size of every flow.",
     "--bytes 256MiB"},
    {"group", K::kText, "DIM", "",
     "simulate, cc --collective: run the collective in every group of this parallel dimension at "
     "once (tp, cp, ep, dp or pp) instead of over all ranks of the job; its groups must hold more "
     "than one rank.",
     "--group dp"},
    {"algorithm", K::kText, "ALGO", "",
     "simulate, cc --collective: ring, tree (double binary tree; allreduce), hierarchical "
     "(allreduce), pairwise or rail_aligned (alltoall); default ring, or pairwise for alltoall.",
     "--algorithm rail_aligned"},
    {"routing", K::kText, "ecmp|steered|adaptive|planned", "ecmp",
     "simulate: how network flows find paths. Deployable: ecmp (each QP hashed at every "
     "switch) or steered (the path advisor's source ports for each connection, --qps its QP "
     "budget, pushed through the switches' hash; spray is an alias) or adaptive (per-packet "
     "spraying / adaptive routing, each flow split per hop over the working equal-cost ports, as "
     "Spectrum-X or UEC switches do). Not deployable: planned "
     "(a centralized least-loaded assignment per step: an upper bound). With --traffic/--generate: "
     "ecmp (the default), steered (each flow one connection, its qps column or --qps the QP "
     "budget) or adaptive.",
     "--routing ecmp"},
    {"channels", K::kInt, "C", "0",
     "simulate: ring channels per group, 0..64; 0 = one per NIC the group can use.",
     "--channels 4"},
    {"chunk", K::kText, "SIZE|off", "2MiB",
     "simulate: the pipelining chunk per connection, 4KiB..512MiB (default 2MiB, NCCL's Simple "
     "protocol: 4 of 8 slots of a 4 MiB buffer, 2 slices); off = unpipelined, every step "
     "alpha + transfer and phases in series (docs/models.md#pipelining).",
     "--chunk 512KiB"},
    {"svg", K::kText, "FILE", "",
     "simulate: also write a heat map of link utilization to this SVG file; cc --simulate: the "
     "paper fluid model's queue and rate traces (derived settings).",
     "--svg out.svg"},
    {"svg-metric", K::kText, "average|peak", "average",
     "simulate --svg: what the heat map shows: average = each link's bytes / (capacity x the "
     "run's time); peak = its busiest step's bytes / (capacity x that step's transfer time). "
     "Either way the darkest red is the busiest switch port and the hottest ten are listed.",
     "--svg-metric peak"},
    {"incast", K::kInt, "N", "",
     "cc: line-rate senders into one switch port at once, 1..65536; default: derived from --job "
     "(and --collective), else 1.",
     "--incast 16"},
    {"buffer-mb", K::kText, "MB", "",
     "cc: switch buffer one congested port may hold, in MB (10^6 bytes), more than 0 and at most "
     "10^6, at least one BDP; default: derived from the switch (160 MB per 51.2 Tb/s, half of it "
     "per port).",
     "--buffer-mb 16"},
    {"message-bytes", K::kText, "SIZE", "",
     "cc: bytes a connection moves per message (e.g. a ring chunk), for the QP count, 1 byte to "
     "2^50; default NCCL's 4 MiB buffer; same units as --bytes.",
     "--message-bytes 1MiB"},
    {"cable-m", K::kText, "M", "",
     "cc: every cable taken as M metres (give the longest run), for the RTTs and the PFC "
     "headroom alike; more than 0, at most 100000; default: the cluster's lengths by tier "
     "(the spec's host_leaf_m, leaf_spine_m, spine_core_m, else by medium).",
     "--cable-m 100"},
    {"mtu", K::kInt, "BYTES", "4096",
     "cc: the RoCE MTU (payload bytes per packet): 256, 512, 1024, 2048 or 4096; simulate "
     "--traffic: the packet size of the queueing correction, 256..65536.",
     "--mtu 2048"},
    {"traffic", K::kText, "FILE", "",
     "simulate: time this traffic matrix instead of a collective: one flow per line, "
     "src,dst,bytes[,start_us][,qps]; an endpoint is HOST:GPU or HOST (its GPU 0); '#' lines "
     "are comments (docs/cli.md#simulate-traffic).",
     "--traffic flows.csv"},
    {"generate", K::kText, "KIND", "",
     "simulate: time a generated traffic matrix, every flow --bytes: permutation[:SEED] (every "
     "GPU to one other, no fixed points), incast:N (N hosts into host 0), uniform:N[:SEED] (N "
     "random pairs), alltoall, or alltoallv:FILE (all-to-all-v from a byte matrix: row i, "
     "column j = bytes rank i sends to rank j, rank r the cluster's r-th GPU; no --bytes).",
     "--generate permutation:3"},
    {"flows-out", K::kText, "FILE", "",
     "simulate --traffic/--generate: write every flow's completion time to FILE (JSON when it "
     "ends in .json, else CSV).",
     "--flows-out fct.csv"},
    {"queueing", K::kBool, "", "true",
     "simulate --traffic/--generate: add the queueing correction (M/D/1 wait per merged link, "
     "capped at the standing queue; docs/models.md#queueing); --noqueueing for the fluid model "
     "alone.",
     "--noqueueing"},
    {"standing-queue", K::kText, "SIZE", "150000",
     "simulate --traffic/--generate: the queue congestion control holds on a saturated link "
     "(ECN threshold or delay target), the cap of the queueing wait; 0 .. 16GiB.",
     "--standing-queue 64KiB"},
    {"count-ack", K::kBool, "", "false",
     "simulate --traffic/--generate: a flow completes when its sender sees the last ACK (the "
     "one-way latency counted twice), as htsim measures FCT.",
     "--count-ack"},
    {"switch-mtu", K::kInt, "BYTES", "9216",
     "cc: the switch ports' MTU, the largest frame in flight, counted twice in the PFC "
     "headroom; at least the RoCE frame (MTU + 62), at most 16384.",
     "--switch-mtu 4200"},
    {"switch-ns", K::kDecimal, "NS", "600",
     "simulate, cc, plan: latency of one leaf/spine/core switch crossing in ns, 0..100000 "
     "(default 600, an assumption; docs/constants.md#latency).",
     "--switch-ns 800"},
    {"nic-ns", K::kDecimal, "NS", "500",
     "simulate, cc, plan: latency of one NIC port in ns, counted once per NIC a flow crosses, "
     "0..100000 (default 500, an assumption).",
     "--nic-ns 300"},
    {"nvswitch-ns", K::kDecimal, "NS", "250",
     "simulate, plan: latency of one NVLink switch crossing in ns, 0..100000 (default 250, an "
     "assumption).",
     "--nvswitch-ns 100"},
    {"simulate", K::kBool, "", "false",
     "cc: search congestion-control settings on the NIC and switch model (ConnectX DCQCN, RED "
     "ECN, PFC) over four scenarios (burst, the job's start rate, two-flow fairness, two "
     "tenants; 5 ms each), recommend the vendor defaults unless a candidate is no worse on every "
     "metric, show the paper's fluid model beside it and the verdict's sensitivity.",
     "railyard cc --incast 8 --simulate"},
    {"start-rate", K::kText, "FRACTION", "",
     "cc --simulate: the senders' starting rate as a fraction of line rate, (0, 1], a decimal or "
     "a/b; default 1 (a synchronized burst), or 1/N when the incast comes from an all-to-all "
     "(each sender splits its NIC over N peers).",
     "--start-rate 1/8"},
    {"simulate-ms", K::kText, "MS", "5",
     "cc --simulate: simulated time of each scenario in milliseconds, (0, 100]; longer runs "
     "see slower dynamics settle, shorter ones answer sooner.",
     "--simulate-ms 20"},
    {"out", K::kText, "DIR", "",
     "export --format torchrun: write torchrun.sh and torchrun-node-<k>.sh per node there; "
     "export --format k8s-labels: write k8s-node-labels.yaml and kueue-topology.yaml there. "
     "plan: also write every artifact under this directory (created if missing): plan.json, "
     "topo/<host>.xml (NCCL_TOPO_FILE), slurm/topology.conf and topology.yaml, k8s/labels.yaml, "
     "jobs/<job>/{hostfile,rankfile,rank-env.txt,megatron-args.txt,nccl.env,nccl_tuner.conf}, "
     "heatmap/{naive,railyard}.svg and a README.txt.",
     "--out plan-out"},
    {"progress", K::kBool, "", "",
     "simulate, plan: progress lines on stderr for a run longer than 2 s (steps, flows or "
     "stages done, time spent and left; the memory estimate), at most one every 2 s; "
     "--no-progress turns them off. Default: on when stderr is a terminal, else off "
     "(docs/cli.md#progress-and-memory).",
     "--progress"},
    {"max-memory", K::kText, "SIZE", "",
     "simulate: refuse (exit 2) a run whose estimated memory exceeds SIZE (same units as "
     "--bytes); default: the memory available (MemAvailable of /proc/meminfo). Give more "
     "than that to run anyway (docs/cli.md#progress-and-memory).",
     "--max-memory 8GiB"},
    {"empty", K::kBool, "", "false",
     "plan: start from an empty cluster (no background jobs) instead of replaying a trace; "
     "not with --trace.",
     "--empty"},
}};

// Names are typed with hyphens; the table must use them too.
consteval bool names_use_hyphens() {
  for (const FlagSpec& f : kFlagTable)
    if (f.name.find('_') != std::string_view::npos) return false;
  return true;
}
static_assert(names_use_hyphens(), "flag names are spelled with '-', as users type them");

std::string canonical(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

// Booleans as Abseil's flags took them (case-insensitive).
std::optional<bool> parse_bool(std::string_view text) {
  const std::string v = to_lower(text);
  for (std::string_view t : {"1", "t", "true", "y", "yes"})
    if (v == t) return true;
  for (std::string_view f : {"0", "f", "false", "n", "no"})
    if (v == f) return false;
  return std::nullopt;
}

// The value checked for the flag's kind; the error names the flag.
Status check_kind(const FlagSpec& f, std::string_view value) {
  auto as_flag_error = [&](const Status& s) {
    return s.ok() ? s : usage_error(str_cat("--", message_of(s)));
  };
  switch (f.kind) {
    case FlagKind::kBool:
      if (parse_bool(value)) return ok_status();
      return usage_error(str_cat("--", f.name, "=", value,
                                 ": not a boolean (use true or false, or --", f.name, " / --no",
                                 f.name, ")"));
    case FlagKind::kText:
      if (!value.empty()) return ok_status();
      return usage_error(str_cat("--", f.name, "=: the value is empty (give ", f.metavar, ", e.g. ",
                                 f.example, ")"));
    case FlagKind::kInt:
      return as_flag_error(parse_signed_int_in(f.name, value, std::numeric_limits<int32_t>::min(),
                                               std::numeric_limits<int32_t>::max())
                               .status());
    case FlagKind::kUint:
      return as_flag_error(parse_uint(f.name, value).status());
    case FlagKind::kDecimal:
      return as_flag_error(parse_decimal(f.name, value).status());
  }
  return ok_status();
}

bool field_matches(std::string_view pattern, std::string_view field) {
  if (!pattern.empty() && pattern.back() == '*')
    return field.substr(0, pattern.size() - 1) == pattern.substr(0, pattern.size() - 1);
  return canonical(pattern) == canonical(field);
}

[[noreturn]] void undeclared(std::string_view name) {
  throw std::logic_error(str_cat("flag --", name, " is not declared for this subcommand"));
}

}  // namespace

std::span<const FlagSpec> flag_table() { return kFlagTable; }

const FlagSpec* find_flag(std::string_view name) {
  const std::string c = canonical(name);
  for (const FlagSpec& f : kFlagTable)
    if (f.name == c) return &f;
  return nullptr;
}

StatusOr<CommandLine> parse_command_line(std::span<const std::string_view> args) {
  CommandLine cl;
  bool flags_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      cl.positionals.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg.substr(0, 2) != "--")
      return usage_error(str_cat("unknown flag '", arg, "' (try 'railyard --help')"));
    const std::string_view body = arg.substr(2);
    const size_t eq = body.find('=');
    const bool has_value = eq != std::string_view::npos;
    const std::string typed(body.substr(0, eq));
    const std::string_view value = has_value ? body.substr(eq + 1) : std::string_view();

    // --nojson, --no-legacy-labels, --nolegacy_labels.
    const FlagSpec* flag = find_flag(typed);
    bool negated = false;
    if (flag == nullptr && typed.substr(0, 2) == "no") {
      const std::string_view rest =
          std::string_view(typed).substr(typed[2] == '-' || typed[2] == '_' ? 3 : 2);
      if (const FlagSpec* f = find_flag(rest); f != nullptr && f->kind == FlagKind::kBool) {
        flag = f;
        negated = true;
      }
    }
    if (flag == nullptr)
      return usage_error(str_cat("unknown flag '--", typed, "' (try 'railyard --help')"));

    std::string text;
    if (flag->kind == FlagKind::kBool) {
      if (negated && has_value)
        return usage_error(str_cat("--no", flag->name, ": takes no value (got '", value, "')"));
      RAILYARD_RETURN_IF_ERROR(check_kind(*flag, has_value ? value : "true"));
      text = negated ? "false" : has_value ? (*parse_bool(value) ? "true" : "false") : "true";
    } else {
      if (!has_value && i + 1 >= args.size())
        return usage_error(str_cat("--", flag->name, ": missing value"));
      text = has_value ? std::string(value) : std::string(args[++i]);
      RAILYARD_RETURN_IF_ERROR(check_kind(*flag, text));
    }
    cl.values.push_back({flag, std::move(text)});
  }
  return cl;
}

Flags::Flags(std::vector<FlagValue> given, std::span<const FlagUse> uses)
    : given_(std::move(given)), uses_(uses) {}

const FlagUse* Flags::use(std::string_view name) const {
  for (const FlagUse& u : uses_)
    if (u.name == name) return &u;
  return nullptr;
}

bool Flags::given(std::string_view name) const {
  if (use(name) == nullptr) undeclared(name);
  return std::any_of(given_.begin(), given_.end(),
                     [&](const FlagValue& v) { return v.spec->name == name; });
}

std::string_view Flags::text(std::string_view name) const {
  const FlagUse* u = use(name);
  if (u == nullptr) undeclared(name);
  for (auto it = given_.rbegin(); it != given_.rend(); ++it)
    if (it->spec->name == name) return it->text;
  if (!u->fallback.empty()) return u->fallback;
  const FlagSpec* spec = find_flag(name);
  return spec == nullptr ? std::string_view() : spec->fallback;
}

bool Flags::boolean(std::string_view name) const {
  const std::optional<bool> b = parse_bool(text(name));
  if (!b) undeclared(name);
  return *b;
}

int32_t Flags::int32(std::string_view name) const {
  auto v = parse_signed_int_in(name, text(name), std::numeric_limits<int32_t>::min(),
                               std::numeric_limits<int32_t>::max());
  if (!v.ok()) undeclared(name);  // checked when given; defaults are valid
  return static_cast<int32_t>(*v);
}

uint64_t Flags::uint64(std::string_view name) const {
  auto v = parse_uint(name, text(name));
  if (!v.ok()) undeclared(name);
  return *v;
}

double Flags::decimal(std::string_view name) const {
  auto v = parse_decimal(name, text(name));
  if (!v.ok()) undeclared(name);
  return *v;
}

Status usage_error(std::string_view message) { return invalid_argument_error(message); }

Status as_input_error(const Status& s) {
  if (s.ok()) return s;
  const Status out = invalid_argument_error(message_of(s));
  const std::optional<FieldError> f = error_field(s);
  return f ? with_field(out, f->field, f->value) : out;
}

std::string shown(const Flags& flags, std::string_view name) {
  return str_cat("--", name, "=", flags.text(name));
}

Status flag_error(const Flags& flags, std::string_view flag, const Status& s) {
  if (s.ok() || s.code() != StatusCode::kInvalidArgument) return s;
  const FlagSpec* spec = find_flag(flag);
  if (spec == nullptr) undeclared(flag);
  if (spec->quote == FlagQuote::kSpec)
    return usage_error(str_cat("--", spec->name, ": ", message_of(s)));
  const std::string_view typed = flags.text(spec->name);
  const std::optional<FieldError> f = error_field(s);
  if (f && canonical(f->field) == spec->name) {
    const bool part = !f->value.empty() && typed.find(f->value) != std::string_view::npos;
    return usage_error(str_cat("--", spec->name, "=", part ? std::string_view(f->value) : typed,
                               ": ", error_problem(s)));
  }
  return usage_error(str_cat("--", spec->name, "=", typed, ": ", message_of(s)));
}

Status routed_error(const Flags& flags, std::span<const FieldRoute> routes, const Status& s,
                    std::string_view fallback) {
  if (s.ok() || s.code() != StatusCode::kInvalidArgument) return s;
  if (const std::optional<FieldError> f = error_field(s))
    for (const FieldRoute& route : routes) {
      if (!field_matches(route.field, f->field)) continue;
      std::string_view pick;
      for (std::string_view candidate : route.flags) {
        if (candidate.empty()) continue;
        pick = candidate;
        if (flags.given(candidate)) break;
      }
      return flag_error(flags, pick, s);
    }
  return usage_error(str_cat(fallback, ": ", message_of(s)));
}

}  // namespace railyard::cli
