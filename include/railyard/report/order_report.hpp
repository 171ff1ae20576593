// railyard/report/order_report.hpp — a rank ordering as JSON and as a text report
// (what `railyard order` prints): the rank table (text: jobs of up to 64 ranks),
// the traffic each fabric tier
// carries per step, and the same for the naive numbering, side by side.
//
//   auto ours = railyard::placement::order_ranks(desc, plan, hosts);
//   auto naive = railyard::placement::naive_order(desc, plan, hosts);
//   auto both = railyard::placement::compare_orders(desc, *ours, *naive);
//   std::string json = railyard::report::order_json(both);
//
// JSON keys: plan, order_string, hosts[] (launch order), ranks[] {rank, host,
// gpu, tp, cp, ep, dp, pp}, and for "railyard" and "naive": bytes_per_step
// {nvlink, leaf, spine, core}, pxn_bytes, tp_within_domain,
// dp_ring_spine_crossings {rings, min, max, mean}, dp_ring_sus_max.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"
#include "railyard/report/json.hpp"
#include "railyard/placement/ordering.hpp"

namespace railyard::report {

namespace detail {
RAILYARD_LAZY
void write_traffic(JsonWriter& w, const placement::TrafficReport& t) {
  w.begin_object();
  w.key("bytes_per_step").begin_object();
  for (size_t i = 0; i < placement::kTierNames.size(); ++i)
    w.key(placement::kTierNames[i]).value(t.bytes_by_tier[i]);
  w.end_object();
  w.key("pxn_bytes").value(t.pxn_bytes);
  w.key("tp_within_domain").value(t.tp_within_domain);
  const auto& c = t.dp_ring_spine_crossings;
  w.key("dp_ring_spine_crossings").begin_object();
  w.key("rings").value(static_cast<int64_t>(c.size()));
  w.key("min").value(static_cast<int64_t>(c.empty() ? 0 : *std::min_element(c.begin(), c.end())));
  w.key("max").value(static_cast<int64_t>(c.empty() ? 0 : *std::max_element(c.begin(), c.end())));
  double sum = 0;
  for (int32_t x : c) sum += x;
  w.key("mean").value(c.empty() ? 0.0 : sum / static_cast<double>(c.size()));
  w.end_object();
  const auto& s = t.dp_ring_sus;
  w.key("dp_ring_sus_max")
      .value(static_cast<int64_t>(s.empty() ? 0 : *std::max_element(s.begin(), s.end())));
  w.end_object();
}

RAILYARD_LAZY
std::string gib(double bytes) {
  const double v = bytes / static_cast<double>(kGiB);
  std::string s = str_cat(static_cast<double>(static_cast<int64_t>(v * 10 + 0.5)) / 10);
  return s;
}
}  // namespace detail

RAILYARD_LAZY
[[nodiscard]] std::string order_json(const placement::OrderComparison& c, int indent = 2) {
  const placement::JobPlacement& ours = c.ours;
  JsonWriter w(indent);
  w.begin_object();
  w.key("plan").value(ours.plan.to_string());
  w.key("order_string").value(ours.plan.order_string());
  w.key("hosts").begin_array();
  for (HostId h : ours.hosts) w.value(h.value());
  w.end_array();
  w.key("ranks").begin_array();
  for (int64_t r = 0; r < ours.plan.world(); ++r) {
    const placement::Device dev = ours.device(r);
    const auto c = ours.plan.coords(r);
    w.begin_object();
    w.key("rank").value(r);
    w.key("host").value(dev.host.value());
    w.key("gpu").value(dev.gpu.value());
    for (size_t k = 0; k < placement::kDimNames.size(); ++k)
      w.key(placement::kDimNames[k]).value(c[k]);
    w.end_object();
  }
  w.end_array();
  w.key("railyard");
  detail::write_traffic(w, c.ours_traffic);
  w.key("naive");
  detail::write_traffic(w, c.naive_traffic);
  w.end_object();
  return std::move(w).line();
}

RAILYARD_LAZY
[[nodiscard]] std::string order_text(const placement::OrderComparison& c) {
  const placement::JobPlacement& ours = c.ours;
  const placement::JobPlacement& naive = c.naive;
  const placement::TrafficReport& t = c.ours_traffic;
  const placement::TrafficReport& n = c.naive_traffic;
  std::string out;
  str_append(out, "job       ", ours.plan.world(), " ranks on ", ours.hosts.size(), " hosts (",
             format_host_list(ours.hosts), ")\n");
  str_append(out, "numbering Megatron order ", ours.plan.order_string(),
             " (given: ", naive.plan.order_string(), "); rank r on the (r / ", ours.gpus_per_host,
             ")-th host above, GPU r % ", ours.gpus_per_host, "\n\n");
  str_append(out, "GiB per step   railyard     naive\n");
  for (size_t i = 0; i < placement::kTierNames.size(); ++i) {
    std::string name(placement::kTierNames[i]);
    name.resize(12, ' ');
    std::string a = detail::gib(t.bytes_by_tier[i]), b = detail::gib(n.bytes_by_tier[i]);
    str_append(out, "  ", name, std::string(a.size() < 10 ? 10 - a.size() : 0, ' '), a,
               std::string(b.size() < 10 ? 10 - b.size() : 0, ' '), b, "\n");
  }
  auto worst = [](const std::vector<int32_t>& v) {
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  };
  str_append(out, "\ndp rings  ", t.dp_ring_spine_crossings.size(),
             ", spine crossings per ring at most ", worst(t.dp_ring_spine_crossings), " (naive ",
             worst(n.dp_ring_spine_crossings), "); most SUs spanned ", worst(t.dp_ring_sus), "\n");
  str_append(out, "tp        ",
             t.tp_within_domain ? "inside one NVLink domain" : "CROSSES NVLink domains", "\n");
  if (ours.plan.world() <= 64) {
    str_append(out, "\nrank  host  gpu  tp cp ep dp pp\n");
    for (int64_t r = 0; r < ours.plan.world(); ++r) {
      const placement::Device dev = ours.device(r);
      const auto c = ours.plan.coords(r);
      str_append(out, r < 10 ? "   " : (r < 100 ? "  " : " "), r, "  ",
                 dev.host.value() < 10 ? "   " : (dev.host.value() < 100 ? "  " : " "),
                 dev.host.value(), "  ", dev.gpu.value() < 10 ? "  " : " ", dev.gpu.value(), " ");
      for (int32_t x : c) str_append(out, x < 10 ? "  " : " ", x);
      out += '\n';
    }
  }
  return out;
}

}  // namespace railyard::report
