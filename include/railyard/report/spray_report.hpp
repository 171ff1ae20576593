// railyard/report/spray_report.hpp — a connection's spraying plan as JSON and text
// (what `railyard spray` prints).
//
//   auto plan = railyard::routing::plan_connection(desc, fabric, src, dst, 8, model);
//   std::string json = railyard::report::spray_json(fabric, *plan);
//
// JSON keys: src, dst, model, steered, qps_requested, expected_efficiency,
// expected_uplinks_hit, max_qps_per_uplink, unmet_targets, changed_qps,
// paths[] {path, hops[] (node names, source first), weight, bottleneck_gbps, qps},
// qps[] {qp, path, uplink, udp_sport, flow_label, dst_qpn}.
#pragma once

#include <string>

#include "railyard/core/lazy.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/json.hpp"
#include "railyard/routing/spray.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::report {

namespace detail {
// "host0.nic0.p0 > leaf0 > spine3 > leaf8 > host40.nic0.p0"
RAILYARD_LAZY
std::vector<std::string> route_hops(const topology::Fabric& f,
                                           const routing::SprayPlan& plan,
                                           const topology::Route& route) {
  const topology::Path path = f.route_links(plan.src, plan.dst, route);
  std::vector<std::string> hops;
  hops.push_back(f.node_name(f.src(path.view().front())));
  for (LinkId l : path.view()) hops.push_back(f.node_name(f.dst(l)));
  return hops;
}
RAILYARD_LAZY
double round3(double x) {
  return static_cast<double>(static_cast<int64_t>(x * 1000 + 0.5)) / 1000;
}
RAILYARD_LAZY
std::string hex4(uint32_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(v >> shift) & 15];
  return out;
}
}  // namespace detail

RAILYARD_LAZY
[[nodiscard]] std::string spray_json(const topology::Fabric& f,
                                            const routing::SprayPlan& plan, int indent = 2) {
  JsonWriter w(indent);
  w.begin_object();
  w.key("src").value(routing::port_name(plan.src));
  w.key("dst").value(routing::port_name(plan.dst));
  w.key("model").value(plan.model);
  w.key("steered").value(plan.steered);
  w.key("qps_requested").value(plan.qps);
  w.key("expected_efficiency").value(plan.expected_efficiency);
  w.key("expected_uplinks_hit").value(plan.expected_uplinks_hit);
  w.key("max_qps_per_uplink").value(plan.max_qps_per_uplink);
  w.key("unmet_targets").value(plan.unmet_targets);
  w.key("changed_qps").value(plan.changed_qps);
  w.key("paths").begin_array();
  for (size_t i = 0; i < plan.paths.size(); ++i) {
    const routing::SprayPath& p = plan.paths[i];
    w.begin_object();
    w.key("path").value(static_cast<int64_t>(i));
    w.key("hops").begin_array();
    for (const std::string& hop : detail::route_hops(f, plan, p.route)) w.value(hop);
    w.end_array();
    w.key("weight").value(p.weight);
    w.key("bottleneck_gbps").value(p.bottleneck_gbps);
    w.key("qps").value(p.qps);
    w.end_object();
  }
  w.end_array();
  w.key("qps").begin_array();
  for (size_t i = 0; i < plan.qp.size(); ++i) {
    const routing::QpRoute& q = plan.qp[i];
    w.begin_object();
    w.key("qp").value(static_cast<int64_t>(i));
    w.key("path").value(q.path);
    w.key("uplink").value(q.uplink);
    w.key("udp_sport").value(static_cast<int64_t>(q.sport));
    w.key("flow_label").value(static_cast<int64_t>(q.flow_label));
    w.key("dst_qpn").value(static_cast<int64_t>(q.dst_qpn));
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).line();
}

RAILYARD_LAZY
[[nodiscard]] std::string spray_text(const topology::Fabric& f,
                                            const routing::SprayPlan& plan) {
  std::string out;
  str_append(out, "connection ", routing::port_name(plan.src), " -> ", routing::port_name(plan.dst),
             ": ", plan.paths.size(), " usable paths over ", plan.usable_uplinks(),
             " first-hop uplinks; ", plan.qps, " QPs, model ", plan.model, "\n");
  if (plan.steered)
    str_append(out, "steered: every QP's source port lands on its planned path; at most ",
               plan.max_qps_per_uplink, " QP(s) per uplink\n");
  else
    str_append(out, "not steerable (unknown hash): expected efficiency ",
               detail::round3(plan.expected_efficiency), " of the planned bandwidth, ",
               detail::round3(plan.expected_uplinks_hit), " uplinks hit on average\n");
  if (plan.changed_qps > 0) str_append(out, "replanned: ", plan.changed_qps, " QPs moved\n");
  out += "\n qp  udp_sport  flow_label  path  uplink  hops\n";
  for (size_t i = 0; i < plan.qp.size(); ++i) {
    const routing::QpRoute& q = plan.qp[i];
    std::string hops = "-";
    if (q.path >= 0)
      hops =
          join(detail::route_hops(f, plan, plan.paths[static_cast<size_t>(q.path)].route), " > ");
    std::string qp = str_cat(i);
    str_append(
        out, std::string(qp.size() < 3 ? 3 - qp.size() : 0, ' '), qp, "  ", q.sport, " ",
        detail::hex4(q.sport), "  ", detail::hex4(q.flow_label), "  ",
        q.path < 0 ? std::string("   -")
                   : str_cat(q.path < 10 ? "   " : (q.path < 100 ? "  " : " "), q.path),
        "  ",
        q.uplink < 0 ? std::string("     -") : str_cat(q.uplink < 10 ? "     " : "    ", q.uplink),
        "  ", hops, "\n");
  }
  return out;
}

}  // namespace railyard::report
