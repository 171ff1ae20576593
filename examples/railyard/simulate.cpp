// railyard simulate — a collective on a job's GPUs, timed by the flow simulator.
#include <memory>

#include "cli.hpp"
#include "collective_input.hpp"
#include "inputs.hpp"
#include "progress.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/report/simulate_report.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/topology/failure_spec.hpp"
#include "traffic.hpp"

namespace railyard::cli {
namespace {

constexpr std::string_view kSimulateNeedsSpec =
    "simulate needs a cluster spec (--cluster) or a cable list (--cables, --ibnetdiscover): a "
    "scheduler's switch tree has no GPUs, NVLink or rails to place the job's ranks on";

// --collective, --bytes and --job are required unless a traffic matrix is
// given (--traffic or --generate, traffic.cpp); run_simulate checks them.
constexpr FlagUse kSimulateFlags[] = {{"collective"},
                                      {"bytes"},
                                      {"job"},
                                      {"traffic"},
                                      {"generate"},
                                      {"flows-out"},
                                      defaulted("queueing", "true"),
                                      {"standing-queue"},
                                      {"count-ack"},
                                      {"mtu"},
                                      {"cluster"},
                                      {"cables"},
                                      {"ibnetdiscover"},
                                      {"hosts"},
                                      {"node-pattern"},
                                      {"order"},
                                      {"group"},
                                      {"algorithm"},
                                      {"routing"},
                                      {"hash"},
                                      defaulted("qps", "1"),
                                      {"channels"},
                                      defaulted("chunk", "2MiB"),
                                      {"seed"},
                                      {"down"},
                                      {"json"},
                                      {"svg"},
                                      defaulted("svg-metric", "average"),
                                      {"switch-ns"},
                                      {"nic-ns"},
                                      {"nvswitch-ns"},
                                      {"progress"},
                                      {"max-memory"},
                                      refused("topology-conf", kSimulateNeedsSpec),
                                      refused("topology-csv", kSimulateNeedsSpec)};

// What the simulator's errors are about. A grouping the algorithm cannot use
// (hosts holding different rank counts) is --algorithm's.
constexpr FieldRoute kSimulateRoutes[] = {
    {"algorithm", {"algorithm"}}, {"channels", {"channels"}}, {"qps", {"qps"}},
    {"bytes", {"bytes"}},         {"host *", {"algorithm"}},  {"host_of_rank*", {"algorithm"}},
    {"buffer_bytes", {"chunk"}}};

Outcome run_simulate(const Invocation& inv) {
  const Flags& flags = inv.flags;
  if (flags.given("traffic") || flags.given("generate")) return run_simulate_traffic(inv);
  for (std::string_view flag : {"collective", "bytes", "job"})
    if (!flags.given(flag))
      return usage_error(str_cat("simulate: --", flag, " is required (e.g. ",
                                 find_flag(flag)->example, "), or give --traffic FILE or --generate KIND"));
  for (std::string_view flag : {"flows-out", "standing-queue", "count-ack", "mtu"})
    RAILYARD_RETURN_IF_ERROR(only_with(inv, flag, false, "applies only with --traffic or --generate"));
  if (flags.given("queueing"))
    RAILYARD_RETURN_IF_ERROR(only_with(inv, "queueing", false, "applies only with --traffic or --generate"));
  RAILYARD_ASSIGN_OR_RETURN(const CollectiveInput in, parse_collective_input(flags));
  auto bytes = parse_size_in("bytes", flags.text("bytes"), 1, collective::kMaxBytes);
  if (!bytes.ok()) return flag_error(flags, "bytes", bytes.status());
  auto routing = sim::parse_routing(flags.text("routing"));
  if (!routing.ok()) return flag_error(flags, "routing", routing.status());
  for (std::string_view flag : {"seed", "hash"})
    RAILYARD_RETURN_IF_ERROR(
        only_with(inv, flag,
                  *routing == sim::Routing::kEcmp || *routing == sim::Routing::kSteered,
                  "applies only with --routing ecmp or steered (adaptive and planned paths use "
                  "no hash)"));
  std::unique_ptr<routing::HashModel> hash;
  if (flags.given("hash")) {
    auto model = routing::parse_hash_model("hash", flags.text("hash"), flags.uint64("seed"));
    if (!model.ok()) return flag_error(flags, "hash", model.status());
    hash = *std::move(model);
  }

  RAILYARD_ASSIGN_OR_RETURN(const collective::LatencyModel latency, load_latency(flags));
  RAILYARD_ASSIGN_OR_RETURN(const ClusterInput cluster_in, load_cluster_input(inv));
  const topology::ClusterDescriptor<>& d = cluster_in.descriptor;
  RAILYARD_RETURN_IF_ERROR(check_node_pattern(inv, cluster_in));
  RAILYARD_ASSIGN_OR_RETURN(const JobInput job, load_job(flags, d, file_host_names(cluster_in)));
  RAILYARD_ASSIGN_OR_RETURN(const placement::JobPlacement* chosen, chosen_order(flags, job));
  RAILYARD_ASSIGN_OR_RETURN(const auto groups, collective_groups(flags, in, *chosen));
  const topology::Cluster cluster{d, materialize(cluster_in)};
  topology::FailureOverlay overlay(cluster.fabric);
  RAILYARD_RETURN_IF_ERROR(apply_failures(inv, cluster_in, cluster.fabric, overlay));

  RAILYARD_RETURN_IF_ERROR(check_output_flag(flags, "svg"));
  RAILYARD_RETURN_IF_ERROR(only_with(inv, "svg-metric", flags.given("svg"), "applies only with --svg"));
  auto svg_metric = report::parse_heatmap_metric("svg-metric", flags.text("svg-metric"));
  if (!svg_metric.ok()) return flag_error(flags, "svg-metric", svg_metric.status());
  sim::CollectiveSimOptions options;
  options.algorithm = in.algorithm;
  options.routing = *routing;
  options.qps = flags.int32("qps");
  options.seed = flags.uint64("seed");
  options.switch_hash = hash.get();
  options.channels = flags.int32("channels");
  if (flags.text("chunk") == "off") {
    options.pipeline.enabled = false;
  } else {
    // The chunk is chunk_steps of the buffer's nccl_steps slots: scale the buffer.
    auto chunk = parse_size_in("chunk", flags.text("chunk"), 4096, int64_t{512} << 20);
    if (!chunk.ok()) return flag_error(flags, "chunk", chunk.status());
    const collective::PipelineModel nccl;
    options.pipeline.buffer_bytes =
        static_cast<int64_t>(*chunk) * nccl.nccl_steps / nccl.chunk_steps;
  }
  options.failures = has_failures(inv, cluster_in) ? &overlay : nullptr;
  options.keep_links = flags.given("svg");
  options.latency = latency;
  // Too big for the machine? Said before the run, not an hour into it.
  auto estimate = sim::estimate_collective_memory(d, groups, in.kind,
                                                  static_cast<int64_t>(*bytes), options);
  if (!estimate.ok()) return routed_error(flags, kSimulateRoutes, estimate.status(), "simulate");
  RAILYARD_ASSIGN_OR_RETURN(const MemoryLimit limit, memory_limit(flags));
  const std::string terms =
      str_cat(grouped_number(estimate->stored_transfers), " stored transfers, ",
              grouped_number(estimate->step_flows), " flows in the largest step");
  RAILYARD_RETURN_IF_ERROR(check_memory(
      flags, "simulate", estimate->bytes, terms,
      "simulate fewer ranks (a smaller --job or --hosts), one dimension's groups (--group), "
      "or fewer QPs (--qps)",
      limit));
  ProgressLine progress(flags, "simulate", "steps");
  progress.set_header(str_cat("memory ~", memory_text(estimate->bytes), " estimated (", terms,
                              "), ", memory_text(limit.bytes), " available (", limit.source,
                              ")"));
  options.progress = progress.hook();
  auto report =
      sim::simulate_collective(cluster, groups, in.kind, static_cast<int64_t>(*bytes), options);
  if (!report.ok()) {
    if (std::optional<Status> s = no_path_error(inv, report.status())) return *s;
    return routed_error(flags, kSimulateRoutes, report.status(), "simulate");
  }
  if (flags.given("svg")) {
    auto svg = report::simulate_heatmap_svg(cluster.fabric, *report, *svg_metric);
    if (!svg.ok())
      return internal_error(str_cat(shown(flags, "svg"), ": ", message_of(svg.status())));
    RAILYARD_RETURN_IF_ERROR(write_flag_file(flags, "svg", *svg));
  }
  if (flags.boolean("json")) return Output(report::simulate_json(cluster.fabric, *report));
  return Output(str_cat(report::simulate_text(cluster.fabric, *report),
                        import_note(cluster_in, "missing and miswired cables are down, slow ones "
                                        "degraded, in this simulation")));
}

}  // namespace

const Subcommand kSimulate{
    "simulate",
    "--collective allreduce|allgather|reducescatter|alltoall --bytes SIZE --job PLAN "
    "[--cluster SPEC | --cables FILE | --ibnetdiscover FILE] [--hosts LIST] [--node-pattern P] "
    "[--order railyard|naive] [--group tp|cp|ep|dp|pp] "
    "[--algorithm ring|tree|hierarchical|pairwise|rail_aligned] "
    "[--routing ecmp|steered|adaptive|planned] [--hash MODEL] [--qps K] [--channels C] [--chunk SIZE|off] [--seed S] [--down LINKS] [--json] [--svg FILE [--svg-metric average|peak]] "
    "[--switch-ns NS] [--nic-ns NS] [--nvswitch-ns NS] [--progress] [--max-memory SIZE] | "
    "(--traffic FILE | --generate KIND [--bytes SIZE] [--qps K]) [--cluster SPEC] "
    "[--routing ecmp|steered|adaptive] [--hash MODEL] [--seed S] [--noqueueing] [--mtu BYTES] [--standing-queue SIZE] "
    "[--count-ack] [--flows-out FILE] [--progress] [--max-memory SIZE] [--json]",
    "time a collective on the job's GPUs (simulated vs bound, busbw, link utilization), or a "
    "traffic matrix (per-flow completion times)",
    "With --traffic FILE (rows src,dst,bytes[,start_us][,qps]) or --generate "
    "permutation[:SEED]|incast:N|uniform:N[:SEED]|alltoall, simulate times a traffic matrix "
    "instead of a collective: ECMP per QP, the path advisor's steered QPs per flow (--routing "
    "steered) or per-packet spraying (--routing adaptive), start times, the queueing "
    "correction, and FCT mean/p50/p99/max (docs/cli.md#simulate-traffic). "
    "A run whose estimated memory exceeds what is available (or --max-memory) is refused "
    "up front (exit 2); a run longer than 2 s shows progress on stderr when it is a terminal "
    "or with --progress (docs/cli.md#progress).",
    kSimulateFlags,
    &run_simulate};

}  // namespace railyard::cli
