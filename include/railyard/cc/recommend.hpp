// railyard/cc/recommend.hpp — congestion-control settings chosen by search on
// the NIC/switch model (cc/packet_incast.hpp), never worse than the defaults.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
//   auto plan = railyard::cc::derive_cc(*cluster, {.incast = 8});
//   railyard::cc::CcSearchOptions opt;
//   opt.start_fraction = 1.0 / 8;           // the job's own start rate (all-to-all: 1/k)
//   auto search = railyard::cc::search_cc(*plan, opt);
//   // search->candidates[i].name / .metrics[scenario] / .dominates
//   // search->recommended: index of the winner (0 = the vendor defaults)
//   railyard::cc::apply_recommendation(*plan, *search);  // plan->dcqcn, plan->ecn updated
//
// Scenarios (one per question an operator asks of the settings), all on the
// plan's leaf->host port, link speed, longest-path RTT, buffer and PFC:
//   burst     — `incast` senders starting together at line rate;
//   job       — the same senders at the job's own start rate (skipped when 1);
//   fairness  — a long-lived flow, a second joining at a quarter of the run;
//   tenants   — N/2 long-lived flows of one tenant, N/2 of another joining
//               at line rate at a quarter of the run (N >= 4).
// Candidates: the vendor defaults (ConnectX DCQCN, switch ECN 150 KB /
// 1,500 KB / 100 %), the plan's rule-derived set (derived_dcqcn with the
// derived ECN tiers), and one knob at a time around the defaults — the derived
// ECN curve, rate_reduce_monitor_period 8 µs or the derived one, rpg_time_reset
// 100 or 55 µs, rpg_byte_reset 16 or 64 KiB, AI/HAI 20/200 Mb/s — plus timer
// 100 µs with AI/HAI 20/200 Mb/s under either ECN curve (the direction of the
// published 400G tuning: timer 20–100 µs, AI 8–20 Mb/s).
// A candidate dominates the defaults when, on every scenario, it is no worse on
// every metric that matters — XOFF frames, the most-paused sender's paused
// time, drops, peak queue, utilization, Jain's fairness, convergence time —
// within the tolerances below, and better on at least one by more than them.
// The recommendation is the dominating candidate with the highest worst-case
// utilization (ties: the earlier one); with none, the defaults.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "railyard/cc/dcqcn_fluid.hpp"
#include "railyard/cc/dcqcn_nic.hpp"
#include "railyard/cc/derive.hpp"
#include "railyard/cc/packet_incast.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"

namespace railyard::cc {

// Tolerances of "no worse" (model noise: marks are random draws).
inline constexpr double kUtilizationTolerance = 0.005;  // absolute
inline constexpr double kFairnessTolerance = 0.005;     // absolute, Jain's index
inline constexpr double kPeakQueueTolerance = 0.02;     // relative
inline constexpr double kPausedTimeToleranceUs = 1;     // absolute

struct CcCandidate {
  std::string name;
  std::string description;
  DcqcnParams dcqcn;
  RedMarking red;        // the leaf->host curve the scenarios run
  bool derived_ecn = false;  // true: every tier takes the plan's derived curve
};

// The figures a candidate is judged on, per scenario.
struct IncastMetrics {
  int64_t pauses = 0;
  double paused_us_max = 0;
  int64_t drops = 0;
  double peak_queue_bytes = 0;
  double utilization = 0;
  double steady_utilization = 0;
  double steady_queue_bytes = 0;
  double jain_fairness = 1;
  std::optional<double> convergence_us;  // empty: never
};

RAILYARD_LAZY
[[nodiscard]] IncastMetrics metrics_of(const PacketIncastResult& r) {
  return IncastMetrics{r.pauses,           r.paused_us_max,      r.drops,
                       r.peak_queue_bytes, r.utilization,        r.steady_utilization,
                       r.steady_queue_bytes, r.jain_fairness,    r.convergence_us};
}

// c no worse than v on every metric that matters (within the tolerances).
RAILYARD_LAZY
[[nodiscard]] bool no_worse(const IncastMetrics& c, const IncastMetrics& v) {
  const double never = std::numeric_limits<double>::infinity();
  return c.pauses <= v.pauses && c.paused_us_max <= v.paused_us_max + kPausedTimeToleranceUs &&
         c.drops <= v.drops &&
         c.peak_queue_bytes <= v.peak_queue_bytes * (1 + kPeakQueueTolerance) &&
         c.utilization >= v.utilization - kUtilizationTolerance &&
         c.jain_fairness >= v.jain_fairness - kFairnessTolerance &&
         c.convergence_us.value_or(never) <= v.convergence_us.value_or(never);
}

// The first metric on which c is worse than v (beyond its tolerance), as
// "utilization 0.84 < 0.92"; empty when c is no worse.
RAILYARD_LAZY
[[nodiscard]] std::string first_worse(const IncastMetrics& c, const IncastMetrics& v) {
  const double never = std::numeric_limits<double>::infinity();
  auto conv = [](const std::optional<double>& us) {
    return us ? str_cat(detail::num(*us), " us") : std::string("never");
  };
  if (c.pauses > v.pauses) return str_cat("PFC pauses ", c.pauses, " > ", v.pauses);
  if (c.paused_us_max > v.paused_us_max + kPausedTimeToleranceUs)
    return str_cat("paused ", detail::num(c.paused_us_max), " us > ", detail::num(v.paused_us_max), " us");
  if (c.drops > v.drops) return str_cat("drops ", c.drops, " > ", v.drops);
  if (c.peak_queue_bytes > v.peak_queue_bytes * (1 + kPeakQueueTolerance))
    return str_cat("peak queue ", detail::num(c.peak_queue_bytes / 1e3), " KB > ",
                   detail::num(v.peak_queue_bytes / 1e3), " KB");
  if (c.utilization < v.utilization - kUtilizationTolerance)
    return str_cat("utilization ", detail::num(c.utilization), " < ", detail::num(v.utilization));
  if (c.jain_fairness < v.jain_fairness - kFairnessTolerance)
    return str_cat("Jain ", detail::num(c.jain_fairness), " < ", detail::num(v.jain_fairness));
  if (c.convergence_us.value_or(never) > v.convergence_us.value_or(never))
    return str_cat("converged ", conv(c.convergence_us), " after ", conv(v.convergence_us));
  return {};
}

// c better than v on some metric by more than its tolerance.
RAILYARD_LAZY
[[nodiscard]] bool better_somewhere(const IncastMetrics& c, const IncastMetrics& v) {
  const double never = std::numeric_limits<double>::infinity();
  return c.pauses < v.pauses || c.paused_us_max < v.paused_us_max - kPausedTimeToleranceUs ||
         c.drops < v.drops ||
         c.peak_queue_bytes < v.peak_queue_bytes * (1 - kPeakQueueTolerance) ||
         c.utilization > v.utilization + kUtilizationTolerance ||
         c.jain_fairness > v.jain_fairness + kFairnessTolerance ||
         c.convergence_us.value_or(never) < v.convergence_us.value_or(never);
}

struct CcScenario {
  std::string name;
  std::string description;
  PacketIncastScenario scenario;
};

struct CandidateScore {
  CcCandidate candidate;
  std::vector<IncastMetrics> metrics;  // per scenario, in CcSearch::scenarios order
  bool no_worse = true;                // than the defaults, on every scenario
  bool dominates = false;              // no_worse and better somewhere
  std::string worse;                   // the first scenario and metric where it loses
  double worst_utilization = 0;
};

struct CcSearchOptions {
  double duration_us = 5'000;   // per scenario
  double start_fraction = 1;    // the job scenario's start rate (1: no job scenario)
  NicReadings readings;
  double rtt_scale = 1;         // sensitivity: × the plan's RTT
  double buffer_scale = 1;      // sensitivity: × the plan's shared buffer
  uint64_t seed = 1;
  bool grid = true;             // false: only the defaults and the derived set
};

struct CcSearch {
  std::vector<CcScenario> scenarios;
  std::vector<CandidateScore> candidates;  // [0] the defaults, [1] the derived set
  size_t recommended = 0;
  std::string reason;
  NicReadings readings;
};

// The scenarios for `plan` (see the overview).
RAILYARD_LAZY
[[nodiscard]] std::vector<CcScenario> cc_scenarios(const CcPlan& plan, const CcSearchOptions& o) {
  PacketIncastScenario base;
  base.link_gbps = plan.link_gbps;
  base.frame_bytes = plan.frame_bytes;
  base.one_way_us = plan.paths.back().one_way_us * o.rtt_scale;
  base.duration_us = o.duration_us;
  base.seed = o.seed;
  base.pfc.shared_buffer_bytes = plan.pfc.shared_buffer_bytes * o.buffer_scale;
  base.pfc.dynamic_alpha = plan.pfc.dynamic_alpha;
  base.pfc.headroom_bytes = plan.pfc.headroom_bytes;
  base.pfc.xon_offset_bytes = plan.pfc.xon_offset_bytes;
  base.pfc.pause_delay_us = plan.pfc.pause_delay_us;
  base.pfc.last_hop_us = std::min(plan.pfc.last_hop_us, base.one_way_us);
  const int32_t n = std::max(1, plan.incast);
  const double quarter = o.duration_us / 4;
  std::vector<CcScenario> out;
  {
    PacketIncastScenario s = base;
    s.senders = n;
    out.push_back({"burst", str_cat(n, " senders start together at line rate"), s});
  }
  if (o.start_fraction < 1) {
    PacketIncastScenario s = base;
    s.senders = n;
    s.start_fraction = o.start_fraction;
    out.push_back({"job", str_cat(n, " senders start at ", detail::num(100 * o.start_fraction),
                                  "% of line rate (the job's own start)"),
                   s});
  }
  {
    PacketIncastScenario s = base;
    s.senders = 2;
    s.flows = {IncastFlow{}, IncastFlow{.start_us = quarter}};
    out.push_back({"fairness", "a long-lived flow; a second joins at a quarter of the run", s});
  }
  if (n >= 4) {  // below 4 senders this is the fairness scenario again
    const int32_t a = n / 2, b = n / 2;
    PacketIncastScenario s = base;
    s.senders = a + b;
    s.flows.assign(static_cast<size_t>(a), IncastFlow{});
    s.flows.resize(static_cast<size_t>(a + b), IncastFlow{.start_us = quarter});
    out.push_back({"tenants", str_cat(a, " flows of one tenant; ", b,
                                      " of another join at line rate at a quarter of the run"),
                   s});
  }
  return out;
}

// The candidates for `plan` (see the overview): [0] defaults, [1] derived.
RAILYARD_LAZY
[[nodiscard]] std::vector<CcCandidate> cc_candidates(const CcPlan& plan, bool grid = true) {
  const DcqcnParams vendor = connectx_default_dcqcn();
  const RedMarking vendor_red = vendor_default_red();
  RedMarking derived_red = vendor_red;
  if (!plan.derived_ecn.empty()) {
    const EcnTier& e = plan.derived_ecn.front();  // leaf->host
    derived_red = RedMarking{e.kmin_bytes, e.kmax_bytes, e.pmax};
  }
  std::vector<CcCandidate> out;
  out.push_back({"vendor", "ConnectX DCQCN defaults, switch ECN 150 KB / 1,500 KB / 100 %", vendor,
                 vendor_red, false});
  out.push_back({"derived",
                 str_cat("rule-derived: decrease period ",
                         detail::num(plan.derived_dcqcn.decrease_period_us), " us, timer ",
                         detail::num(plan.derived_dcqcn.increase_timer_us), " us, AI/HAI ",
                         detail::num(plan.derived_dcqcn.ai_mbps), "/",
                         detail::num(plan.derived_dcqcn.hai_mbps), " Mb/s, derived ECN"),
                 plan.derived_dcqcn, derived_red, true});
  if (!grid) return out;
  // One knob at a time around the defaults, then the published 400G tuning's
  // direction (a faster timer with larger steps) with either ECN curve.
  auto add = [&](std::string name, std::string what, DcqcnParams q, bool ecn) {
    out.push_back({std::move(name), str_cat("ConnectX defaults with ", what, ", ",
                                            ecn ? "derived" : "vendor", " ECN"),
                   q, ecn ? derived_red : vendor_red, ecn});
  };
  add("ecn", "nothing else changed", vendor, true);
  std::vector<double> periods = {8.0};
  if (const double derived = plan.derived_dcqcn.decrease_period_us;
      derived != 8.0 && derived != vendor.decrease_period_us)
    periods.push_back(derived);
  for (double period : periods) {
    DcqcnParams q = vendor;
    q.decrease_period_us = period;
    add(str_cat("period", detail::num(period)), str_cat("rate_reduce_monitor_period ", detail::num(period), " us"), q, false);
  }
  for (double timer : {100.0, 55.0}) {
    DcqcnParams q = vendor;
    q.increase_timer_us = timer;
    add(str_cat("timer", detail::num(timer)), str_cat("rpg_time_reset ", detail::num(timer), " us"), q, false);
  }
  for (double bytes : {16384.0, 65536.0}) {
    DcqcnParams q = vendor;
    q.byte_counter_bytes = bytes;
    const auto b = static_cast<int64_t>(bytes);
    add(str_cat("bytes", b), str_cat("rpg_byte_reset ", b, " B"), q, false);
  }
  {
    DcqcnParams q = vendor;
    q.ai_mbps = 20;
    q.hai_mbps = 200;
    add("ai20", "AI/HAI 20/200 Mb/s", q, false);
    q.increase_timer_us = 100;
    add("timer100-ai20", "rpg_time_reset 100 us, AI/HAI 20/200 Mb/s", q, false);
    add("timer100-ai20-ecn", "rpg_time_reset 100 us, AI/HAI 20/200 Mb/s", q, true);
  }
  return out;
}

// Runs every candidate on every scenario and picks the recommendation. Errors:
// the plan without paths or ECN tiers, options out of range, the model's own.
RAILYARD_LAZY
[[nodiscard]] StatusOr<CcSearch> search_cc(const CcPlan& plan, const CcSearchOptions& o = {}) {
  if (plan.paths.empty() || plan.derived_ecn.empty())
    return invalid_field("plan", "empty", "derive_cc() first");
  if (!(o.start_fraction > 0 && o.start_fraction <= 1))
    return invalid_field("start_fraction", str_cat(o.start_fraction), "must be in (0, 1]");
  if (!(o.rtt_scale > 0 && o.rtt_scale <= 100) || !(o.buffer_scale > 0 && o.buffer_scale <= 100))
    return invalid_field("rtt_scale", str_cat(o.rtt_scale, "/", o.buffer_scale), "must be in (0, 100]");
  CcSearch out;
  out.readings = o.readings;
  out.scenarios = cc_scenarios(plan, o);
  for (CcCandidate& c : cc_candidates(plan, o.grid)) {
    CandidateScore score;
    score.candidate = std::move(c);
    for (const CcScenario& sc : out.scenarios) {
      RAILYARD_ASSIGN_OR_RETURN(
          const PacketIncastResult r,
          simulate_packet_incast(score.candidate.dcqcn, o.readings, score.candidate.red, sc.scenario));
      score.metrics.push_back(metrics_of(r));
    }
    out.candidates.push_back(std::move(score));
  }
  const CandidateScore& vendor = out.candidates.front();
  for (CandidateScore& c : out.candidates) {
    bool better = false;
    c.worst_utilization = 1;
    for (size_t s = 0; s < out.scenarios.size(); ++s) {
      c.no_worse = c.no_worse && no_worse(c.metrics[s], vendor.metrics[s]);
      if (c.worse.empty()) {
        const std::string w = first_worse(c.metrics[s], vendor.metrics[s]);
        if (!w.empty()) c.worse = str_cat(out.scenarios[s].name, ": ", w);
      }
      better = better || better_somewhere(c.metrics[s], vendor.metrics[s]);
      c.worst_utilization = std::min(c.worst_utilization, c.metrics[s].utilization);
    }
    c.dominates = &c != &vendor && c.no_worse && better;
    if (c.dominates &&
        (out.recommended == 0 || c.worst_utilization > out.candidates[out.recommended].worst_utilization))
      out.recommended = static_cast<size_t>(&c - out.candidates.data());
  }
  out.reason = out.recommended == 0
                   ? str_cat("no candidate of ", out.candidates.size() - 1,
                             " is no worse than the defaults on every metric of every scenario: keep "
                             "the defaults")
                   : str_cat("'", out.candidates[out.recommended].candidate.name,
                             "' is no worse than the defaults on every metric of every scenario and "
                             "better on some");
  return out;
}

// Puts the search's recommendation into the plan: DCQCN settings, and the ECN
// curve of every tier (the vendor curve, or the plan's derived one).
RAILYARD_LAZY
void apply_recommendation(CcPlan& plan, const CcSearch& search) {
  const CcCandidate& c = search.candidates[search.recommended].candidate;
  plan.recommendation = search.recommended == 0 ? str_cat("vendor defaults: ", search.reason)
                                                : str_cat(c.name, ": ", search.reason);
  if (search.recommended == 0) return;
  plan.dcqcn = c.dcqcn;
  plan.dcqcn_settings = dcqcn_settings(c.dcqcn, str_cat("searched (", c.name, ")"));
  if (c.derived_ecn) plan.ecn = plan.derived_ecn;
}

}  // namespace railyard::cc
