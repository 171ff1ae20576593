// railyard/report/plan_report.hpp — a PlanResult (plan_scenario.hpp) as one screen of
// text and as JSON (what `railyard plan` prints, and the plan.json it writes).
//
//   auto r = railyard::pipeline::run_plan(*cluster, *scenario);
//   std::cout << railyard::report::plan_text(cluster->descriptor, *r);
//   std::string json = railyard::report::plan_json(cluster->descriptor, *r);
//
// Text, top to bottom: the cluster; the busy hosts the mix starts from; the two
// configurations; a map of the SUs side by side (one character per host: the
// mix jobs A, B, ... in scenario order, '#' busy before the mix, '.' free); per
// job a line with its plan, the SUs its hosts span both ways and the traffic
// model's bytes per step above the leaf (placement::traffic: every dimension,
// PP included), one line per simulated collective — bus bandwidth naive,
// railyard (steered QPs: deployable) and the bound (railyard's placement with
// planned paths: an oracle, not deployable) in Gb/s, the speed-up (naive time /
// railyard steered time; the bound never gives a speed-up) and the spine load
// (bytes the collective put on leaf-spine links, and the peak utilization of one
// such link) — and one congestion-control line (incast, ECN thresholds, QPs per
// connection, the tenant's per-QP rate limit); then totals: the sum of the
// simulated collectives' times (naive, railyard, bound), spine bytes and split
// jobs both ways, and the
// links two tenants share. Unplaced jobs get one line with the reason.
//
// JSON keys: cluster, hosts, gpus_per_host, sus, hosts_per_su, background
// {source, trace_jobs, running_jobs, busy_hosts, finished, queued, rejected,
// end_s, jobs[] {name, gpus, hosts[]}}, configurations {naive, railyard: {policy,
// order, routing, qps}, bound: {policy, order, routing, upper_bound}}, seed,
// jobs[] {name, letter, tenant, gpus, plan, placed, qps,
// unplaced_reason, naive/railyard {hosts[] (launch order), sus[], order,
// traffic_bytes_per_step {nvlink, leaf, spine, core}}, collectives[] {dim,
// collective, algorithm, bytes, groups, ranks, hosts_per_group, naive/railyard/
// bound {time_us, algbw_gbps, busbw_gbps, lower_bound_us, max_link_utilization,
// leaf_spine_bytes, leaf_spine_max_utilization, spine_core_bytes}, speedup,
// bound_speedup}, cc
// {incast, incast_source, ecn[] {tier, kmin_bytes, kmax_bytes, pmax},
// pfc_headroom_bytes, dcqcn {name: value}, nccl_env[] {name, value, reason},
// rate_limit {kbps_per_qp, reason} (null: no lane needed), warnings[]}, tuner[]
// {collective, min_bytes, max_bytes, algorithm, protocol, channels, nodes, ranks,
// reason}}, su_map {naive, railyard: [one string per SU, one character per host:
// a partial last SU's is shorter]}, fragmentation {naive,
// railyard: {free_hosts, free_hosts_per_su[], largest_unsplit_hosts,
// jobs_split_across_sus, jobs_split_across_pods}}, isolation {naive, railyard:
// {shared_leaf_spine, shared_spine_core, tenants, note}}, totals {placed_jobs,
// unplaced_jobs, time_us {naive, railyard, bound}, speedup, bound_speedup,
// leaf_spine_bytes {naive,
// railyard}}. Times and bandwidths are rounded to 3 decimals, utilizations to 6,
// bytes to whole bytes; the output depends only on the result.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "railyard/collective/schedule.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"
#include "railyard/report/format.hpp"
#include "railyard/report/json.hpp"
#include "railyard/pipeline/plan.hpp"
#include "railyard/report/simulate_report.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/tune/nccl.hpp"
#include "railyard/tune/rules.hpp"

namespace railyard::report {


namespace detail {

inline constexpr std::string_view kPlanLetters =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
inline constexpr size_t kPlanMapAllSus = 16;  // show every SU up to this many
inline constexpr size_t kPlanMapMaxSus = 24;  // otherwise the SUs the mix uses, at most

RAILYARD_LAZY
char plan_letter(size_t job) { return job < kPlanLetters.size() ? kPlanLetters[job] : '*'; }

// One SU's row of the map: a character per host.
RAILYARD_LAZY
std::string plan_su_row(const std::vector<int32_t>& owner, int32_t su, int32_t per_su) {
  std::string row;
  // A partial last SU (shape.hpp) ends at the last host: its row is shorter.
  const auto end = std::min<int64_t>(int64_t{su + 1} * per_su, static_cast<int64_t>(owner.size()));
  for (int32_t h = su * per_su; h < end; ++h) {
    const int32_t o = owner[static_cast<size_t>(h)];
    row += o == -1 ? '.' : o == -2 ? '#' : plan_letter(static_cast<size_t>(o));
  }
  return row;
}

// The SUs the text map shows: all of them when few, else those any mix job uses.
RAILYARD_LAZY
std::vector<int32_t> plan_map_sus(const topology::ClusterDescriptor<>& d, const pipeline::PlanResult& r) {
  std::vector<int32_t> sus;
  for (int32_t su = 0; su < d.sus(); ++su) {
    bool used = static_cast<size_t>(d.sus()) <= kPlanMapAllSus;
    for (const std::vector<int32_t>& owner : r.owner)
      for (int32_t h = d.first_host_of_su(su);
           !used && h < d.first_host_of_su(su) + d.hosts_in_su(su); ++h)
        used = owner[static_cast<size_t>(h)] >= 0;
    if (used) sus.push_back(su);
  }
  return sus;
}

RAILYARD_LAZY
std::string plan_sus_text(const std::vector<SuId>& sus) {
  return format_id_list(sus);
}

RAILYARD_LAZY
std::string plan_gib(double bytes, int decimals = 1) {
  return fixed(bytes / static_cast<double>(int64_t{1} << 30), decimals);
}

RAILYARD_LAZY
const sim::TierUtilization* plan_tier_of(const sim::CollectiveReport& r,
                                                topology::LinkTier t) {
  for (const sim::TierUtilization& u : r.tiers)
    if (u.tier == t) return &u;
  return nullptr;
}

RAILYARD_LAZY
double plan_tier_bytes(const sim::CollectiveReport& r, topology::LinkTier t) {
  const sim::TierUtilization* u = plan_tier_of(r, t);
  return u ? u->bytes : 0.0;
}
RAILYARD_LAZY
double plan_tier_peak(const sim::CollectiveReport& r, topology::LinkTier t) {
  const sim::TierUtilization* u = plan_tier_of(r, t);
  return u ? u->max_utilization : 0.0;
}

RAILYARD_LAZY
double plan_job_spine_bytes(const pipeline::PlanJobResult& j, pipeline::PlanSide s) {
  double b = 0;
  for (const pipeline::PlanCollective& c : j.collectives)
    b += plan_tier_bytes(c.at(s), topology::LinkTier::kLeafSpine);
  return b;
}

RAILYARD_LAZY
std::string plan_speedup_text(double x) {
  return std::isfinite(x) ? fixed(x, 2) + "x" : std::string("-");
}

// The short congestion-control line of a job.
RAILYARD_LAZY
std::string plan_cc_line(const pipeline::PlanJobResult& j) {
  if (!j.cc) return "";
  const cc::CcPlan& p = *j.cc;
  std::string out = str_cat("incast ", j.incast);
  if (!p.ecn.empty()) {
    const cc::EcnTier* e = &p.ecn.front();
    for (const cc::EcnTier& t : p.ecn)
      if (t.tier == "leaf->spine") e = &t;
    str_append(out, "; ECN ", e->tier, " Kmin ", fixed(e->kmin_bytes / 1000, 0),
               " KB Kmax ", fixed(e->kmax_bytes / 1000, 0), " KB Pmax ",
               fixed(100 * e->pmax, 1), "%");
  }
  for (const cc::EnvVar& v : p.nccl_env)
    if (v.name == "NCCL_IB_QPS_PER_CONNECTION") str_append(out, "; ", v.value, " QPs/connection");
  if (const cc::Value* limit = j.rate_limit(); limit != nullptr)
    str_append(out, "; rate limit ",
               limit->value > 0 ? fixed(limit->value / 1e6, 1) + " Gb/s per QP"
                                : std::string("none needed"));
  else
    str_append(out, "; no spine lane needed");
  if (!p.warnings.empty()) str_append(out, "; ", p.warnings.size(), " warning(s) in plan.json");
  return out;
}

}  // namespace detail

// The plan without its size-1 dimensions ("tp=8,pp=4,dp=16"), and its order
// string when it is not Megatron's default.
RAILYARD_LAZY
[[nodiscard]] std::string plan_short_text(const placement::ParallelPlan& plan) {
  std::string out;
  for (size_t d = 0; d < placement::kDimNames.size(); ++d)
    if (plan.sizes[d] > 1)
      str_append(out, out.empty() ? "" : ",", placement::kDimNames[d], "=", plan.sizes[d]);
  if (out.empty()) out = "tp=1";
  if (plan.order_string() != placement::ParallelPlan{}.order_string())
    str_append(out, ",order=", plan.order_string());
  return out;
}

// The one-screen text report (see the overview).
RAILYARD_LAZY
[[nodiscard]] std::string plan_text(const topology::ClusterDescriptor<>& d, const pipeline::PlanResult& r) {
  std::string out;
  const topology::ClusterSpec& spec = d.spec();
  str_append(out, "railyard plan on ", r.cluster, ": ", d.hosts(), " hosts x ", d.gpus_per_host(),
             " GPUs, ", su_count_text(d.hosts(), d.hosts_per_su()), ", leaf oversubscription ",
             spec.oversub.down, ":", spec.oversub.up, "\n");
  const pipeline::PlanBackground& bg = r.background;
  if (bg.trace_jobs == 0)
    str_append(out, "busy      0 hosts: an empty cluster (", r.background_source, ")");
  else
    str_append(out, "busy      ", bg.busy_hosts, " hosts held by ", bg.jobs.size(),
               " jobs still running after a first_fit replay of ", bg.trace_jobs, " jobs\n",
               "          (", r.background_source, ")");
  if (bg.queued > 0 || bg.rejected > 0)
    str_append(out, "; ", bg.queued, " still queued and ", bg.rejected, " too big left out");
  str_append(out, "; ", d.hosts() - bg.busy_hosts, " hosts free\n");
  str_append(out,
             "naive     first_fit hosts, ranks in allocation order with the plan's order string, "
             "ECMP, 1 QP\n",
             "railyard  best_fit hosts, railyard rank order, steered QPs (the path advisor's "
             "ports, CRC-32 hash)\n",
             "bound     railyard's hosts and order with planned paths: an upper bound nothing "
             "deploys\n");

  // The SU map, naive and railyard side by side.
  const int32_t per_su = d.hosts_per_su();
  const std::vector<int32_t> sus = detail::plan_map_sus(d, r);
  str_append(out, "\nSU map (one character per host: ");
  for (size_t j = 0; j < r.jobs.size() && j < 8; ++j)
    str_append(out, j ? " " : "", detail::plan_letter(j), "=", r.jobs[j].job.name);
  if (r.jobs.size() > 8) out += " ...";
  str_append(out, ", # busy before, . free)\n");
  const size_t col = std::max<size_t>(static_cast<size_t>(per_su), 8) + 2;
  str_append(out, "         ", padded("naive", col), "railyard\n");
  size_t shown = 0;
  for (int32_t su : sus) {
    if (shown == detail::kPlanMapMaxSus) {
      str_append(out, "  ... ", sus.size() - shown,
                 " more SUs with mix jobs (plan.json has all)\n");
      break;
    }
    str_append(out, "  ", padded(str_cat("su", su), 7),
               padded(detail::plan_su_row(r.owner[0], su, per_su), col),
               detail::plan_su_row(r.owner[1], su, per_su), "\n");
    ++shown;
  }
  if (static_cast<int32_t>(sus.size()) < d.sus())
    str_append(out, "  (", d.sus() - static_cast<int32_t>(sus.size()),
               " SUs without mix jobs not shown)\n");

  // Per job.
  str_append(out, "\n", padded("", 24), padded("busbw Gb/s", 21, Align::kRight),
             padded("", 23), "leaf-spine GiB, busiest link\n");
  str_append(out, padded("job  collective", 24), padded("naive", 9, Align::kRight),
             padded("railyard", 12, Align::kRight), padded("bound", 10, Align::kRight),
             padded("speed-up", 10, Align::kRight), "   ", padded("naive", 16), "railyard\n");
  for (size_t j = 0; j < r.jobs.size(); ++j) {
    const pipeline::PlanJobResult& jr = r.jobs[j];
    str_append(out, detail::plan_letter(j), "  ", padded(jr.job.name, 9), " ",
               padded(str_cat(jr.job.gpus(), " GPUs"), 9, Align::kRight), "  ",
               plan_short_text(jr.job.plan));
    if (!jr.placed) {
      str_append(out, "\n   NOT PLACED: ", jr.unplaced_reason, "\n");
      continue;
    }
    const pipeline::PlanJobSide& nv = jr.at(pipeline::PlanSide::kNaive);
    const pipeline::PlanJobSide& ry = jr.at(pipeline::PlanSide::kRailyard);
    str_append(out, "; SUs ", detail::plan_sus_text(nv.allocation.sus), " -> ",
               detail::plan_sus_text(ry.allocation.sus), "; spine GiB/step (model) ",
               detail::plan_gib(nv.traffic.bytes_at_or_above(placement::Tier::kSpine), 0), " -> ",
               detail::plan_gib(ry.traffic.bytes_at_or_above(placement::Tier::kSpine), 0), "\n");
    for (const pipeline::PlanCollective& c : jr.collectives) {
      const sim::CollectiveReport& a = c.at(pipeline::PlanSide::kNaive);
      const sim::CollectiveReport& b = c.at(pipeline::PlanSide::kRailyard);
      auto spine = [](const sim::CollectiveReport& x) {
        return str_cat(
            padded(detail::plan_gib(detail::plan_tier_bytes(x, topology::LinkTier::kLeafSpine)),
                     6, Align::kRight),
            " ",
            padded(
                percent(detail::plan_tier_peak(x, topology::LinkTier::kLeafSpine)), 6,
                Align::kRight));
      };
      str_append(out, "   ", padded(str_cat(c.label(), " ", format_bytes(c.bytes)), 21),
                 padded(fixed(a.busbw_gbps, 1), 9, Align::kRight),
                 padded(fixed(b.busbw_gbps, 1), 12, Align::kRight),
                 padded(fixed(c.bound.busbw_gbps, 1), 10, Align::kRight),
                 padded(detail::plan_speedup_text(c.speedup()), 10, Align::kRight), "   ",
                 padded(spine(a), 16), spine(b), c.hosts_per_group < 2 ? "  (NVLink)" : "", "\n");
    }
    str_append(out, "   cc: ", detail::plan_cc_line(jr), "\n");
  }

  // Totals.
  const double tn = r.total_time_us(pipeline::PlanSide::kNaive);
  const double tr = r.total_time_us(pipeline::PlanSide::kRailyard);
  const double tb = r.total_bound_us();
  double spine_n = 0, spine_r = 0;
  int32_t split_n = 0, split_r = 0;
  for (const pipeline::PlanJobResult& jr : r.jobs) {
    if (!jr.placed) continue;
    spine_n += detail::plan_job_spine_bytes(jr, pipeline::PlanSide::kNaive);
    spine_r += detail::plan_job_spine_bytes(jr, pipeline::PlanSide::kRailyard);
    split_n += jr.at(pipeline::PlanSide::kNaive).allocation.split_across_sus() ? 1 : 0;
    split_r += jr.at(pipeline::PlanSide::kRailyard).allocation.split_across_sus() ? 1 : 0;
  }
  str_append(out, "\ntotal     ", r.placed_jobs(), " of ", r.jobs.size(),
             " jobs placed; one step of every simulated collective: naive ",
             fixed(tn / 1000, 1), " ms, railyard ", fixed(tr / 1000, 1), " ms (",
             detail::plan_speedup_text(tr > 0 ? tn / tr : std::nan("")), "); bound ",
             fixed(tb / 1000, 1), " ms\n",
             "          leaf-spine ", detail::plan_gib(spine_n), " -> ", detail::plan_gib(spine_r),
             " GiB; jobs split across SUs ", split_n, " -> ", split_r, "\n");
  const pipeline::PlanIsolation& in = r.isolation[0];
  const pipeline::PlanIsolation& ir = r.isolation[1];
  str_append(out, "tenants   ", in.tenants, " -> ", ir.tenants,
             " tenants cross leaves; links two share in a ring step: naive ",
             in.shared_leaf_spine + in.shared_spine_core, " (", in.note, "), railyard ",
             ir.shared_leaf_spine + ir.shared_spine_core, " (", ir.note, ")\n");
  return out;
}

// plan.json (see the overview for the keys).
RAILYARD_LAZY
[[nodiscard]] std::string plan_json(const topology::ClusterDescriptor<>& d, const pipeline::PlanResult& r,
                                    uint64_t seed = 1, int indent = 2) {
  JsonWriter w(indent);
  w.begin_object();
  w.key("cluster").value(r.cluster);
  w.key("hosts").value(d.hosts());
  w.key("gpus_per_host").value(d.gpus_per_host());
  w.key("sus").value(d.sus());
  w.key("hosts_per_su").value(d.hosts_per_su());

  const pipeline::PlanBackground& bg = r.background;
  w.key("background").begin_object();
  w.key("source").value(r.background_source);
  w.key("trace_jobs").value(bg.trace_jobs);
  w.key("running_jobs").value(static_cast<int64_t>(bg.jobs.size()));
  w.key("busy_hosts").value(bg.busy_hosts);
  w.key("finished").value(bg.finished);
  w.key("queued").value(bg.queued);
  w.key("rejected").value(bg.rejected);
  w.key("end_s").value(rounded(bg.end_s, 3));
  w.key("jobs").begin_array();
  for (const placement::Allocation& a : bg.jobs) {
    w.begin_object();
    w.key("name").value(a.name);
    w.key("gpus").value(a.gpus);
    w.key("hosts").begin_array();
    for (HostId h : a.hosts) w.value(h.value());
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();

  w.key("configurations").begin_object();
  w.key("naive").begin_object();
  w.key("policy").value("first_fit");
  w.key("order").value("naive");
  w.key("routing").value("ecmp");
  w.key("qps").value(1);
  w.end_object();
  w.key("railyard").begin_object();
  w.key("policy").value("best_fit");
  w.key("order").value("railyard");
  w.key("routing").value(sim::routing_name(sim::Routing::kSteered));
  w.key("qps").value("NCCL_IB_QPS_PER_CONNECTION of the job (jobs[].qps)");
  w.end_object();
  w.key("bound").begin_object();
  w.key("policy").value("best_fit");
  w.key("order").value("railyard");
  w.key("routing").value(sim::routing_name(sim::Routing::kPlanned));
  w.key("upper_bound").value(true);
  w.end_object();
  w.end_object();
  w.key("seed").value(seed);

  auto report = [&](const sim::CollectiveReport& x) {
    w.begin_object();
    w.key("time_us").value(rounded(x.time_us, 3));
    w.key("algbw_gbps").value(rounded(x.algbw_gbps, 3));
    w.key("busbw_gbps").value(rounded(x.busbw_gbps, 3));
    w.key("lower_bound_us").value(rounded(x.lower_bound_us, 3));
    w.key("max_link_utilization").value(rounded(x.max_link_utilization, 6));
    w.key("leaf_spine_bytes")
        .value(std::round(detail::plan_tier_bytes(x, topology::LinkTier::kLeafSpine)));
    w.key("leaf_spine_max_utilization")
        .value(rounded(detail::plan_tier_peak(x, topology::LinkTier::kLeafSpine), 6));
    w.key("spine_core_bytes")
        .value(std::round(detail::plan_tier_bytes(x, topology::LinkTier::kSpineCore)));
    w.end_object();
  };

  w.key("jobs").begin_array();
  for (size_t j = 0; j < r.jobs.size(); ++j) {
    const pipeline::PlanJobResult& jr = r.jobs[j];
    w.begin_object();
    w.key("name").value(jr.job.name);
    w.key("letter").value(std::string(1, detail::plan_letter(j)));
    w.key("tenant").value(jr.job.tenant);
    w.key("gpus").value(jr.job.gpus());
    w.key("plan").value(jr.job.plan.to_string());
    w.key("placed").value(jr.placed);
    if (jr.placed) w.key("qps").value(jr.qps);
    if (!jr.placed) {
      w.key("unplaced_reason").value(jr.unplaced_reason);
      w.end_object();
      continue;
    }
    for (pipeline::PlanSide s : pipeline::kPlanSides) {
      const pipeline::PlanJobSide& side = jr.at(s);
      w.key(pipeline::side_name(s)).begin_object();
      w.key("hosts").begin_array();
      for (HostId h : side.placement.hosts) w.value(h.value());
      w.end_array();
      w.key("sus").begin_array();
      for (SuId su : side.allocation.sus) w.value(su.value());
      w.end_array();
      w.key("order").value(side.placement.plan.order_string());
      w.key("traffic_bytes_per_step").begin_object();
      for (size_t t = 0; t < placement::kTierNames.size(); ++t)
        w.key(placement::kTierNames[t]).value(std::round(side.traffic.bytes_by_tier[t]));
      w.end_object();
      w.end_object();
    }
    w.key("collectives").begin_array();
    for (const pipeline::PlanCollective& c : jr.collectives) {
      w.begin_object();
      w.key("dim").value(placement::to_string(c.dim));
      w.key("collective").value(collective::collective_name(c.kind));
      w.key("algorithm").value(collective::algorithm_name(c.algorithm));
      w.key("bytes").value(c.bytes);
      w.key("groups").value(c.at(pipeline::PlanSide::kRailyard).groups);
      w.key("ranks").value(c.at(pipeline::PlanSide::kRailyard).ranks);
      w.key("hosts_per_group").value(c.hosts_per_group);
      for (pipeline::PlanSide s : pipeline::kPlanSides) {
        w.key(pipeline::side_name(s));
        report(c.at(s));
      }
      w.key("bound");
      report(c.bound);
      for (const auto& [key, x] : {std::pair{"speedup", c.speedup()},
                                   std::pair{"bound_speedup", c.bound_speedup()}}) {
        w.key(key);
        if (std::isfinite(x))
          w.value(rounded(x, 3));
        else
          w.null();
      }
      w.end_object();
    }
    w.end_array();

    w.key("cc").begin_object();
    w.key("incast").value(jr.incast);
    w.key("incast_source").value(jr.incast_source);
    if (jr.cc) {
      const cc::CcPlan& p = *jr.cc;
      w.key("ecn").begin_array();
      for (const cc::EcnTier& e : p.ecn) {
        w.begin_object();
        w.key("tier").value(e.tier);
        w.key("kmin_bytes").value(std::round(e.kmin_bytes));
        w.key("kmax_bytes").value(std::round(e.kmax_bytes));
        w.key("pmax").value(rounded(e.pmax, 6));
        w.end_object();
      }
      w.end_array();
      w.key("pfc_headroom_bytes").value(std::round(p.pfc_headroom_bytes));
      w.key("dcqcn").begin_object();
      for (const cc::Value& v : p.dcqcn_settings) w.key(v.name).value(rounded(v.value, 6));
      w.end_object();
      w.key("nccl_env").begin_array();
      for (const cc::EnvVar& v : p.nccl_env) {
        w.begin_object();
        w.key("name").value(v.name);
        w.key("value").value(v.value);
        w.key("reason").value(v.reason);
        w.end_object();
      }
      w.end_array();
      w.key("rate_limit");
      if (const cc::Value* limit = jr.rate_limit(); limit != nullptr) {
        w.begin_object();
        w.key("kbps_per_qp").value(std::round(limit->value));
        w.key("reason").value(limit->reason);
        w.end_object();
      } else {
        w.null();
      }
      w.key("warnings").begin_array();
      for (const std::string& s : p.warnings) w.value(s);
      w.end_array();
    }
    w.end_object();

    w.key("tuner").begin_array();
    for (const tune::NotedRule& n : jr.tuner) {
      const tune::TuningRule& t = n.rule;
      w.begin_object();
      w.key("collective").value(tune::nccl::kCollectiveNames[static_cast<size_t>(t.coll)]);
      w.key("min_bytes").value(t.min_bytes);
      if (t.max_bytes == std::numeric_limits<uint64_t>::max())
        w.key("max_bytes").value(-1);  // no upper bound, as the rule file writes it
      else
        w.key("max_bytes").value(t.max_bytes);
      w.key("algorithm").value(tune::nccl::kAlgorithmNames[static_cast<size_t>(t.algo)]);
      w.key("protocol").value(tune::nccl::kProtocolNames[static_cast<size_t>(t.proto)]);
      w.key("channels").value(t.channels);
      w.key("nodes").value(t.nodes);
      w.key("ranks").value(t.ranks);
      w.key("reason").value(join(n.notes, "; "));
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();

  w.key("su_map").begin_object();
  for (pipeline::PlanSide s : pipeline::kPlanSides) {
    w.key(pipeline::side_name(s)).begin_array();
    for (int32_t su = 0; su < d.sus(); ++su)
      w.value(detail::plan_su_row(r.owner[pipeline::side_index(s)], su, d.hosts_per_su()));
    w.end_array();
  }
  w.end_object();

  w.key("fragmentation").begin_object();
  for (pipeline::PlanSide s : pipeline::kPlanSides) {
    const placement::Fragmentation& f = r.fragmentation[pipeline::side_index(s)];
    w.key(pipeline::side_name(s)).begin_object();
    w.key("free_hosts").value(f.free_hosts);
    w.key("free_hosts_per_su").begin_array();
    for (int32_t v : f.free_hosts_per_su) w.value(v);
    w.end_array();
    w.key("largest_unsplit_hosts").value(f.largest_unsplit_hosts);
    w.key("jobs_split_across_sus").value(f.jobs_split_across_sus);
    w.key("jobs_split_across_pods").value(f.jobs_split_across_pods);
    w.end_object();
  }
  w.end_object();

  w.key("isolation").begin_object();
  for (pipeline::PlanSide s : pipeline::kPlanSides) {
    const pipeline::PlanIsolation& iso = r.isolation[pipeline::side_index(s)];
    w.key(pipeline::side_name(s)).begin_object();
    w.key("shared_leaf_spine").value(iso.shared_leaf_spine);
    w.key("shared_spine_core").value(iso.shared_spine_core);
    w.key("tenants").value(iso.tenants);
    w.key("note").value(iso.note);
    w.end_object();
  }
  w.end_object();

  const double tn = r.total_time_us(pipeline::PlanSide::kNaive);
  const double tr = r.total_time_us(pipeline::PlanSide::kRailyard);
  const double tb = r.total_bound_us();
  w.key("totals").begin_object();
  w.key("placed_jobs").value(r.placed_jobs());
  w.key("unplaced_jobs").value(static_cast<int64_t>(r.jobs.size()) - r.placed_jobs());
  w.key("time_us").begin_object();
  w.key("naive").value(rounded(tn, 3));
  w.key("railyard").value(rounded(tr, 3));
  w.key("bound").value(rounded(tb, 3));
  w.end_object();
  for (const auto& [key, t] : {std::pair{"speedup", tr}, std::pair{"bound_speedup", tb}}) {
    w.key(key);
    if (t > 0)
      w.value(rounded(tn / t, 3));
    else
      w.null();
  }
  w.key("leaf_spine_bytes").begin_object();
  for (pipeline::PlanSide s : pipeline::kPlanSides) {
    double b = 0;
    for (const pipeline::PlanJobResult& jr : r.jobs) b += detail::plan_job_spine_bytes(jr, s);
    w.key(pipeline::side_name(s)).value(std::round(b));
  }
  w.end_object();
  w.end_object();
  w.end_object();
  return std::move(w).line();
}

}  // namespace railyard::report
