// railyard/export/launchers.hpp — the files and command lines that make a launcher
// start rank r where a JobPlacement put it: hosts[r / G], GPU r % G (G = GPUs
// per host), with the plan's Megatron order string numbering the ranks.
//
//   auto desc = railyard::topology::make_descriptor(*railyard::topology::parse_cluster("h100-1024"));
//   auto plan = railyard::placement::parse_plan("tp=8,pp=2,dp=4");
//   auto job = railyard::placement::order_ranks(*desc, *plan, hosts);
//   auto namer = railyard::topology::NodeNamer::parse(railyard::topology::kDefaultNodePattern);
//   const std::vector<std::string> names = namer->names(*desc);   // indexed by host id
//   railyard::StatusOr<std::string> seq = railyard::exports::hostfile_seq(*job, names);
//   railyard::StatusOr<std::string> any = railyard::exports::launcher_file("rankfile", *job, names);
//
// Host names come as a span indexed by host id (NodeNamer::names(descriptor),
// or any list a site keeps); only the job's hosts are looked up. Every function
// is deterministic and checks its input: the placement must be whole (hosts ×
// G = world, G >= 1, no host twice) and every job host needs a name that is
// non-empty and free of whitespace, '#', ',' and '=' (the separators of the
// formats below). Errors are `invalid_field` statuses naming the value.
//
// Formats, as checked at their sources:
// * hostfile_seq — one line per RANK, line k = host of rank k (so each host
//   name repeats G times, in launch order). Open MPI's sequential mapper "reads
//   the hostfile line by line, assigning processes to nodes in whatever order
//   the hostfile specifies ... one process is launched per line"
//   (open-mpi/ompi docs/man-openmpi/man1/mpirun.1.rst; prrte
//   docs/placement: "SEQ ... an entry for each desired process, one per line").
//   v5: `mpirun -np W --hostfile F --map-by seq`; v4.1: `--mca rmaps seq` (the
//   v4 man page's spelling). Slot counts are ignored by this mapper.
// * hostfile_slots — `host slots=G` per host in launch order (ompi
//   docs/launching-apps/scheduling.rst: "bar.example.com slots=2"); with
//   `mpirun -np W --hostfile F --map-by slot` (or `ppr:G:node`) Open MPI fills
//   a node's slots before moving to the next. Inside a scheduler allocation the
//   hostfile only filters the allocation ("exclusionary", same page), so the
//   node order is not guaranteed there: prefer hostfile_seq or the rankfile.
// * openmpi_rankfile — `rank N=<host> slot=<cores>` for every rank, in rank
//   order (ompi mpirun.1.rst "Rankfiles": `rank <N>=<hostname> slot=<slot
//   list>`; prrte docs/placement/rankfiles.rst). v5: `mpirun -np W --map-by
//   rankfile:file=PATH`; v4: `mpirun -np W -rf PATH` (`--rankfile`). `slot` is a
//   list of LOGICAL CORES the rank is bound to, not a GPU: rank r gets cores
//   [g*c, g*c+c-1] with g = r % G and c = LaunchOptions::cores_per_rank (1 by
//   default: `slot=g`), so bindings never overlap (v5 rejects overlapping
//   bindings). The GPU is chosen by the program from its local rank
//   (OMPI_COMM_WORLD_LOCAL_RANK = r % G, since a host's ranks are consecutive).
// * slurm_hostfile — one host name per task line in rank order, the same text
//   as hostfile_seq: `SLURM_HOSTFILE=F srun -n W --distribution=arbitrary`
//   (`-m arbitrary`). SchedMD srun(1): "The arbitrary method of distribution
//   will allocate processes in-order as listed in file designated by the
//   environment variable SLURM_HOSTFILE ... one per line or comma separated".
//   Its NOTE (Slurm 22.05): on a job allocation the method "only controls the
//   nodes to be allocated ... not the allocation of CPUs"; it is meant for a
//   job step's task layout inside an allocation, which is how the real-Slurm
//   check (tests/slurm/srun_ranks_check.sh, docs/slurm.md) runs it, also with
//   TopologyPlugin=topology/tree loaded.
// * rank_env — one line per rank, `<host> RANK=.. LOCAL_RANK=.. WORLD_SIZE=..
//   LOCAL_WORLD_SIZE=.. GROUP_RANK=.. ROLE_RANK=.. ROLE_WORLD_SIZE=..
//   MASTER_ADDR=.. MASTER_PORT=..`, lines starting with '#' are comments. The
//   variables are the ones torchrun gives a worker (pytorch
//   torch/distributed/run.py, "Environment Variables"): RANK =
//   GROUP_RANK·LOCAL_WORLD_SIZE + LOCAL_RANK, GROUP_RANK = node rank (launch
//   position), one role so ROLE_RANK = RANK, MASTER_ADDR = host of rank 0. A
//   shell starts each rank without a launcher:
//     grep -v '^#' rank-env.txt | while read -r host vars; do
//       ssh -n "$host" env $vars python train.py & done
//   CUDA_VISIBLE_DEVICES is deliberately not set: LOCAL_RANK is already the GPU
//   index (rank r runs on GPU r % G = LOCAL_RANK), so the program selects
//   cuda:LOCAL_RANK as torchrun programs do; masking devices per process would
//   renumber that GPU to 0. (railyard's GPU index is taken as the CUDA ordinal;
//   CUDA_DEVICE_ORDER=PCI_BUS_ID makes ordinals follow PCI order.)
// * torchrun_table — tab-separated `GROUP_RANK host ranks command` per node,
//   '#' comments first. The command uses the static rendezvous, the only one
//   where the node rank is ours to give (torch/distributed/run.py:
//   `if args.rdzv_backend == "static": rdzv_configs["rank"] = args.node_rank`):
//   `torchrun --nnodes=N --nproc_per_node=G --node_rank=K --rdzv_backend=static
//   --master_addr=<host of rank 0> --master_port=P`; append the script:
//     grep -v '^#' torchrun.tsv | while IFS=$'\t' read -r k host ranks cmd; do
//       ssh -n "$host" "$cmd train.py" & done
//   With c10d the rendezvous numbers nodes in the lexicographic order of their
//   addresses (docs/constants.md#schedulers: node66 < node7); when that order differs from the
//   launch order the table carries a `# WARNING:` line.
// * torchrun_script — a POSIX shell script that every node of the job runs
//   the same way (`sh torchrun.sh train.py --its-args`, e.g. from `srun
//   --ntasks-per-node=1`, pdsh or ssh): it finds its node rank from its host
//   name (`hostname -s`, or $RAILYARD_NODE when set) in a `case` of the job's
//   hosts and execs the static-rendezvous torchrun command above with that
//   --node_rank and the arguments it was given; a host not in the job exits 2
//   with a message naming it. torchrun_files() gives that script as
//   `torchrun.sh` plus one `torchrun-node-<k>.sh` per node rank k, each with the
//   one command for that node (its host named in a comment), for sites that
//   start nodes by hand. The flags are torchrun's own spellings with
//   underscores (torch/distributed/run.py get_args_parser: --nnodes,
//   --nproc_per_node, --rdzv_backend (default "static"), --node_rank,
//   --master_addr, --master_port; with the static backend and no
//   --rdzv_endpoint the endpoint is master_addr:master_port,
//   get_rdzv_endpoint): PyTorch 1.13 (Debian 12's python3-torch) accepts only
//   these, PyTorch 2 accepts them beside the dashed aliases it added, and
//   names.torchrun_args_parse parses the generated command with the installed
//   torch's own parser. Host names must be
//   [A-Za-z0-9._-] here (they become shell `case` patterns).
// * megatron_args — `#` comment lines, then one line of Megatron-LM arguments:
//   --tensor-model-parallel-size, --pipeline-model-parallel-size,
//   --context-parallel-size, --expert-model-parallel-size and, when needed,
//   --use-tp-pp-dp-mapping. Megatron-LM's command line exposes exactly two
//   orders (megatron/training/arguments.py: "--use-tp-pp-dp-mapping ... changed
//   from tp-cp-ep-dp-pp to tp-cp-ep-pp-dp"; megatron/training/initialize.py
//   passes that order to initialize_model_parallel). Megatron-core
//   (megatron/core/parallel_state.py) builds dense groups from a RankGenerator
//   with ep = 1 and dp = world / (tp·cp·pp) — railyard's ep × dp — and expert
//   groups from a second one with cp = 1, ep = EP, dp = world / (tp·ep·pp)
//   (expert tensor parallel = tp), both using the order string; with a pp-not-last
//   order it asserts that the two data-parallel sizes agree. railyard replays
//   both generators for each accepted order and picks the one whose TP, CP, PP,
//   DP, EP and expert-DP groups equal the groups of its numbering; if neither
//   does, a `# WARNING:` line says so and names the first group that differs
//   (e.g. cp > 1 with ep > 1: Megatron folds EP across CP ranks).
//
// launcher_file(format, ...) dispatches on the format names the CLI uses:
// hostfile, hostfile-slots, rankfile, slurm-hostfile, rank-env, torchrun
// (torchrun_script), megatron.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"

namespace railyard::exports {

struct LaunchOptions {
  int32_t master_port = 29500;  // MASTER_PORT for rank_env and torchrun_table (torchrun's default)
  int32_t cores_per_rank = 1;   // logical cores bound per rank in openmpi_rankfile
};

// The options' bounds: master_port a TCP port in [1, 65535], cores_per_rank in
// [1, 4096]. Errors name the option and the value. The writers that take
// options check them; a caller may check up front (e.g. before a long run).
RAILYARD_LAZY
[[nodiscard]] Status check_launch_options(const LaunchOptions& options) {
  if (options.master_port < 1 || options.master_port > 65535)
    return invalid_field("master_port", str_cat(options.master_port), "must be in [1, 65535]");
  if (options.cores_per_rank < 1 || options.cores_per_rank > 4096)
    return invalid_field("cores_per_rank", str_cat(options.cores_per_rank), "must be in [1, 4096]");
  return ok_status();
}

// The format names launcher_file() accepts (the CLI's --format values).
inline constexpr std::array<std::string_view, 7> kLauncherFormats = {
    "hostfile", "hostfile-slots", "rankfile", "slurm-hostfile", "rank-env", "torchrun", "megatron"};

namespace detail {

// The placement is whole and every job host has a usable name.
RAILYARD_LAZY
Status check_launch_input(const placement::JobPlacement& job,
                                       std::span<const std::string> names) {
  const int64_t world = job.plan.world();
  if (job.gpus_per_host < 1)
    return invalid_field("gpus_per_host", str_cat(job.gpus_per_host), "must be at least 1");
  if (static_cast<int64_t>(job.hosts.size()) * job.gpus_per_host != world)
    return invalid_field("job", job.plan.to_string(),
                         str_cat(world, " ranks but ", job.hosts.size(), " hosts of ",
                                 job.gpus_per_host, " GPUs"));
  std::vector<int32_t> ids;
  ids.reserve(job.hosts.size());
  for (HostId h : job.hosts) ids.push_back(h.value());
  std::sort(ids.begin(), ids.end());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= names.size())
      return invalid_field("hosts", str_cat(ids[i]),
                           str_cat("no host name for this host id (", names.size(), " names given)"));
    if (i > 0 && ids[i] == ids[i - 1])
      return invalid_field("hosts", str_cat(ids[i]), "listed twice in the placement");
    const std::string& name = names[static_cast<size_t>(ids[i])];
    if (name.empty()) return invalid_field("hosts", str_cat(ids[i]), "has an empty host name");
    if (name.find_first_of(" \t\r\n#,=") != std::string::npos)
      return invalid_field("host_name", name,
                           "contains whitespace, '#', ',' or '=', which launcher files cannot hold");
  }
  return ok_status();
}

RAILYARD_LAZY
const std::string& name_of(const placement::JobPlacement& job,
                                  std::span<const std::string> names, int64_t node_rank) {
  return names[static_cast<size_t>(job.hosts[static_cast<size_t>(node_rank)].value())];
}

// Megatron-core's rank layout: coordinates of `rank` under an order string
// (first = fastest) and sizes by dimension.
using Sizes = std::array<int64_t, placement::kDimCount>;
RAILYARD_LAZY
Sizes megatron_coords(int64_t rank, const std::array<placement::Dim, placement::kDimCount>& order,
                             const Sizes& sizes) {
  Sizes c{};
  for (placement::Dim d : order) {
    const int64_t n = sizes[static_cast<size_t>(d)];
    c[static_cast<size_t>(d)] = rank % n;
    rank /= n;
  }
  return c;
}
// Dimensions as a bit mask (bit d = Dim d).
inline constexpr uint32_t dim_bit(placement::Dim d) { return 1u << static_cast<unsigned>(d); }

// The smallest rank of `rank`'s group over the dimensions in `mask`: the rank
// with those coordinates zeroed.
RAILYARD_LAZY
int64_t group_base(int64_t rank, const std::array<placement::Dim, placement::kDimCount>& order,
                          const Sizes& sizes, uint32_t mask) {
  const Sizes c = megatron_coords(rank, order, sizes);
  int64_t stride = 1, base = rank;
  for (placement::Dim d : order) {
    if (mask & dim_bit(d)) base -= c[static_cast<size_t>(d)] * stride;
    stride *= sizes[static_cast<size_t>(d)];
  }
  return base;
}

// Empty when Megatron-core, given `megatron_order` and the plan's sizes, builds
// the same TP, CP, PP, DP, EP and expert-DP groups as the plan's numbering;
// otherwise the first difference.
RAILYARD_LAZY
std::string megatron_mismatch(const placement::ParallelPlan& plan,
                                     std::string_view megatron_order) {
  using placement::Dim;
  auto order = placement::parse_order(megatron_order);
  if (!order.ok()) return std::string(order.status().message());
  const int64_t tp = plan.size(Dim::kTp), cp = plan.size(Dim::kCp), ep = plan.size(Dim::kEp),
                dp = plan.size(Dim::kDp), pp = plan.size(Dim::kPp);
  // Sizes by Dim (tp, cp, ep, dp, pp).
  const Sizes ours = {tp, cp, ep, dp, pp};
  const Sizes dense = {tp, cp, 1, ep * dp, pp};   // parallel_state.py: decoder RankGenerator(ep=1)
  const Sizes expert = {tp, 1, ep, cp * dp, pp};  // expert RankGenerator(cp=1), expert tp = tp
  // With a pp-not-last order Megatron asserts equal attention and expert DP sizes.
  if (!megatron_order.ends_with("pp") && pp > 1 && cp != ep)
    return str_cat("Megatron rejects order ", megatron_order,
                   " here: pp is not last and its attention and expert data-parallel sizes differ (",
                   ep * dp, " vs ", cp * dp, ")");
  struct Kind {
    std::string_view name;
    uint32_t ours;
    const Sizes* sizes;
    uint32_t theirs;
  };
  const uint32_t kTp = dim_bit(Dim::kTp), kCp = dim_bit(Dim::kCp), kEp = dim_bit(Dim::kEp),
                 kDp = dim_bit(Dim::kDp), kPp = dim_bit(Dim::kPp);
  const std::array<Kind, 7> kinds = {{{"tensor-parallel", kTp, &dense, kTp},
                                      {"context-parallel", kCp, &dense, kCp},
                                      {"pipeline-parallel", kPp, &dense, kPp},
                                      {"data-parallel (railyard ep x dp)", kEp | kDp, &dense, kDp},
                                      {"expert-parallel", kEp, &expert, kEp},
                                      {"expert data-parallel (railyard cp x dp)", kCp | kDp, &expert, kDp},
                                      {"expert pipeline-parallel", kPp, &expert, kPp}}};
  const int64_t world = plan.world();
  for (const Kind& k : kinds) {
    // Groups have equal sizes on both sides, so the partitions are equal iff
    // every rank lies in the same Megatron group as the base of its railyard group.
    for (int64_t r = 0; r < world; ++r) {
      const int64_t base = group_base(r, plan.order, ours, k.ours);
      if (group_base(r, *order, *k.sizes, k.theirs) != group_base(base, *order, *k.sizes, k.theirs))
        return str_cat("Megatron's ", k.name, " groups differ: ranks ", base, " and ", r,
                       " share a railyard group but not a Megatron one");
    }
  }
  return "";
}

}  // namespace detail

// Open MPI sequential-mapper hostfile: line k = host of rank k.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> hostfile_seq(const placement::JobPlacement& job,
                                                              std::span<const std::string> names) {
  RAILYARD_RETURN_IF_ERROR(detail::check_launch_input(job, names));
  std::string out;
  for (int64_t r = 0; r < job.plan.world(); ++r)
    str_append(out, detail::name_of(job, names, r / job.gpus_per_host), "\n");
  return out;
}

// Open MPI hostfile with slot counts: `host slots=G` per host, launch order.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> hostfile_slots(const placement::JobPlacement& job,
                                                                std::span<const std::string> names) {
  RAILYARD_RETURN_IF_ERROR(detail::check_launch_input(job, names));
  std::string out;
  for (size_t k = 0; k < job.hosts.size(); ++k)
    str_append(out, detail::name_of(job, names, static_cast<int64_t>(k)), " slots=", job.gpus_per_host,
               "\n");
  return out;
}

// Open MPI rankfile: `rank N=<host> slot=<cores>` per rank, rank order.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> openmpi_rankfile(const placement::JobPlacement& job,
                                                                  std::span<const std::string> names,
                                                                  const LaunchOptions& options = {}) {
  RAILYARD_RETURN_IF_ERROR(detail::check_launch_input(job, names));
  RAILYARD_RETURN_IF_ERROR(check_launch_options(options));
  const int32_t c = options.cores_per_rank;
  std::string out;
  for (int64_t r = 0; r < job.plan.world(); ++r) {
    const int64_t g = r % job.gpus_per_host;
    str_append(out, "rank ", r, "=", detail::name_of(job, names, r / job.gpus_per_host), " slot=", g * c);
    if (c > 1) str_append(out, "-", g * c + c - 1);
    out += '\n';
  }
  return out;
}

// SLURM_HOSTFILE for `srun --distribution=arbitrary`: one host per task line.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> slurm_hostfile(const placement::JobPlacement& job,
                                                                std::span<const std::string> names) {
  return hostfile_seq(job, names);
}

// Per-rank environment for a launcher-less start (format in the header comment).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> rank_env(const placement::JobPlacement& job,
                                                          std::span<const std::string> names,
                                                          const LaunchOptions& options = {}) {
  RAILYARD_RETURN_IF_ERROR(detail::check_launch_input(job, names));
  RAILYARD_RETURN_IF_ERROR(check_launch_options(options));
  const int64_t world = job.plan.world();
  const int32_t g = job.gpus_per_host;
  const std::string& master = detail::name_of(job, names, 0);
  std::string out = str_cat("# railyard rank-env: plan ", job.plan.to_string(), "; ", job.hosts.size(),
                            " hosts x ", g, " GPUs; LOCAL_RANK is the GPU index\n",
                            "# <host> then the variables of that rank, one rank per line\n");
  for (int64_t r = 0; r < world; ++r) {
    const int64_t node = r / g, local = r % g;
    str_append(out, detail::name_of(job, names, node), " RANK=", r, " LOCAL_RANK=", local,
               " WORLD_SIZE=", world, " LOCAL_WORLD_SIZE=", g, " GROUP_RANK=", node, " ROLE_RANK=", r,
               " ROLE_WORLD_SIZE=", world, " MASTER_ADDR=", master, " MASTER_PORT=", options.master_port,
               "\n");
  }
  return out;
}

// torchrun node table and per-node commands (static rendezvous), with a
// warning when c10d's lexicographic node order would differ.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> torchrun_table(const placement::JobPlacement& job,
                                                                std::span<const std::string> names,
                                                                const LaunchOptions& options = {}) {
  RAILYARD_RETURN_IF_ERROR(detail::check_launch_input(job, names));
  RAILYARD_RETURN_IF_ERROR(check_launch_options(options));
  const int64_t nodes = static_cast<int64_t>(job.hosts.size());
  const int32_t g = job.gpus_per_host;
  const std::string& master = detail::name_of(job, names, 0);
  std::vector<std::string> launch, sorted;
  for (int64_t k = 0; k < nodes; ++k) launch.push_back(detail::name_of(job, names, k));
  sorted = launch;
  std::sort(sorted.begin(), sorted.end());
  std::string out = str_cat("# railyard torchrun table: plan ", job.plan.to_string(),
                            "; node rank (GROUP_RANK) = launch order; RANK = GROUP_RANK*", g,
                            " + LOCAL_RANK\n");
  const auto diff = std::mismatch(launch.begin(), launch.end(), sorted.begin());
  if (diff.first != launch.end())
    str_append(out, "# WARNING: the c10d rendezvous numbers nodes in lexicographic order of their "
                    "addresses, which differs from this launch order (node rank ",
               diff.first - launch.begin(), " is ", *diff.first, " here, ", *diff.second,
               " under c10d); use these static-rendezvous commands (--node_rank), not "
               "--rdzv_backend=c10d\n");
  out += "# GROUP_RANK\thost\tranks\tcommand (append the training script and its arguments)\n";
  for (int64_t k = 0; k < nodes; ++k)
    str_append(out, k, "\t", launch[static_cast<size_t>(k)], "\t", k * g, "-", k * g + g - 1,
               "\ttorchrun --nnodes=", nodes, " --nproc_per_node=", g, " --node_rank=", k,
               " --rdzv_backend=static --master_addr=", master, " --master_port=", options.master_port,
               "\n");
  return out;
}

namespace detail {

// The torchrun command of node rank `node_rank` ("$rank" for the dispatcher).
RAILYARD_LAZY
std::string torchrun_command(const placement::JobPlacement& job, std::span<const std::string> names,
                             const LaunchOptions& options, std::string_view node_rank) {
  return str_cat("torchrun --nnodes=", job.hosts.size(), " --nproc_per_node=", job.gpus_per_host,
                 " --node_rank=", node_rank, " --rdzv_backend=static --master_addr=",
                 name_of(job, names, 0), " --master_port=", options.master_port);
}

// Shell-safe host names: they become `case` patterns and unquoted words.
RAILYARD_LAZY
Status check_shell_names(const placement::JobPlacement& job, std::span<const std::string> names) {
  for (size_t k = 0; k < job.hosts.size(); ++k) {
    const std::string& name = name_of(job, names, static_cast<int64_t>(k));
    for (char c : name)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '.' || c == '_' || c == '-'))
        return invalid_field("host_name", name,
                             str_cat("character '", std::string(1, c),
                                     "' cannot go into a shell script (use letters, digits, "
                                     "'.', '_' and '-')"));
  }
  return ok_status();
}

}  // namespace detail

// The script every node runs to start its torchrun with its own --node_rank
// (format in the header comment).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> torchrun_script(const placement::JobPlacement& job,
                                                    std::span<const std::string> names,
                                                    const LaunchOptions& options = {}) {
  RAILYARD_RETURN_IF_ERROR(detail::check_launch_input(job, names));
  RAILYARD_RETURN_IF_ERROR(check_launch_options(options));
  RAILYARD_RETURN_IF_ERROR(detail::check_shell_names(job, names));
  const int64_t nodes = static_cast<int64_t>(job.hosts.size());
  const int32_t g = job.gpus_per_host;
  std::string out = str_cat(
      "#!/bin/sh\n# railyard torchrun launcher: plan ", job.plan.to_string(), "; ", nodes,
      " nodes x ", g, " GPUs; RANK = node rank * ", g, " + LOCAL_RANK.\n",
      "# Run this same script on every node of the job, followed by the training script and its\n",
      "# arguments: sh torchrun.sh train.py --epochs 3\n",
      "# The node rank comes from the host name: $RAILYARD_NODE when set, else `hostname -s`.\n",
      "# Static rendezvous: torchrun reads --node_rank only with --rdzv_backend=static.\n",
      "node=\"${RAILYARD_NODE:-$(hostname -s)}\"\ncase \"$node\" in\n");
  for (int64_t k = 0; k < nodes; ++k)
    str_append(out, "  ", detail::name_of(job, names, k), ") rank=", k, " ;;  # ranks ", k * g,
               "-", k * g + g - 1, "\n");
  str_append(out, "  *) echo \"torchrun.sh: host '$node' is not in this job (set RAILYARD_NODE to "
                  "its name)\" >&2; exit 2 ;;\nesac\n",
             "exec ", detail::torchrun_command(job, names, options, "\"$rank\""), " \"$@\"\n");
  return out;
}

// A file for a launcher, path relative to the output directory.
struct LaunchFile {
  std::string path;
  std::string content;
};

// torchrun.sh (torchrun_script) and torchrun-node-<k>.sh for every node rank k.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<LaunchFile>> torchrun_files(const placement::JobPlacement& job,
                                                               std::span<const std::string> names,
                                                               const LaunchOptions& options = {}) {
  RAILYARD_ASSIGN_OR_RETURN(std::string dispatcher, torchrun_script(job, names, options));
  std::vector<LaunchFile> files;
  files.push_back({"torchrun.sh", std::move(dispatcher)});
  const int64_t nodes = static_cast<int64_t>(job.hosts.size());
  const int32_t g = job.gpus_per_host;
  for (int64_t k = 0; k < nodes; ++k)
    files.push_back({str_cat("torchrun-node-", k, ".sh"),
                     str_cat("#!/bin/sh\n# railyard torchrun: node rank ", k, " of ", nodes,
                             "; run on ", detail::name_of(job, names, k), " (ranks ", k * g, "-",
                             k * g + g - 1, "), followed by the training script and its "
                             "arguments.\nexec ",
                             detail::torchrun_command(job, names, options, str_cat(k)),
                             " \"$@\"\n")});
  return files;
}

// Megatron-LM arguments that reproduce the plan's numbering (see above).
RAILYARD_LAZY
[[nodiscard]] std::string megatron_args(const placement::ParallelPlan& plan) {
  using placement::Dim;
  struct Accepted {
    std::string_view order;
    std::string_view flag;
  };
  constexpr Accepted kAccepted[] = {{"tp-cp-ep-dp-pp", ""},
                                    {"tp-cp-ep-pp-dp", " --use-tp-pp-dp-mapping"}};
  const std::string ours = plan.order_string();
  std::string out = str_cat("# railyard megatron: plan ", plan.to_string(), "\n");
  std::string_view flag;
  bool matched = false;
  std::string why;
  for (const Accepted& a : kAccepted) {
    const std::string mismatch = detail::megatron_mismatch(plan, a.order);
    if (mismatch.empty()) {
      str_append(out, "# Megatron order ", a.order, " builds the same groups as railyard's order ", ours,
                 "\n");
      flag = a.flag;
      matched = true;
      break;
    }
    if (why.empty()) why = str_cat(a.order, ": ", mismatch);
  }
  if (!matched) {
    str_append(out, "# WARNING: Megatron-LM's command line accepts only order tp-cp-ep-dp-pp (default) "
                    "and tp-cp-ep-pp-dp (--use-tp-pp-dp-mapping); neither matches railyard's order ",
               ours, " (", why, ")\n");
    const std::string own = detail::megatron_mismatch(plan, ours);
    if (own.empty())
      str_append(out, "# megatron.core.parallel_state.initialize_model_parallel(order=\"", ours,
                 "\") builds railyard's groups; otherwise renumber with order=tp-cp-ep-dp-pp\n");
    else
      str_append(out, "# no Megatron order reproduces this numbering (", own, "); ",
                 plan.size(Dim::kCp) > 1 && plan.size(Dim::kEp) > 1
                     ? "with cp > 1 and ep > 1 Megatron folds its expert-parallel groups across "
                       "context-parallel ranks (expert RankGenerator has cp = 1), which railyard's "
                       "independent cp and ep dimensions cannot express"
                     : "renumber with order=tp-cp-ep-dp-pp",
                 "\n");
  }
  str_append(out, "--tensor-model-parallel-size ", plan.size(Dim::kTp), " --pipeline-model-parallel-size ",
             plan.size(Dim::kPp), " --context-parallel-size ", plan.size(Dim::kCp),
             " --expert-model-parallel-size ", plan.size(Dim::kEp), flag, "\n");
  return out;
}

// One launcher file by its CLI format name (kLauncherFormats).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> launcher_file(std::string_view format,
                                                               const placement::JobPlacement& job,
                                                               std::span<const std::string> names,
                                                               const LaunchOptions& options = {}) {
  if (format == "hostfile") return hostfile_seq(job, names);
  if (format == "hostfile-slots") return hostfile_slots(job, names);
  if (format == "rankfile") return openmpi_rankfile(job, names, options);
  if (format == "slurm-hostfile") return slurm_hostfile(job, names);
  if (format == "rank-env") return rank_env(job, names, options);
  if (format == "torchrun") return torchrun_script(job, names, options);
  if (format == "megatron") {
    RAILYARD_RETURN_IF_ERROR(detail::check_launch_input(job, names));
    return megatron_args(job.plan);
  }
  return invalid_field("format", format, str_cat("unknown; use one of ", join(kLauncherFormats, ", ")));
}

}  // namespace railyard::exports
