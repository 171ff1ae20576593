// railyard — the command-line tool.
//
//   railyard plan                                      # the whole pipeline on a tenant mix
//   railyard plan --out plan-out                       # ... and every file it recommends
//   railyard describe                                  # the default cluster, as text
//   railyard describe --cluster=h100-1024 --json       # one JSON object on stdout
//   railyard describe --cluster=rail_fat_tree:hosts=256,oversub=2:1
//   railyard presets                                   # the embedded cluster presets
//   railyard simulate --collective allreduce --bytes 1GiB --job tp=8,dp=16 --hosts 0-15
//   railyard cc --job tp=8,dp=16 --hosts 0-15 --collective alltoall   # ECN, DCQCN, NCCL env
//   railyard help [subcommand]                         # also --help / -h anywhere
//
// Contract (docs/cli.md): the first positional argument
// names the subcommand; a report goes to stdout; any usage or input error prints
// one line `railyard: <message>` on stderr and exits with status 2.
//
// Flags are declared with ABSL_FLAG, but argv is parsed here rather than by
// absl::ParseCommandLine: that one exits with status 1 on an unknown flag and
// would accept Abseil's own flags too. Each argument is matched against our own
// flag names (kFlagNames) and set through absl::CommandLineFlag::ParseFrom().
//
// Adding a subcommand: write `absl::StatusOr<std::string> run_NAME(const Invocation&)`
// (return the whole stdout text, or InvalidArgument for an input error), declare
// any new flag with ABSL_FLAG and add its name to kFlagNames, then add a row to
// kSubcommands naming the flags it accepts.

#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <railyard/railyard.hpp>
#include <span>
#include <sstream>
#include <system_error>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace {

constexpr std::string_view kProgram = "railyard";
constexpr std::string_view kVersion = railyard::kVersion;

// ---------------------------------------------------------------------------
// Flags. Help texts are literals (ABSL_FLAG stores them as absl::string_view);
// every one carries an example.
// ---------------------------------------------------------------------------

constexpr char kClusterHelp[] =
    "the cluster, as a preset name or a spec KIND:key=value,... with KIND one of "
    "rail_fat_tree, tor_fat_tree, rail_only and keys hosts (required), gpus_per_host, "
    "nics_per_host, nic_gbps, hosts_per_su, switch_radix, oversub, tiers, sus_per_pod, "
    "pod_oversub, scale_up, nvlink_gbps, planes, switch_layout. "
    "Example: --cluster=rail_fat_tree:hosts=256,oversub=2:1 (256 hosts, 2:1 leaf "
    "oversubscription). "
    "Presets: h100-1024, h100-1024-2to1, h100-1024-tor, h100-1024-railonly, "
    "h100-1024-dualplane, gb200-nvl72-576, h100-16k-3tier, h100-128k-3tier "
    "(see 'railyard presets'). Example: --cluster=h100-16k-3tier";

// The help text above names every preset; keep it so when presets are added.
consteval bool cluster_help_names_every_preset() {
  const std::string_view help(kClusterHelp);
  for (const railyard::topology::Preset& preset : railyard::topology::kPresets)
    if (help.find(preset.name) == std::string_view::npos) return false;
  return true;
}
static_assert(cluster_help_names_every_preset(),
              "kClusterHelp must name every preset of railyard::topology::kPresets");

}  // namespace

ABSL_FLAG(std::string, cluster, std::string(railyard::topology::kDefaultCluster), kClusterHelp);
ABSL_FLAG(bool, json, false,
          "print one JSON object on stdout instead of the text report. "
          "Example: railyard describe --json (or --json=true; --nojson turns it off)");
ABSL_FLAG(std::string, format, "",
          "export: the file format to write on stdout: nccl-xml (NCCL_TOPO_FILE for one host), "
          "slurm-tree (topology.conf, topology/tree), slurm-block (topology.conf, topology/block), "
          "slurm-yaml (topology.yaml, Slurm 25.05+), k8s-labels (node labels and a Kueue "
          "Topology, YAML), k8s-label-script (kubectl label commands), csv (host,leaf,spine"
          "[,core]). Example: railyard export --format slurm-tree > topology.conf");
ABSL_FLAG(int32_t, host, 0,
          "nccl-xml: the host whose topology file to write. Example: railyard export "
          "--format nccl-xml --host 3");
ABSL_FLAG(bool, vm, false,
          "nccl-xml: write the skeleton NCCL needs inside a VM (CPU/NUMA nodes, PCIe switches "
          "with bus ids in domain ffff, bare GPU/NIC functions). Example: --vm");
ABSL_FLAG(std::string, gpu_busids, "",
          "nccl-xml: the host's real GPU bus ids in GPU order, comma-separated, replacing the "
          "generated ones. Example: --gpu-busids=0001:00:00.0,0002:00:00.0,...");
ABSL_FLAG(std::string, nic_busids, "",
          "nccl-xml: the host's real NIC bus ids in NIC order, comma-separated. "
          "Example: --nic-busids=0101:00:00.0,...");
ABSL_FLAG(bool, nccl_rail_plane, true,
          "nccl-xml: write rail= and plane= on each <net> (NCCL >= 2.30; they must match "
          "NCCL_IB_HCA name:port:rail:plane, or NCCL refuses the file). Example: "
          "--nonccl-rail-plane");
ABSL_FLAG(std::string, node_pattern, std::string(railyard::topology::kDefaultNodePattern),
          "slurm-*, k8s-*, csv, launcher formats, plan --out: host names from a pattern with "
          "{host}, {su}, {pod}, {slot} (host in its SU) and {domain}; {x:0N} zero-pads to at least "
          "N digits (more when "
          "needed, so names sort in topology order). Example: --node-pattern "
          "\"gpu-{su:02}-{slot:03}\"");
ABSL_FLAG(bool, legacy_labels, false,
          "k8s-labels: also write the older network.topology.nvidia.com/* keys. "
          "Example: --legacy-labels");
ABSL_FLAG(std::string, topology_conf, "",
          "describe, export (not simulate or cc, which need --cluster): read the cluster from a "
          "Slurm topology.conf (topology/tree) instead of --cluster; link speeds from "
          "--host-gbps, --leaf-up-gbps, --spine-up-gbps. "
          "Example: railyard describe --topology-conf /etc/slurm/topology.conf");
ABSL_FLAG(
    std::string, topology_csv, "",
    "describe, export (not simulate or cc, which need --cluster): read the cluster from a CSV "
    "of host,leaf,spine[,core] rows instead of --cluster. "
    "Example: railyard export --topology-csv dump.csv --format slurm-tree");
ABSL_FLAG(std::string, job, "",
          "order, simulate, export, cc: the job's parallelism plan: tp, cp, ep, dp, pp sizes "
          "(product = GPUs), optional order=tp-cp-ep-dp-pp (Megatron, first = fastest) and "
          "<dim>_bytes=SIZE (bytes per rank per step). Example: --job tp=8,pp=4,dp=32");
ABSL_FLAG(std::string, hosts, "",
          "order, simulate, export, cc: the hosts the job was given (ids, ranges), in the order a "
          "launcher would use them; default the first hosts of the cluster. "
          "Example: --hosts 0-15,32-47");
ABSL_FLAG(std::string, order, "railyard",
          "order, simulate, export: which numbering to use: railyard (grouped hosts, best "
          "order string) or naive (hosts as given, the plan's order string). "
          "Example: --order naive");
ABSL_FLAG(int32_t, master_port, 29500,
          "launcher formats, plan --out: the rendezvous port for torchrun and rank-env. "
          "Example: --master-port 29400");
ABSL_FLAG(int32_t, cores_per_rank, 1,
          "rankfile, plan --out: CPU cores each rank binds to (slot=<first>-<last>). "
          "Example: --cores-per-rank 12");
ABSL_FLAG(std::string, jobs, "",
          "place, cc: tenant jobs to place in order on an empty cluster, ';'-separated "
          "name:key=value lists with gpus (required, whole hosts) and tenant (default: the "
          "name); cc derives per-QP rate limits for them. Example: --jobs "
          "\"pretrain:gpus=512;moe:gpus=256,tenant=lab2;ft:gpus=64\". plan: the mix to place "
          "on the busy cluster, in order; the keys may also be a parallelism plan's (tp, cp, ep, "
          "dp, pp, order, <dim>_bytes; gpus then defaults to the plan's world, and a job with "
          "gpus only gets tp=GPUs per host); names are letters, digits, '.', '_', '-'. Default: "
          "ft-a:tp=8,dp=8;ft-b:tp=4,dp=8;ft-c:tp=8,dp=2;moe:tp=4,ep=8,dp=8;"
          "pretrain:tp=8,pp=4,dp=16. Example: railyard plan --jobs "
          "\"llm:tp=8,pp=2,dp=8;ft:gpus=64,tenant=lab2\"");
ABSL_FLAG(std::string, policy, "best_fit",
          "place: best_fit (smallest level that holds the job: one SU, then one pod), "
          "first_fit (lowest free host ids) or random. Example: --policy first_fit");
ABSL_FLAG(std::string, trace, "",
          "replay: a job trace CSV with a header and rows time,name,gpus,duration (seconds), "
          "replayed under every policy. Example: railyard replay --trace tests/data/job_trace.csv. "
          "plan: the cluster's busy state: the trace is replayed under first_fit up to its last "
          "arrival and the jobs running then hold their hosts while the mix is placed (default: "
          "jobs job0029-job0068 of tests/data/job_trace.csv, embedded). Example: railyard plan "
          "--trace tests/data/job_trace.csv");
ABSL_FLAG(uint64_t, seed, 1,
          "place, replay: seed of the random policy; spray: of the switches' hash; simulate: "
          "of the ECMP and spray hashes; plan: of the naive side's ECMP hash. Example: --seed 7");
ABSL_FLAG(std::string, src, "",
          "spray: the source GPU as HOST:GPU (or HOST:GPU:PLANE on multi-plane clusters); "
          "its paired NIC sends. Example: --src 0:3");
ABSL_FLAG(std::string, dst, "",
          "spray: the destination GPU as HOST:GPU[:PLANE]. Example: --dst 40:3");
ABSL_FLAG(int32_t, qps, 8,
          "spray: queue pairs for the connection, 1..256; simulate: queue pairs per "
          "connection, 1..256, default 1 there. Example: --qps 16");
ABSL_FLAG(std::string, hash, "crc32",
          "spray: the switches' ECMP hash: crc32, crc32c (5-tuple CRC with per-switch seeds), "
          "qp (also hashes the destination QP), random (unknown hash: expected statistics "
          "only) or table:FILE (measured 'kind switch sport uplink' lines). Example: --hash qp");
ABSL_FLAG(std::string, down, "",
          "spray, simulate: failed or degraded cables: leaf<L>/<j> (leaf L uplink j), "
          "spine<S>/<k>, a whole switch leaf<L>|spine<S>|core<C>, each optionally @fraction "
          "for degraded. Example: --down leaf0/3,spine2,leaf0/5@0.5");
ABSL_FLAG(double, host_gbps, 400,
          "with --topology-conf/--topology-csv: host-leaf link speed in Gb/s (Slurm ignores "
          "LinkSpeed). Example: --host-gbps 400");
ABSL_FLAG(double, leaf_up_gbps, 400,
          "with --topology-conf/--topology-csv: leaf-spine link speed in Gb/s. "
          "Example: --leaf-up-gbps 400");
ABSL_FLAG(double, spine_up_gbps, 400,
          "with --topology-conf/--topology-csv: spine-core link speed in Gb/s. "
          "Example: --spine-up-gbps 800");
ABSL_FLAG(std::string, collective, "",
          "simulate: the collective: allreduce, allgather, reducescatter or alltoall; cc: the "
          "job's collective, to derive the incast (ring 1, tree 2, alltoall hosts - 1). "
          "Example: --collective allreduce");
ABSL_FLAG(std::string, bytes, "",
          "simulate: the collective's size S per group (nccl-tests convention: the all-reduce "
          "buffer, the all-gather output, each rank's all-to-all send buffer), 1 byte to 2^50; "
          "plain bytes or KiB MiB GiB TiB (K M G T: powers of 1000). Example: --bytes 256MiB");
ABSL_FLAG(std::string, group, "",
          "simulate: run the collective in every group of this parallel dimension at once "
          "(tp, cp, ep, dp or pp) instead of over all ranks of the job. Example: --group dp");
ABSL_FLAG(std::string, algorithm, "",
          "simulate, cc: ring, tree (double binary tree; allreduce), hierarchical (allreduce), "
          "pairwise or rail_aligned (alltoall); default ring, or pairwise for alltoall. "
          "Example: --algorithm rail_aligned");
ABSL_FLAG(std::string, routing, "planned",
          "simulate: how network flows find paths: ecmp (each QP hashed at every switch), "
          "planned (railyard assigns paths, least loaded link first) or spray (a spraying plan "
          "per connection). Example: --routing ecmp");
ABSL_FLAG(int32_t, channels, 0,
          "simulate: ring channels per group, 0..64; 0 = one per NIC the group can use. "
          "Example: --channels 4");
ABSL_FLAG(int32_t, incast, 0,
          "cc: line-rate senders into one switch port at once, 1..65536; default: derived "
          "from --job and --collective, else 1. Example: --incast 16");
ABSL_FLAG(std::string, buffer_mb, "",
          "cc: switch buffer one congested port may hold, in MB (10^6 bytes), at least one "
          "BDP; default: derived from the switch (160 MB per 51.2 Tb/s, half of it per port). "
          "Example: --buffer-mb 16");
ABSL_FLAG(std::string, message_bytes, "",
          "cc: bytes a connection moves per message (e.g. a ring chunk), for the QP count; "
          "default NCCL's 4 MiB buffer; same units as --bytes. Example: --message-bytes 1MiB");
ABSL_FLAG(std::string, svg, "",
          "simulate: also write a heat map of link utilization to this SVG file; cc --simulate: "
          "the fluid model's queue and rate traces (derived settings). Example: --svg out.svg");
ABSL_FLAG(bool, simulate, false,
          "cc: run the DCQCN fluid model on the derived settings and on the vendor defaults "
          "(incast senders into one port, 20 ms) and report queue, utilization, settling. "
          "Example: railyard cc --incast 8 --simulate");
ABSL_FLAG(std::string, out, "",
          "plan: also write every artifact under this directory (created if missing): "
          "plan.json, topo/<host>.xml (NCCL_TOPO_FILE), slurm/topology.conf and topology.yaml, "
          "k8s/labels.yaml, jobs/<job>/{hostfile,rankfile,rank-env.txt,megatron-args.txt,"
          "nccl.env,nccl_tuner.conf}, heatmap/{naive,railyard}.svg and a README.txt. Example: "
          "railyard plan --out plan-out");
ABSL_FLAG(std::string, start_rate, "",
          "cc --simulate: the senders' starting rate as a fraction of line rate, (0, 1]; "
          "default 1 (a synchronized burst), or 1/N when the incast comes from an all-to-all "
          "(each sender splits its NIC over N peers); a/b works too. Example: --start-rate 1/8");

namespace {

// The flags railyard accepts, with the name shown for their value in help
// (empty for booleans). Any other name, Abseil's own flags included, is an
// unknown flag.
struct FlagName {
  std::string_view name;
  std::string_view metavar;
};
constexpr std::array<FlagName, 42> kFlagNames = {{{"cluster", "SPEC"},
                                                  {"src", "HOST:GPU"},
                                                  {"dst", "HOST:GPU"},
                                                  {"qps", "K"},
                                                  {"hash", "MODEL"},
                                                  {"down", "LINKS"},
                                                  {"jobs", "LIST"},
                                                  {"policy", "POLICY"},
                                                  {"trace", "FILE"},
                                                  {"seed", "N"},
                                                  {"master_port", "PORT"},
                                                  {"cores_per_rank", "N"},
                                                  {"job", "PLAN"},
                                                  {"hosts", "LIST"},
                                                  {"order", "railyard|naive"},
                                                  {"json", ""},
                                                  {"format", "FORMAT"},
                                                  {"host", "H"},
                                                  {"vm", ""},
                                                  {"gpu_busids", "LIST"},
                                                  {"nic_busids", "LIST"},
                                                  {"nccl_rail_plane", ""},
                                                  {"node_pattern", "PATTERN"},
                                                  {"legacy_labels", ""},
                                                  {"topology_conf", "FILE"},
                                                  {"topology_csv", "FILE"},
                                                  {"host_gbps", "GBPS"},
                                                  {"leaf_up_gbps", "GBPS"},
                                                  {"spine_up_gbps", "GBPS"},
                                                  {"collective", "KIND"},
                                                  {"bytes", "SIZE"},
                                                  {"group", "DIM"},
                                                  {"algorithm", "ALGO"},
                                                  {"routing", "ecmp|planned|spray"},
                                                  {"channels", "C"},
                                                  {"svg", "FILE"},
                                                  {"incast", "N"},
                                                  {"buffer_mb", "MB"},
                                                  {"message_bytes", "SIZE"},
                                                  {"simulate", ""},
                                                  {"start_rate", "FRACTION"},
                                                  {"out", "DIR"}}};

struct Subcommand;

// What a subcommand gets: itself (for messages) and the positional arguments
// after its name. Flag values are read with absl::GetFlag.
struct Invocation {
  const Subcommand* command = nullptr;
  std::vector<std::string> args;
  std::vector<std::string> flags_used;  // canonical names given on the command line
};

// A subcommand's result: the complete stdout text, or an error status.
// InvalidArgument means a usage or input error (exit 2); anything else is an
// internal error (exit 1).
using Outcome = absl::StatusOr<std::string>;

struct Subcommand {
  std::string_view name;
  std::string_view synopsis;  // arguments after the name, for the usage line
  std::string_view summary;   // one line
  std::span<const std::string_view> flags;
  Outcome (*run)(const Invocation&);
};

Outcome run_describe(const Invocation& inv);
Outcome run_plan(const Invocation& inv);
Outcome run_export(const Invocation& inv);
Outcome run_order(const Invocation& inv);
Outcome run_place(const Invocation& inv);
Outcome run_replay(const Invocation& inv);
Outcome run_spray(const Invocation& inv);
Outcome run_simulate(const Invocation& inv);
Outcome run_cc(const Invocation& inv);
Outcome run_presets(const Invocation& inv);
Outcome run_help(const Invocation& inv);

constexpr std::array<std::string_view, 7> kDescribeFlags = {
    "cluster",   "json",         "topology_conf", "topology_csv",
    "host_gbps", "leaf_up_gbps", "spine_up_gbps"};
constexpr std::array<std::string_view, 19> kExportFlags = {
    "job",          "hosts",          "order",
    "master_port",  "cores_per_rank", "cluster",
    "format",       "host",           "vm",
    "gpu_busids",   "nic_busids",     "nccl_rail_plane",
    "node_pattern", "legacy_labels",  "topology_conf",
    "topology_csv", "host_gbps",      "leaf_up_gbps",
    "spine_up_gbps"};
constexpr std::array<std::string_view, 1> kPresetsFlags = {"json"};
constexpr std::array<std::string_view, 0> kNoFlags = {};

constexpr std::array<std::string_view, 5> kOrderFlags = {"cluster", "job", "hosts", "order",
                                                         "json"};

constexpr std::array<std::string_view, 5> kPlaceFlags = {"cluster", "jobs", "policy", "seed",
                                                         "json"};
constexpr std::array<std::string_view, 4> kReplayFlags = {"cluster", "trace", "seed", "json"};

constexpr std::array<std::string_view, 8> kSprayFlags = {"cluster", "src",  "dst",  "qps",
                                                         "hash",    "seed", "down", "json"};

constexpr std::array<std::string_view, 17> kSimulateFlags = {
    "cluster", "collective", "bytes",   "job",           "hosts",       "order",
    "group",   "algorithm",  "routing", "qps",           "channels",    "seed",
    "down",    "json",       "svg",     "topology_conf", "topology_csv"};

constexpr std::array<std::string_view, 15> kCcFlags = {
    "cluster",       "job",          "hosts",     "collective",    "algorithm",
    "incast",        "jobs",         "buffer_mb", "message_bytes", "json",
    "topology_conf", "topology_csv", "simulate",  "start_rate",    "svg"};

constexpr std::array<std::string_view, 9> kPlanFlags = {
    "cluster", "jobs",         "trace",          "seed",       "json",
    "out",     "node_pattern", "cores_per_rank", "master_port"};

constexpr std::array<Subcommand, 11> kSubcommands = {{
    {"plan", "[--cluster SPEC] [--jobs LIST] [--trace FILE] [--seed S] [--out DIR] [--json]",
     "the whole pipeline on a tenant mix: placement, rank order, paths, congestion control and "
     "simulated speed-up against a naive setup; --out writes every file",
     kPlanFlags, &run_plan},
    {"describe", "[--cluster SPEC | --topology-conf FILE | --topology-csv FILE] [--json]",
     "inventory of the cluster: switches, ports, links, cables, bandwidth", kDescribeFlags,
     &run_describe},
    {"export",
     "--format FORMAT [--cluster SPEC | --topology-conf FILE | --topology-csv FILE] "
     "[--host H] [--vm] [--node-pattern P] [--legacy-labels]",
     "files for other tools: NCCL topology XML, Slurm, Kubernetes, CSV, launcher files",
     kExportFlags, &run_export},
    {"order", "--job PLAN [--cluster SPEC] [--hosts LIST] [--order railyard|naive] [--json]",
     "which GPU is rank r: railyard's numbering, its traffic per tier vs the naive one",
     kOrderFlags, &run_order},
    {"place", "--jobs LIST [--cluster SPEC] [--policy best_fit|first_fit|random] [--json]",
     "multi-tenant placement: which hosts each job gets, SUs it spans, what stays free",
     kPlaceFlags, &run_place},
    {"replay", "--trace FILE [--cluster SPEC] [--json]",
     "replay a job trace under every placement policy: utilization, waiting, split jobs",
     kReplayFlags, &run_replay},
    {"spray", "--src H:G --dst H:G [--qps K] [--hash MODEL] [--down LINKS] [--json]",
     "paths, weights, QPs and the UDP source port per QP for one connection", kSprayFlags,
     &run_spray},
    {"simulate",
     "--collective allreduce|allgather|reducescatter|alltoall --bytes SIZE --job PLAN "
     "[--cluster SPEC] [--hosts LIST] [--order railyard|naive] [--group tp|cp|ep|dp|pp] "
     "[--algorithm ring|tree|hierarchical|pairwise|rail_aligned] [--routing "
     "ecmp|planned|spray] [--qps K] [--channels C] [--seed S] [--down LINKS] [--json] "
     "[--svg FILE]",
     "time a collective on the job's GPUs: simulated vs bound, busbw, link utilization",
     kSimulateFlags, &run_simulate},
    {"cc",
     "[--cluster SPEC] [--incast N | --job PLAN [--hosts LIST] --collective C [--algorithm A]] "
     "[--buffer-mb B] [--message-bytes SIZE] [--jobs LIST] [--json]",
     "congestion control: ECN per tier, PFC headroom, DCQCN, HPCC, NSCC, NCCL env, rate "
     "limits",
     kCcFlags, &run_cc},
    {"presets", "[--json]", "list the embedded cluster presets with their descriptions",
     kPresetsFlags, &run_presets},
    {"help", "[SUBCOMMAND]", "print this help, or the help of one subcommand", kNoFlags, &run_help},
}};

// Every flag a subcommand lists must be one of ours.
consteval bool subcommand_flags_are_known() {
  for (const Subcommand& sc : kSubcommands)
    for (std::string_view name : sc.flags) {
      bool known = false;
      for (const FlagName& f : kFlagNames) known = known || f.name == name;
      if (!known) return false;
    }
  return true;
}
static_assert(subcommand_flags_are_known(), "a subcommand lists a flag missing from kFlagNames");

const Subcommand* find_subcommand(std::string_view name) {
  for (const Subcommand& sc : kSubcommands)
    if (sc.name == name) return &sc;
  return nullptr;
}

const FlagName* find_our_flag(std::string_view name) {
  for (const FlagName& f : kFlagNames)
    if (f.name == name) return &f;
  return nullptr;
}

bool is_our_flag(std::string_view name) { return find_our_flag(name) != nullptr; }

std::string_view view(absl::string_view s) { return {s.data(), s.size()}; }

absl::Status usage_error(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

// ---------------------------------------------------------------------------
// Help.
// ---------------------------------------------------------------------------

// Appends `text` word-wrapped to `width` columns, every line indented by `indent`.
void append_wrapped(std::string& out, std::string_view text, size_t indent, size_t width) {
  const std::string pad(indent, ' ');
  size_t column = 0;
  for (std::string_view word : railyard::split(text, ' ')) {
    if (word.empty()) continue;
    if (column > 0 && column + 1 + word.size() > width) {
      out += '\n';
      column = 0;
    }
    if (column == 0) {
      out += pad;
      column = indent;
    } else {
      out += ' ';
      ++column;
    }
    out.append(word);
    column += word.size();
  }
  if (column > 0) out += '\n';
}

void append_flag_help(std::string& out, std::string_view name) {
  const FlagName* ours = find_our_flag(name);
  const absl::CommandLineFlag* flag =
      absl::FindCommandLineFlag(absl::string_view(name.data(), name.size()));
  if (ours == nullptr || flag == nullptr) return;  // every name in kFlagNames is declared above
  const bool is_bool = flag->IsOfType<bool>();
  std::string shown(name);  // flags are shown with hyphens, as users type them
  std::replace(shown.begin(), shown.end(), '_', '-');
  railyard::str_append(
      out, "  --", shown, is_bool ? "" : "=", ours->metavar, "  (default: ",
      is_bool ? flag->DefaultValue() : railyard::str_cat("\"", flag->DefaultValue(), "\""), ")\n");
  append_wrapped(out, flag->Help(), 6, 80);
}

std::string subcommand_usage_line(const Subcommand& sc) {
  return railyard::str_cat(kProgram, " ", sc.name, " ", sc.synopsis);
}

std::string program_help() {
  std::string out;
  railyard::str_append(
      out, kProgram, " ", kVersion,
      " - plans how collective traffic of GPU jobs moves through a cluster fabric\n\n",
      "usage: ", kProgram, " <subcommand> [flags]\n", "       ", kProgram, " help [subcommand]\n",
      "       ", kProgram, " --version\n\n", "subcommands:\n");
  for (const Subcommand& sc : kSubcommands) {
    std::string name(sc.name);
    name.resize(std::max<size_t>(name.size(), 10), ' ');
    railyard::str_append(out, "  ", name, "  ", sc.summary, "\n");
  }
  railyard::str_append(out,
                       "\nflags (--name=value or --name value; booleans also --name, --noname):\n");
  for (const FlagName& f : kFlagNames) append_flag_help(out, f.name);
  railyard::str_append(out, "  --help, -h\n      print this help and exit\n",
                       "  --version\n      print the version and exit\n");
  out += '\n';
  append_wrapped(
      out,
      railyard::str_cat("The default cluster is the preset ", railyard::topology::kDefaultCluster,
                        "; '", kProgram, " presets' lists every preset with its spec."),
      0, 80);
  append_wrapped(out,
                 "Exit status: 0 on success, 2 on a usage or input error (with one line "
                 "'railyard: <message>' on stderr), 1 on an internal error.",
                 0, 80);
  return out;
}

// More than a summary, for the subcommands that need it.
constexpr std::string_view kPlanDetails =
    "Default scenario: the cluster h100-1024-2to1, busy with the jobs still running after "
    "jobs job0029-job0068 of tests/data/job_trace.csv (embedded) are replayed under first_fit "
    "up to the last arrival (16 hosts held by 10 jobs, over three SUs); then the mix, placed "
    "in this order: ft-a (64 GPUs, tp=8,dp=8), ft-b (32, tp=4,dp=8), ft-c (16, tp=8,dp=2), moe "
    "(256, tp=4,ep=8,dp=8), pretrain (512, tp=8,pp=4,dp=16). Every job is placed twice on the "
    "same busy hosts: naive = first_fit hosts, ranks in allocation order with the plan's order "
    "string, ECMP with 1 QP per connection; railyard = best_fit hosts, railyard's rank order, "
    "planned paths. Simulated per job, both ways, every group at once: the dp all-reduce "
    "(ring), ep all-to-all (pairwise), cp all-gather and tp all-reduce, with the plan's bytes "
    "per step; pp is point to point and appears only in the traffic model (GiB/step above the "
    "leaf). Congestion control is derived per job for railyard's deployment (incast from its "
    "collectives, per-QP rate limits from a spine partition among all tenants); tuner rules "
    "come from ring vs tree simulations at 4 MiB to 2 GiB. Progress notes appear on stderr "
    "only when it is a terminal.";

std::string_view subcommand_details(const Subcommand& sc) {
  return sc.name == "plan" ? kPlanDetails : std::string_view();
}

std::string subcommand_help(const Subcommand& sc) {
  std::string out;
  railyard::str_append(out, "usage: ", subcommand_usage_line(sc), "\n\n", sc.summary, "\n");
  if (const std::string_view details = subcommand_details(sc); !details.empty()) {
    out += '\n';
    append_wrapped(out, details, 0, 80);
  }
  if (!sc.flags.empty()) {
    out += "\nflags:\n";
    for (std::string_view name : sc.flags) append_flag_help(out, name);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Subcommands.
// ---------------------------------------------------------------------------

absl::Status no_positional_args(const Invocation& inv) {
  if (inv.args.empty()) return absl::OkStatus();
  const Subcommand& sc = *inv.command;
  return usage_error(railyard::str_cat(sc.name, ": unexpected argument '", inv.args.front(),
                                       "' (usage: ", subcommand_usage_line(sc), ")"));
}

// The cluster a subcommand works on: a descriptor from --cluster, or a tree and
// Fabric read from --topology-conf / --topology-csv.
struct Source {
  std::optional<railyard::topology::ClusterDescriptor<>> descriptor;
  std::optional<railyard::topology::SwitchTree> tree;      // imported files only
  std::optional<railyard::topology::Fabric> fabric;  // imported files only
  std::string origin;                                // the flag it came from, for messages
};

// --master-port and --cores-per-rank, for every launcher file (export and plan).
absl::Status check_launch_options(const railyard::exports::LaunchOptions& options) {
  if (options.master_port < 1 || options.master_port > 65535)
    return usage_error(
        railyard::str_cat("--master-port=", options.master_port, ": must be in [1, 65535]"));
  if (options.cores_per_rank < 1 || options.cores_per_rank > 4096)
    return usage_error(
        railyard::str_cat("--cores-per-rank=", options.cores_per_rank, ": must be in [1, 4096]"));
  return absl::OkStatus();
}

absl::StatusOr<std::string> read_file(std::string_view flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return usage_error(railyard::str_cat("--", flag, "=", path, ": cannot open the file"));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<Source> load_source(const Invocation& inv) {
  const std::string conf = absl::GetFlag(FLAGS_topology_conf);
  const std::string csv = absl::GetFlag(FLAGS_topology_csv);
  const bool cluster_given =
      std::find(inv.flags_used.begin(), inv.flags_used.end(), "cluster") != inv.flags_used.end();
  if (static_cast<int>(!conf.empty()) + static_cast<int>(!csv.empty()) + cluster_given > 1)
    return usage_error("give one of --cluster, --topology-conf, --topology-csv");
  Source src;
  if (conf.empty() && csv.empty()) {
    src.origin = "--cluster";
    auto spec = railyard::topology::parse_cluster(absl::GetFlag(FLAGS_cluster));
    if (!spec.ok())
      return usage_error(railyard::str_cat("--cluster: ", view(spec.status().message())));
    auto desc = railyard::topology::make_descriptor(*spec);
    if (!desc.ok())
      return usage_error(railyard::str_cat("--cluster: ", view(desc.status().message())));
    src.descriptor = *desc;
    return src;
  }
  const railyard::topology::LinkSpeeds speeds{absl::GetFlag(FLAGS_host_gbps),
                                        absl::GetFlag(FLAGS_leaf_up_gbps),
                                        absl::GetFlag(FLAGS_spine_up_gbps)};
  for (auto [flag, value] :
       {std::pair{"host-gbps", speeds.host_gbps}, std::pair{"leaf-up-gbps", speeds.leaf_up_gbps},
        std::pair{"spine-up-gbps", speeds.spine_up_gbps}})
    if (!(value > 0) || value > 1e7)
      return usage_error(railyard::str_cat("--", flag, "=", value, ": must be a positive Gb/s"));
  const std::string_view flag = conf.empty() ? "topology-csv" : "topology-conf";
  src.origin = railyard::str_cat("--", flag, "=", conf.empty() ? csv : conf);
  auto text = read_file(flag, conf.empty() ? csv : conf);
  if (!text.ok()) return text.status();
  auto tree = conf.empty() ? railyard::topology::csv_topology_from_text(*text)
                           : railyard::topology::slurm_topology_from_conf(*text);
  if (!tree.ok())
    return usage_error(railyard::str_cat(src.origin, ": ", view(tree.status().message())));
  auto fabric = railyard::topology::fabric_from_tree(*tree, speeds);
  if (!fabric.ok())
    return usage_error(railyard::str_cat(src.origin, ": ", view(fabric.status().message())));
  src.tree = std::move(*tree);
  src.fabric = std::move(*fabric);
  return src;
}

Outcome run_describe(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  auto src = load_source(inv);
  if (!src.ok()) return src.status();
  const bool json = absl::GetFlag(FLAGS_json);
  if (src->descriptor)
    return json ? railyard::report::inventory_json(*src->descriptor, 2)
                : railyard::report::inventory_text(*src->descriptor);
  return json ? railyard::report::fabric_inventory_json(*src->fabric, 2)
              : railyard::report::fabric_inventory_text(*src->fabric);
}

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  if (!text.empty())
    for (std::string_view part : railyard::split(text, ',')) out.emplace_back(part);
  return out;
}

// The job a subcommand works on: the --job plan on --hosts (none: the first
// hosts of the cluster), numbered by railyard and as given (naive).
struct JobInput {
  railyard::placement::JobPlacement railyard;
  railyard::placement::JobPlacement naive;
  // The numbering --order asks for.
  [[nodiscard]] const railyard::placement::JobPlacement& chosen() const {
    return absl::GetFlag(FLAGS_order) == "naive" ? naive : railyard;
  }
};

absl::StatusOr<JobInput> load_job(const railyard::topology::ClusterDescriptor<>& d,
                                  std::string_view subcommand) {
  const std::string job = absl::GetFlag(FLAGS_job);
  if (job.empty())
    return usage_error(
        railyard::str_cat(subcommand, ": --job is required (e.g. --job tp=8,pp=4,dp=32)"));
  auto plan = railyard::placement::parse_plan(job);
  if (!plan.ok()) return usage_error(railyard::str_cat("--job: ", view(plan.status().message())));
  std::vector<railyard::HostId> hosts;
  if (const std::string list = absl::GetFlag(FLAGS_hosts); !list.empty()) {
    auto parsed = railyard::parse_host_list("hosts", list, d.hosts());
    if (!parsed.ok()) return usage_error(railyard::str_cat("--", view(parsed.status().message())));
    hosts = std::move(*parsed);
  }
  const std::string which = absl::GetFlag(FLAGS_order);
  if (which != "railyard" && which != "naive")
    return usage_error(railyard::str_cat("--order=", which, ": use railyard or naive"));
  auto naive = railyard::placement::naive_order(d, *plan, hosts);
  if (!naive.ok()) return usage_error(railyard::str_cat("--job: ", view(naive.status().message())));
  auto ours = railyard::placement::order_ranks(d, *plan, hosts);
  if (!ours.ok()) return usage_error(railyard::str_cat("--job: ", view(ours.status().message())));
  return JobInput{std::move(*ours), std::move(*naive)};
}

Outcome run_launcher_export(const railyard::topology::ClusterDescriptor<>& d,
                            const std::string& format) {
  auto job = load_job(d, "export");
  if (!job.ok()) return job.status();
  auto namer = railyard::topology::NodeNamer::parse(absl::GetFlag(FLAGS_node_pattern));
  if (!namer.ok())
    return usage_error(railyard::str_cat("--node-pattern: ", view(namer.status().message())));
  if (absl::Status s = namer->check(d); !s.ok())
    return usage_error(railyard::str_cat("--node-pattern: ", view(s.message())));
  railyard::exports::LaunchOptions options;
  options.master_port = absl::GetFlag(FLAGS_master_port);
  options.cores_per_rank = absl::GetFlag(FLAGS_cores_per_rank);
  if (absl::Status s = (check_launch_options)(options); !s.ok()) return s;
  auto out = railyard::exports::launcher_file(format, job->chosen(), namer->names(d), options);
  if (!out.ok())
    return usage_error(railyard::str_cat("--format=", format, ": ", view(out.status().message())));
  return *out;
}

Outcome run_export(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  const std::string format = absl::GetFlag(FLAGS_format);
  constexpr std::string_view kFormats =
      "nccl-xml, slurm-tree, slurm-block, slurm-yaml, k8s-labels, k8s-label-script, csv, "
      "hostfile, hostfile-slots, rankfile, slurm-hostfile, rank-env, torchrun, megatron";
  if (format.empty())
    return usage_error(railyard::str_cat("export: --format is required (one of ", kFormats, ")"));
  const std::array<std::string_view, 7> known = {"nccl-xml",   "slurm-tree", "slurm-block",
                                                 "slurm-yaml", "k8s-labels", "k8s-label-script",
                                                 "csv"};
  const bool launcher =
      std::find(railyard::exports::kLauncherFormats.begin(), railyard::exports::kLauncherFormats.end(),
                format) != railyard::exports::kLauncherFormats.end();
  if (!launcher && std::find(known.begin(), known.end(), format) == known.end())
    return usage_error(
        railyard::str_cat("--format=", format, ": unknown format (one of ", kFormats, ")"));
  auto src = load_source(inv);
  if (!src.ok()) return src.status();
  auto with_prefix = [&](std::string_view what, const absl::Status& status) {
    return usage_error(railyard::str_cat(what, ": ", view(status.message())));
  };
  const bool needs_descriptor =
      launcher || format == "nccl-xml" || format == "slurm-block" || format == "slurm-yaml";
  if (needs_descriptor && !src->descriptor)
    return usage_error(railyard::str_cat("--format=", format,
                                         ": needs a cluster spec (--cluster), not ", src->origin));

  if (launcher) return run_launcher_export(*src->descriptor, format);

  if (format == "nccl-xml") {
    railyard::exports::NcclXmlOptions options;
    options.host = absl::GetFlag(FLAGS_host);
    options.vm = absl::GetFlag(FLAGS_vm);
    options.rail_plane = absl::GetFlag(FLAGS_nccl_rail_plane);
    options.gpu_busids = comma_list(absl::GetFlag(FLAGS_gpu_busids));
    options.nic_busids = comma_list(absl::GetFlag(FLAGS_nic_busids));
    auto xml = railyard::exports::nccl_topology_xml(*src->descriptor, options);
    if (!xml.ok()) return with_prefix("--format=nccl-xml", xml.status());
    return *xml;
  }

  // The scheduler formats work on the switch tree: from the spec with host names
  // from --node-pattern, or as read from the file.
  railyard::topology::SwitchTree tree;
  if (src->descriptor) {
    auto namer = railyard::topology::NodeNamer::parse(absl::GetFlag(FLAGS_node_pattern));
    if (!namer.ok()) return with_prefix("--node-pattern", namer.status());
    auto built = railyard::topology::switch_tree(*src->descriptor, *namer);
    if (!built.ok()) return with_prefix("--node-pattern", built.status());
    tree = std::move(*built);
  } else {
    tree = *src->tree;
  }
  if (format == "slurm-tree") return railyard::exports::slurm_topology_conf(tree);
  if (format == "slurm-block") return railyard::exports::slurm_block_conf(tree, *src->descriptor);
  if (format == "slurm-yaml") return railyard::exports::slurm_topology_yaml(tree, *src->descriptor);
  if (format == "csv") {
    auto csv = railyard::exports::csv_topology_from_tree(tree);
    if (!csv.ok()) return with_prefix("--format=csv", csv.status());
    return *csv;
  }
  railyard::exports::K8sLabelOptions options;
  options.legacy_labels = absl::GetFlag(FLAGS_legacy_labels);
  const std::vector<std::string> domains = src->descriptor
                                               ? railyard::exports::nvlink_domain_names(*src->descriptor)
                                               : std::vector<std::string>{};
  auto out = format == "k8s-labels" ? railyard::exports::k8s_labels_yaml(tree, domains, options)
                                    : railyard::exports::k8s_label_script(tree, domains, options);
  if (!out.ok()) return with_prefix(railyard::str_cat("--format=", format), out.status());
  return *out;
}

Outcome run_order(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  auto src = load_source(inv);
  if (!src.ok()) return src.status();
  const railyard::topology::ClusterDescriptor<>& d = *src->descriptor;
  auto job = load_job(d, "order");
  if (!job.ok()) return job.status();
  return absl::GetFlag(FLAGS_json) ? railyard::report::order_json(d, job->chosen(), job->naive)
                                   : railyard::report::order_text(d, job->chosen(), job->naive);
}

Outcome run_place(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  auto src = load_source(inv);
  if (!src.ok()) return src.status();
  const std::string jobs = absl::GetFlag(FLAGS_jobs);
  if (jobs.empty())
    return usage_error("place: --jobs is required (e.g. --jobs \"a:gpus=256;b:gpus=64\")");
  auto policy = railyard::placement::parse_policy(absl::GetFlag(FLAGS_policy));
  if (!policy.ok()) return usage_error(railyard::str_cat("--", view(policy.status().message())));
  railyard::placement::AllocatorOptions options;
  options.policy = *policy;
  options.seed = absl::GetFlag(FLAGS_seed);
  auto placed = railyard::placement::place_jobs(*src->descriptor, jobs, options);
  if (!placed.ok())
    return usage_error(railyard::str_cat("--jobs: ", view(placed.status().message())));
  return absl::GetFlag(FLAGS_json) ? railyard::report::place_json(*placed)
                                   : railyard::report::place_text(*src->descriptor, *placed);
}

Outcome run_replay(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  auto src = load_source(inv);
  if (!src.ok()) return src.status();
  const std::string path = absl::GetFlag(FLAGS_trace);
  if (path.empty())
    return usage_error("replay: --trace is required (a time,name,gpus,duration CSV)");
  auto text = read_file("trace", path);
  if (!text.ok()) return text.status();
  auto trace = railyard::placement::parse_job_trace(*text);
  if (!trace.ok())
    return usage_error(railyard::str_cat("--trace=", path, ": ", view(trace.status().message())));
  auto reports =
      railyard::placement::replay_policies(*src->descriptor, *trace, absl::GetFlag(FLAGS_seed));
  if (!reports.ok())
    return usage_error(railyard::str_cat("--trace=", path, ": ", view(reports.status().message())));
  return absl::GetFlag(FLAGS_json) ? railyard::report::replay_json(*reports)
                                   : railyard::report::replay_text(*reports);
}

// HOST:GPU[:PLANE] -> the NIC port that GPU sends through.
absl::StatusOr<railyard::NicPort> parse_endpoint(std::string_view flag, const std::string& text,
                                                 const railyard::topology::ClusterDescriptor<>& d) {
  const auto parts = railyard::split(text, ':');
  if (text.empty() || parts.size() < 2 || parts.size() > 3)
    return usage_error(
        railyard::str_cat("--", flag, "=", text, ": expected HOST:GPU or HOST:GPU:PLANE"));
  const std::string key = railyard::str_cat(flag);
  auto host = railyard::parse_int_in(key, parts[0], 0, d.hosts() - 1);
  auto gpu = railyard::parse_int_in(key, parts[1], 0, d.gpus_per_host() - 1);
  auto plane = parts.size() == 3 ? railyard::parse_int_in(key, parts[2], 0, d.planes() - 1)
                                 : absl::StatusOr<int64_t>(0);
  for (const auto* part : {&host, &gpu, &plane})
    if (!part->ok())
      return usage_error(
          railyard::str_cat("--", flag, "=", text, ": ", view(part->status().message())));
  const railyard::GpuIndex g{static_cast<int32_t>(*gpu)};
  return railyard::NicPort{railyard::HostId{static_cast<int32_t>(*host)}, d.nic_of_gpu(g),
                           railyard::PlaneId{static_cast<int32_t>(*plane)}};
}

absl::StatusOr<std::unique_ptr<railyard::routing::HashModel>> make_hash_model(
    const std::string& name, uint64_t seed) {
  using namespace railyard::routing;
  const auto seed32 = static_cast<uint32_t>(seed);
  if (name == "crc32") return std::make_unique<Crc5TupleHash>(seed32, CrcPolynomial::kCrc32);
  if (name == "crc32c") return std::make_unique<Crc5TupleHash>(seed32, CrcPolynomial::kCrc32c);
  if (name == "qp") return std::make_unique<QpAwareHash>(seed32);
  if (name == "random") return std::make_unique<UniformRandomHash>(seed);
  if (name.rfind("table:", 0) == 0) {
    auto text = read_file("hash", name.substr(6));
    if (!text.ok())
      return usage_error(railyard::str_cat("--hash=", name, ": cannot open the file"));
    auto table = MeasuredTableHash::parse(*text, seed32);
    if (!table.ok())
      return usage_error(railyard::str_cat("--hash=", name, ": ", view(table.status().message())));
    return std::make_unique<MeasuredTableHash>(std::move(*table));
  }
  return usage_error(railyard::str_cat("--hash=", name,
                                       ": unknown model (crc32, crc32c, qp, random, table:FILE)"));
}

Outcome run_spray(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  auto src = load_source(inv);
  if (!src.ok()) return src.status();
  const railyard::topology::ClusterDescriptor<>& d = *src->descriptor;
  auto from = parse_endpoint("src", absl::GetFlag(FLAGS_src), d);
  if (!from.ok()) return from.status();
  auto to = parse_endpoint("dst", absl::GetFlag(FLAGS_dst), d);
  if (!to.ok()) return to.status();
  auto model = make_hash_model(absl::GetFlag(FLAGS_hash), absl::GetFlag(FLAGS_seed));
  if (!model.ok()) return model.status();
  const railyard::topology::Fabric fabric = railyard::topology::materialize(d);
  railyard::topology::FailureOverlay overlay(fabric);
  if (const std::string down = absl::GetFlag(FLAGS_down); !down.empty())
    if (absl::Status s = railyard::topology::apply_failures(fabric, down, overlay); !s.ok())
      return usage_error(railyard::str_cat("--", view(s.message())));
  auto plan = railyard::routing::plan_connection(d, fabric, *from, *to, absl::GetFlag(FLAGS_qps),
                                                 **model, &overlay);
  if (!plan.ok()) return usage_error(railyard::str_cat("spray: ", view(plan.status().message())));
  return absl::GetFlag(FLAGS_json) ? railyard::report::spray_json(fabric, *plan)
                                   : railyard::report::spray_text(fabric, *plan);
}

// --collective NAME.
absl::StatusOr<railyard::collective::Collective> parse_collective(const std::string& text) {
  using railyard::collective::Collective;
  for (Collective c : {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
                       Collective::kAllToAll})
    if (text == railyard::collective::collective_name(c)) return c;
  if (text.empty())
    return usage_error(
        "simulate: --collective is required (allreduce, allgather, reducescatter or alltoall)");
  return usage_error(
      railyard::str_cat("--collective=", text,
                        ": unknown collective (allreduce, allgather, reducescatter, alltoall)"));
}

// --algorithm NAME; empty: ring, or pairwise for all-to-all.
absl::StatusOr<railyard::collective::Algorithm> parse_algorithm(
    const std::string& text, railyard::collective::Collective kind) {
  using railyard::collective::Algorithm;
  if (text.empty())
    return kind == railyard::collective::Collective::kAllToAll ? Algorithm::kPairwise
                                                               : Algorithm::kRing;
  if (text == "tree") return Algorithm::kDoubleBinaryTree;
  for (Algorithm a : {Algorithm::kRing, Algorithm::kDoubleBinaryTree, Algorithm::kHierarchical,
                      Algorithm::kPairwise, Algorithm::kRailAligned})
    if (text == railyard::collective::algorithm_name(a)) return a;
  return usage_error(
      railyard::str_cat("--algorithm=", text,
                        ": unknown algorithm (ring, tree, hierarchical, pairwise, rail_aligned)"));
}

// --group DIM; empty: every rank of the job in one group.
absl::StatusOr<std::optional<railyard::placement::Dim>> parse_group(const std::string& text) {
  if (text.empty()) return std::optional<railyard::placement::Dim>();
  for (size_t d = 0; d < railyard::placement::kDimNames.size(); ++d)
    if (text == railyard::placement::kDimNames[d])
      return std::optional<railyard::placement::Dim>(static_cast<railyard::placement::Dim>(d));
  return usage_error(
      railyard::str_cat("--group=", text, ": unknown dimension (tp, cp, ep, dp or pp)"));
}

// --bytes SIZE, in [1, 2^50].
absl::StatusOr<int64_t> parse_bytes(const std::string& text) {
  if (text.empty())
    return usage_error("simulate: --bytes is required (e.g. --bytes 256MiB, --bytes 1GiB)");
  auto size = railyard::parse_size("bytes", text);
  if (!size.ok()) return usage_error(railyard::str_cat("--", view(size.status().message())));
  constexpr auto kMax = static_cast<uint64_t>(railyard::collective::kMaxBytes);
  if (*size < 1 || *size > kMax)
    return usage_error(railyard::str_cat("--bytes=", text, ": ", *size,
                                         " bytes is outside [1, 2^50] (2^50 = 1 PiB = 1024 TiB)"));
  return static_cast<int64_t>(*size);
}

// A library error from simulate_collective as one line naming the flag it came
// from when there is one. Input problems (bad values, a grouping the algorithm
// cannot use, no path left by --down) exit with status 2; anything else is an
// internal error.
absl::Status simulate_error(const absl::Status& status, std::string_view algorithm,
                            const std::string& down) {
  const std::string_view message = view(status.message());
  auto starts_with = [&](std::string_view prefix) {
    return message.substr(0, prefix.size()) == prefix;
  };
  if (absl::IsInvalidArgument(status)) {
    // The library names the algorithm by its full name; show what was typed.
    if (const size_t colon = message.find(": ");
        starts_with("algorithm=") && colon != std::string_view::npos)
      return usage_error(railyard::str_cat("--algorithm=", algorithm, message.substr(colon)));
    for (std::string_view key : {"channels=", "bytes=", "qps="})
      if (starts_with(key)) return usage_error(railyard::str_cat("--", message));
    if ((algorithm == "hierarchical" || algorithm == "rail_aligned") &&
        (starts_with("host ") || starts_with("host_of_rank=")))
      return usage_error(railyard::str_cat("--algorithm=", algorithm, ": ", message));
    return usage_error(railyard::str_cat("simulate: ", message));
  }
  if (absl::IsFailedPrecondition(status) || absl::IsUnavailable(status))
    return usage_error(down.empty() ? railyard::str_cat("simulate: ", message)
                                    : railyard::str_cat("--down=", down, ": ", message));
  return status;
}

Outcome run_simulate(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  for (std::string_view flag : {"topology_conf", "topology_csv"}) {
    const std::string value =
        absl::GetFlag(flag == "topology_conf" ? FLAGS_topology_conf : FLAGS_topology_csv);
    if (value.empty()) continue;
    std::string shown(flag);
    std::replace(shown.begin(), shown.end(), '_', '-');
    return usage_error(railyard::str_cat(
        "--", shown, "=", value,
        ": simulate needs a cluster spec (--cluster): an imported topology has no GPUs, NVLink "
        "or rails to place the job's ranks on"));
  }
  auto kind = parse_collective(absl::GetFlag(FLAGS_collective));
  if (!kind.ok()) return kind.status();
  auto bytes = parse_bytes(absl::GetFlag(FLAGS_bytes));
  if (!bytes.ok()) return bytes.status();
  const std::string algorithm_text = absl::GetFlag(FLAGS_algorithm);
  auto algorithm = parse_algorithm(algorithm_text, *kind);
  if (!algorithm.ok()) return algorithm.status();
  const std::string routing_text = absl::GetFlag(FLAGS_routing);
  auto routing = railyard::sim::parse_routing(routing_text);
  if (!routing.ok())
    return usage_error(railyard::str_cat("--routing=", routing_text,
                                         ": unknown routing (ecmp, planned or spray)"));
  const bool qps_given =
      std::find(inv.flags_used.begin(), inv.flags_used.end(), "qps") != inv.flags_used.end();
  const int32_t qps = qps_given ? absl::GetFlag(FLAGS_qps) : 1;
  if (qps < 1 || qps > railyard::routing::kMaxQpsPerConnection)
    return usage_error(railyard::str_cat("--qps=", qps, ": must be in [1, ",
                                         railyard::routing::kMaxQpsPerConnection, "]"));
  const int32_t channels = absl::GetFlag(FLAGS_channels);
  if (channels < 0 || channels > railyard::collective::kMaxChannels)
    return usage_error(railyard::str_cat("--channels=", channels, ": must be in [0, ",
                                         railyard::collective::kMaxChannels,
                                         "] (0 = one per NIC the group can use)"));
  auto group = parse_group(absl::GetFlag(FLAGS_group));
  if (!group.ok()) return group.status();
  const std::string svg_path = absl::GetFlag(FLAGS_svg);
  if (std::find(inv.flags_used.begin(), inv.flags_used.end(), "svg") != inv.flags_used.end() &&
      svg_path.empty())
    return usage_error("--svg=: the file name is empty");

  auto src = load_source(inv);
  if (!src.ok()) return src.status();
  auto job = load_job(*src->descriptor, "simulate");
  if (!job.ok()) return job.status();
  const railyard::topology::Cluster cluster{*src->descriptor,
                                            railyard::topology::materialize(*src->descriptor)};
  railyard::topology::FailureOverlay overlay(cluster.fabric);
  const std::string down = absl::GetFlag(FLAGS_down);
  if (!down.empty())
    if (absl::Status s = railyard::topology::apply_failures(cluster.fabric, down, overlay); !s.ok())
      return usage_error(railyard::str_cat("--", view(s.message())));

  railyard::sim::CollectiveSimOptions options;
  options.algorithm = *algorithm;
  options.routing = *routing;
  options.qps = qps;
  options.seed = absl::GetFlag(FLAGS_seed);
  options.channels = channels;
  options.failures = down.empty() ? nullptr : &overlay;
  options.keep_links = !svg_path.empty();
  const auto groups = railyard::sim::job_groups(job->chosen(), *group);
  auto report = railyard::sim::simulate_collective(cluster, groups, *kind, *bytes, options);
  if (!report.ok())
    return simulate_error(report.status(),
                          algorithm_text.empty() ? railyard::collective::algorithm_name(*algorithm)
                                                 : std::string_view(algorithm_text),
                          down);

  if (!svg_path.empty()) {
    railyard::report::HeatmapOptions heatmap;
    heatmap.title = railyard::str_cat(railyard::report::simulate_title(*report), ", link utilization");
    auto svg = railyard::report::heatmap_svg(cluster.fabric, report->link_utilization, heatmap);
    if (!svg.ok())
      return absl::InternalError(
          railyard::str_cat("--svg=", svg_path, ": ", view(svg.status().message())));
    std::ofstream out(svg_path, std::ios::binary | std::ios::trunc);
    out << *svg;
    out.close();
    if (!out) return usage_error(railyard::str_cat("--svg=", svg_path, ": cannot write the file"));
  }
  return absl::GetFlag(FLAGS_json) ? railyard::report::simulate_json(cluster.fabric, *report)
                                   : railyard::report::simulate_text(cluster.fabric, *report);
}

// ---------------------------------------------------------------------------
// cc: congestion-control settings derived from the fabric and the traffic.
// ---------------------------------------------------------------------------

bool flag_used(const Invocation& inv, std::string_view name) {
  return std::find(inv.flags_used.begin(), inv.flags_used.end(), name) != inv.flags_used.end();
}

// --buffer-mb B: a positive decimal number of MB (10^6 bytes), digits with an
// optional fraction, at most 10^6 MB; returns bytes.
absl::StatusOr<double> parse_buffer_mb(const std::string& text) {
  auto bad = [&](std::string_view why) {
    return usage_error(railyard::str_cat("--buffer-mb=", text, ": ", why));
  };
  size_t digits = 0, point = 0, fraction = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      ++(point > 0 ? fraction : digits);
    } else if (c == '.' && point == 0) {
      point = 1;
    } else {
      return bad("expected a number of MB (10^6 bytes) such as 16 or 12.5");
    }
  }
  if (digits == 0 || (point > 0 && fraction == 0))
    return bad("expected a number of MB (10^6 bytes) such as 16 or 12.5");
  const double mb = std::strtod(text.c_str(), nullptr);
  if (!(mb > 0)) return bad("must be more than 0 MB");
  if (mb > 1e6) return bad("more than 10^6 MB (1 TB) per port is not a switch buffer");
  return mb * 1e6;
}

// The incast a collective puts on one NIC port: how many senders reach it at once.
struct DerivedIncast {
  int32_t incast = 1;
  std::string source;
};

absl::StatusOr<DerivedIncast> collective_incast(railyard::collective::Collective kind,
                                                const std::string& algorithm_text,
                                                const railyard::placement::JobPlacement& job) {
  using railyard::collective::Algorithm;
  using railyard::collective::Collective;
  auto algorithm = parse_algorithm(algorithm_text, kind);
  if (!algorithm.ok()) return algorithm.status();
  const std::string_view name = railyard::collective::collective_name(kind);
  const bool alltoall = kind == Collective::kAllToAll;
  const bool a2a_algorithm =
      *algorithm == Algorithm::kPairwise || *algorithm == Algorithm::kRailAligned;
  if (alltoall != a2a_algorithm)
    return usage_error(railyard::str_cat("--algorithm=", algorithm_text, ": ", name,
                                         " does not run ", algorithm_text,
                                         alltoall ? " (alltoall: pairwise or rail_aligned)"
                                                  : " (pairwise and rail_aligned are "
                                                    "alltoall algorithms)"));
  if (!alltoall && *algorithm != Algorithm::kRing && kind != Collective::kAllReduce)
    return usage_error(railyard::str_cat("--algorithm=", algorithm_text, ": ", name,
                                         " runs ring only (tree and hierarchical are allreduce "
                                         "algorithms)"));
  std::vector<railyard::HostId> hosts = job.hosts;
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  const auto n = static_cast<int64_t>(hosts.size());
  if (alltoall) {
    // NCCL posts every peer's send at once: each NIC on a rail receives from the
    // same rail of every other host together.
    if (n <= 1) return DerivedIncast{1, "alltoall within one host: no network incast"};
    // An incast the library rejects is reported by derive_cc (naming --collective).
    const auto senders =
        static_cast<int32_t>(std::min<int64_t>(n - 1, std::numeric_limits<int32_t>::max()));
    return DerivedIncast{senders, railyard::str_cat("alltoall over ", n, " hosts")};
  }
  switch (*algorithm) {
    case Algorithm::kDoubleBinaryTree:
      return DerivedIncast{2, railyard::str_cat(name, " tree: a node receives from 2 children")};
    case Algorithm::kHierarchical:
      return DerivedIncast{
          1, railyard::str_cat(name, " hierarchical: the inter-host phase is a ring, 1 sender")};
    default:
      return DerivedIncast{1,
                           railyard::str_cat(name, " ring: each NIC receives from one neighbour")};
  }
}

// A derive_cc error as one line naming the flag it came from.
absl::Status cc_error(const absl::Status& status, const Invocation& inv,
                      const std::string& incast_source) {
  if (!absl::IsInvalidArgument(status)) return status;
  const std::string_view message = view(status.message());
  auto starts_with = [&](std::string_view prefix) {
    return message.substr(0, prefix.size()) == prefix;
  };
  if (starts_with("incast="))
    return usage_error(flag_used(inv, "incast")
                           ? railyard::str_cat("--", message)
                           : railyard::str_cat("--collective=", absl::GetFlag(FLAGS_collective),
                                               ": ", incast_source, ": ", message));
  if (starts_with("buffer_bytes="))
    return usage_error(
        flag_used(inv, "buffer_mb")
            ? railyard::str_cat("--buffer-mb=", absl::GetFlag(FLAGS_buffer_mb), ": ", message)
            : railyard::str_cat("--cluster: ", message));
  if (starts_with("message_bytes="))
    return usage_error(
        railyard::str_cat("--message-bytes=", absl::GetFlag(FLAGS_message_bytes), ": ", message));
  if (starts_with("nic_gbps=")) return usage_error(railyard::str_cat("--cluster: ", message));
  return usage_error(railyard::str_cat("cc: ", message));
}

Outcome run_cc(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  for (std::string_view flag : {"topology_conf", "topology_csv"}) {
    const std::string value =
        absl::GetFlag(flag == "topology_conf" ? FLAGS_topology_conf : FLAGS_topology_csv);
    if (value.empty()) continue;
    std::string shown(flag);
    std::replace(shown.begin(), shown.end(), '_', '-');
    return usage_error(railyard::str_cat(
        "--", shown, "=", value,
        ": cc needs a cluster spec (--cluster): an imported topology has no cable lengths, "
        "switch radix or NIC layout to derive the settings from"));
  }
  railyard::cc::CcInputs in;
  const bool incast_given = flag_used(inv, "incast");
  if (incast_given) in.incast = absl::GetFlag(FLAGS_incast);
  const std::string buffer_text = absl::GetFlag(FLAGS_buffer_mb);
  if (flag_used(inv, "buffer_mb")) {
    auto bytes = parse_buffer_mb(buffer_text);
    if (!bytes.ok()) return bytes.status();
    in.buffer_bytes_per_port = *bytes;
  }
  if (const std::string text = absl::GetFlag(FLAGS_message_bytes);
      flag_used(inv, "message_bytes")) {
    auto size = railyard::parse_size("message-bytes", text);
    if (!size.ok()) return usage_error(railyard::str_cat("--", view(size.status().message())));
    constexpr auto kMax = static_cast<uint64_t>(railyard::collective::kMaxBytes);
    if (*size < 1 || *size > kMax)
      return usage_error(
          railyard::str_cat("--message-bytes=", text, ": ", *size, " bytes is outside [1, 2^50]"));
    in.message_bytes = static_cast<double>(*size);
  }

  // The job whose collective sets the incast: --job and --collective together.
  const bool job_given = !absl::GetFlag(FLAGS_job).empty();
  const std::string collective_text = absl::GetFlag(FLAGS_collective);
  const std::string algorithm_text = absl::GetFlag(FLAGS_algorithm);
  if (!job_given) {
    if (flag_used(inv, "job")) return usage_error("--job=: the plan is empty");
    for (std::string_view flag : {"collective", "hosts", "algorithm"})
      if (flag_used(inv, flag))
        return usage_error(railyard::str_cat(
            "cc: --", flag,
            " needs --job (e.g. --job tp=8,dp=16 --hosts 0-15 --collective alltoall)"));
  } else if (collective_text.empty()) {
    return usage_error(
        "cc: --job needs --collective (allreduce, allgather, reducescatter or alltoall) to "
        "derive the incast");
  }
  std::optional<railyard::collective::Collective> kind;
  if (job_given) {
    auto parsed = parse_collective(collective_text);
    if (!parsed.ok()) return parsed.status();
    kind = *parsed;
  }

  auto src = load_source(inv);
  if (!src.ok()) return src.status();
  const railyard::topology::ClusterDescriptor<>& d = *src->descriptor;

  railyard::report::CcReportContext ctx;
  ctx.cluster = absl::GetFlag(FLAGS_cluster);
  if (kind) {
    auto job = load_job(d, "cc");
    if (!job.ok()) return job.status();
    auto derived = collective_incast(*kind, algorithm_text, job->railyard);
    if (!derived.ok()) return derived.status();
    if (incast_given) {
      ctx.incast_source = railyard::str_cat("--incast; the job's ", derived->source,
                                            " alone gives ", derived->incast);
    } else {
      in.incast = derived->incast;
      ctx.incast_source = derived->source;
    }
  } else {
    ctx.incast_source =
        incast_given ? "--incast" : "default: give --incast N, or --job with --collective";
  }

  // Tenants for per-QP rate limits, placed as `railyard place` places them.
  std::optional<railyard::placement::PlaceResult> placed;
  if (flag_used(inv, "jobs")) {
    ctx.jobs = absl::GetFlag(FLAGS_jobs);
    if (ctx.jobs.empty()) return usage_error("--jobs=: the list is empty");
    auto result = railyard::placement::place_jobs(d, ctx.jobs, {});
    if (!result.ok())
      return usage_error(railyard::str_cat("--jobs: ", view(result.status().message())));
    placed = std::move(*result);
    for (const railyard::placement::UnplacedJob& u : placed->unplaced)
      ctx.warnings.push_back(
          railyard::str_cat("--jobs: '", u.name, "' not placed, so no rate limit: ", u.reason));
    in.tenants = placed->placed;
  }

  const railyard::topology::Cluster cluster{d, railyard::topology::materialize(d)};
  auto plan = railyard::cc::derive_cc(cluster, in);
  if (!plan.ok()) return cc_error(plan.status(), inv, ctx.incast_source);

  // The fluid-model check of the plan (--simulate, --start-rate, --svg).
  std::optional<railyard::cc::CcValidation> fluid;
  const std::string svg_path = absl::GetFlag(FLAGS_svg);
  if ((flag_used(inv, "start_rate") || flag_used(inv, "svg")) && !absl::GetFlag(FLAGS_simulate))
    return usage_error("--start-rate and --svg need --simulate (the fluid model's run)");
  if (flag_used(inv, "svg") && svg_path.empty())
    return usage_error("--svg=: the file name is empty");
  if (absl::GetFlag(FLAGS_simulate)) {
    double start = 1.0;
    if (flag_used(inv, "start_rate")) {
      const std::string text = absl::GetFlag(FLAGS_start_rate);
      // A decimal fraction or "a/b" (e.g. 1/64). from_chars, unlike strtod,
      // takes neither leading spaces nor hexadecimal floats.
      const auto decimal = [](std::string_view part, double& value) {
        const char* last = part.data() + part.size();
        auto [ptr, ec] = std::from_chars(part.data(), last, value, std::chars_format::fixed);
        return !part.empty() && ec == std::errc() && ptr == last;
      };
      const size_t slash = text.find('/');
      double den = 1.0;
      const bool parsed =
          decimal(std::string_view(text).substr(0, slash), start) &&
          (slash == std::string::npos || decimal(std::string_view(text).substr(slash + 1), den));
      start = parsed && den > 0 ? start / den : -1;
      if (!(start > 0 && start <= 1))
        return usage_error(railyard::str_cat("--start-rate=", text,
                                             ": must be a fraction of line rate in (0, 1]"));
    } else if (kind && *kind == railyard::collective::Collective::kAllToAll && in.incast > 1) {
      start = 1.0 / in.incast;
      ctx.incast_source += railyard::str_cat("; senders start at 1/", in.incast, " of line rate");
    }
    auto checked = railyard::cc::validate_cc(*plan, start);
    if (!checked.ok())
      return usage_error(railyard::str_cat("--simulate: ", view(checked.status().message())));
    fluid = std::move(*checked);
    if (!svg_path.empty()) {
      auto svg = railyard::report::trace_svg(
          fluid->derived.result, fluid->derived.red,
          railyard::cc::FluidScenario{.senders = fluid->senders,
                                      .line_gbps = fluid->link_gbps,
                                      .bottleneck_gbps = fluid->link_gbps,
                                      .feedback_delay_us = fluid->feedback_delay_us,
                                      .buffer_bytes = fluid->buffer_bytes,
                                      .packet_bytes = plan->frame_bytes,
                                      .duration_us = fluid->duration_us,
                                      .start_rate_fraction = start},
          railyard::str_cat("railyard cc: ", fluid->senders, " DCQCN senders into one ",
                            plan->link_gbps, " Gb/s port (derived settings)"));
      if (!svg.ok()) return svg.status();
      std::ofstream out(svg_path, std::ios::binary | std::ios::trunc);
      out << *svg;
      out.close();
      if (!out)
        return usage_error(railyard::str_cat("--svg=", svg_path, ": cannot write the file"));
    }
  }

  const railyard::cc::CcValidation* fluid_ptr = fluid ? &*fluid : nullptr;
  return absl::GetFlag(FLAGS_json) ? railyard::report::cc_json(*plan, in, ctx, 2, fluid_ptr)
                                   : railyard::report::cc_text(*plan, in, ctx, fluid_ptr);
}

// ---------------------------------------------------------------------------
// plan: the whole pipeline on a tenant mix (include/railyard/pipeline/plan.hpp
// documents the default scenario, both configurations and what is simulated).
// ---------------------------------------------------------------------------

// Progress notes on stderr, only when it is a terminal (tests compare stderr).
class PlanProgress {
 public:
  PlanProgress() : on_(isatty(fileno(stderr)) == 1) {}
  ~PlanProgress() { show(""); }
  PlanProgress(const PlanProgress&) = delete;
  PlanProgress& operator=(const PlanProgress&) = delete;

  void show(std::string_view note) {
    if (!on_) return;
    // Carriage return and erase-line: each note replaces the last one.
    const std::string line =
        note.empty() ? std::string("\r\033[K") : railyard::str_cat("\r\033[Kplan: ", note, " ...");
    (void)std::fwrite(line.data(), 1, line.size(), stderr);
    (void)std::fflush(stderr);
  }
  [[nodiscard]] bool on() const { return on_; }

 private:
  bool on_;
};

// One line naming what --out wrote.
std::string plan_files_line(const std::string& dir,
                            const std::vector<railyard::exports::PlanFile>& files) {
  size_t topo = 0, jobs = 0;
  for (const railyard::exports::PlanFile& f : files) {
    if (f.path.rfind("topo/", 0) == 0) ++topo;
    if (f.path.rfind("jobs/", 0) == 0 && f.path.size() > 9 &&
        f.path.compare(f.path.size() - 9, 9, "/hostfile") == 0)
      ++jobs;
  }
  return railyard::str_cat("files     ", files.size(), " written to ", dir,
                           ": README.txt, plan.json, topo/<host>.xml (", topo,
                           "), slurm/topology.{conf,yaml}, k8s/labels.yaml, jobs/<job>/{hostfile,"
                           "rankfile,rank-env.txt,megatron-args.txt,nccl.env,nccl_tuner.conf} (",
                           jobs, jobs == 1 ? " job" : " jobs", "), heatmap/{naive,railyard}.svg\n");
}

Outcome run_plan(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  auto src = load_source(inv);
  if (!src.ok()) return src.status();
  const railyard::topology::ClusterDescriptor<>& d = *src->descriptor;

  railyard::pipeline::PlanScenario scenario;
  scenario.cluster = absl::GetFlag(FLAGS_cluster);
  std::string jobs_text(railyard::pipeline::kDefaultPlanJobs);
  if (flag_used(inv, "jobs")) {
    jobs_text = absl::GetFlag(FLAGS_jobs);
    if (jobs_text.empty()) return usage_error("--jobs=: the list is empty");
  }
  auto jobs = railyard::pipeline::parse_plan_jobs(jobs_text, d);
  if (!jobs.ok())
    return usage_error(flag_used(inv, "jobs")
                           ? railyard::str_cat("--jobs: ", view(jobs.status().message()))
                           : railyard::str_cat("--cluster=", scenario.cluster,
                                               ": the default mix does not suit this cluster (",
                                               view(jobs.status().message()), "); give --jobs"));
  scenario.jobs = std::move(*jobs);

  if (flag_used(inv, "trace")) {
    const std::string path = absl::GetFlag(FLAGS_trace);
    if (path.empty()) return usage_error("--trace=: the file name is empty");
    auto text = read_file("trace", path);
    if (!text.ok()) return text.status();
    auto trace = railyard::placement::parse_job_trace(*text);
    if (!trace.ok())
      return usage_error(railyard::str_cat("--trace=", path, ": ", view(trace.status().message())));
    scenario.background = std::move(*trace);
    scenario.background_source = railyard::str_cat("--trace ", path);
  } else {
    auto trace = railyard::placement::parse_job_trace(railyard::pipeline::kDefaultPlanTrace);
    if (!trace.ok()) return trace.status();  // embedded: cannot fail
    scenario.background = std::move(*trace);
    scenario.background_source = std::string(railyard::pipeline::kDefaultPlanTraceSource);
  }

  // What --out needs, checked before the long part.
  const bool out_given = flag_used(inv, "out");
  const std::string out_dir = absl::GetFlag(FLAGS_out);
  if (out_given && out_dir.empty()) return usage_error("--out=: the directory name is empty");
  railyard::exports::PlanFilesOptions files_options;
  files_options.node_pattern = absl::GetFlag(FLAGS_node_pattern);
  files_options.launch.master_port = absl::GetFlag(FLAGS_master_port);
  files_options.launch.cores_per_rank = absl::GetFlag(FLAGS_cores_per_rank);
  files_options.seed = absl::GetFlag(FLAGS_seed);
  {
    auto namer = railyard::topology::NodeNamer::parse(files_options.node_pattern);
    if (!namer.ok())
      return usage_error(railyard::str_cat("--node-pattern: ", view(namer.status().message())));
    if (absl::Status s = namer->check(d); !s.ok())
      return usage_error(railyard::str_cat("--node-pattern: ", view(s.message())));
  }
  if (absl::Status s = (check_launch_options)(files_options.launch); !s.ok()) return s;
  // Create the directory now: an unwritable --out fails before the long part.
  if (out_given)
    if (absl::Status s = railyard::exports::write_plan_files(out_dir, {}); !s.ok())
      return usage_error(railyard::str_cat("--out=", out_dir, ": ", view(s.message())));

  PlanProgress progress;
  railyard::pipeline::PlanOptions options;
  options.seed = files_options.seed;
  if (progress.on()) options.progress = [&progress](std::string_view note) { progress.show(note); };
  progress.show("building the fabric");
  const railyard::topology::Cluster cluster{d, railyard::topology::materialize(d)};
  auto result = railyard::pipeline::run_plan(cluster, scenario, options);
  if (!result.ok()) {
    if (absl::IsInvalidArgument(result.status()) || absl::IsResourceExhausted(result.status()))
      return usage_error(railyard::str_cat("plan: ", view(result.status().message())));
    return result.status();
  }

  std::string files_line;
  if (out_given) {
    progress.show(railyard::str_cat("writing the files to ", out_dir));
    auto files = railyard::exports::plan_files(cluster, *result, files_options);
    if (!files.ok())
      return usage_error(
          railyard::str_cat("--out=", out_dir, ": ", view(files.status().message())));
    if (absl::Status s = railyard::exports::write_plan_files(out_dir, *files); !s.ok())
      return usage_error(railyard::str_cat("--out=", out_dir, ": ", view(s.message())));
    files_line = plan_files_line(out_dir, *files);
  }
  progress.show("");
  if (absl::GetFlag(FLAGS_json)) return railyard::report::plan_json(d, *result, files_options.seed);
  return railyard::str_cat(railyard::report::plan_text(d, *result), files_line);
}

Outcome run_presets(const Invocation& inv) {
  if (absl::Status s = no_positional_args(inv); !s.ok()) return s;
  using railyard::topology::kPresets;
  if (absl::GetFlag(FLAGS_json)) {
    railyard::report::JsonWriter w(2);
    w.begin_object();
    w.key("default").value(railyard::topology::kDefaultCluster);
    w.key("presets").begin_array();
    for (const railyard::topology::Preset& preset : kPresets) {
      w.begin_object();
      w.key("name").value(preset.name);
      w.key("spec").value(preset.spec);
      w.key("description").value(preset.description);
      w.end_object();
    }
    w.end_array();
    w.end_object();
    return std::move(w).line();
  }
  size_t width = 0;
  for (const railyard::topology::Preset& preset : kPresets)
    width = std::max(width, preset.name.size());
  std::string out;
  for (const railyard::topology::Preset& preset : kPresets) {
    std::string name(preset.name);
    name.resize(width, ' ');
    railyard::str_append(out, name, "  ", preset.description, "\n");
    railyard::str_append(out, std::string(width, ' '), "  = ", preset.spec, "\n");
  }
  return out;
}

Outcome run_help(const Invocation& inv) {
  if (inv.args.empty()) return program_help();
  if (inv.args.size() > 1)
    return usage_error(railyard::str_cat("help: unexpected argument '", inv.args[1],
                                         "' (usage: railyard help [SUBCOMMAND])"));
  const Subcommand* sc = find_subcommand(inv.args.front());
  if (sc == nullptr)
    return usage_error(railyard::str_cat("help: unknown subcommand '", inv.args.front(),
                                         "' (try 'railyard --help')"));
  return subcommand_help(*sc);
}

// ---------------------------------------------------------------------------
// Command line.
// ---------------------------------------------------------------------------

// What argv asks for, once flags are set.
struct CommandLine {
  std::vector<std::string> positionals;
  std::vector<std::string> flags_used;  // names, in order, for the per-subcommand check
};

// Sets `flag` from `value`; the error names the flag and the value.
absl::Status set_flag(absl::CommandLineFlag& flag, std::string_view name, std::string_view value) {
  std::string error;
  if (flag.ParseFrom(absl::string_view(value.data(), value.size()), &error))
    return absl::OkStatus();
  if (flag.IsOfType<bool>())
    return usage_error(railyard::str_cat("--", name, "=", value,
                                         ": not a boolean (use true or false, or --", name,
                                         " / --no", name, ")"));
  return usage_error(railyard::str_cat("--", name, "=", value, ": ", error));
}

// Parses argv[1..] into positionals, setting every flag it names. Accepts
// --name=value, --name value (non-boolean flags), --name and --noname (boolean
// flags); "--" ends the flags.
absl::StatusOr<CommandLine> parse_command_line(std::span<const std::string_view> args) {
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
      return usage_error(railyard::str_cat("unknown flag '", arg, "' (try 'railyard --help')"));
    const std::string_view body = arg.substr(2);
    const size_t eq = body.find('=');
    const bool has_value = eq != std::string_view::npos;
    // --node-pattern and --node_pattern name the same flag.
    std::string canonical(body.substr(0, eq));
    std::replace(canonical.begin(), canonical.end(), '-', '_');
    std::string_view name = canonical;
    const std::string_view value = has_value ? body.substr(eq + 1) : std::string_view();

    bool negated = false;
    if (!is_our_flag(name) && name.substr(0, 2) == "no") {
      // --nojson, and for hyphenated flags also --no-legacy-labels.
      const std::string_view rest = name.substr(name.substr(0, 3) == "no_" ? 3 : 2);
      if (is_our_flag(rest)) {
        negated = true;
        name = rest;
      }
    }
    absl::CommandLineFlag* flag =
        is_our_flag(name) ? absl::FindCommandLineFlag(absl::string_view(name.data(), name.size()))
                          : nullptr;
    if (flag == nullptr || (negated && !flag->IsOfType<bool>()))
      return usage_error(
          railyard::str_cat("unknown flag '--", body.substr(0, eq), "' (try 'railyard --help')"));

    if (flag->IsOfType<bool>()) {
      if (negated && has_value)
        return usage_error(railyard::str_cat("--no", name, ": takes no value (got '", value, "')"));
      const std::string_view v = negated ? "false" : has_value ? value : "true";
      if (absl::Status s = set_flag(*flag, name, v); !s.ok()) return s;
    } else if (has_value) {
      if (absl::Status s = set_flag(*flag, name, value); !s.ok()) return s;
    } else {
      if (i + 1 >= args.size())
        return usage_error(railyard::str_cat("--", name, ": missing value"));
      if (absl::Status s = set_flag(*flag, name, args[++i]); !s.ok()) return s;
    }
    cl.flags_used.emplace_back(name);
  }
  return cl;
}

// --help / -h / --version before any "--"; the first one wins.
std::string_view find_info_request(std::span<const std::string_view> args) {
  for (std::string_view arg : args) {
    if (arg == "--") break;
    if (arg == "--help" || arg == "-h" || arg == "--version") return arg;
  }
  return {};
}

// One line, whatever the message holds.
std::string one_line(std::string_view message) {
  std::string out(message);
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  return out;
}

// Writes all of `text` to `stream`; false if the stream refused it.
bool write_all(std::FILE* stream, std::string_view text) {
  return std::fwrite(text.data(), 1, text.size(), stream) == text.size() &&
         std::fflush(stream) == 0;
}

int fail(int status, std::string_view message) {
  const std::string line = railyard::str_cat(kProgram, ": ", one_line(message), "\n");
  (void)write_all(stderr, line);
  return status;
}

int emit(const Outcome& outcome) {
  if (!outcome.ok()) {
    const int status = absl::IsInvalidArgument(outcome.status()) ? 2 : 1;
    return fail(status, view(outcome.status().message()));
  }
  if (!write_all(stdout, *outcome)) return fail(1, "cannot write to standard output");
  return 0;
}

int run(std::span<const std::string_view> args) {
  const std::string_view info = find_info_request(args);
  if (info == "--version") return emit(railyard::str_cat(kProgram, " ", kVersion, "\n"));
  if (!info.empty()) {
    // Help for the subcommand named first, if any, else for the program.
    for (std::string_view arg : args) {
      if (arg.empty() || arg[0] == '-') continue;
      if (const Subcommand* sc = find_subcommand(arg); sc != nullptr && sc->name != "help")
        return emit(subcommand_help(*sc));
      break;
    }
    return emit(program_help());
  }

  absl::StatusOr<CommandLine> cl = parse_command_line(args);
  if (!cl.ok()) return emit(cl.status());
  if (cl->positionals.empty()) return fail(2, "missing subcommand (try 'railyard --help')");
  const Subcommand* sc = find_subcommand(cl->positionals.front());
  if (sc == nullptr)
    return fail(2, railyard::str_cat("unknown subcommand '", cl->positionals.front(),
                                     "' (try 'railyard --help')"));
  for (const std::string& name : cl->flags_used)
    if (std::find(sc->flags.begin(), sc->flags.end(), name) == sc->flags.end())
      return fail(2, railyard::str_cat(sc->name, ": flag --", name,
                                       " does not apply (try 'railyard help ", sc->name, "')"));
  Invocation inv;
  inv.command = sc;
  inv.args.assign(cl->positionals.begin() + 1, cl->positionals.end());
  inv.flags_used = cl->flags_used;
  return emit(sc->run(inv));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string_view> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    return run(args);
  } catch (const std::bad_alloc&) {
    // A valid but enormous cluster (2^20 hosts of 64 GPUs) or job outgrows
    // memory while its fabric or traffic is built: an input the machine cannot
    // hold, reported as such rather than as an internal error.
    return fail(2, "out of memory: this cluster or job is too large to build on this machine "
                   "(try a smaller --cluster, --hosts or --job)");
  } catch (const std::exception& e) {
    return fail(1, railyard::str_cat("internal error: ", e.what()));
  } catch (...) {
    return fail(1, "internal error");
  }
}
