// railyard/pipeline/plan.hpp — the whole pipeline on a tenant mix (what
// `railyard plan` runs): start from a busy, fragmented cluster, place a mix of
// jobs twice — the way a plain scheduler and launcher would (naive) and the way
// railyard would — number their ranks, route and simulate each job's main
// collectives both ways, and derive congestion-control settings and NCCL tuner
// rules for railyard's deployment.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   auto scenario = railyard::pipeline::default_plan_scenario(cluster->descriptor);
//   railyard::StatusOr<railyard::pipeline::PlanResult> r =
//       railyard::pipeline::run_plan(*cluster, *scenario);
//   for (const railyard::pipeline::PlanJobResult& j : r->jobs)
//     for (const railyard::pipeline::PlanCollective& c : j.collectives)
//       std::cout << j.job.name << " " << c.label() << ": " << c.speedup() << "x\n";
//   // An empty cluster instead of the busy default: scenario->background = {}.
//   // PlanOptions::stages (core/progress.hpp) reports stages done / stages.
//   // plan_report.hpp prints it (plan_text, plan_json); plan_files.hpp writes the
//   // artifacts (NCCL XML, Slurm, Kubernetes, launcher files, env, tuner, SVG).
//
// The two configurations compared (the same busy hosts, the same jobs in the same
// order, the same simulator):
//   naive    — placement::Policy::kFirstFit (lowest free host ids), ranks in the
//              order the hosts were allocated with the plan's own order string
//              (placement::naive_order), ECMP routing with 1 QP per connection
//              (an unknown switch hash, seeded by PlanOptions::seed);
//   railyard — placement::Policy::kBestFit (the smallest level that holds the
//              job), railyard's rank order (placement::order_ranks), steered QPs
//              (sim::Routing::kSteered: what railyard's path advisor hands the net
//              plugin, each QP's source port pushed through the switches' CRC-32
//              hash seeded by PlanOptions::seed) with the QP budget the job's
//              NCCL environment sets (NCCL_IB_QPS_PER_CONNECTION, cc/derive.hpp).
// Beside railyard, the bound: railyard's placement and QPs with planned paths
// (sim::Routing::kPlanned, a centralized least-loaded assignment per step that
// nothing deploys) — an upper bound on what routing can add, never a speed-up.
//
// The starting state. A cluster is rarely empty and tidy: the mix lands on what
// a scheduler has left. The background is a job trace (placement/replay.hpp
// format) replayed exactly as `railyard replay` does — strict FIFO, each job its
// own tenant — under first_fit (what a plain scheduler does) up to the instant of
// its last arrival; the jobs running at that instant are the busy hosts both
// configurations start from. Jobs still queued then, or that never fit the
// cluster, are counted and left out. By default (default_plan_scenario) the trace
// is kDefaultPlanTrace: 40 consecutive jobs (job0029 .. job0068) of the synthetic
// tests/data/job_trace.csv, which on h100-1024-2to1 leaves 10 jobs on 16 hosts
// spread over three SUs (SU0 hosts 0-8, six hosts scattered through SU1, one in
// SU2): 112 hosts free, no SU but SU3 entirely free.
//
// The mix (kDefaultPlanJobs), placed in this order — the fine-tunes arrive first,
// as small jobs do, and the big jobs then face what they left — each job its own
// tenant:
//   ft-a       64 GPUs  tp=8,dp=8        fine-tune
//   ft-b       32 GPUs  tp=4,dp=8        fine-tune
//   ft-c       16 GPUs  tp=8,dp=2        fine-tune
//   moe       256 GPUs  tp=4,ep=8,dp=8   mixture of experts, 8-way expert parallel
//                                        (32 hosts: one whole SU, if one is free)
//   pretrain  512 GPUs  tp=8,pp=4,dp=16  dense pretraining (64 hosts: two SUs at least)
// 110 of the 112 free hosts: the cluster ends full, as a busy one is. Bytes per
// step are the plans' defaults (placement/plan.hpp: tp 8 GiB, cp and ep 2 GiB,
// dp 1 GiB, pp 256 MiB per rank), so the simulated sizes stay near 1 GiB.
//
// Job lists (parse_plan_jobs; `railyard plan --jobs`) use the one grammar of
// placement/jobs.hpp, the one of `railyard place --jobs`: gpus, tenant and a
// parallelism plan's keys; a job given as gpus only runs tp = GPUs per host and
// dp = gpus / tp. Example: "llm:tp=8,pp=2,dp=8,tenant=lab1;ft:gpus=64".
//
// What is simulated, per placed job and configuration: the training step's
// collectives (sim::step_collectives), every group of the dimension at once, as
// a training step runs them:
//   dp  all-reduce, ring, S = the plan's dp bytes, over the data-parallel groups;
//   ep  all-to-all, pairwise, S = ep bytes, over the expert-parallel groups;
//   cp  all-gather, ring, S = cp bytes (ring attention's exchange, as one ring);
//   tp  all-reduce, ring, S = tp bytes (NVLink when TP stays inside a host);
// for every dimension of size > 1. PP is point to point between neighbouring
// stages and is not simulated; its bytes are in the traffic model
// (placement::traffic: bytes per step at each tier, every dimension, PP too).
//
// Congestion control (cc/derive.hpp), per job, for railyard's deployment: the
// incast of the job's training step (cc::job_incast, the rule `railyard cc`
// uses too: 1 for a ring that leaves the host, hosts-per-group - 1 for an
// all-to-all, 1 when nothing leaves a host) — and the tenants for per-QP rate
// limits are every job running (background and mix, as railyard placed them).
//
// Tuner rules (tune/simulated_rules.hpp), per job: for every all-reduce
// communicator of the job that crosses the network (nNodes = hosts of a group > 1,
// nRanks = ranks of a group), ring against double binary tree on railyard's
// placement and routing (steered, the job's QPs), as NCCL example-tuner rules
// (tune/rules.hpp).
//
// Heat maps: per configuration, each link's peak utilization over all the
// simulated collectives of all jobs (the hottest any one of them drove it).
//
// Tenant isolation (routing/isolation.hpp): one ring step of every multi-host
// job on every rail (routing::ring_flows), routed with ECMP (naive) and inside a
// spine partition (railyard: routing::partition_spines, the lanes derive_cc's
// rate limits hold tenants to); the report counts links two tenants share.
//
// Everything is deterministic: the same scenario and seed give the same result.
// Cost: a few dozen collective simulations (each O(flows x path length) per
// distinct step); about 0.2 s for the default scenario in a release build.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "railyard/cc/derive.hpp"
#include "railyard/cc/incast.hpp"
#include "railyard/collective/cost.hpp"
#include "railyard/collective/schedule.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/progress.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/placement/replay.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/isolation.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/tune/rules.hpp"
#include "railyard/tune/simulated_rules.hpp"

namespace railyard::pipeline {

// The default tenant mix (see the overview).
inline constexpr std::string_view kDefaultPlanJobs =
    "ft-a:tp=8,dp=8;ft-b:tp=4,dp=8;ft-c:tp=8,dp=2;moe:tp=4,ep=8,dp=8;pretrain:tp=8,pp=4,dp=16";

// Where the default background comes from, for reports.
inline constexpr std::string_view kDefaultPlanTraceSource =
    "job0029-job0068 of tests/data/job_trace.csv, embedded";

// The default background: lines 30-69 of tests/data/job_trace.csv (jobs
// job0029 .. job0068), unchanged.
inline constexpr std::string_view kDefaultPlanTrace =
    "time,name,gpus,duration\n"
    "5618,job0029,8,60\n5778,job0030,8,595\n5818,job0031,8,33242\n5994,job0032,8,299\n"
    "6154,job0033,8,60\n6156,job0034,32,49335\n6417,job0035,8,428\n6909,job0036,8,9946\n"
    "7154,job0037,16,60\n7621,job0038,8,2396\n7666,job0039,8,155\n7724,job0040,256,4338\n"
    "7770,job0041,32,6992\n7779,job0042,8,2276\n7876,job0043,16,690\n7878,job0044,64,1581\n"
    "8098,job0045,8,254\n8123,job0046,8,711\n8165,job0047,32,1419\n8221,job0048,32,63\n"
    "8243,job0049,8,12602\n8371,job0050,8,60\n8505,job0051,8,5064\n8715,job0052,8,141\n"
    "9214,job0053,8,86400\n9360,job0054,8,662\n9398,job0055,64,1120\n9419,job0056,8,160\n"
    "9835,job0057,32,144\n9863,job0058,8,673\n9880,job0059,8,60\n10015,job0060,256,293\n"
    "10762,job0061,8,271\n10838,job0062,8,60\n11019,job0063,8,79\n11502,job0064,8,9106\n"
    "11952,job0065,8,287\n11974,job0066,8,7903\n12170,job0067,32,60\n12501,job0068,8,2081\n";

// One job of the mix.
struct PlanJob {
  std::string name;
  std::string tenant;  // never empty (the name by default)
  placement::ParallelPlan plan;
  [[nodiscard]] int64_t gpus() const { return plan.world(); }
};

// What run_plan() works on.
struct PlanScenario {
  std::string cluster;                          // the spec text, for reports
  std::vector<placement::TraceJob> background;  // replayed first (see the overview)
  std::string background_source;                // where it came from, for reports
  std::vector<PlanJob> jobs;                    // the mix, placed in this order
};

struct PlanOptions {
  uint64_t seed = 1;  // the ECMP hash of the naive configuration
  // Switch, NVSwitch and NIC latencies of every simulation, congestion-control
  // RTT and tuner rule (railyard plan --switch-ns/--nic-ns/--nvswitch-ns).
  collective::LatencyModel latency;
  // Called with a short note before each long step, and with "" when done (the
  // CLI shows the notes on a terminal); may be empty.
  std::function<void(std::string_view)> progress;
  // Progress in stages (core/progress.hpp): (stages done, stages in all), known
  // once the mix is placed. A stage is one congestion-control derivation per
  // placed job, one collective simulation (three per collective: naive,
  // railyard, bound), one tuner-rule derivation per placed job and the tenant
  // isolation check; stages differ in cost (the bound's planned paths are the
  // dearest on big jobs).
  ProgressHook stages;
  // Cables down or degraded in every simulation (an imported fabric's missing,
  // miswired and slow cables, topology/import/cable_fit.hpp); must be an
  // overlay of the cluster's fabric. nullptr: every cable works.
  const topology::FailureOverlay* failures = nullptr;
  // Hosts out of service: neither side places a job there (shown busy in the
  // SU maps).
  std::vector<HostId> drained;
};

// The two configurations; index into the std::arrays below.
enum class PlanSide : uint8_t { kNaive, kRailyard };
inline constexpr std::array<PlanSide, 2> kPlanSides = {PlanSide::kNaive, PlanSide::kRailyard};
inline constexpr std::array<std::string_view, 2> kPlanSideNames = {"naive", "railyard"};
[[nodiscard]] constexpr size_t side_index(PlanSide s) { return static_cast<size_t>(s); }
[[nodiscard]] constexpr std::string_view side_name(PlanSide s) {
  return kPlanSideNames[side_index(s)];
}

// The busy cluster the mix starts from.
struct PlanBackground {
  std::vector<placement::Allocation> jobs;  // running at the end of the replay, by start
  std::vector<char> busy;                   // per host: 1 when a background job holds it
  int32_t busy_hosts = 0;
  int32_t trace_jobs = 0;  // lines of the trace
  int32_t finished = 0;    // ran and left before the end
  int32_t queued = 0;      // arrived but not started by the end (left out)
  int32_t rejected = 0;    // can never run on this cluster (left out)
  double end_s = 0;        // the instant of the last arrival
};

// One collective of one job, simulated both ways. The reports keep no per-link
// vectors (they are folded into PlanResult::peak_utilization).
struct PlanCollective {
  placement::Dim dim = placement::Dim::kDp;
  collective::Collective kind = collective::Collective::kAllReduce;
  collective::Algorithm algorithm = collective::Algorithm::kRing;
  int64_t bytes = 0;                            // S per group
  int32_t hosts_per_group = 0;                  // most distinct hosts in one group (railyard side)
  std::array<sim::CollectiveReport, 2> report;  // by PlanSide
  // Railyard's placement and QPs with planned paths: the upper bound (an oracle).
  sim::CollectiveReport bound;

  [[nodiscard]] const sim::CollectiveReport& at(PlanSide s) const { return report[side_index(s)]; }
  // naive time / railyard (steered) time (NaN when the railyard time is 0).
  [[nodiscard]] double speedup() const {
    const double r = at(PlanSide::kRailyard).time_us;
    return r > 0 ? at(PlanSide::kNaive).time_us / r : std::nan("");
  }
  // naive time / bound time: what a perfect routing would add (NaN when 0).
  [[nodiscard]] double bound_speedup() const {
    return bound.time_us > 0 ? at(PlanSide::kNaive).time_us / bound.time_us : std::nan("");
  }
  // "dp allreduce", "ep alltoall", ...
  [[nodiscard]] std::string label() const {
    return str_cat(placement::to_string(dim), " ", collective::collective_name(kind));
  }
};

// A job under one configuration.
struct PlanJobSide {
  placement::Allocation allocation;
  placement::JobPlacement placement;  // hosts in launch order + the order string
  placement::TrafficReport traffic;   // the traffic model of that numbering
};

struct PlanJobResult {
  PlanJob job;
  bool placed = false;
  std::string unplaced_reason;      // the allocator's message when !placed
  std::array<PlanJobSide, 2> side;  // by PlanSide (empty when !placed)
  std::vector<PlanCollective> collectives;
  int32_t incast = 1;
  std::string incast_source;
  std::optional<cc::CcPlan> cc;  // derived when placed
  int32_t qps = 1;  // railyard's QPs per connection: cc's NCCL_IB_QPS_PER_CONNECTION
  std::vector<tune::NotedRule> tuner;  // tune/simulated_rules.hpp, notes name the collective

  [[nodiscard]] const PlanJobSide& at(PlanSide s) const { return side[side_index(s)]; }
  // The rate limit derive_cc set for the job's tenant, if any.
  [[nodiscard]] const cc::Value* rate_limit() const {
    if (!cc) return nullptr;
    for (const cc::Value& v : cc->rate_limits)
      if (v.name == job.tenant) return &v;
    return nullptr;
  }
};

// Links two tenants share under one configuration's routing of ring flows.
struct PlanIsolation {
  int64_t shared_leaf_spine = 0;
  int64_t shared_spine_core = 0;
  int32_t tenants = 0;  // tenants with traffic between leaves
  std::string note;     // e.g. why no partition exists
};

struct PlanResult {
  std::string cluster;
  std::string background_source;
  PlanBackground background;
  std::vector<PlanJobResult> jobs;  // scenario order
  // Per host: -1 free, -2 background, j >= 0 the mix job jobs[j]; by PlanSide.
  std::array<std::vector<int32_t>, 2> owner;
  std::array<placement::Fragmentation, 2> fragmentation;
  // Per directed link: the highest utilization any simulated collective gave it.
  std::array<std::vector<double>, 2> peak_utilization;
  std::array<PlanIsolation, 2> isolation;

  [[nodiscard]] int32_t placed_jobs() const {
    return static_cast<int32_t>(
        std::count_if(jobs.begin(), jobs.end(), [](const PlanJobResult& j) { return j.placed; }));
  }
  // Sum of the simulated collectives' times of every placed job (one step each).
  [[nodiscard]] double total_time_us(PlanSide s) const {
    double t = 0;
    for (const PlanJobResult& j : jobs)
      for (const PlanCollective& c : j.collectives) t += c.at(s).time_us;
    return t;
  }
  // The same sum with the bound's times (railyard's placement, planned paths).
  [[nodiscard]] double total_bound_us() const {
    double t = 0;
    for (const PlanJobResult& j : jobs)
      for (const PlanCollective& c : j.collectives) t += c.bound.time_us;
    return t;
  }
};

// ---------------------------------------------------------------------------
// Job lists.
// ---------------------------------------------------------------------------

// The mix from a job list (placement/jobs.hpp's grammar), each job checked
// against the cluster (placement::check_job_fits) and given its plan
// (placement::plan_or_default). Errors name the job and carry the key.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<PlanJob>> parse_plan_jobs(
    std::string_view text, const topology::ClusterDescriptor<>& d) {
  RAILYARD_ASSIGN_OR_RETURN(std::vector<placement::JobSpec> specs, placement::parse_job_list(text));
  std::vector<PlanJob> out;
  for (const placement::JobSpec& job : specs) {
    RAILYARD_RETURN_IF_ERROR(placement::check_job_fits(job, d));
    out.push_back({job.name, job.tenant, placement::plan_or_default(job, d)});
  }
  return out;
}

// ---------------------------------------------------------------------------
// The background.
// ---------------------------------------------------------------------------

// Replays `trace` under first_fit up to its last arrival (see the overview):
// placement::TraceReplay, the simulation `railyard replay` runs.
// Errors: more jobs running at once than there are partition ids (as replay()).
RAILYARD_LAZY
[[nodiscard]] StatusOr<PlanBackground> replay_background(
    const topology::ClusterDescriptor<>& d, std::span<const placement::TraceJob> trace) {
  PlanBackground bg;
  bg.trace_jobs = static_cast<int32_t>(trace.size());
  bg.busy.assign(static_cast<size_t>(d.hosts()), 0);
  placement::AllocatorOptions options;
  options.policy = placement::Policy::kFirstFit;
  RAILYARD_ASSIGN_OR_RETURN(placement::TraceReplay run,
                            placement::TraceReplay::create(d, trace, options));
  bg.end_s = run.last_arrival_s();
  RAILYARD_RETURN_IF_ERROR(run.run_until(bg.end_s));
  bg.finished = run.finished();
  bg.queued = run.queued();
  bg.rejected = static_cast<int32_t>(run.rejected().size());
  bg.jobs = run.running();
  for (const placement::Allocation& a : bg.jobs) {
    for (HostId h : a.hosts) bg.busy[static_cast<size_t>(h.value())] = 1;
    bg.busy_hosts += static_cast<int32_t>(a.hosts.size());
  }
  return bg;
}

// The default scenario: kDefaultPlanTrace, then kDefaultPlanJobs, on `cluster`
// (the spec text, for reports). Errors only if the mix does not suit the
// cluster (parse_plan_jobs).
RAILYARD_LAZY
[[nodiscard]] StatusOr<PlanScenario> default_plan_scenario(
    const topology::ClusterDescriptor<>& d, std::string cluster = "h100-1024-2to1") {
  PlanScenario s;
  s.cluster = std::move(cluster);
  RAILYARD_ASSIGN_OR_RETURN(s.background, placement::parse_job_trace(kDefaultPlanTrace));
  s.background_source = std::string(kDefaultPlanTraceSource);
  RAILYARD_ASSIGN_OR_RETURN(s.jobs, parse_plan_jobs(kDefaultPlanJobs, d));
  return s;
}

// ---------------------------------------------------------------------------
// The pipeline.
// ---------------------------------------------------------------------------

namespace detail {

// An Allocator with `policy` holding the background's jobs on their hosts.
RAILYARD_LAZY
StatusOr<placement::Allocator> plan_allocator_with_background(
    const topology::ClusterDescriptor<>& d, placement::Policy policy,
    std::span<const placement::Allocation> background) {
  placement::AllocatorOptions options;
  options.policy = policy;
  RAILYARD_ASSIGN_OR_RETURN(placement::Allocator alloc, placement::make_allocator(d, options));
  for (const placement::Allocation& a : background)
    RAILYARD_RETURN_IF_ERROR(alloc.reserve({a.name, a.tenant, a.gpus}, a.hosts).status());
  return alloc;
}

RAILYARD_LAZY
void plan_fold_peak(std::vector<double>& peak, const std::vector<double>& util) {
  if (peak.size() < util.size()) peak.resize(util.size(), 0.0);
  for (size_t l = 0; l < util.size(); ++l) peak[l] = std::max(peak[l], util[l]);
}

}  // namespace detail

// Runs the scenario (see the overview). A job that does not fit what is left
// free is reported unplaced (PlanJobResult::placed false), not an error. Errors:
// the background replay's (replay_background), and any simulation or
// derivation failure (InvalidArgument naming the job and collective).
RAILYARD_LAZY
[[nodiscard]] StatusOr<PlanResult> run_plan(const topology::Cluster& cluster,
                                                         const PlanScenario& scenario,
                                                         const PlanOptions& options = {}) {
  const topology::ClusterDescriptor<>& d = cluster.descriptor;
  // Stages (PlanOptions::stages) are counted once the mix is placed; each
  // report follows the note of the stage about to run.
  std::optional<ProgressMeter> meter;
  int64_t stages_done = 0;
  auto note = [&](std::string_view what) {
    if (options.progress) options.progress(what);
    if (meter) meter->update(stages_done);
  };
  auto stage_done = [&] { ++stages_done; };
  PlanResult result;
  result.cluster = scenario.cluster;
  result.background_source = scenario.background_source;
  note("replaying the background trace");
  RAILYARD_ASSIGN_OR_RETURN(result.background, replay_background(d, scenario.background));

  // Place the mix both ways on the same busy hosts.
  note("placing the mix");
  for (PlanSide s : kPlanSides) {
    std::vector<int32_t>& owner = result.owner[side_index(s)];
    owner.assign(static_cast<size_t>(d.hosts()), -1);
    for (size_t h = 0; h < owner.size(); ++h)
      if (result.background.busy[h]) owner[h] = -2;
  }
  std::vector<placement::Allocator> alloc;  // by PlanSide
  alloc.reserve(kPlanSides.size());
  for (PlanSide s : kPlanSides) {
    RAILYARD_ASSIGN_OR_RETURN(
        placement::Allocator a,
        detail::plan_allocator_with_background(
            d, s == PlanSide::kNaive ? placement::Policy::kFirstFit : placement::Policy::kBestFit,
            result.background.jobs));
    RAILYARD_RETURN_IF_ERROR(a.drain(options.drained));
    alloc.push_back(std::move(a));
  }
  for (PlanSide s : kPlanSides)
    for (HostId h : options.drained)
      result.owner[side_index(s)][static_cast<size_t>(h.value())] = -2;
  for (size_t j = 0; j < scenario.jobs.size(); ++j) {
    const PlanJob& job = scenario.jobs[j];
    PlanJobResult jr;
    jr.job = job;
    std::vector<StatusOr<placement::Allocation>> got;  // by PlanSide
    for (PlanSide s : kPlanSides)
      got.push_back(alloc[side_index(s)].allocate({job.name, job.tenant, job.gpus()}));
    // Placement succeeds exactly when the free hosts suffice, whatever the
    // policy, so both sides agree; were one side to place a job the other cannot,
    // the job is released there and reported unplaced.
    const bool both = got[0].ok() && got[1].ok();
    if (!both) {
      for (PlanSide s : kPlanSides) {
        auto& g = got[side_index(s)];
        if (g.ok()) {
          RAILYARD_RETURN_IF_ERROR(alloc[side_index(s)].release(g->job));
        } else if (g.status().code() != StatusCode::kResourceExhausted) {
          return invalid_argument_error(
              str_cat("job '", job.name, "': ", message_of(g.status())));
        } else if (jr.unplaced_reason.empty()) {
          jr.unplaced_reason = std::string(message_of(g.status()));
        }
      }
      result.jobs.push_back(std::move(jr));
      continue;
    }
    jr.placed = true;
    for (PlanSide s : kPlanSides) {
      PlanJobSide& side = jr.side[side_index(s)];
      side.allocation = *std::move(got[side_index(s)]);
      for (HostId h : side.allocation.hosts)
        result.owner[side_index(s)][static_cast<size_t>(h.value())] = static_cast<int32_t>(j);
      const std::vector<HostId>& hosts = side.allocation.hosts;
      auto numbered = s == PlanSide::kNaive ? placement::naive_order(d, job.plan, hosts)
                                            : placement::order_ranks(d, job.plan, hosts);
      if (!numbered.ok())
        return invalid_argument_error(
            str_cat("job '", job.name, "': ", message_of(numbered.status())));
      side.placement = *std::move(numbered);
      side.traffic = placement::traffic(d, side.placement);
    }
    result.jobs.push_back(std::move(jr));
  }
  for (PlanSide s : kPlanSides)
    result.fragmentation[side_index(s)] = alloc[side_index(s)].fragmentation();

  // The stages left, now that the placed jobs are known (PlanOptions::stages).
  int64_t stages_total = 1;  // the isolation check
  for (const PlanJobResult& jr : result.jobs)
    if (jr.placed)
      stages_total += 2 + 3 * static_cast<int64_t>(sim::step_collectives(jr.job.plan).size());
  meter.emplace(options.stages, stages_total);

  // Congestion control for railyard's deployment, first: its NCCL environment
  // sets the QP budget the path advisor steers.
  std::vector<placement::Allocation> tenants = result.background.jobs;
  for (const PlanJobResult& jr : result.jobs)
    if (jr.placed) tenants.push_back(jr.at(PlanSide::kRailyard).allocation);
  for (PlanJobResult& jr : result.jobs) {
    if (!jr.placed) continue;
    note(str_cat("deriving congestion control for ", jr.job.name));
    const cc::Incast incast = cc::job_incast(jr.at(PlanSide::kRailyard).placement);
    jr.incast = incast.senders;
    jr.incast_source = incast.source;
    cc::CcInputs in;
    in.incast = jr.incast;
    in.tenants = tenants;
    in.latency = options.latency;
    auto plan = cc::derive_cc(cluster, in);
    if (!plan.ok())
      return make_status(plan.status().code(),
                          str_cat("job '", jr.job.name, "': congestion control: ",
                                  message_of(plan.status())));
    jr.cc = *std::move(plan);
    for (const cc::EnvVar& v : jr.cc->nccl_env)
      if (v.name == "NCCL_IB_QPS_PER_CONNECTION") {
        RAILYARD_ASSIGN_OR_RETURN(
            const int64_t q, parse_int_in("NCCL_IB_QPS_PER_CONNECTION", v.value, 1,
                                          routing::kMaxQpsPerConnection));
        jr.qps = static_cast<int32_t>(q);
      }
    stage_done();
  }

  // Simulate every job's collectives both ways, and railyard's side with
  // planned paths (the bound).
  for (PlanSide s : kPlanSides)
    result.peak_utilization[side_index(s)].assign(static_cast<size_t>(cluster.fabric.link_count()),
                                                  0.0);
  for (PlanJobResult& jr : result.jobs) {
    if (!jr.placed) continue;
    const placement::ParallelPlan& plan = jr.job.plan;
    for (const sim::StepCollective& step : sim::step_collectives(plan)) {
      const placement::Dim dim = step.dim;
      PlanCollective pc;
      pc.dim = dim;
      pc.kind = step.kind;
      pc.algorithm = step.algorithm;
      pc.bytes = std::clamp<int64_t>(std::llround(plan.bytes(dim)), 1, collective::kMaxBytes);
      for (int run = 0; run < 3; ++run) {
        // 0 naive, 1 railyard (steered), 2 the bound (railyard planned).
        const PlanSide s = run == 0 ? PlanSide::kNaive : PlanSide::kRailyard;
        const std::string_view name = run == 2 ? std::string_view("bound") : side_name(s);
        note(str_cat("simulating ", jr.job.name, " ", pc.label(), " (", name, ")"));
        const auto groups = sim::job_groups(jr.at(s).placement, dim);
        if (s == PlanSide::kRailyard)
          pc.hosts_per_group = cc::most_hosts_per_group(groups);
        sim::CollectiveSimOptions o;
        o.algorithm = pc.algorithm;
        o.routing = run == 0 ? sim::Routing::kEcmp
                    : run == 1 ? sim::Routing::kSteered
                               : sim::Routing::kPlanned;
        o.qps = run == 0 ? 1 : jr.qps;
        o.seed = options.seed;
        o.keep_links = run < 2;
        o.latency = options.latency;
        o.failures = options.failures;
        auto rep = sim::simulate_collective(cluster, groups, pc.kind, pc.bytes, o);
        if (!rep.ok())
          return make_status(rep.status().code(),
                              str_cat("job '", jr.job.name, "': ", pc.label(), " (", name,
                                      "): ", message_of(rep.status())));
        stage_done();
        if (run == 2) {
          pc.bound = *std::move(rep);
          continue;
        }
        detail::plan_fold_peak(result.peak_utilization[side_index(s)], rep->link_utilization);
        rep->link_utilization = {};
        rep->link_peak_utilization = {};
        rep->link_bytes = {};
        pc.report[side_index(s)] = *std::move(rep);
      }
      jr.collectives.push_back(std::move(pc));
    }
  }

  // Tuner rules for railyard's deployment.
  for (PlanJobResult& jr : result.jobs) {
    if (!jr.placed) continue;
    note(str_cat("deriving tuner rules for ", jr.job.name));
    // Tuner rules: one set per distinct (nodes, ranks) all-reduce communicator.
    std::vector<std::pair<int32_t, int32_t>> done;
    for (const PlanCollective& c : jr.collectives) {
      if (c.kind != collective::Collective::kAllReduce || c.hosts_per_group < 2) continue;
      const std::pair<int32_t, int32_t> shape{c.hosts_per_group, c.at(PlanSide::kRailyard).ranks};
      if (std::find(done.begin(), done.end(), shape) != done.end()) continue;
      done.push_back(shape);
      const auto groups = sim::job_groups(jr.at(PlanSide::kRailyard).placement, c.dim);
      // As railyard deploys the job: steered QPs, its QP count (the bound's
      // planned paths are no rule to hand NCCL).
      sim::CollectiveSimOptions deploy;
      deploy.routing = sim::Routing::kSteered;
      deploy.qps = jr.qps;
      deploy.seed = options.seed;
      deploy.latency = options.latency;
      // The stage can be long on a big job (a 16k-GPU tree, eight times): its
      // simulations show in the note.
      ProgressHook each;
      if (options.progress) {
        each.min_interval_s = 0;
        each.callback = [&](int64_t done, int64_t total) {
          note(str_cat("deriving tuner rules for ", jr.job.name, " (", c.label(), ": ", done,
                       " of ", total, " simulations)"));
        };
      }
      auto rules =
          tune::simulated_allreduce_rules(cluster, groups, c.hosts_per_group, deploy, each);
      if (!rules.ok())
        return with_context(rules.status(),
                            str_cat("job '", jr.job.name, "': tuner rules for ", c.label()));
      for (tune::NotedRule& r : *rules) {
        for (std::string& e : r.notes) e = str_cat(c.label(), " at ", e);
        jr.tuner.push_back(std::move(r));
      }
    }
    stage_done();
  }

  // Tenant isolation: ring flows of every job, ECMP vs a spine partition.
  note("checking tenant isolation");
  for (PlanSide s : kPlanSides) {
    std::vector<placement::Allocation> jobs = result.background.jobs;
    for (const PlanJobResult& jr : result.jobs)
      if (jr.placed) jobs.push_back(jr.at(s).allocation);
    std::vector<std::vector<routing::Flow>> flows;
    for (const placement::Allocation& a : jobs) flows.push_back(routing::ring_flows(a, d, 64e6));
    PlanIsolation& iso = result.isolation[side_index(s)];
    const routing::SpinePartition part = routing::partition_spines(d, jobs, flows);
    for (const routing::TenantLanes& t : part.tenants)
      iso.tenants += t.cross_leaf_bytes > 0 ? 1 : 0;
    StatusOr<std::vector<std::vector<routing::Route>>> routes;
    if (s == PlanSide::kNaive) {
      const routing::UniformRandomHash hash(options.seed);
      routes = routing::route_jobs_ecmp(d, cluster.fabric, flows, hash);
      iso.note = "ECMP";
    } else if (!part.ok) {
      iso.note = str_cat("no spine partition (", part.reason, "): planned paths");
      routes = routing::route_jobs_planned(d, cluster.fabric, flows);
    } else {
      iso.note = iso.tenants == 0
                     ? std::string("no tenant crosses a spine")
                     : str_cat("spine partition of ", part.spine_lanes, " uplinks per leaf");
      routes = routing::route_jobs_partitioned(d, cluster.fabric, jobs, flows, part);
    }
    if (!routes.ok()) return routes.status();
    RAILYARD_ASSIGN_OR_RETURN(routing::IsolationReport rep,
                              routing::isolation_report(cluster.fabric, jobs, flows, *routes));
    iso.shared_leaf_spine = rep.shared_in(topology::LinkTier::kLeafSpine);
    iso.shared_spine_core = rep.shared_in(topology::LinkTier::kSpineCore);
  }
  meter->finish();
  note("");
  return result;
}

}  // namespace railyard::pipeline
