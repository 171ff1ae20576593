// railyard/report/traffic_report.hpp — a traffic simulation (sim/traffic_sim.hpp)
// as text, JSON, and a per-flow dump (CSV or JSON).
//
//   auto r = railyard::sim::simulate_traffic(cluster, flows, options);
//   std::string text = railyard::report::traffic_text(flows, *r, options);
//   std::string json = railyard::report::traffic_json(flows, *r, options);
//   std::string csv  = railyard::report::traffic_flows_csv(flows, *r);
//
// Text: flows and simulator flows, routing (with the switches' hash and seed
// for ecmp and steered: "ecmp (seed 1)" under the default random hash,
// "steered (hash crc32, seed 1)", "steered (hash random: not steerable, QPs
// land where it puts them; seed 1)"), the queueing model's parameters,
// FCT mean/p50/p99/max, the ideal (alone) mean and the mean slowdown, the
// makespan. JSON keys: flows, sim_flows, routing, hash_model (ecmp, steered),
// steerable (steered), seed, count_ack, queueing
// {enabled, mtu_bytes, standing_queue_bytes}, fct_us {mean, p50, p99, max},
// mean_ideal_us, mean_slowdown, makespan_us, events. Per-flow dump, one row per
// input flow in input order: flow, src, dst, bytes, start_us, fct_us,
// transfer_us, queue_us, latency_us, ideal_us (JSON: an array of objects with
// those keys). Times are rounded to 3 decimals, so the output is deterministic.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/format.hpp"
#include "railyard/report/json.hpp"
#include "railyard/sim/traffic_sim.hpp"

namespace railyard::report {

namespace detail {
[[nodiscard]] inline std::string endpoint_text(GpuEndpoint e) {
  return str_cat(e.host.value(), ":", e.gpu.value());
}
}  // namespace detail

// The routing as the text report names it (see the overview).
RAILYARD_LAZY
[[nodiscard]] std::string traffic_routing_text(const sim::TrafficReport& r,
                                               const sim::TrafficSimOptions& o) {
  const std::string_view name = sim::traffic_routing_name(r.routing);
  if (r.hash_model.empty()) return std::string(name);
  // ECMP under the default unknown-vendor hash keeps its short form.
  if (r.routing == sim::TrafficRouting::kEcmp && r.hash_model == "random")
    return str_cat(name, " (seed ", o.seed, ")");
  const bool unsteered = r.routing == sim::TrafficRouting::kSteered && !r.steerable;
  return str_cat(name, " (hash ", r.hash_model,
                 unsteered ? ": not steerable, QPs land where it puts them; seed " : ", seed ",
                 o.seed, ")");
}

RAILYARD_LAZY
[[nodiscard]] std::string traffic_text(std::span<const sim::TrafficFlow> flows,
                                       const sim::TrafficReport& r,
                                       const sim::TrafficSimOptions& o) {
  std::string out;
  str_append(out, "traffic: ", flows.size(), " flows (", r.sim_flows, " simulator flows), routing ",
             traffic_routing_text(r, o), "\n");
  if (o.queueing.enabled)
    str_append(out, "queueing: M/D/1 per merged link, mtu ", fixed(o.queueing.mtu_bytes, 0),
               " B, standing queue ", fixed(o.queueing.standing_queue_bytes, 0), " B\n");
  else
    out += "queueing: off (fluid only)\n";
  str_append(out, "fct_us: mean ", fixed(r.mean_fct_us, 3), "  p50 ", fixed(r.p50_fct_us, 3),
             "  p99 ", fixed(r.p99_fct_us, 3), "  max ", fixed(r.max_fct_us, 3),
             o.count_ack ? "  (to the last ACK)" : "", "\n");
  str_append(out, "ideal (alone) mean ", fixed(r.mean_ideal_us, 3), " us, mean slowdown ",
             fixed(r.mean_slowdown, 3), "\n");
  str_append(out, "makespan ", fixed(r.makespan_us, 3), " us, ", r.events, " rate computations\n");
  return out;
}

RAILYARD_LAZY
[[nodiscard]] std::string traffic_json(std::span<const sim::TrafficFlow> flows,
                                       const sim::TrafficReport& r,
                                       const sim::TrafficSimOptions& o, int indent = 2) {
  JsonWriter w(indent);
  w.begin_object();
  w.key("flows").value(static_cast<int64_t>(flows.size()));
  w.key("sim_flows").value(r.sim_flows);
  w.key("routing").value(sim::traffic_routing_name(r.routing));
  if (!r.hash_model.empty()) w.key("hash_model").value(r.hash_model);
  if (r.routing == sim::TrafficRouting::kSteered) w.key("steerable").value(r.steerable);
  w.key("seed").value(static_cast<int64_t>(o.seed));
  w.key("count_ack").value(o.count_ack);
  w.key("queueing").begin_object();
  w.key("enabled").value(o.queueing.enabled);
  w.key("mtu_bytes").value(o.queueing.mtu_bytes);
  w.key("standing_queue_bytes").value(o.queueing.standing_queue_bytes);
  w.end_object();
  w.key("fct_us").begin_object();
  w.key("mean").value(rounded(r.mean_fct_us, 3));
  w.key("p50").value(rounded(r.p50_fct_us, 3));
  w.key("p99").value(rounded(r.p99_fct_us, 3));
  w.key("max").value(rounded(r.max_fct_us, 3));
  w.end_object();
  w.key("mean_ideal_us").value(rounded(r.mean_ideal_us, 3));
  w.key("mean_slowdown").value(rounded(r.mean_slowdown, 6));
  w.key("makespan_us").value(rounded(r.makespan_us, 3));
  w.key("events").value(r.events);
  w.end_object();
  return std::move(w).str() + "\n";
}

RAILYARD_LAZY
[[nodiscard]] std::string traffic_flows_csv(std::span<const sim::TrafficFlow> flows,
                                            const sim::TrafficReport& r) {
  std::string out = "flow,src,dst,bytes,start_us,fct_us,transfer_us,queue_us,latency_us,ideal_us\n";
  for (size_t i = 0; i < flows.size(); ++i) {
    const sim::TrafficFlowResult& x = r.flows[i];
    str_append(out, i, ",", detail::endpoint_text(flows[i].src), ",",
               detail::endpoint_text(flows[i].dst), ",", flows[i].bytes, ",", fixed(x.start_us, 3),
               ",", fixed(x.fct_us, 3), ",", fixed(x.transfer_us, 3), ",", fixed(x.queue_us, 3),
               ",", fixed(x.latency_us, 3), ",", fixed(x.ideal_us, 3), "\n");
  }
  return out;
}

RAILYARD_LAZY
[[nodiscard]] std::string traffic_flows_json(std::span<const sim::TrafficFlow> flows,
                                             const sim::TrafficReport& r) {
  JsonWriter w(0);
  w.begin_array();
  for (size_t i = 0; i < flows.size(); ++i) {
    const sim::TrafficFlowResult& x = r.flows[i];
    w.begin_object();
    w.key("flow").value(static_cast<int64_t>(i));
    w.key("src").value(detail::endpoint_text(flows[i].src));
    w.key("dst").value(detail::endpoint_text(flows[i].dst));
    w.key("bytes").value(flows[i].bytes);
    w.key("start_us").value(rounded(x.start_us, 3));
    w.key("fct_us").value(rounded(x.fct_us, 3));
    w.key("transfer_us").value(rounded(x.transfer_us, 3));
    w.key("queue_us").value(rounded(x.queue_us, 3));
    w.key("latency_us").value(rounded(x.latency_us, 3));
    w.key("ideal_us").value(rounded(x.ideal_us, 3));
    w.end_object();
  }
  w.end_array();
  return std::move(w).str() + "\n";
}

}  // namespace railyard::report
