// railyard plan — the whole pipeline on a tenant mix (pipeline/plan.hpp), and
// with --out every file it recommends.
#include "railyard/pipeline/plan.hpp"

#include <string>
#include <utility>

#include "cli.hpp"
#include "inputs.hpp"
#include "progress.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/export/launchers.hpp"
#include "railyard/export/plan_files.hpp"
#include "railyard/placement/replay.hpp"
#include "railyard/report/plan_report.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/topology/node_names.hpp"

namespace railyard::cli {
namespace {

constexpr FlagUse kPlanFlags[] = {{"cluster"},      {"cables"},         {"ibnetdiscover"},
                                  {"jobs"},           {"trace"},
                                  {"seed"},         {"json"},           {"out"},
                                  {"node-pattern"}, {"cores-per-rank"}, {"master-port"},
                                  {"switch-ns"},    {"nic-ns"},         {"nvswitch-ns"},
                                  {"empty"},        {"progress"}};

constexpr FieldRoute kPlanLaunchRoutes[] = {{"master_port", {"master-port"}},
                                            {"cores_per_rank", {"cores-per-rank"}}};

StatusOr<pipeline::PlanScenario> plan_scenario(const Flags& flags,
                                               const topology::ClusterDescriptor<>& d) {
  pipeline::PlanScenario s;
  s.cluster = std::string(flags.text("cluster"));
  const bool own_jobs = flags.given("jobs");
  auto jobs =
      pipeline::parse_plan_jobs(own_jobs ? flags.text("jobs") : pipeline::kDefaultPlanJobs, d);
  if (!jobs.ok())
    return own_jobs ? flag_error(flags, "jobs", jobs.status())
                    : usage_error(str_cat(shown(flags, "cluster"),
                                          ": the default mix does not suit this cluster (",
                                          message_of(jobs.status()), "); give --jobs"));
  s.jobs = *std::move(jobs);
  if (flags.boolean("empty")) {
    if (flags.given("trace"))
      return usage_error("plan: give --empty (no background jobs) or --trace FILE, not both");
    s.background_source = "--empty: no background jobs";
  } else if (flags.given("trace")) {
    RAILYARD_ASSIGN_OR_RETURN(const std::string text, read_flag_file(flags, "trace"));
    auto trace = placement::parse_job_trace(text);
    if (!trace.ok()) return flag_error(flags, "trace", trace.status());
    s.background = *std::move(trace);
    s.background_source = str_cat("--trace ", flags.text("trace"));
  } else {
    RAILYARD_ASSIGN_OR_RETURN(s.background,
                              placement::parse_job_trace(pipeline::kDefaultPlanTrace));
    s.background_source = std::string(pipeline::kDefaultPlanTraceSource);
  }
  return s;
}

Outcome run_plan(const Invocation& inv) {
  const Flags& flags = inv.flags;
  RAILYARD_ASSIGN_OR_RETURN(const collective::LatencyModel latency, load_latency(flags));
  RAILYARD_ASSIGN_OR_RETURN(const ClusterInput in, load_cluster_input(inv));
  const topology::ClusterDescriptor<>& d = in.descriptor;
  RAILYARD_ASSIGN_OR_RETURN(pipeline::PlanScenario s, plan_scenario(flags, d));
  if (in.fit) s.cluster = in.origin;

  // What --out needs, checked before the long part: values first, then that the
  // file flags come with --out, then a directory that can be made.
  exports::PlanFilesOptions files_options;
  files_options.node_pattern = std::string(flags.text("node-pattern"));
  files_options.launch = {flags.int32("master-port"), flags.int32("cores-per-rank")};
  files_options.seed = flags.uint64("seed");
  {
    auto namer = topology::NodeNamer::parse(files_options.node_pattern);
    if (!namer.ok()) return flag_error(flags, "node-pattern", namer.status());
    if (Status st = namer->check(d); !st.ok()) return flag_error(flags, "node-pattern", st);
  }
  if (Status st = exports::check_launch_options(files_options.launch); !st.ok())
    return routed_error(flags, kPlanLaunchRoutes, st, "plan");
  const bool out = flags.given("out");
  for (std::string_view flag : {"node-pattern", "master-port", "cores-per-rank"})
    RAILYARD_RETURN_IF_ERROR(
        only_with(inv, flag, out, "needs --out (it shapes the files --out writes)"));
  if (out)
    if (Status st = exports::write_plan_files(flags.text("out"), {}); !st.ok())
      return flag_error(flags, "out", st);

  ProgressLine progress(flags, "plan", "stages");
  pipeline::PlanOptions options;
  options.seed = files_options.seed;
  options.latency = latency;
  if (progress.on()) {
    options.progress = [&progress](std::string_view note) { progress.set_note(note); };
    options.stages = progress.hook();
  }
  const topology::Cluster cluster{d, materialize(in)};
  // An imported cluster's failures: down (or degraded) in every simulation,
  // its drained hosts given no job.
  topology::FailureOverlay overlay(cluster.fabric);
  RAILYARD_RETURN_IF_ERROR(apply_failures(inv, in, cluster.fabric, overlay));
  if (has_failures(inv, in)) options.failures = &overlay;
  if (in.fit) options.drained = in.fit->drained;
  auto result = pipeline::run_plan(cluster, s, options);
  if (!result.ok()) {
    if (result.status().code() == StatusCode::kResourceExhausted)
      return usage_error(str_cat("plan: ", message_of(result.status())));
    return routed_error(flags, {}, result.status(), "plan");
  }

  std::string files_line;
  if (out) {
    auto files = exports::plan_files(cluster, *result, files_options);
    if (!files.ok()) return flag_error(flags, "out", files.status());
    if (Status st = exports::write_plan_files(flags.text("out"), *files); !st.ok())
      return flag_error(flags, "out", st);
    files_line = exports::plan_files_summary(flags.text("out"), *files);
  }
  const Exit exit = result->placed_jobs() == static_cast<int32_t>(result->jobs.size())
                        ? Exit::kOk
                        : Exit::kNotPlaced;
  if (flags.boolean("json")) return Output(report::plan_json(d, *result, files_options.seed), exit);
  return Output(str_cat(report::plan_text(d, *result), files_line,
                        import_note(in, "missing and miswired cables are down, slow ones "
                                        "degraded, in every simulation; drained hosts get no "
                                        "job (# in the SU maps); the --out files name hosts by "
                                        "--node-pattern, not the file's names")),
                exit);
}

}  // namespace

const Subcommand kPlan{
    "plan",
    "[--cluster SPEC | --cables FILE | --ibnetdiscover FILE] [--jobs LIST] [--trace FILE | --empty] [--seed S] [--out DIR [--node-pattern P] "
    "[--master-port PORT] [--cores-per-rank N]] [--switch-ns NS] [--nic-ns NS] "
    "[--nvswitch-ns NS] [--progress] [--json]",
    "the whole pipeline on a tenant mix: placement, rank order, paths, congestion control and "
    "simulated speed-up against a naive setup; --out writes every file",
    "Default scenario: the cluster h100-1024-2to1, busy with the jobs still running after jobs "
    "job0029-job0068 of tests/data/job_trace.csv (embedded) are replayed under first_fit up to "
    "the last arrival (16 hosts held by 10 jobs, over three SUs); then the mix, placed in this "
    "order: ft-a (64 GPUs, tp=8,dp=8), ft-b (32, tp=4,dp=8), ft-c (16, tp=8,dp=2), moe (256, "
    "tp=4,ep=8,dp=8), pretrain (512, tp=8,pp=4,dp=16). Every job is placed twice on the same "
    "busy hosts: naive = first_fit hosts, ranks in allocation order with the plan's order "
    "string, ECMP with 1 QP per connection; railyard = best_fit hosts, railyard's rank order, "
    "steered QPs (the path advisor's source ports under a CRC-32 hash, as many QPs as the job's "
    "NCCL_IB_QPS_PER_CONNECTION); beside them the bound: railyard's placement with planned "
    "paths, an upper bound nothing deploys. Simulated per job, both ways, every group at once: "
    "the dp all-reduce "
    "(ring), ep all-to-all (pairwise), cp all-gather and tp all-reduce, with the plan's bytes "
    "per step; pp is point to point and appears only in the traffic model (GiB/step above the "
    "leaf). Congestion control is derived per job for railyard's deployment (incast from its "
    "collectives, per-QP rate limits from a spine partition among all tenants); tuner rules "
    "come from ring vs tree simulations at 4 MiB to 2 GiB. --empty starts the mix on an "
    "empty cluster instead (no background jobs; e.g. a whole new cluster, or to see the mix "
    "alone). A run longer than 2 s shows progress on stderr (stages done of all, time left, "
    "the current stage) when stderr is a terminal or with --progress. A job that does not fit is reported NOT PLACED and the exit "
    "status is 3 (the report and any --out files are complete).",
    kPlanFlags,
    &run_plan};

}  // namespace railyard::cli
