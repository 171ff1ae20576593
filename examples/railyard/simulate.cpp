// railyard simulate — a collective on a job's GPUs, timed by the flow simulator.
#include "cli.hpp"
#include "collective_input.hpp"
#include "inputs.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/report/simulate_report.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/topology/failure_spec.hpp"

namespace railyard::cli {
namespace {

constexpr std::string_view kSimulateNeedsSpec =
    "simulate needs a cluster spec (--cluster): an imported topology has no GPUs, NVLink or "
    "rails to place the job's ranks on";

constexpr FlagUse kSimulateFlags[] = {required("collective"),
                                      required("bytes"),
                                      required("job"),
                                      {"cluster"},
                                      {"hosts"},
                                      {"order"},
                                      {"group"},
                                      {"algorithm"},
                                      {"routing"},
                                      defaulted("qps", "1"),
                                      {"channels"},
                                      defaulted("chunk", "2MiB"),
                                      {"seed"},
                                      {"down"},
                                      {"json"},
                                      {"svg"},
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
  RAILYARD_ASSIGN_OR_RETURN(const CollectiveInput in, parse_collective_input(flags));
  auto bytes = parse_size_in("bytes", flags.text("bytes"), 1, collective::kMaxBytes);
  if (!bytes.ok()) return flag_error(flags, "bytes", bytes.status());
  auto routing = sim::parse_routing(flags.text("routing"));
  if (!routing.ok()) return flag_error(flags, "routing", routing.status());
  RAILYARD_RETURN_IF_ERROR(
      only_with(inv, "seed", *routing != sim::Routing::kPlanned,
                "applies only with --routing ecmp or spray (planned paths use no hash)"));

  RAILYARD_ASSIGN_OR_RETURN(const topology::ClusterDescriptor<> d, load_cluster(inv));
  RAILYARD_ASSIGN_OR_RETURN(const JobInput job, load_job(flags, d));
  RAILYARD_ASSIGN_OR_RETURN(const placement::JobPlacement* chosen, chosen_order(flags, job));
  RAILYARD_ASSIGN_OR_RETURN(const auto groups, collective_groups(flags, in, *chosen));
  const topology::Cluster cluster{d, topology::materialize(d)};
  topology::FailureOverlay overlay(cluster.fabric);
  if (flags.given("down"))
    if (Status s = topology::apply_failures(cluster.fabric, flags.text("down"), overlay); !s.ok())
      return flag_error(flags, "down", s);

  sim::CollectiveSimOptions options;
  options.algorithm = in.algorithm;
  options.routing = *routing;
  options.qps = flags.int32("qps");
  options.seed = flags.uint64("seed");
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
  options.failures = flags.given("down") ? &overlay : nullptr;
  options.keep_links = flags.given("svg");
  auto report =
      sim::simulate_collective(cluster, groups, in.kind, static_cast<int64_t>(*bytes), options);
  if (!report.ok()) {
    if (std::optional<Status> s = no_path_error(inv, report.status())) return *s;
    return routed_error(flags, kSimulateRoutes, report.status(), "simulate");
  }
  if (flags.given("svg")) {
    auto svg = report::simulate_heatmap_svg(cluster.fabric, *report);
    if (!svg.ok())
      return internal_error(str_cat(shown(flags, "svg"), ": ", message_of(svg.status())));
    RAILYARD_RETURN_IF_ERROR(write_flag_file(flags, "svg", *svg));
  }
  return Output(flags.boolean("json") ? report::simulate_json(cluster.fabric, *report)
                                      : report::simulate_text(cluster.fabric, *report));
}

}  // namespace

const Subcommand kSimulate{
    "simulate",
    "--collective allreduce|allgather|reducescatter|alltoall --bytes SIZE --job PLAN "
    "[--cluster SPEC] [--hosts LIST] [--order railyard|naive] [--group tp|cp|ep|dp|pp] "
    "[--algorithm ring|tree|hierarchical|pairwise|rail_aligned] [--routing ecmp|planned|spray] "
    "[--qps K] [--channels C] [--chunk SIZE|off] [--seed S] [--down LINKS] [--json] [--svg FILE]",
    "time a collective on the job's GPUs: simulated vs bound, busbw, link utilization",
    "",
    kSimulateFlags,
    &run_simulate};

}  // namespace railyard::cli
