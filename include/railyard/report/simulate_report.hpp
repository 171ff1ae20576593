// railyard/report/simulate_report.hpp — a simulated collective (sim::CollectiveReport)
// as a text summary and as JSON (what `railyard simulate` prints).
//
//   auto r = railyard::sim::simulate_collective(cluster, groups, kind, bytes, options);
//   std::string text = railyard::report::simulate_text(cluster.fabric, *r);
//   std::string json = railyard::report::simulate_json(cluster.fabric, *r);
//   std::string title = railyard::report::simulate_title(*r);  // one line, for plots
//   auto svg = railyard::report::simulate_heatmap_svg(cluster.fabric, *r);  // link utilization
//   auto peak = railyard::report::simulate_heatmap_svg(cluster.fabric, *r,
//                                                      railyard::report::HeatmapMetric::kPeak);
//
// Heat maps (report/heatmap_svg.hpp) come in two metrics, named in the title
// and the legend: kAverage, each link's bytes / (capacity x the run's time),
// and kPeak, its busiest step's bytes / (capacity x that step's transfer time)
// (sim/collective_sim.hpp). Both are coloured on a scale whose darkest red is
// the busiest switch port.
//
// Text: what ran (collective, algorithm, routing — with the switches' hash, or
// "(upper bound)" for planned paths — QPs, channels, groups x ranks,
// bytes), the simulated, analytic and lower-bound times with the bound's reason,
// algbw/busbw in Gb/s and GB/s, efficiency = lower_bound_us / time_us, the most
// utilized link by name, one row per stage of the collective (steps, per-hop
// alpha, transfer, exposed latency, the stage's pipelined time and what
// pipelining saved against steps · alpha + transfer; then the time saved by
// overlapping stages), then one row per link tier: links used / total, max and
// mean utilization of the used links (percent).
//
// JSON keys: collective, algorithm, routing, upper_bound (true for planned: not
// deployable), hash_model (ecmp, steered), steerable (steered), qps, channels,
// groups, ranks, bytes,
// steps, segments, flows, time_us, analytic_us, latency_us, pipelined,
// overlap_us, pieces, phases[] {name, steps, alpha_us, transfer_us, latency_us, time_us,
// unpipelined_us, saved_us}, algbw_gbps,
// busbw_gbps, lower_bound_us, lower_bound_reason, efficiency (null when time_us
// is 0), max_link_utilization, max_link {src, dst, tier} (null when no link
// carried bytes), tiers[] {tier, links, links_used, max_utilization,
// mean_utilization, bytes}. Times and bandwidths are rounded to 3 decimals,
// utilizations to 6, bytes to whole bytes, so the output is deterministic and
// short; utilizations are fractions (1 = the link busy the whole time).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "railyard/collective/schedule.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"
#include "railyard/report/heatmap_svg.hpp"
#include "railyard/report/format.hpp"
#include "railyard/report/json.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::report {

namespace detail {

RAILYARD_LAZY
std::string_view simulate_tier_name(topology::LinkTier t) {
  return topology::kLinkTierNames[static_cast<size_t>(t)];
}

}  // namespace detail

// lower_bound_us / time_us; NaN when the collective took no time.
RAILYARD_LAZY
[[nodiscard]] double simulate_efficiency(const sim::CollectiveReport& r) {
  return r.time_us > 0 ? r.lower_bound_us / r.time_us : std::nan("");
}

// The routing as reports name it: "ecmp (hash random)", "steered (hash crc32)",
// "steered (hash random: not steerable, QPs land where it puts them)",
// "adaptive (per-packet, split per hop)" or "planned (upper bound)".
RAILYARD_LAZY
[[nodiscard]] std::string simulate_routing_text(const sim::CollectiveReport& r) {
  if (!sim::deployable(r.routing)) return str_cat(sim::routing_name(r.routing), " (upper bound)");
  if (r.routing == sim::Routing::kAdaptive)
    return str_cat(sim::routing_name(r.routing), " (per-packet, split per hop)");
  const bool unsteered = r.routing == sim::Routing::kSteered && !r.steerable;
  return str_cat(sim::routing_name(r.routing), " (hash ", r.hash_model,
                 unsteered ? ": not steerable, QPs land where it puts them)" : ")");
}

// One line naming the run, e.g. "allreduce ring, planned routing, 1 x 128 ranks,
// 1 GiB: 5999.9 us" (a title for heat maps and plots).
RAILYARD_LAZY
[[nodiscard]] std::string simulate_title(const sim::CollectiveReport& r) {
  return str_cat(collective::collective_name(r.kind), " ", collective::algorithm_name(r.algorithm),
                 ", ", sim::routing_name(r.routing), " routing",
                 sim::deployable(r.routing) ? "" : " (upper bound)", ", ", r.groups, " x ", r.ranks,
                 r.ranks == 1 ? " rank, " : " ranks, ", format_bytes(r.bytes), ": ",
                 fixed(r.time_us, 1), " us");
}

// What a simulate heat map shows (the overview).
enum class HeatmapMetric { kAverage, kPeak };

// "average" or "peak" (the names --svg-metric takes).
RAILYARD_LAZY
[[nodiscard]] std::string_view heatmap_metric_name(HeatmapMetric m) {
  return m == HeatmapMetric::kPeak ? "peak" : "average";
}

// Parses "average" or "peak"; errors name `field` and the value.
RAILYARD_LAZY
[[nodiscard]] StatusOr<HeatmapMetric> parse_heatmap_metric(std::string_view field,
                                                           std::string_view text) {
  if (text == "average") return HeatmapMetric::kAverage;
  if (text == "peak") return HeatmapMetric::kPeak;
  return invalid_field(field, text, "must be average or peak");
}

// The run's link utilization as a heat map (report/heatmap_svg.hpp) titled
// simulate_title(r) + ", link utilization averaged over the run" (kAverage) or
// ", peak link utilization (busiest step)" (kPeak), the legend's "values:"
// line giving the formula. Needs r.link_utilization, or
// r.link_peak_utilization for kPeak (CollectiveSimOptions::keep_links);
// FailedPrecondition when it is missing.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> simulate_heatmap_svg(
    const topology::Fabric& f, const sim::CollectiveReport& r,
    HeatmapMetric metric = HeatmapMetric::kAverage) {
  const bool peak = metric == HeatmapMetric::kPeak;
  const std::vector<double>& values = peak ? r.link_peak_utilization : r.link_utilization;
  if (values.empty() && f.link_count() > 0)
    return failed_precondition_error(
        str_cat("the report keeps no per-link ", peak ? "peak " : "",
                "utilization (CollectiveSimOptions::keep_links)"));
  HeatmapOptions options;
  options.title = str_cat(simulate_title(r), peak ? ", peak link utilization (busiest step)"
                                                  : ", link utilization averaged over the run");
  options.metric =
      peak ? std::string("peak: per link, its busiest step's bytes / (capacity x that step's "
                         "transfer time)")
           : str_cat("average over the run: per link, bytes / (capacity x ", fixed(r.time_us, 1),
                     " us, the whole collective)");
  return heatmap_svg(f, values, options);
}

RAILYARD_LAZY
[[nodiscard]] std::string simulate_json(const topology::Fabric& f,
                                               const sim::CollectiveReport& r, int indent = 2) {
  JsonWriter w(indent);
  w.begin_object();
  w.key("collective").value(collective::collective_name(r.kind));
  w.key("algorithm").value(collective::algorithm_name(r.algorithm));
  w.key("routing").value(sim::routing_name(r.routing));
  w.key("upper_bound").value(!sim::deployable(r.routing));
  if (!r.hash_model.empty()) w.key("hash_model").value(r.hash_model);
  if (r.routing == sim::Routing::kSteered) w.key("steerable").value(r.steerable);
  w.key("qps").value(r.qps);
  w.key("channels").value(r.channels);
  w.key("groups").value(r.groups);
  w.key("ranks").value(r.ranks);
  w.key("bytes").value(r.bytes);
  w.key("steps").value(r.steps);
  w.key("segments").value(r.segments);
  w.key("flows").value(r.flows);
  w.key("simulated_flows").value(r.simulated_flows);
  w.key("bundled").value(r.bundled);
  w.key("time_us").value(rounded(r.time_us, 3));
  w.key("analytic_us").value(rounded(r.analytic_us, 3));
  w.key("latency_us").value(rounded(r.latency_us, 3));
  w.key("pipelined").value(r.pipelined);
  w.key("overlap_us").value(rounded(r.overlap_us, 3));
  w.key("pieces").value(r.pieces);
  w.key("phases").begin_array();
  for (const sim::PhaseTiming& p : r.phases) {
    w.begin_object();
    w.key("name").value(p.name);
    w.key("steps").value(p.steps);
    w.key("alpha_us").value(rounded(p.alpha_us, 3));
    w.key("transfer_us").value(rounded(p.transfer_us, 3));
    w.key("latency_us").value(rounded(p.latency_us, 3));
    w.key("time_us").value(rounded(p.time_us, 3));
    w.key("unpipelined_us").value(rounded(p.unpipelined_us, 3));
    w.key("saved_us").value(rounded(p.saved_us, 3));
    w.end_object();
  }
  w.end_array();
  w.key("algbw_gbps").value(rounded(r.algbw_gbps, 3));
  w.key("busbw_gbps").value(rounded(r.busbw_gbps, 3));
  w.key("lower_bound_us").value(rounded(r.lower_bound_us, 3));
  w.key("lower_bound_reason").value(r.lower_bound_reason);
  w.key("efficiency").value(rounded(simulate_efficiency(r), 6));
  w.key("max_link_utilization").value(rounded(r.max_link_utilization, 6));
  w.key("max_link");
  if (r.max_link.valid()) {
    w.begin_object();
    w.key("src").value(f.node_name(f.src(r.max_link)));
    w.key("dst").value(f.node_name(f.dst(r.max_link)));
    w.key("tier").value(detail::simulate_tier_name(f.tier(r.max_link)));
    w.end_object();
  } else {
    w.null();
  }
  w.key("tiers").begin_array();
  for (const sim::TierUtilization& t : r.tiers) {
    w.begin_object();
    w.key("tier").value(detail::simulate_tier_name(t.tier));
    w.key("links").value(t.links);
    w.key("links_used").value(t.links_used);
    w.key("max_utilization").value(rounded(t.max_utilization, 6));
    w.key("mean_utilization").value(rounded(t.mean_utilization, 6));
    w.key("bytes").value(rounded(t.bytes, 0));
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).line();
}

RAILYARD_LAZY
[[nodiscard]] std::string simulate_text(const topology::Fabric& f,
                                               const sim::CollectiveReport& r) {
  auto gbytes = [](double gbps) { return fixed(gbps_to_gBps(gbps), 1); };
  std::string out;
  str_append(out, "collective  ", collective::collective_name(r.kind), ", ",
             collective::algorithm_name(r.algorithm), ", routing ", simulate_routing_text(r), ", ");
  if (r.routing == sim::Routing::kAdaptive)
    out += "one flow per transfer, ";
  else
    str_append(out, r.qps, r.qps == 1 ? " QP" : " QPs",
               r.routing == sim::Routing::kSteered ? " per connection at most, "
                                                   : " per connection, ");
  str_append(out, r.channels, r.channels == 1 ? " channel" : " channels", "\n");
  str_append(out, "groups      ", r.groups, " x ", r.ranks, r.ranks == 1 ? " rank" : " ranks", ", ",
             format_bytes(r.bytes), " per group (", r.bytes, " bytes), ", r.steps,
             r.steps == 1 ? " step" : " steps", "\n");
  str_append(out, "time        ", fixed(r.time_us, 1), " us simulated (latency ",
             fixed(r.latency_us, 1), " us), ", fixed(r.analytic_us, 1),
             " us analytic\n");
  str_append(out, "bound       ", fixed(r.lower_bound_us, 1), " us",
             r.lower_bound_reason.empty() ? std::string() : str_cat(": ", r.lower_bound_reason),
             "\n");
  str_append(out, "bandwidth   algbw ", fixed(r.algbw_gbps, 1), " Gb/s (",
             gbytes(r.algbw_gbps), " GB/s), busbw ", fixed(r.busbw_gbps, 1), " Gb/s (",
             gbytes(r.busbw_gbps), " GB/s)\n");
  const double eff = simulate_efficiency(r);
  str_append(out, "efficiency  ",
             std::isfinite(eff) ? str_cat(fixed(100 * eff, 1), "% of the lower bound")
                                : std::string("- (nothing to send)"),
             "\n");
  if (r.max_link.valid())
    str_append(out, "hottest     ", f.node_name(f.src(r.max_link)), " -> ",
               f.node_name(f.dst(r.max_link)), " (", detail::simulate_tier_name(f.tier(r.max_link)),
               "): ", fixed(100 * r.max_link_utilization, 1), "% utilized\n");
  else
    out += "hottest     - (no link carried bytes)\n";

  if (!r.phases.empty()) {
    str_append(out, "\n", padded(r.pipelined ? "phase (pipelined)" : "phase (unpipelined)", 28),
               padded("steps", 7, Align::kRight), padded("alpha us", 10, Align::kRight),
               padded("transfer us", 13, Align::kRight), padded("latency us", 12, Align::kRight),
               padded("time us", 11, Align::kRight), padded("saved us", 10, Align::kRight), "\n");
    for (const sim::PhaseTiming& p : r.phases)
      str_append(out, padded(p.name, 28), padded(str_cat(p.steps), 7, Align::kRight),
                 padded(fixed(p.alpha_us, 2), 10, Align::kRight),
                 padded(fixed(p.transfer_us, 1), 13, Align::kRight),
                 padded(fixed(p.latency_us, 1), 12, Align::kRight),
                 padded(fixed(p.time_us, 1), 11, Align::kRight),
                 padded(fixed(p.saved_us, 1), 10, Align::kRight), "\n");
    if (r.phases.size() > 1)
      str_append(out, "phases overlapped in ", r.pieces, r.pieces == 1 ? " piece: " : " pieces: ",
                 fixed(r.overlap_us, 1), " us saved\n");
  }
  str_append(out, "\n", padded("tier", 12), padded("links used", 18, Align::kRight),
             padded("max %", 8, Align::kRight), padded("mean %", 8, Align::kRight), "\n");
  for (const sim::TierUtilization& t : r.tiers)
    str_append(out, padded(std::string(detail::simulate_tier_name(t.tier)), 12),
               padded(str_cat(t.links_used, " / ", t.links), 18, Align::kRight),
               padded(fixed(100 * t.max_utilization, 1), 8, Align::kRight),
               padded(fixed(100 * t.mean_utilization, 1), 8, Align::kRight), "\n");
  return out;
}

}  // namespace railyard::report
