// railyard/collective/cost.hpp — THE cost model: the latency of a path (alpha,
// LatencyModel), the contention of flows on shared links or resources (beta,
// contention_us), and the bandwidth lower bound of a collective on a fabric. The
// simulator's analytic time (sim/collective_sim.hpp), congestion control's
// round-trip times (cc/derive.hpp) and the NCCL tuning model's bandwidth term and
// fabric latency (tune/model.hpp) are all computed here; nothing else models
// latency or contention.
//
//   double one_way = railyard::collective::network_path_latency_us(3, 40.0, {});  // via spine
//   railyard::collective::LatencyModel m{.switch_ns = 300, .nic_ns = 250};  // a user's constants
//   if (Status s = railyard::collective::check_latency_model(m); !s.ok()) ...  // names the field
//   // cable lengths are the cluster spec's (host_leaf_m, leaf_spine_m, spine_core_m)
//
//   // flows: anything with size(), links(i) (ints) and bytes(i), e.g. sim::FlowStep
//   std::vector<double> scratch;
//   double beta = railyard::collective::contention_us(capacities_gbps, flows, scratch);
//
//   auto cluster = railyard::topology::make_cluster("h100-1024");
//   std::vector<std::vector<railyard::GpuEndpoint>> groups = {...};  // rank order
//   auto lb = railyard::collective::bandwidth_lower_bound(
//       *cluster, railyard::collective::Collective::kAllReduce, int64_t{1} << 30, groups);
//   // lb->time_us, lb->reason (e.g. "domain 3 egress: <bytes> bytes over 3200 Gb/s")
//
// Contention (the beta term). A step's transfers run at once; a link carrying B
// bytes at C Gb/s needs B·8/C ns. The step cannot finish before its most loaded
// link has drained, so the analytic step time is alpha + max over links of
// bytes/capacity. It is exact when that link's flows are not slowed elsewhere,
// and a lower bound on the max-min fair simulation otherwise.
//
// Lower bound. Units nest: each GPU, each NVLink domain (the host on HGX), each
// scalable unit (SU) and each pod. A unit's egress (ingress) capacity is the sum
// of the capacities of the links leaving (entering) it. Bytes that must cross a
// unit's boundary, for a group of n ranks of which m lie in the unit (f = m/n,
// 0 < f < 1), with S as in nccl-tests:
//   all-gather      out f·S (its blocks), in (1-f)·S (everyone else's)
//   reduce-scatter  out (1-f)·S, in f·S
//   all-to-all      out and in m(n-m)/n·S
//   all-reduce      out S and in S (every position needs the unit's
//                   contribution outside or the outside's inside, and the
//                   result back), and over all k units holding ranks at least
//                   2(k-1)·S crossings: each position's reduction tree has k-1
//                   edges between units and its broadcast k-1 more (the
//                   bandwidth-optimality argument of Patarasuk & Yuan, JPDC
//                   2009, applied to units), which bounds the time by
//                   2(k-1)·S / (sum of those units' egress capacities).
// Only links whose both ends can carry the groups' traffic count: NIC ports on
// the rails of the groups' GPUs and the leaves above them (a flow crosses the
// network on its source's or its destination's rail). A GPU's capacity counts
// its PCIe link only when its group reaches beyond its
// NVLink domain (inside a domain traffic always takes NVLink). Groups run at
// once, so the bytes of all groups add up per unit. The bound is
// the largest bytes/capacity over every unit of every level. It assumes what the
// fabric's up/down routing guarantees: no unit relays traffic between two others.
// On a non-blocking HGX fabric a ring all-reduce over every GPU of h hosts runs
// at 2(n-1)/n·S / (8 × 400 Gb/s) against the host-level bound
// 2(h-1)/h·S / (8 × 400 Gb/s).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "railyard/collective/schedule.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/units.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::collective {

// Bytes per µs carried by one Gb/s (core/units.hpp).
inline constexpr double kBytesPerUsPerGbps = gbps_to_bytes_per_us(1.0);

// The latency model (the alpha term), shared by the simulator, congestion
// control and the NCCL tuning model. A path's latency is cable propagation
// (the fabric's per-link latency: 5 ns/m of cable, docs/constants.md#fabric)
// + switch_ns per leaf/spine/core switch crossed + nvswitch_ns per NVLink switch
// + nic_ns per NIC port crossed (once per NIC: the source NIC on the way out,
// the destination NIC on the way in). Switch, NVSwitch and NIC latencies are
// assumptions (cut-through Ethernet switches are specified in the 0.5–1 µs
// range); step_overhead_us is software cost per collective step.
struct LatencyModel {
  double switch_ns = 600;       // per leaf/spine/core switch crossed (assumption)
  double nvswitch_ns = 250;     // per NVLink switch crossed (assumption)
  double nic_ns = 500;          // per NIC port crossed (assumption)
  double step_overhead_us = 0;  // software cost per step
};

// The largest switch, NVSwitch or NIC latency a LatencyModel may hold: above
// 100 µs it is a typo (µs for ns), not a device.
inline constexpr double kMaxDeviceLatencyNs = 100000;

// OK, or InvalidArgument naming the field (switch_ns, nvswitch_ns, nic_ns,
// step_overhead_us) and value outside [0, 100000] ns ([0, 10^6] µs for the
// step overhead); NaN is outside.
RAILYARD_LAZY
[[nodiscard]] Status check_latency_model(const LatencyModel& m) {
  for (auto [name, ns] : {std::pair{"switch_ns", m.switch_ns},
                          std::pair{"nvswitch_ns", m.nvswitch_ns}, std::pair{"nic_ns", m.nic_ns}})
    if (!(ns >= 0 && ns <= kMaxDeviceLatencyNs))
      return invalid_field(name, str_cat(ns), "must be in [0, 100000] ns");
  if (!(m.step_overhead_us >= 0 && m.step_overhead_us <= 1e6))
    return invalid_field("step_overhead_us", str_cat(m.step_overhead_us),
                         "must be in [0, 1000000] us");
  return ok_status();
}

// Latency of one flow's links through the fabric (µs, without the step overhead).
RAILYARD_LAZY
[[nodiscard]] double flow_latency_us(const topology::Fabric& f,
                                            std::span<const int32_t> links,
                                            const LatencyModel& m) {
  double ns = 0;
  for (int32_t l : links) {
    ns += f.latency_ns(LinkId{l});
    switch (f.kind(f.dst(LinkId{l}))) {
      case topology::NodeKind::kLeaf:
      case topology::NodeKind::kSpine:
      case topology::NodeKind::kCore:
        ns += m.switch_ns;
        break;
      case topology::NodeKind::kNvSwitch:
        ns += m.nvswitch_ns;
        break;
      case topology::NodeKind::kNicPort:  // the source NIC, or the destination's on arrival
        ns += m.nic_ns;
        break;
      case topology::NodeKind::kGpu:  // NIC -> GPU: that NIC was counted on arrival
        break;
    }
  }
  return ns / 1000.0;
}

// One-way latency (µs) of a network path NIC to NIC through `switches` switches
// over `cable_m` metres of cable: the closed form of flow_latency_us for a path
// that leaves one NIC and enters another.
[[nodiscard]] constexpr double network_path_latency_us(int32_t switches, double cable_m,
                                                       const LatencyModel& m) {
  return (cable_m * kCableNsPerMetre + switches * m.switch_ns + 2 * m.nic_ns) / 1000.0;
}

// The beta term of one step: the most loaded link's bytes / capacity, in µs.
// `flows` provides size(), links(i) (a range of int32 link ids) and bytes(i),
// and optionally weight(i, k), the fraction of flow i on its k-th link entry.
// `scratch` is resized to capacities.size() and left zeroed (reuse it across
// steps: the cost is then O(links crossed), no allocation).
template <class Flows>
[[nodiscard]] double contention_us(std::span<const double> capacities_gbps, const Flows& flows,
                                   std::vector<double>& scratch) {
  if (scratch.size() != capacities_gbps.size()) scratch.assign(capacities_gbps.size(), 0.0);
  double worst = 0;
  for (size_t i = 0; i < flows.size(); ++i) {
    size_t k = 0;
    for (int32_t l : flows.links(i)) {
      // A multipath flow (sim::FlowStep::add_multipath) carries bytes x weight
      // on each link entry.
      double w = 1.0;
      if constexpr (requires { flows.weight(i, k); }) w = flows.weight(i, k);
      scratch[static_cast<size_t>(l)] += flows.bytes(i) * w;
      ++k;
    }
  }
  for (size_t i = 0; i < flows.size(); ++i)
    for (int32_t l : flows.links(i)) {
      double& b = scratch[static_cast<size_t>(l)];
      if (b > 0) {
        const double cap = capacities_gbps[static_cast<size_t>(l)];
        worst = std::max(worst, cap > 0 ? b / (cap * kBytesPerUsPerGbps)
                                        : std::numeric_limits<double>::infinity());
        b = 0;
      }
    }
  return worst;
}

// The mean over flows of each flow's time alone on its path: its bytes over its
// slowest link (for a multipath flow, the smallest capacity / weight). A lower bound on that flow's time in any sharing of the links
// (so the analytic model stays below the simulation), used by models that
// follow individual hops (collective/pipelining.hpp); 0 for no flows.
// flow_alone_us is one flow's (0 for a flow with no bytes or no links).
template <class Flows>
[[nodiscard]] double flow_alone_us(std::span<const double> capacities_gbps, const Flows& flows,
                                   size_t i) {
  double slowest = std::numeric_limits<double>::infinity();
  bool any = false;
  size_t k = 0;
  for (int32_t l : flows.links(i)) {
    // A multipath flow alone runs at capacity / weight on each link entry.
    double w = 1.0;
    if constexpr (requires { flows.weight(i, k); }) w = flows.weight(i, k);
    ++k;
    if (w <= 0) continue;
    slowest = std::min(slowest, capacities_gbps[static_cast<size_t>(l)] / w);
    any = true;
  }
  if (!any || flows.bytes(i) <= 0) return 0;
  return slowest > 0 ? flows.bytes(i) / (slowest * kBytesPerUsPerGbps)
                     : std::numeric_limits<double>::infinity();
}
template <class Flows>
[[nodiscard]] double mean_flow_alone_us(std::span<const double> capacities_gbps,
                                        const Flows& flows) {
  if (flows.size() == 0) return 0;
  double sum = 0;
  for (size_t i = 0; i < flows.size(); ++i) sum += flow_alone_us(capacities_gbps, flows, i);
  return sum / static_cast<double>(flows.size());
}

enum class UnitLevel : uint8_t { kGpu, kDomain, kSu, kPod };
inline constexpr std::string_view kUnitLevelNames[4] = {"gpu", "domain", "su", "pod"};

struct LowerBound {
  double time_us = 0;  // 0 when nothing must cross any unit
  UnitLevel level = UnitLevel::kGpu;
  int32_t unit = -1;   // the binding unit (-1: the all-reduce aggregate of its level)
  std::string reason;  // one line, e.g. "domain 3 egress: 8.59e+09 bytes over 3200 Gb/s"
};

namespace detail {

// Unit id of every fabric node at `level` (-1: in no unit). GPUs and NIC ports
// take their host's unit; switches take the unit of everything below them when
// that is a single unit.
RAILYARD_LAZY
std::vector<int32_t> unit_of_nodes(const topology::Fabric& f, UnitLevel level) {
  const topology::ClusterDescriptor<>& d = f.descriptor();
  std::vector<int32_t> unit(static_cast<size_t>(f.node_count()), -1);
  for (int32_t n = 0; n < f.node_count(); ++n) {
    const topology::NodeKind k = f.kind(NodeId{n});
    if (k != topology::NodeKind::kGpu && k != topology::NodeKind::kNicPort) continue;
    const HostId h{f.owner(NodeId{n})};
    switch (level) {
      case UnitLevel::kGpu:
        unit[static_cast<size_t>(n)] = k == topology::NodeKind::kGpu ? n : -1;
        break;
      case UnitLevel::kDomain:
        unit[static_cast<size_t>(n)] = d.domain_of(h);
        break;
      case UnitLevel::kSu:
        unit[static_cast<size_t>(n)] = d.su_of(h).value();
        break;
      case UnitLevel::kPod:
        unit[static_cast<size_t>(n)] = d.pod_of(h).value();
        break;
    }
  }
  if (level == UnitLevel::kGpu) return unit;
  // Switches bottom up: NVLink switches, leaves, spines, cores. A node inherits
  // when every node below it (over its incoming up links) agrees.
  constexpr int32_t kUnset = -2;
  for (topology::NodeKind kind : {topology::NodeKind::kNvSwitch, topology::NodeKind::kLeaf,
                                  topology::NodeKind::kSpine, topology::NodeKind::kCore}) {
    std::vector<int32_t> seen(static_cast<size_t>(f.node_count()), kUnset);
    for (int32_t l = 0; l < f.link_count(); l += 2) {  // up links: lower -> upper
      const NodeId upper = f.dst(LinkId{l});
      if (f.kind(upper) != kind) continue;
      const int32_t below = unit[static_cast<size_t>(f.src(LinkId{l}).value())];
      int32_t& s = seen[static_cast<size_t>(upper.value())];
      s = (s == kUnset || s == below) ? below : -1;
    }
    for (int32_t n = 0; n < f.node_count(); ++n)
      if (f.kind(NodeId{n}) == kind)
        unit[static_cast<size_t>(n)] =
            seen[static_cast<size_t>(n)] == kUnset ? -1 : seen[static_cast<size_t>(n)];
  }
  return unit;
}

}  // namespace detail

// The bandwidth lower bound (see the overview) of `kind` over S = `bytes`, run at
// once in every group (GPUs in rank order). Capacities come from `failures` when
// given. Errors: an empty group list, groups of different sizes, GPUs outside the
// cluster, bytes < 0.
RAILYARD_LAZY
[[nodiscard]] StatusOr<LowerBound> bandwidth_lower_bound(
    const topology::Cluster& cluster, Collective kind, int64_t bytes,
    std::span<const std::vector<GpuEndpoint>> groups,
    const topology::FailureOverlay* failures = nullptr) {
  const topology::ClusterDescriptor<>& d = cluster.descriptor;
  const topology::Fabric& f = cluster.fabric;
  if (groups.empty()) return invalid_field("groups", "0", "at least one group is required");
  if (bytes < 0) return invalid_field("bytes", str_cat(bytes), "must not be negative");
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].size() != groups[0].size())
      return invalid_field(str_cat("groups[", g, "]"), str_cat(groups[g].size(), " ranks"),
                           str_cat("all groups must have ", groups[0].size()));
    for (const GpuEndpoint& e : groups[g])
      if (e.host.value() < 0 || e.host.value() >= d.hosts() || e.gpu.value() < 0 ||
          e.gpu.value() >= d.gpus_per_host())
        return invalid_field("gpu", str_cat(e.host.value(), ":", e.gpu.value()),
                             "is not a GPU of the cluster");
  }
  const auto n = static_cast<double>(groups[0].size());
  const auto S = static_cast<double>(bytes);
  LowerBound best;
  auto cap_of = [&](LinkId l) {
    return failures ? failures->capacity_gbps(l) : f.capacity_gbps(l);
  };
  // Nodes that can carry the groups' traffic: a flow leaves and enters hosts only
  // through NICs on the rails of its own GPUs (its source's, or with NVLink
  // forwarding its destination's), so other rails' NICs and leaves do not count.
  std::vector<char> usable(static_cast<size_t>(f.node_count()), 1);
  {
    std::vector<char> rail_used(static_cast<size_t>(d.nics_per_host()), 0);
    for (const std::vector<GpuEndpoint>& group : groups)
      for (const GpuEndpoint& e : group)
        rail_used[static_cast<size_t>(d.nic_of_gpu(e.gpu).value())] = 1;
    const int32_t ports_per_host = d.nics_per_host() * d.planes();
    for (int32_t n = 0; n < f.node_count(); ++n) {
      const topology::NodeKind k = f.kind(NodeId{n});
      if (k == topology::NodeKind::kNicPort) {
        const int32_t local = (n - f.nic_port({HostId{0}, NicIndex{0}}).value()) % ports_per_host;
        usable[static_cast<size_t>(n)] = rail_used[static_cast<size_t>(local / d.planes())];
      } else if (k == topology::NodeKind::kLeaf) {
        usable[static_cast<size_t>(n)] = 0;
      }
    }
    for (int32_t l = 0; l < f.link_count(); l += 2)  // a leaf counts when a usable NIC hangs below
      if (f.kind(f.dst(LinkId{l})) == topology::NodeKind::kLeaf &&
          f.kind(f.src(LinkId{l})) == topology::NodeKind::kNicPort &&
          usable[static_cast<size_t>(f.src(LinkId{l}).value())])
        usable[static_cast<size_t>(f.dst(LinkId{l}).value())] = 1;
  }
  for (UnitLevel level : {UnitLevel::kGpu, UnitLevel::kDomain, UnitLevel::kSu, UnitLevel::kPod}) {
    const std::vector<int32_t> unit = detail::unit_of_nodes(f, level);
    int32_t units = 0;
    for (int32_t u : unit) units = std::max(units, u + 1);
    std::vector<double> out_cap(static_cast<size_t>(units), 0.0);
    std::vector<double> in_cap(static_cast<size_t>(units), 0.0);
    for (int32_t l = 0; l < f.link_count(); ++l) {
      const int32_t a = unit[static_cast<size_t>(f.src(LinkId{l}).value())];
      const int32_t b = unit[static_cast<size_t>(f.dst(LinkId{l}).value())];
      if (a == b) continue;
      const bool carries = usable[static_cast<size_t>(f.src(LinkId{l}).value())] &&
                           usable[static_cast<size_t>(f.dst(LinkId{l}).value())];
      if (!carries) continue;
      if (a >= 0) out_cap[static_cast<size_t>(a)] += cap_of(LinkId{l});
      if (b >= 0) in_cap[static_cast<size_t>(b)] += cap_of(LinkId{l});
    }
    if (level == UnitLevel::kGpu) {
      // Traffic between GPUs of one NVLink domain never takes PCIe (paths.hpp),
      // so a GPU whose group stays inside its domain has only its NVLink links.
      for (const std::vector<GpuEndpoint>& group : groups) {
        const bool spans = std::any_of(group.begin(), group.end(), [&](const auto& e) {
          return d.domain_of(e.host) != d.domain_of(group.front().host);
        });
        if (spans) continue;
        for (const GpuEndpoint& e : group) {
          const NodeId gpu = f.gpu(e.host, e.gpu);
          for (LinkId l : f.out_links(gpu)) {
            // (skip PCIe links the rail filter already left out)
            if (f.tier(l) != topology::LinkTier::kPcie ||
                !usable[static_cast<size_t>(f.dst(l).value())])
              continue;
            out_cap[static_cast<size_t>(gpu.value())] -= cap_of(l);
            in_cap[static_cast<size_t>(gpu.value())] -= cap_of(topology::Fabric::reverse(l));
          }
        }
      }
    }
    std::vector<double> out_need(static_cast<size_t>(units), 0.0);
    std::vector<double> in_need(static_cast<size_t>(units), 0.0);
    std::vector<char> holds(static_cast<size_t>(units), 0);
    double crossings = 0;  // all-reduce: 2(k-1)·S summed over groups
    std::vector<int32_t> count(static_cast<size_t>(units), 0);
    std::vector<int32_t> touched;
    for (const std::vector<GpuEndpoint>& group : groups) {
      touched.clear();
      for (const GpuEndpoint& e : group) {
        const int32_t u = unit[static_cast<size_t>(f.gpu(e.host, e.gpu).value())];
        if (count[static_cast<size_t>(u)]++ == 0) touched.push_back(u);
      }
      for (int32_t u : touched) {
        const double m = count[static_cast<size_t>(u)];
        const double frac = m / n;
        holds[static_cast<size_t>(u)] = 1;
        if (touched.size() > 1) {
          double out = 0, in = 0;
          switch (kind) {
            case Collective::kAllGather:
              out = frac * S, in = (1 - frac) * S;
              break;
            case Collective::kReduceScatter:
              out = (1 - frac) * S, in = frac * S;
              break;
            case Collective::kAllToAll:
              out = in = m * (n - m) / n * S;
              break;
            case Collective::kAllReduce:
              out = in = S;
              break;
          }
          out_need[static_cast<size_t>(u)] += out;
          in_need[static_cast<size_t>(u)] += in;
        }
        count[static_cast<size_t>(u)] = 0;
      }
      if (kind == Collective::kAllReduce)
        crossings += 2.0 * static_cast<double>(touched.size() - 1) * S;
    }
    auto consider = [&](double need, double cap, int32_t u, std::string_view what) {
      if (need <= 0) return;
      const double t =
          cap > 0 ? need / (cap * kBytesPerUsPerGbps) : std::numeric_limits<double>::infinity();
      if (t > best.time_us) {
        best.time_us = t;
        best.level = level;
        best.unit = u;
        best.reason = u >= 0 ? str_cat(kUnitLevelNames[static_cast<int>(level)], " ", u, " ", what,
                                       ": ", need, " bytes over ", cap, " Gb/s")
                             : str_cat(kUnitLevelNames[static_cast<int>(level)], " level ", what,
                                       ": ", need, " bytes over ", cap, " Gb/s");
      }
    };
    double holding_cap = 0;
    for (int32_t u = 0; u < units; ++u) {
      consider(out_need[static_cast<size_t>(u)], out_cap[static_cast<size_t>(u)], u, "egress");
      consider(in_need[static_cast<size_t>(u)], in_cap[static_cast<size_t>(u)], u, "ingress");
      if (holds[static_cast<size_t>(u)]) holding_cap += out_cap[static_cast<size_t>(u)];
    }
    consider(crossings, holding_cap, -1, "all-reduce crossings 2(k-1)S");
  }
  return best;
}

}  // namespace railyard::collective
