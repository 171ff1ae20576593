// railyard/sim/collective_sim.hpp — a collective on placed ranks: its transfers
// mapped to GPUs and routed through the fabric (ECMP, the path advisor's steered
// QPs, or planned paths as an upper bound), then timed by the analytic model and
// by the max-min fair flow simulator.
//
//   auto cluster = railyard::topology::make_cluster("h100-1024");
//   using railyard::routing::GpuEndpoint;
//   std::vector<std::vector<GpuEndpoint>> groups(1);            // one group, rank order
//   for (int32_t h = 0; h < 128; ++h)
//     for (int32_t g = 0; g < 8; ++g)
//       groups[0].push_back({railyard::HostId{h}, railyard::GpuIndex{g}});
//   railyard::sim::CollectiveSimOptions o;                     // ring, ECMP
//   o.routing = railyard::sim::Routing::kPlanned;              // the bound
//   auto r = railyard::sim::simulate_collective(*cluster, groups,
//       railyard::collective::Collective::kAllReduce, int64_t{64} << 30, o);
//   // r->busbw_gbps ≈ 3,200 Gb/s (8 × 400 Gb/s; nccl-tests shows ≈ 400 GB/s). At
//   // 1 GiB the 2,046 steps (128 KiB blocks, two 64 KiB slices) are held back by
//   // NCCL's slot credits over the 3.85 µs SU-crossing hop: ≈ 1,860 (unpipelined,
//   // --chunk off: ≈ 1,300). r->phases breaks the time down.
//   // r->lower_bound_us, r->max_link_utilization, r->tiers[...], r->link_utilization
//   auto m = railyard::sim::estimate_collective_memory(cluster->descriptor, groups,
//       railyard::collective::Collective::kAllReduce, int64_t{64} << 30, o);  // m->bytes first
//   o.progress.callback = [](int64_t done, int64_t total) { ... };  // distinct steps simulated
//
// Mapping. Group g's rank r runs on GPU groups[g][r]. Every group runs the same
// collective at once (the groups of one parallel dimension in a training step);
// step k of every group starts together. collective_traffic() (traffic.hpp) gives
// each group's steps as phases; a transfer between two GPUs of one host or one
// NVLink domain crosses NVLink; otherwise it goes GPU -> PCIe -> NIC port ->
// network -> NIC port -> PCIe -> GPU (routing/paths.hpp network_crossing), after
// forwarding over NVLink to the GPU on the destination's rail when the rails
// differ and `pxn` is on (NCCL's PXN) or the fabric has no path between the
// rails. On a multi-plane fabric each transfer is split evenly over the planes.
//
// Connections and QPs. The network part of a transfer belongs to a connection
// (source GPU, destination GPU, channel, plane) that keeps its identity for the
// whole collective; its bytes are split evenly over its queue pairs, each one
// flow of the simulator. Routing (docs/models.md#routing):
//   kEcmp     (default; deployable) every QP is hashed at each switch by
//             `switch_hash`, by default UniformRandomHash seeded by `seed`
//             (unknown vendor hashes as independent uniform draws); QP j of
//             connection c uses source port 0xC000 + (c·qps + j) mod 2^14 and
//             destination QP 0x100 + c·qps + j.
//   kSteered  (deployable) what railyard's path advisor (plugin/advisor.hpp)
//             hands a net plugin: routing::advised_plan for the connection with
//             budget `qps` (k = min(qps, usable uplinks) QPs, planned on the
//             healthy fabric, destination QPs from 0x100 + c·qps), under
//             `switch_hash` (default Crc5TupleHash(seed), the advisor's crc32).
//             Each QP's 5-tuple with the advertised source port then goes
//             through the same hash hop by hop (routing::ecmp_paths, with the
//             failures): the path is where the hash sends the port, nothing is
//             assigned. Under a non-steerable model the ports are consecutive
//             and the QPs land where the hash puts them (report: steerable).
//   kAdaptive (deployable on switches that spray per packet or route
//             adaptively: Spectrum-X, UEC) each transfer's network part is one
//             flow split at every hop evenly over the working equal-cost next
//             hops (in proportion to their capacity when degraded): a multipath
//             flow of the simulator (FlowStep::add_multipath) whose link weights
//             are the products of the per-hop fractions, summed over the routes
//             through the link (adaptive_link_weights). QPs play no part (qps is
//             checked, not used); queueing and reordering are not modelled. Its
//             latency is the first route's.
//   kPlanned  (an upper bound, not deployable) an oracle: every QP of every
//             step goes through routing::assign_paths, a centralized
//             assignment minimizing the most loaded link. Nothing railyard
//             ships realizes it; quote it only as a bound.
//
// Time. Each step has a transfer time and a per-hop latency alpha = the slowest
// flow's latency under collective::LatencyModel (cable, switches, NVSwitches,
// each NIC once) + step_overhead_us. Transfer time: the flow simulator
// (flow_sim.hpp), or for `analytic_us` the contention model (collective/cost.hpp:
// the most loaded link). A phase of `repeat` identical steps is simulated once.
// Steps compose into stages (a ring; a tree's up-and-down wavefront; the three
// phases of the hierarchical all-reduce; all-to-all steps) timed by
// collective/pipelining.hpp as NCCL's Simple protocol pipelines them: a ring stage
// by its chunk/slice recurrence, a tree by its busiest link's load plus the
// drain of its last chunk, or its first chunk's chain when that is longer, the hierarchical phases overlapped piece by piece (Q pieces of the data,
// each phase running at least Q loops; Q is the power of two up to S / (g · chunk)
// that gives the shortest time, as NCCL's calcCollChunking shrinks chunks for
// pipeline depth; the busiest link's bytes over all phases bound the overlap;
// CollectiveReport::pieces). All-to-all steps stay alpha + transfer each. With
// `pipeline.enabled` false every step is alpha + transfer and stages run in
// series (the unpipelined model).
// CollectiveReport::phases breaks the time down per stage.
//
// Results follow nccl-tests: algbw = S / time, busbw = algbw × 2(n-1)/n for
// all-reduce and × (n-1)/n otherwise (docs/constants.md#collectives), n = ranks per group.
// Utilization of a link = bytes it carried / (capacity × total time): the
// average over the run (link_utilization). Its peak (link_peak_utilization,
// kept with keep_links) is the busiest step's: per link, the most of any
// distinct step's bytes on it / (capacity × that step's simulated transfer
// time), so a link idle half the run but saturated in its steps reads 100 %
// where the average reads 50 %. Steps are timed without their latency alpha,
// so the peak is the load while data moves; under max-min sharing it is at
// most 1.
//
// Cost: O(segments × flows per step × path length) to build and route, plus the
// simulator; a ring all-reduce is one segment however many steps it has.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "railyard/collective/cost.hpp"
#include "railyard/collective/pipelining.hpp"
#include "railyard/collective/schedule.hpp"
#include "railyard/collective/traffic.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/progress.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/routing/assign.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/paths.hpp"
#include "railyard/routing/spray.hpp"
#include "railyard/sim/aggregate.hpp"
#include "railyard/sim/flow_sim.hpp"
#include "railyard/topology/cluster.hpp"

namespace railyard::sim {

// kEcmp and kSteered are what a cluster runs; kPlanned is an oracle, an upper
// bound on what any deployable routing reaches (see the overview).
enum class Routing : uint8_t { kEcmp, kSteered, kAdaptive, kPlanned };
inline constexpr size_t kRoutingCount = 4;
inline constexpr std::string_view kRoutingNames[kRoutingCount] = {"ecmp", "steered", "adaptive",
                                                                  "planned"};

[[nodiscard]] constexpr std::string_view routing_name(Routing r) {
  return kRoutingNames[static_cast<size_t>(r)];
}
// True for the modes a cluster can run; false for the planned bound.
[[nodiscard]] constexpr bool deployable(Routing r) { return r != Routing::kPlanned; }
// "ecmp", "steered", "adaptive" or "planned"; "spray" is accepted as the old
// name of steered.
RAILYARD_LAZY
[[nodiscard]] StatusOr<Routing> parse_routing(std::string_view text) {
  for (size_t i = 0; i < kRoutingCount; ++i)
    if (text == kRoutingNames[i]) return static_cast<Routing>(i);
  if (text == "spray") return Routing::kSteered;
  return invalid_field("routing", text, "use ecmp, steered, adaptive or planned (an upper bound)");
}

using collective::LatencyModel;  // the one latency model (collective/cost.hpp)

struct CollectiveSimOptions {
  collective::Algorithm algorithm = collective::Algorithm::kRing;
  Routing routing = Routing::kEcmp;
  int32_t qps = 1;          // queue pairs per connection (steered: the advisor's budget), 1..256
  uint64_t seed = 1;        // hash seed (ecmp, steered)
  // The switches' hash. nullptr: UniformRandomHash(seed) under kEcmp (an
  // unknown vendor hash), Crc5TupleHash(seed) under kSteered (the advisor's
  // default crc32 model). A non-steerable model under kSteered leaves the
  // advisor's consecutive ports, and the QPs land where the hash puts them.
  const routing::HashModel* switch_hash = nullptr;
  int32_t channels = 0;     // rings; 0 = one per NIC the group can use (traffic.hpp)
  // Pieces per tree the schedule is simulated in; 0 = automatic (traffic.hpp).
  // A granularity of the simulation: the pipelined tree's time follows NCCL's
  // 512 KiB chunks whatever it is (collective/pipelining.hpp); the unpipelined
  // model moves each piece a step per hop.
  int32_t tree_pieces = 0;
  bool pxn = true;          // forward over NVLink to the destination's rail
  LatencyModel latency;
  collective::PipelineModel pipeline;  // chunking (collective/pipelining.hpp)
  const topology::FailureOverlay* failures = nullptr;
  // Keep per-link bytes and utilization in the report (heat maps).
  bool keep_links = true;
  // Exploit symmetry (exact; docs/models.md#symmetry): flows that differ only in
  // links no other flow uses are simulated as one weighted flow
  // (sim/aggregate.hpp), and adaptive routing on a healthy, evenly wired fabric
  // runs over bundles of equivalent links (detail::AdaptiveBundles). Off: every
  // flow and link as it is (the reference the tests compare with).
  bool aggregate = true;
  // Progress (core/progress.hpp), in distinct steps: (steps simulated, distinct
  // steps of the collective) — CollectiveReport::segments when done; a phase of
  // identical steps counts once. Building the traffic before and the bound
  // after are not counted.
  ProgressHook progress;
};

struct TierUtilization {
  topology::LinkTier tier = topology::LinkTier::kHostLeaf;
  int32_t links = 0;            // directed links of the tier in the fabric
  int32_t links_used = 0;       // that carried bytes
  double max_utilization = 0;   // over used links
  double mean_utilization = 0;  // over used links
  double bytes = 0;             // carried, summed over the tier's links
};

// One stage of the collective's time (see the overview).
struct PhaseTiming {
  std::string name;          // e.g. "ring", "inter-host all-reduce"
  int64_t steps = 0;
  double alpha_us = 0;       // per-hop latency (slowest flow + step overhead)
  double transfer_us = 0;    // simulated transfer time summed over the steps (a pipelined
                             // tree: its busiest link's bytes / capacity)
  double latency_us = 0;     // exposed latency (and fill): time_us - transfer_us
  double time_us = 0;        // the stage alone, pipelined
  double unpipelined_us = 0; // steps · alpha + the steps' transfer times
  double saved_us = 0;       // unpipelined_us - time_us
};

struct CollectiveReport {
  collective::Collective kind = collective::Collective::kAllReduce;
  collective::Algorithm algorithm = collective::Algorithm::kRing;
  Routing routing = Routing::kEcmp;
  int32_t qps = 1;           // the option (steered: budget; a connection uses min(qps, uplinks))
  std::string hash_model;    // the switches' hash (ecmp, steered); empty for planned
  bool steerable = false;    // steered: the hash let the advisor choose ports
  int64_t qp_flows = 0;      // network QP-flows routed over the distinct steps
  int32_t channels = 1;
  int32_t groups = 0;
  int32_t ranks = 0;       // per group
  int64_t bytes = 0;       // S, per group
  int64_t steps = 0;       // steps of the collective
  int64_t segments = 0;    // distinct steps simulated
  int64_t flows = 0;       // simulator flows over the distinct steps
  int64_t events = 0;      // simulator rate recomputations
  // Flows the simulator ran after folding identical ones (sim/aggregate.hpp);
  // equals `flows` when nothing folded.
  int64_t simulated_flows = 0;
  // Adaptive routing simulated over bundles of equivalent links (see
  // AdaptiveBundles; CollectiveSimOptions::aggregate).
  bool bundled = false;
  double time_us = 0;      // simulated
  double analytic_us = 0;  // contention model
  double latency_us = 0;   // exposed latency: the sum over phases of their latency_us
  double overlap_us = 0;   // saved by overlapping phases: sum of phase times - time_us
  bool pipelined = true;   // CollectiveSimOptions::pipeline.enabled
  int64_t pieces = 1;      // hierarchical: Q, the pieces the phases overlap by
  std::vector<PhaseTiming> phases;  // per stage, in order
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  double lower_bound_us = 0;  // bandwidth lower bound (collective/cost.hpp)
  std::string lower_bound_reason;
  double max_link_utilization = 0;
  LinkId max_link;                       // invalid when nothing crossed a link
  std::vector<TierUtilization> tiers;    // every tier of the fabric, bottom up
  std::vector<double> link_bytes;        // per directed link (keep_links)
  std::vector<double> link_utilization;  // per directed link (keep_links): average over the run
  std::vector<double> link_peak_utilization;  // per directed link (keep_links): busiest step
};

namespace detail {

// One step's worth of (group, phase) pairs, repeated `repeat` times.
struct Segment {
  std::vector<std::pair<int32_t, int32_t>> parts;  // (group, phase index)
  int64_t repeat = 0;
};

// Lockstep merge of the groups' run-length-encoded phases.
RAILYARD_LAZY
std::vector<Segment> merge_groups(std::span<const collective::Traffic> traffic) {
  std::vector<Segment> out;
  std::vector<size_t> phase(traffic.size(), 0);
  std::vector<int64_t> left(traffic.size(), 0);
  for (size_t g = 0; g < traffic.size(); ++g)
    if (!traffic[g].phases.empty()) left[g] = traffic[g].phases[0].repeat;
  for (;;) {
    int64_t r = 0;
    Segment seg;
    for (size_t g = 0; g < traffic.size(); ++g) {
      if (phase[g] >= traffic[g].phases.size()) continue;
      seg.parts.push_back({static_cast<int32_t>(g), static_cast<int32_t>(phase[g])});
      r = r == 0 ? left[g] : std::min(r, left[g]);
    }
    if (seg.parts.empty()) return out;
    seg.repeat = r;
    for (const auto& [g, p] : seg.parts) {
      const auto gi = static_cast<size_t>(g);
      left[gi] -= r;
      if (left[gi] == 0 && ++phase[gi] < traffic[gi].phases.size())
        left[gi] = traffic[gi].phases[phase[gi]].repeat;
    }
    out.push_back(std::move(seg));
  }
}

// How a stage's steps compose (collective/pipelining.hpp).
enum class StageRule : uint8_t { kRing, kTree, kSteps };

// A stage of the collective and what the timing accumulates over its steps.
struct Stage {
  std::string name;
  StageRule rule = StageRule::kSteps;
  int64_t steps = 0;
  double block_bytes = 0;  // ring: bytes per rank per step
  double alpha_us = 0;
  double transfer_us = 0;           // simulated
  double transfer_analytic_us = 0;  // contention model
  double latency_sum_us = 0;        // sum of each step's alpha (kSteps; any rule unpipelined)
  // Means over a step's flows (the ring's hops), summed over the steps.
  double mean_alpha_sum_us = 0;  // step overhead included
  double mean_transfer_us = 0;           // simulated
  double mean_transfer_analytic_us = 0;  // each flow alone (a lower bound)
};

// The stages of a group's phases and the stage of each phase (see the overview).
RAILYARD_LAZY
std::pair<std::vector<Stage>, std::vector<int32_t>> plan_stages(const collective::Traffic& t) {
  std::vector<Stage> stages;
  std::vector<int32_t> of_phase(t.phases.size(), 0);
  auto block = [&](size_t p) {
    double b = 0;
    for (const collective::PhaseTransfer& x : t.phases[p].transfers) b = std::max(b, x.bytes);
    return b;
  };
  switch (t.algorithm) {
    case collective::Algorithm::kRing:
      stages.push_back({"ring", StageRule::kRing});
      if (!t.phases.empty()) stages.back().block_bytes = block(0);
      break;
    case collective::Algorithm::kHierarchical: {
      // (g-1, 2(h-1), g-1) steps; g = 1 leaves the middle one, h = 1 the outer two.
      static constexpr std::string_view kThree[3] = {
          "intra-host reduce-scatter", "inter-host all-reduce", "intra-host all-gather"};
      for (size_t p = 0; p < t.phases.size(); ++p) {
        const std::string_view name = t.phases.size() == 3 ? kThree[p]
                                      : t.phases.size() == 2 ? kThree[2 * p]
                                                             : kThree[1];
        stages.push_back({std::string(name), StageRule::kRing});
        stages.back().block_bytes = block(p);
        of_phase[p] = static_cast<int32_t>(p);
      }
      break;
    }
    case collective::Algorithm::kDoubleBinaryTree:
      stages.push_back({"tree reduce+broadcast", StageRule::kTree});
      break;
    default:
      stages.push_back({"all-to-all steps", StageRule::kSteps});
      break;
  }
  return {std::move(stages), std::move(of_phase)};
}

// One network QP-flow waiting for its route.
struct PendingQp {
  size_t crossing = 0;  // index into the step's crossings
  routing::Flow flow;
  uint16_t sport = 0;
  uint32_t dst_qp = 0;
  int64_t connection = 0;
  int32_t qp = 0;
};

// Per-packet adaptive routing from NIC port a to b: every link of every usable
// route with the fraction of the flow it carries. At each hop the flow splits
// over the distinct next hops of the usable routes (those over working links),
// in proportion to the capacity of the link to each; a route's fraction is the
// product of its hops' fractions. Appends (link, weight) pairs to `out`, one per
// link (ascending id); the host links carry 1. Returns the first usable route
// (for_each_route order), or nullopt, appending nothing, when none works.
RAILYARD_LAZY
std::optional<topology::Route> adaptive_link_weights(
    const topology::ClusterDescriptor<>& d, const topology::Fabric& f,
    const topology::FailureOverlay* failures, NicPort a, NicPort b,
    std::vector<std::pair<int32_t, double>>& out) {
  auto capacity = [&](LinkId l) {
    return failures != nullptr ? failures->capacity_gbps(l) : f.capacity_gbps(l);
  };
  std::vector<topology::Route> alive;
  d.for_each_route(a, b, [&](const topology::Route& r) {
    const topology::Path p = f.route_links(a, b, r);
    for (LinkId l : p.view())
      if (!(capacity(l) > 0)) return;
    alive.push_back(r);
  });
  if (alive.empty()) return std::nullopt;
  const topology::Route first_route = alive.front();
  const SwitchIndex la = d.leaf_of(a);
  const SwitchIndex lb = d.leaf_of(b);
  // The link each decision of route r chooses, by level (1: leaf up, spine down;
  // 3: leaf up, spine up, core down, spine down).
  auto decision_link = [&](const topology::Route& r, int level) -> LinkId {
    const bool three = r.top == 3;
    if (level == 0) return f.leaf_uplink(la, r.src_leaf_uplink);
    if (three && level == 1)
      return f.spine_uplink(d.spine_above(la, r.src_leaf_uplink), r.src_spine_uplink);
    if (three && level == 2) {
      const SwitchIndex sb = d.spine_index(d.plane_of_leaf(lb), d.partition_of_leaf(lb),
                                           d.pod_of_leaf(lb), d.spine_of_uplink(la, r.src_leaf_uplink));
      return topology::Fabric::reverse(f.spine_uplink(sb, r.dst_spine_uplink));
    }
    return topology::Fabric::reverse(f.leaf_uplink(lb, r.dst_leaf_uplink));
  };
  auto field = [](const topology::Route& r, int level) {
    const int32_t v[4] = {r.src_leaf_uplink, r.src_spine_uplink, r.dst_spine_uplink,
                          r.dst_leaf_uplink};
    return r.top == 3 ? v[level] : (level == 0 ? v[0] : v[3]);
  };
  const int levels = alive.front().top == 3 ? 4 : alive.front().top == 2 ? 2 : 0;
  std::vector<double> share(alive.size(), 1.0);
  // Runs of routes sharing their earlier decisions; each level sorts a run by
  // its field (stable), splits the run's share over the field's values in
  // proportion to the capacity of the link each value chooses, and splits the
  // run into sub-runs of one value.
  std::vector<std::pair<size_t, size_t>> runs = {{0, alive.size()}}, next;
  std::vector<size_t> order;
  for (int level = 0; level < levels; ++level) {
    next.clear();
    for (auto [begin, end] : runs) {
      order.resize(end - begin);
      for (size_t i = 0; i < order.size(); ++i) order[i] = begin + i;
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        return field(alive[x], level) < field(alive[y], level);
      });
      std::vector<topology::Route> routes(order.size());
      std::vector<double> shares(order.size());
      for (size_t i = 0; i < order.size(); ++i) {
        routes[i] = alive[order[i]];
        shares[i] = share[order[i]];
      }
      std::copy(routes.begin(), routes.end(), alive.begin() + static_cast<std::ptrdiff_t>(begin));
      std::copy(shares.begin(), shares.end(), share.begin() + static_cast<std::ptrdiff_t>(begin));
      const size_t first_sub = next.size();
      double total = 0;
      for (size_t i = begin; i < end;) {
        size_t j = i;
        while (j < end && field(alive[j], level) == field(alive[i], level)) ++j;
        total += capacity(decision_link(alive[i], level));
        next.push_back({i, j});
        i = j;
      }
      for (size_t k = first_sub; k < next.size(); ++k) {
        const double fraction = capacity(decision_link(alive[next[k].first], level)) / total;
        for (size_t i = next[k].first; i < next[k].second; ++i) share[i] *= fraction;
      }
    }
    runs.swap(next);
  }
  const size_t first = out.size();
  for (size_t i = 0; i < alive.size(); ++i) {
    // The path must outlive the loop: view() is a span into it.
    const topology::Path path = f.route_links(a, b, alive[i]);
    for (LinkId l : path.view()) out.push_back({l.value(), share[i]});
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  size_t w = first;
  for (size_t i = first; i < out.size(); ++i) {
    if (w > first && out[w - 1].first == out[i].first)
      out[w - 1].second += out[i].second;
    else
      out[w++] = out[i];
  }
  out.resize(w);
  return first_route;
}

// A flow's links in a fixed buffer (the caller checks the room).
struct SmallLinks {
  std::array<int32_t, 32> v;
  size_t n = 0;
  void push_back(int32_t l) { v[n++] = l; }
  [[nodiscard]] std::span<const int32_t> view() const { return {v.data(), n}; }
};

// Adaptive routing on a healthy, evenly wired fabric, folded by its symmetry:
// a flow split evenly over a leaf's uplinks loads each of them by the same
// fraction of its rate, so the leaf's uplinks behave as one link of their summed
// capacity (a *bundle*) that the flow crosses whole; likewise the uplinks into
// a leaf, every spine-to-core uplink of a (plane, partition, pod), and every
// core-to-spine link into one. Every link of a bundle carries exactly the
// bundle's load / its size at every moment, so max-min sharing over bundles is
// the sharing over the links (exact; docs/models.md#symmetry). A bundle is
// simulated on its first link (its representative) with the summed capacity.
// build() checks the folding against adaptive_link_weights for one leaf pair of
// every pair of (plane, partition, pod) groups (and the latency of the folded
// route against the real first route), and declines on any difference, on
// failures, or on parallel cables the adaptive split would weigh unevenly.
struct AdaptiveBundles {
  bool active = false;
  std::vector<double> caps;        // the simulator's: representatives hold the bundle's sum
  std::vector<int32_t> rep_of;     // per link: its bundle's representative, or -1
  std::vector<int32_t> size_of;    // per representative: links in its bundle
  std::vector<int32_t> group_of_leaf;
  std::vector<int32_t> pod_up_rep;    // per group: a spine-to-core uplink
  std::vector<int32_t> pod_down_rep;  // per group: a core-to-spine link into it
  int32_t pods = 1;

  // Whether the network joins leaves of groups ga and gb: the same plane and
  // partition, and the same pod unless spines have uplinks to cores.
  [[nodiscard]] bool reachable(int32_t ga, int32_t gb) const {
    return ga / pods == gb / pods && (ga == gb || !pod_up_rep.empty());
  }
  // The folded route between two NIC ports (host links included); false when
  // the network does not join them (no flow is added).
  // Out: anything with push_back(int32_t) (at most 6 entries are pushed).
  template <class Out>
  [[nodiscard]] bool route(const topology::ClusterDescriptor<>& d, const topology::Fabric& f, NicPort a,
             NicPort b, Out& out) const {
    const SwitchIndex la = d.leaf_of(a), lb = d.leaf_of(b);
    const int32_t ga = group_of_leaf[static_cast<size_t>(la.value())];
    const int32_t gb = group_of_leaf[static_cast<size_t>(lb.value())];
    if (!reachable(ga, gb)) return false;
    out.push_back(f.host_uplink(a).value());
    if (la != lb) {
      out.push_back(f.leaf_uplink(la, 0).value());
      if (ga != gb) {
        out.push_back(pod_up_rep[static_cast<size_t>(ga)]);
        out.push_back(pod_down_rep[static_cast<size_t>(gb)]);
      }
      out.push_back(topology::Fabric::reverse(f.leaf_uplink(lb, 0)).value());
    }
    out.push_back(topology::Fabric::reverse(f.host_uplink(b)).value());
    return true;
  }

  // Each link of a bundle gets its representative's share (bytes) or value
  // (utilization).
  void spread(std::vector<double>& per_link, bool share) const {
    if (!active) return;
    for (size_t l = 0; l < rep_of.size(); ++l) {
      const int32_t r = rep_of[l];
      if (r < 0 || static_cast<size_t>(r) == l) continue;
      const auto ri = static_cast<size_t>(r);
      per_link[l] = share ? per_link[ri] / size_of[ri] : per_link[ri];
    }
    for (size_t l = 0; l < rep_of.size(); ++l)
      if (share && rep_of[l] == static_cast<int32_t>(l)) per_link[l] /= size_of[l];
  }

  RAILYARD_LAZY
  static AdaptiveBundles build(const topology::ClusterDescriptor<>& d, const topology::Fabric& f,
                               const topology::FailureOverlay* failures,
                               std::span<const double> link_caps, const LatencyModel& latency);
};

template <class RailyardCompiledOnUse>  // RAILYARD_LAZY's, declared in the class
AdaptiveBundles AdaptiveBundles::build(const topology::ClusterDescriptor<>& d,
                                       const topology::Fabric& f,
                                       const topology::FailureOverlay* failures,
                                       std::span<const double> link_caps,
                                       const LatencyModel& latency) {
  AdaptiveBundles b;
  const topology::ClosShape& c = d.shape();
  const int32_t up = c.leaf_up_ports, spine_up = c.spine_up_ports;
  if (failures != nullptr || up < 1 || c.spines_per_pod < 1 || up % c.spines_per_pod != 0 ||
      (spine_up > 0 && (c.cores_per_group < 1 || spine_up % c.cores_per_group != 0)))
    return b;
  b.caps.assign(link_caps.begin(), link_caps.end());
  b.pods = c.pods;
  b.rep_of.assign(link_caps.size(), -1);
  b.size_of.assign(link_caps.size(), 0);
  auto bundle = [&](std::span<const int32_t> members) {
    const auto r = static_cast<size_t>(members.front());
    double sum = 0;
    for (const int32_t l : members) {
      if (link_caps[static_cast<size_t>(l)] != link_caps[r] || b.rep_of[static_cast<size_t>(l)] >= 0)
        return false;
      b.rep_of[static_cast<size_t>(l)] = members.front();
      sum += link_caps[static_cast<size_t>(l)];
    }
    b.caps[r] = sum;
    b.size_of[r] = static_cast<int32_t>(members.size());
    return true;
  };
  const int32_t leaves = static_cast<int32_t>(c.total_leaves());
  const int32_t groups = c.planes * c.partitions * c.pods;
  std::vector<int32_t> members, down;
  b.group_of_leaf.resize(static_cast<size_t>(leaves));
  for (int32_t l = 0; l < leaves; ++l) {
    const SwitchIndex leaf{l};
    b.group_of_leaf[static_cast<size_t>(l)] =
        (d.plane_of_leaf(leaf) * c.partitions + d.partition_of_leaf(leaf)) * c.pods +
        d.pod_of_leaf(leaf);
    members.clear();
    down.clear();
    for (int32_t j = 0; j < up; ++j) {
      members.push_back(f.leaf_uplink(leaf, j).value());
      down.push_back(topology::Fabric::reverse(f.leaf_uplink(leaf, j)).value());
    }
    if (!bundle(members) || !bundle(down)) return AdaptiveBundles{};
  }
  if (spine_up > 0) {
    b.pod_up_rep.resize(static_cast<size_t>(groups));
    b.pod_down_rep.resize(static_cast<size_t>(groups));
    for (int32_t g = 0; g < groups; ++g) {
      const int32_t pod = g % c.pods, partition = g / c.pods % c.partitions,
                    plane = g / c.pods / c.partitions;
      members.clear();
      down.clear();
      for (int32_t s = 0; s < c.spines_per_pod; ++s)
        for (int32_t k = 0; k < spine_up; ++k) {
          const LinkId l = f.spine_uplink(d.spine_index(plane, partition, pod, s), k);
          members.push_back(l.value());
          down.push_back(topology::Fabric::reverse(l).value());
        }
      if (!bundle(members) || !bundle(down)) return AdaptiveBundles{};
      b.pod_up_rep[static_cast<size_t>(g)] = members.front();
      b.pod_down_rep[static_cast<size_t>(g)] = down.front();
    }
  }
  // Check: for a leaf pair of every pair of groups, the adaptive split maps to the
  // folded route with every bundle link at 1/size of the flow, and the folded
  // route's latency is the first real route's.
  std::vector<int32_t> first_leaf(static_cast<size_t>(groups), -1), second_leaf = first_leaf;
  for (int32_t l = 0; l < leaves; ++l) {
    int32_t& a = first_leaf[static_cast<size_t>(b.group_of_leaf[static_cast<size_t>(l)])];
    int32_t& s = second_leaf[static_cast<size_t>(b.group_of_leaf[static_cast<size_t>(l)])];
    if (a < 0) a = l;
    else if (s < 0) s = l;
  }
  // A NIC port under each leaf (the first in host order).
  std::vector<std::optional<NicPort>> port_of_leaf(static_cast<size_t>(leaves));
  for (int32_t h = 0; h < d.hosts(); ++h)
    for (int32_t n = 0; n < d.nics_per_host(); ++n)
      for (int32_t p = 0; p < d.planes(); ++p) {
        const NicPort port{HostId{h}, NicIndex{n}, PlaneId{p}};
        auto& slot = port_of_leaf[static_cast<size_t>(d.leaf_of(port).value())];
        if (!slot) slot = port;
      }
  auto port_cached = [&](int32_t leaf) { return port_of_leaf[static_cast<size_t>(leaf)]; };
  std::vector<std::pair<int32_t, double>> weights;
  std::vector<int32_t> folded, real;
  std::vector<double> seen(link_caps.size(), 0.0);
  // Groups are alike (pods repeat; planes and partitions too): with many, the
  // pairs with group 0 on one side and each group with itself cover every kind.
  for (int32_t ga = 0; ga < groups; ++ga)
    for (int32_t gb = 0; gb < groups; ++gb) {
      if (groups > 16 && ga != 0 && gb != 0 && ga != gb) continue;
      if (!b.reachable(ga, gb)) continue;  // no network path: no flow will ask
      const int32_t la = first_leaf[static_cast<size_t>(ga)];
      const int32_t lb = ga == gb ? second_leaf[static_cast<size_t>(gb)]
                                  : first_leaf[static_cast<size_t>(gb)];
      if (la < 0 || lb < 0) continue;
      const std::optional<NicPort> pa = port_cached(la), pb = port_cached(lb);
      if (!pa || !pb) continue;
      weights.clear();
      const std::optional<topology::Route> r =
          adaptive_link_weights(d, f, nullptr, *pa, *pb, weights);
      if (!r) return AdaptiveBundles{};
      folded.clear();
      if (!b.route(d, f, *pa, *pb, folded)) return AdaptiveBundles{};
      // Sum the adaptive weights per representative: each folded entry must get
      // exactly 1, each member 1/size.
      for (const auto& [l, w] : weights) {
        const int32_t rep = b.rep_of[static_cast<size_t>(l)];
        const int32_t key = rep >= 0 ? rep : l;
        const double expect = rep >= 0 ? 1.0 / b.size_of[static_cast<size_t>(rep)] : 1.0;
        if (std::abs(w - expect) > 1e-9 * expect) return AdaptiveBundles{};
        seen[static_cast<size_t>(key)] += w;
      }
      for (const int32_t l : folded) {
        if (std::abs(seen[static_cast<size_t>(l)] - 1.0) > 1e-9) return AdaptiveBundles{};
        seen[static_cast<size_t>(l)] = 0;
      }
      for (const auto& [l, w] : weights) {
        const int32_t rep = b.rep_of[static_cast<size_t>(l)];
        if (seen[static_cast<size_t>(rep >= 0 ? rep : l)] != 0) return AdaptiveBundles{};
      }
      real.clear();
      const topology::Path first_path = f.route_links(*pa, *pb, *r);  // view() points into it
      for (LinkId l : first_path.view()) real.push_back(l.value());
      if (std::abs(collective::flow_latency_us(f, real, latency) -
                   collective::flow_latency_us(f, folded, latency)) > 1e-9)
        return AdaptiveBundles{};
    }
  b.active = true;
  return b;
}

}  // namespace detail

// Simulates `kind` over S = `bytes` in every group at once (see the overview).
// Errors (InvalidArgument naming the value): no groups, groups of different or
// zero size, a GPU outside the cluster or in two groups, bytes < 1 or > 2^50,
// qps outside [1, 256], an algorithm the collective has no schedule for, or a
// hierarchical/rail-aligned group whose hosts hold different rank counts; and
// the routing errors (a transfer with no working path).
RAILYARD_LAZY
[[nodiscard]] StatusOr<CollectiveReport> simulate_collective(
    const topology::Cluster& cluster, std::span<const std::vector<routing::GpuEndpoint>> groups,
    collective::Collective kind, int64_t bytes, const CollectiveSimOptions& options = {}) {
  const topology::ClusterDescriptor<>& d = cluster.descriptor;
  const topology::Fabric& f = cluster.fabric;
  if (groups.empty() || groups[0].empty())
    return invalid_field("groups", groups.empty() ? "0" : "empty", "at least one rank is required");
  if (bytes < 1 || bytes > collective::kMaxBytes)
    return invalid_field("bytes", str_cat(bytes), "must be in [1, 2^50]");
  if (options.qps < 1 || options.qps > routing::kMaxQpsPerConnection)
    return invalid_field("qps", str_cat(options.qps),
                         str_cat("must be in [1, ", routing::kMaxQpsPerConnection, "]"));
  {
    std::vector<char> used(static_cast<size_t>(d.gpus()), 0);
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].size() != groups[0].size())
        return invalid_field(str_cat("groups[", g, "]"), str_cat(groups[g].size(), " ranks"),
                             str_cat("all groups must have ", groups[0].size()));
      for (const routing::GpuEndpoint& e : groups[g]) {
        if (e.host.value() < 0 || e.host.value() >= d.hosts() || e.gpu.value() < 0 ||
            e.gpu.value() >= d.gpus_per_host())
          return invalid_field("gpu", str_cat(e.host.value(), ":", e.gpu.value()),
                               "is not a GPU of the cluster");
        char& u = used[static_cast<size_t>(f.gpu(e.host, e.gpu).value())];
        if (u)
          return invalid_field("gpu", str_cat(e.host.value(), ":", e.gpu.value()),
                               "appears twice in the groups");
        u = 1;
      }
    }
  }
  const auto n = static_cast<int32_t>(groups[0].size());

  // Each group's phases.
  const bool pairwise_all_to_all = kind == collective::Collective::kAllToAll &&
                                   options.algorithm == collective::Algorithm::kPairwise;
  std::vector<collective::Traffic> traffic;
  traffic.reserve(groups.size());
  std::vector<int32_t> host_of_rank(static_cast<size_t>(n));
  for (const std::vector<routing::GpuEndpoint>& group : groups) {
    for (int32_t r = 0; r < n; ++r)
      host_of_rank[static_cast<size_t>(r)] = group[static_cast<size_t>(r)].host.value();
    collective::TrafficOptions to;
    to.host_of_rank = host_of_rank;
    to.channels = options.channels;
    to.nics_per_host = d.nics_per_host();
    to.tree_pieces = options.tree_pieces;
    if (pairwise_all_to_all) {
      RAILYARD_RETURN_IF_ERROR(collective::check_traffic(kind, options.algorithm, n, bytes, to));
      // Generated step by step in the loop below (n(n-1) transfers stored would
      // be 18 GB on 16,384 GPUs): n-1 phases of one step each.
      collective::Traffic t;
      t.kind = kind;
      t.algorithm = options.algorithm;
      t.ranks = n;
      t.bytes = bytes;
      t.channels = 1;
      t.phases.assign(static_cast<size_t>(n - 1), collective::Phase{});
      traffic.push_back(std::move(t));
      continue;
    }
    RAILYARD_ASSIGN_OR_RETURN(collective::Traffic t, collective::collective_traffic(
                                                         kind, options.algorithm, n, bytes, to));
    traffic.push_back(std::move(t));
  }

  CollectiveReport rep;
  rep.kind = kind;
  rep.algorithm = options.algorithm;
  rep.routing = options.routing;
  rep.qps = options.qps;
  rep.channels = traffic[0].channels;
  rep.groups = static_cast<int32_t>(groups.size());
  rep.ranks = n;
  rep.bytes = bytes;
  rep.steps = traffic[0].steps();
  rep.pipelined = options.pipeline.enabled;
  RAILYARD_RETURN_IF_ERROR(collective::check_pipeline(options.pipeline));
  auto [stages, stage_of_phase] = detail::plan_stages(traffic[0]);

  const std::vector<double> caps = capacities(f, options.failures);
  // What the simulator runs on: the links, or under adaptive routing with
  // aggregation their bundles.
  const detail::AdaptiveBundles bundles =
      options.aggregate && options.routing == Routing::kAdaptive
          ? detail::AdaptiveBundles::build(d, f, options.failures, caps, options.latency)
          : detail::AdaptiveBundles{};
  rep.bundled = bundles.active;
  const std::vector<double>& sim_caps = bundles.active ? bundles.caps : caps;
  FlowSimulator simulator(sim_caps);
  RAILYARD_RETURN_IF_ERROR(simulator.check_capacities());
  std::vector<double> link_bytes(caps.size(), 0.0);
  std::vector<double> scratch;
  // The busiest step's utilization per link, from one step's bytes per link
  // (step_bytes, zeroed again through step_links after each step).
  std::vector<double> peak_util(options.keep_links ? caps.size() : 0, 0.0);
  std::vector<double> step_bytes(options.keep_links ? caps.size() : 0, 0.0);
  std::vector<int32_t> step_links;

  const routing::UniformRandomHash random_hash(options.seed);
  const routing::Crc5TupleHash crc_hash(static_cast<uint32_t>(options.seed));
  const routing::HashModel& switch_hash =
      options.switch_hash != nullptr ? *options.switch_hash
      : options.routing == Routing::kSteered
          ? static_cast<const routing::HashModel&>(crc_hash)
          : static_cast<const routing::HashModel&>(random_hash);
  if (options.routing == Routing::kEcmp || options.routing == Routing::kSteered)
    rep.hash_model = std::string(switch_hash.name());
  rep.steerable = options.routing == Routing::kSteered && switch_hash.steerable();
  const int32_t planes = d.planes();
  const int32_t qps = options.qps;
  // Connection ids (stable for the whole collective) and, under kSteered, the
  // advisor's ports: connection c's QPs are steer_sport/steer_dst_qp
  // [steer_first[c], steer_first[c + 1]).
  std::unordered_map<uint64_t, int64_t> connection_of;
  std::vector<size_t> steer_first = {0};
  std::vector<uint16_t> steer_sport;
  std::vector<uint32_t> steer_dst_qp;
  // Under kAdaptive, connection c's (link, weight) pairs are adaptive_links
  // [adaptive_first[c], adaptive_first[c + 1]) and its first route adaptive_route[c].
  std::vector<size_t> adaptive_first = {0};
  std::vector<std::pair<int32_t, double>> adaptive_links;
  std::vector<topology::Route> adaptive_route;
  std::vector<std::pair<size_t, int64_t>> adaptive_pending;  // (crossing, connection)
  std::vector<double> weights;
  std::vector<double> adaptive_bytes;  // per adaptive_pending entry
  auto connection_id = [&](NodeId a, NodeId b, int32_t channel, int32_t plane) {
    const uint64_t key =
        ((static_cast<uint64_t>(a.value()) << 21 ^ static_cast<uint64_t>(b.value())) << 12) ^
        (static_cast<uint64_t>(channel) << 4) ^ static_cast<uint64_t>(plane);
    auto [it, fresh] = connection_of.try_emplace(key, static_cast<int64_t>(connection_of.size()));
    return std::pair<int64_t, bool>{it->second, fresh};
  };

  std::vector<routing::NetworkCrossing> crossings;
  std::vector<detail::PendingQp> pending;
  std::vector<routing::Flow> qp_flows;
  std::vector<uint16_t> sports;
  std::vector<uint32_t> dst_qps;
  std::vector<topology::Route> routes;
  std::vector<int32_t> links;
  std::vector<collective::PhaseTransfer> pairwise_step;
  routing::NetworkCrossing crossing;  // the transfer being mapped (storage reused)
  FlowStep step;  // the segment's flows (storage reused from step to step)
  AggregatedStep folded;
  AggregateScratch fold_scratch;
  std::vector<size_t> fold_entry_scratch;  // per class: its first entry in the quotient
  // Per link, what it adds to a flow's latency (collective::flow_latency_us):
  // folded flows must agree on it over their private links.
  std::vector<double> latency_tag;
  std::vector<int32_t> fold_kinds;  // link_kinds(sim_caps, latency_tag)
  if (options.aggregate) {
    latency_tag.resize(static_cast<size_t>(f.link_count()));
    std::vector<int32_t> one(1);
    for (int32_t l = 0; l < f.link_count(); ++l) {
      one[0] = l;
      latency_tag[static_cast<size_t>(l)] = collective::flow_latency_us(f, one, options.latency);
    }
    fold_kinds = link_kinds(sim_caps, latency_tag);
  }

  const std::vector<detail::Segment> segments = detail::merge_groups(traffic);
  ProgressMeter meter(options.progress, static_cast<int64_t>(segments.size()));
  for (const detail::Segment& seg : segments) {
    meter.update(rep.segments);
    step.clear();
    crossings.clear();
    pending.clear();
    adaptive_pending.clear();
    adaptive_bytes.clear();
    // 1. Map transfers to GPUs; NVLink-only ones become flows at once.
    for (const auto& [g, ph] : seg.parts) {
      const std::vector<routing::GpuEndpoint>& group = groups[static_cast<size_t>(g)];
      if (pairwise_all_to_all) {
        // Step k = ph + 1: rank r sends its block for (r + k) mod n.
        pairwise_step.resize(static_cast<size_t>(n));
        for (int32_t r = 0; r < n; ++r)
          pairwise_step[static_cast<size_t>(r)] = {r, static_cast<int32_t>((int64_t{r} + ph + 1) % n),
                                                   0, static_cast<double>(bytes) / n};
      }
      for (const collective::PhaseTransfer& t :
           pairwise_all_to_all
               ? std::span<const collective::PhaseTransfer>(pairwise_step)
               : std::span<const collective::PhaseTransfer>(
                     traffic[static_cast<size_t>(g)].phases[static_cast<size_t>(ph)].transfers)) {
        const routing::GpuEndpoint a = group[static_cast<size_t>(t.src)];
        const routing::GpuEndpoint b = group[static_cast<size_t>(t.dst)];
        if (a == b || t.bytes <= 0) continue;
        for (int32_t p = 0; p < planes; ++p) {
          routing::GpuPathOptions po;
          po.plane = PlaneId{p};
          po.forward_over_nvlink = options.pxn;
          routing::network_crossing_into(d, f, a, b, po, crossing);
          routing::NetworkCrossing& x = crossing;
          if (!x.network) {
            step.add(std::span<const LinkId>(x.prefix), t.bytes);
            break;  // NVLink carries it once, whatever the planes
          }
          if (bundles.active) {
            // One flow over the bundles; no per-connection state is needed. The
            // links go through a fixed buffer: this runs once per transfer of a
            // 16k-GPU all-to-all (268M times), where vector growth checks showed.
            detail::SmallLinks buf;
            if (x.prefix.size() + 7 > buf.v.size())
              return internal_error(str_cat("GPU-side path of ", x.prefix.size(), " links"));
            for (LinkId l : x.prefix) buf.push_back(l.value());
            if (!bundles.route(d, f, x.src, x.dst, buf))
              return failed_precondition_error(str_cat("every path from ", routing::port_name(x.src),
                                                       " to ", routing::port_name(x.dst), " is down"));
            buf.push_back(x.last.value());
            step.add(buf.view(), t.bytes / static_cast<double>(planes));
            continue;
          }
          const auto [cid, fresh] =
              connection_id(f.gpu(a.host, a.gpu), f.gpu(b.host, b.gpu), t.channel, p);
          const auto base_dst_qp = static_cast<uint32_t>((0x100 + cid * qps) & 0xFFFFFF);
          if (options.routing == Routing::kSteered && fresh) {
            // What the advisor hands the net plugin for this connection.
            RAILYARD_ASSIGN_OR_RETURN(
                routing::SprayPlan plan,
                routing::advised_plan(d, f, x.src, x.dst, qps, switch_hash, base_dst_qp));
            for (const routing::QpRoute& q : plan.qp) {
              steer_sport.push_back(q.sport);
              steer_dst_qp.push_back(q.dst_qpn);
            }
            steer_first.push_back(steer_sport.size());
          }
          const size_t xi = crossings.size();
          if (options.routing == Routing::kAdaptive) {
            if (fresh) {
              const std::optional<topology::Route> r = detail::adaptive_link_weights(
                  d, f, options.failures, x.src, x.dst, adaptive_links);
              if (!r)
                return failed_precondition_error(
                    str_cat("every path from ", routing::port_name(x.src), " to ",
                            routing::port_name(x.dst), " is down"));
              adaptive_route.push_back(*r);
              adaptive_first.push_back(adaptive_links.size());
            }
            adaptive_pending.push_back({xi, cid});
            adaptive_bytes.push_back(t.bytes / static_cast<double>(planes));
          } else if (options.routing == Routing::kSteered) {
            const auto c = static_cast<size_t>(cid);
            const size_t k = steer_first[c + 1] - steer_first[c];
            const double per_qp = t.bytes / static_cast<double>(planes) / static_cast<double>(k);
            for (size_t j = 0; j < k; ++j)
              pending.push_back({xi, routing::Flow{x.src, x.dst, per_qp},
                                 steer_sport[steer_first[c] + j], steer_dst_qp[steer_first[c] + j],
                                 cid, static_cast<int32_t>(j)});
          } else {
            const double per_qp =
                t.bytes / static_cast<double>(planes) / static_cast<double>(qps);
            for (int32_t j = 0; j < qps; ++j) {
              const int64_t q = cid * qps + j;
              pending.push_back(
                  {xi, routing::Flow{x.src, x.dst, per_qp},
                   static_cast<uint16_t>(routing::kSportBase + q % routing::kSportCount),
                   (base_dst_qp + static_cast<uint32_t>(j)) & 0xFFFFFF, cid, j});
            }
          }
          crossings.push_back(x);
        }
      }
    }
    // 2. Route the network QP-flows.
    qp_flows.clear();
    for (const detail::PendingQp& q : pending) qp_flows.push_back(q.flow);
    routes.clear();
    switch (options.routing) {
      case Routing::kPlanned: {
        routing::AssignOptions ao;
        ao.exact_search_limit = 0;
        RAILYARD_ASSIGN_OR_RETURN(routing::PathPlan plan,
                                  routing::assign_paths(d, f, qp_flows, options.failures, ao));
        routes = std::move(plan.routes);
        break;
      }
      case Routing::kAdaptive:
        break;  // no QP-flows: one multipath flow per transfer (step 3)
      case Routing::kEcmp:
      case Routing::kSteered: {
        // Every QP's 5-tuple through the switches' hash, hop by hop.
        sports.clear();
        dst_qps.clear();
        for (const detail::PendingQp& q : pending) {
          sports.push_back(q.sport);
          dst_qps.push_back(q.dst_qp);
        }
        RAILYARD_ASSIGN_OR_RETURN(
            routes, routing::ecmp_paths(d, f, qp_flows, switch_hash,
                                        routing::EcmpOptions{sports, dst_qps}, options.failures));
        break;
      }
    }
    rep.qp_flows += static_cast<int64_t>(pending.size());
    // 3. Whole flows: GPU end, network route, GPU end.
    for (size_t i = 0; i < pending.size(); ++i) {
      const routing::NetworkCrossing& x = crossings[pending[i].crossing];
      links.clear();
      for (LinkId l : x.prefix) links.push_back(l.value());
      const topology::Path net = f.route_links(x.src, x.dst, routes[i]);
      for (LinkId l : net.view()) links.push_back(l.value());
      links.push_back(x.last.value());
      step.add(std::span<const int32_t>(links), pending[i].flow.bytes);
    }
    // Adaptive: each transfer one flow over every usable route, by weight; its
    // latency is its first route's.
    const size_t single_path_flows = step.size();
    double alpha = 0;
    double alpha_sum = 0;  // over flows, for the ring rule's mean hop
    for (size_t i = 0; i < adaptive_pending.size(); ++i) {
      const auto [xi, cid] = adaptive_pending[i];
      const routing::NetworkCrossing& x = crossings[xi];
      const auto c = static_cast<size_t>(cid);
      links.clear();
      weights.clear();
      for (LinkId l : x.prefix) links.push_back(l.value());
      for (size_t k = adaptive_first[c]; k < adaptive_first[c + 1]; ++k) {
        links.push_back(adaptive_links[k].first);
        weights.push_back(adaptive_links[k].second);
      }
      links.push_back(x.last.value());
      weights.insert(weights.begin(), x.prefix.size(), 1.0);
      weights.push_back(1.0);
      step.add_multipath(links, weights, adaptive_bytes[i]);
      links.clear();
      for (LinkId l : x.prefix) links.push_back(l.value());
      const topology::Path first_path = f.route_links(x.src, x.dst, adaptive_route[c]);
      for (LinkId l : first_path.view()) links.push_back(l.value());
      links.push_back(x.last.value());
      const double first_route_us = collective::flow_latency_us(f, links, options.latency);
      alpha = std::max(alpha, first_route_us);
      alpha_sum += first_route_us;
    }
    // 4. Time it. Folded, a class's members have equal latencies (same shared
    // links, private ones of equal latency tag): one flow per class is timed,
    // unless multipath flows timed above could share a class with plain ones.
    const bool folded_step =
        options.aggregate && aggregate_step(step, std::span<const int32_t>(fold_kinds), folded,
                                            fold_scratch);
    if (folded_step && single_path_flows == step.size()) {
      for (size_t c = 0; c < folded.classes(); ++c) {
        const double us = collective::flow_latency_us(
            f, step.links(static_cast<size_t>(folded.representative[c])), options.latency);
        alpha = std::max(alpha, us);
        alpha_sum += static_cast<double>(folded.members[c]) * us;
      }
    } else {
      for (size_t i = 0; i < single_path_flows; ++i) {
        const double us = collective::flow_latency_us(f, step.links(i), options.latency);
        alpha = std::max(alpha, us);
        alpha_sum += us;
      }
    }
    alpha += options.latency.step_overhead_us;
    StepResult sr;
    double finish_sum = 0;
    if (folded_step) {
      RAILYARD_ASSIGN_OR_RETURN(sr, simulator.run_step(folded.quotient, 1e-9, rep.segments));
      for (size_t c = 0; c < folded.classes(); ++c)
        finish_sum += static_cast<double>(folded.members[c]) * sr.finish_us[c];
      rep.simulated_flows += static_cast<int64_t>(folded.classes());
    } else {
      RAILYARD_ASSIGN_OR_RETURN(sr, simulator.run_step(step, 1e-9, rep.segments));
      for (double t : sr.finish_us) finish_sum += t;
      rep.simulated_flows += static_cast<int64_t>(step.size());
    }
    // The most loaded link: the quotient's loads are the step's (each shared link
    // its own, each private one its representative's).
    const double beta_analytic =
        folded_step ? collective::contention_us(sim_caps, folded.quotient, scratch)
                    : collective::contention_us(sim_caps, step, scratch);
    // Per-hop means for the ring rule (collective/pipelining.hpp).
    const double flows_here = std::max<double>(1.0, static_cast<double>(step.size()));
    const auto rpt = static_cast<double>(seg.repeat);
    // Every group runs the same phases in lockstep: group 0's phase names the stage.
    detail::Stage& stage = stages[static_cast<size_t>(
        stage_of_phase[static_cast<size_t>(seg.parts.front().second)])];
    stage.steps += seg.repeat;
    stage.alpha_us = std::max(stage.alpha_us, alpha);
    stage.transfer_us += rpt * sr.time_us;
    stage.transfer_analytic_us += rpt * beta_analytic;
    stage.latency_sum_us += rpt * alpha;
    stage.mean_alpha_sum_us += rpt * (alpha_sum / flows_here + options.latency.step_overhead_us);
    stage.mean_transfer_us += rpt * finish_sum / flows_here;
    // A class's members are alone as fast as its representative (same shared
    // links and weights, private links of the same capacity).
    double mean_alone_us = 0;
    if (folded_step) {
      for (size_t c = 0; c < folded.classes(); ++c)
        mean_alone_us += static_cast<double>(folded.members[c]) *
                         collective::flow_alone_us(
                             sim_caps, step, static_cast<size_t>(folded.representative[c]));
      mean_alone_us /= std::max<double>(1.0, static_cast<double>(step.size()));
    } else {
      mean_alone_us = collective::mean_flow_alone_us(sim_caps, step);
    }
    stage.mean_transfer_analytic_us += rpt * mean_alone_us;
    rep.events += sr.events;
    rep.flows += static_cast<int64_t>(step.size());
    ++rep.segments;
    // Bytes per link over the run and, for the peak, in this step (one pass).
    const bool peak = options.keep_links && sr.time_us > 0;
    auto add_shared = [&](int32_t l, double moved) {
      link_bytes[static_cast<size_t>(l)] += rpt * moved;
      if (!peak) return;
      double& b = step_bytes[static_cast<size_t>(l)];
      if (b == 0) step_links.push_back(l);
      b += moved;
    };
    if (folded_step) {
      // A shared link once per class (members × a member's bytes); a private
      // link is crossed by this one entry in the step, so its step bytes are
      // final and its peak is taken at once.
      size_t entry = 0;
      std::vector<size_t>& class_entry = fold_entry_scratch;
      class_entry.assign(folded.classes(), 0);
      for (size_t c = 0; c < folded.classes(); ++c) {
        const auto r = static_cast<size_t>(folded.representative[c]);
        const std::span<const int32_t> ls = step.links(r);
        class_entry[c] = entry;
        const auto m = static_cast<double>(folded.members[c]);
        for (size_t k = 0; k < ls.size(); ++k, ++entry)
          if (folded.shared_entry[entry] != 0) add_shared(ls[k], m * step.bytes(r) * step.weight(r, k));
      }
      for (size_t i = 0; i < step.size(); ++i) {
        const std::span<const int32_t> ls = step.links(i);
        const uint8_t* shared = folded.shared_entry.data() +
                                class_entry[static_cast<size_t>(folded.class_of[i])];
        for (size_t k = 0; k < ls.size(); ++k) {
          if (shared[k] != 0) continue;
          const auto l = static_cast<size_t>(ls[k]);
          const double moved = step.bytes(i) * step.weight(i, k);
          link_bytes[l] += rpt * moved;
          if (peak && sim_caps[l] > 0)
            peak_util[l] =
                std::max(peak_util[l], moved / (sim_caps[l] * kBytesPerUsPerGbps * sr.time_us));
        }
      }
    } else {
      for (size_t i = 0; i < step.size(); ++i) {
        const std::span<const int32_t> ls = step.links(i);
        for (size_t k = 0; k < ls.size(); ++k) add_shared(ls[k], step.bytes(i) * step.weight(i, k));
      }
    }
    if (peak) {
      for (const int32_t l : step_links) {
        const auto li = static_cast<size_t>(l);
        if (sim_caps[li] > 0)
          peak_util[li] = std::max(peak_util[li], step_bytes[li] / (sim_caps[li] * kBytesPerUsPerGbps *
                                                                    sr.time_us));
        step_bytes[li] = 0;
      }
      step_links.clear();
    }
  }

  meter.finish();
  // A bundle's links each carried their share of it, at its utilization.
  bundles.spread(link_bytes, true);
  if (options.keep_links) bundles.spread(peak_util, false);

  // Stages, pipelined (collective/pipelining.hpp).
  {
    const collective::PipelineModel& pm = options.pipeline;
    // The tree's height: its steps are 2H plus the pieces behind the first.
    const int64_t tree_pieces =
        options.tree_pieces > 0 ? options.tree_pieces : collective::auto_tree_pieces(bytes);
    // The tree's busiest link (its bytes over the whole stage) and a chunk on it.
    double tree_busiest_us = 0, tree_chunk_us = 0;
    if (options.algorithm == collective::Algorithm::kDoubleBinaryTree)
      for (size_t l = 0; l < caps.size(); ++l) {
        if (link_bytes[l] <= 0 || caps[l] <= 0) continue;
        const double rate = caps[l] * kBytesPerUsPerGbps;
        if (link_bytes[l] / rate > tree_busiest_us) {
          tree_busiest_us = link_bytes[l] / rate;
          tree_chunk_us = collective::tree_chunk_bytes(static_cast<double>(bytes), pm) / rate;
        }
      }
    auto stage_us = [&](const detail::Stage& s, double transfer, double mean_transfer,
                        int64_t min_loops) {
      if (!pm.enabled) return s.latency_sum_us + transfer;  // each step its own alpha
      switch (s.rule) {
        case detail::StageRule::kRing:
          return collective::ring_stage_us(
              {s.steps, s.block_bytes, transfer, s.alpha_us, mean_transfer,
               s.mean_alpha_sum_us / static_cast<double>(s.steps), min_loops},
              pm);
        case detail::StageRule::kTree:
          return collective::tree_stage_us(
              {s.steps, (s.steps - tree_pieces + 1) / 2,
               collective::tree_chunks(static_cast<double>(bytes), pm), tree_busiest_us,
               tree_chunk_us, s.alpha_us, transfer},
              pm);
        case detail::StageRule::kSteps:
          break;
      }
      return s.latency_sum_us + transfer;
    };
    // Hierarchical phases overlap piece by piece; the busiest link over all
    // phases bounds the overlap.
    int64_t max_pieces = 1;
    double shared_us = 0;
    if (pm.enabled && options.algorithm == collective::Algorithm::kHierarchical) {
      for (int32_t r = 0; r < n; ++r)
        host_of_rank[static_cast<size_t>(r)] = groups[0][static_cast<size_t>(r)].host.value();
      const double g = collective::detail::max_ranks_per_host(host_of_rank);
      max_pieces = std::max<int64_t>(
          1, static_cast<int64_t>(std::floor(static_cast<double>(bytes) / (g * pm.chunk_bytes()))));
      for (size_t l = 0; l < caps.size(); ++l)
        if (link_bytes[l] > 0 && caps[l] > 0)
          shared_us = std::max(shared_us, link_bytes[l] / (caps[l] * kBytesPerUsPerGbps));
    }
    std::vector<double> simulated;
    auto total_us = [&](int64_t pieces, bool analytic) {
      simulated.clear();
      for (const detail::Stage& s : stages)
        if (s.steps > 0)
          simulated.push_back(analytic ? stage_us(s, s.transfer_analytic_us,
                                                  s.mean_transfer_analytic_us, pieces)
                                       : stage_us(s, s.transfer_us, s.mean_transfer_us, pieces));
      return collective::overlapped_us(simulated, shared_us, pieces);
    };
    // The depth Q with the shortest simulated time (ties: the fewest pieces),
    // unless the caller fixed it.
    int64_t pieces = 1;
    if (pm.enabled && pm.pieces > 0 &&
        options.algorithm == collective::Algorithm::kHierarchical) {
      pieces = pm.pieces;
    } else {
      double best = total_us(1, false);
      for (int64_t q = 2; q <= max_pieces; q *= 2)
        if (const double t = total_us(q, false); t < best) best = t, pieces = q;
    }
    rep.pieces = pieces;
    rep.analytic_us = total_us(pieces, true);
    rep.time_us = total_us(pieces, false);
    double serial = 0;
    for (const detail::Stage& s : stages) {
      if (s.steps == 0) continue;
      PhaseTiming p;
      p.name = s.name;
      p.steps = s.steps;
      p.alpha_us = s.alpha_us;
      // A pipelined tree's chunks flow at its busiest link's pace: that is its
      // transfer; the rest is fill and drain.
      p.transfer_us =
          s.rule == detail::StageRule::kTree && pm.enabled ? tree_busiest_us : s.transfer_us;
      p.time_us = stage_us(s, s.transfer_us, s.mean_transfer_us, pieces);
      p.latency_us = p.time_us - p.transfer_us;
      p.unpipelined_us = s.latency_sum_us + s.transfer_us;
      p.saved_us = p.unpipelined_us - p.time_us;
      serial += p.time_us;
      rep.latency_us += p.latency_us;
      rep.phases.push_back(std::move(p));
    }
    rep.overlap_us = serial - rep.time_us;
  }

  // Bandwidths and the bound.
  rep.algbw_gbps = collective::algbw_gbps(bytes, rep.time_us);
  rep.busbw_gbps = collective::busbw_gbps(kind, n, rep.algbw_gbps);
  RAILYARD_ASSIGN_OR_RETURN(
      collective::LowerBound lb,
      collective::bandwidth_lower_bound(cluster, kind, bytes, groups, options.failures));
  rep.lower_bound_us = lb.time_us;
  rep.lower_bound_reason = std::move(lb.reason);

  // Utilization.
  std::array<TierUtilization, topology::kLinkTierCount> tiers{};
  for (int t = 0; t < topology::kLinkTierCount; ++t)
    tiers[static_cast<size_t>(t)].tier = static_cast<topology::LinkTier>(t);
  std::vector<double> util(caps.size(), 0.0);
  for (size_t l = 0; l < caps.size(); ++l) {
    TierUtilization& tu = tiers[static_cast<size_t>(f.tier(LinkId{static_cast<int32_t>(l)}))];
    ++tu.links;
    if (link_bytes[l] <= 0) continue;
    const double denom = caps[l] * kBytesPerUsPerGbps * rep.time_us;
    util[l] = denom > 0 ? link_bytes[l] / denom : 0.0;
    ++tu.links_used;
    tu.bytes += link_bytes[l];
    tu.max_utilization = std::max(tu.max_utilization, util[l]);
    tu.mean_utilization += util[l];
    // Ties (within 1e-9): the higher tier, which says more than the PCIe link
    // feeding it; then the lowest id.
    const double top = rep.max_link_utilization;
    const bool above = util[l] > top * (1 + 1e-9);
    const bool tie = !above && util[l] >= top * (1 - 1e-9) && rep.max_link.valid() &&
                     f.tier(LinkId{static_cast<int32_t>(l)}) > f.tier(rep.max_link);
    if (!rep.max_link.valid() || above || tie) {
      rep.max_link = LinkId{static_cast<int32_t>(l)};
      rep.max_link_utilization = util[l];
    }
  }
  for (TierUtilization& tu : tiers) {
    if (tu.links == 0) continue;
    if (tu.links_used > 0) tu.mean_utilization /= tu.links_used;
    rep.tiers.push_back(tu);
  }
  if (options.keep_links) {
    rep.link_bytes = std::move(link_bytes);
    rep.link_utilization = std::move(util);
    rep.link_peak_utilization = std::move(peak_util);
  }
  return rep;
}

// Memory a simulate_collective() run holds beyond the cluster, estimated before
// it starts (estimate_collective_memory), so that a program can refuse a run
// the machine cannot hold instead of being killed an hour into it.
struct MemoryEstimate {
  int64_t stored_transfers = 0;    // rank-to-rank transfers of every group's phases, held throughout
  int64_t schedule_transfers = 0;  // one group's exact schedule while its phases are built (tree,
                                   // rail_aligned); 0 for the directly generated algorithms
  int64_t step_flows = 0;          // simulator flows of the largest step (every group, QP, plane)
  double bytes = 0;                // the estimate
};

// The constants of the estimate, measured: peak resident memory (getrusage) of
// simulate_collective() on h100-16k-3tier, release build, GCC 12, minus the
// resident memory before the call, over the counts of MemoryEstimate.
//   kBytesPerStoredTransfer: pairwise all-to-all over 4,096 GPUs, 16,773,120
//     stored transfers: 1,094 MiB, 68 B each — the collective::PhaseTransfer
//     (24 B) and, since every transfer of an all-to-all is a connection of its
//     own, its entry in the simulation's connection table.
//   kBytesPerStepFlow: ring all-reduce over all 16,384 GPUs (8 channels), qps 8
//     against qps 1: 245,760 against 131,072 flows per step, 74 against 38 MiB:
//     329 B per flow — the step's FlowStep, the simulator's per-flow arrays,
//     the pending QPs with their network crossings, routes and hash inputs.
//   kBytesPerScheduleTransfer: a collective::Transfer (exact).
// Checked against runs of the other algorithms (docs/models.md#memory): the
// estimate stays within 1.4x of what they take (rail-aligned all-to-all on
// 2,048 GPUs 401 vs 303 MiB, tree all-reduce on 16,384 GPUs 413 vs 301 MiB,
// hierarchical all-reduce on 16,384 GPUs with qps 8 44 vs 53 MiB).
inline constexpr double kBytesPerStoredTransfer = 68;
inline constexpr double kBytesPerScheduleTransfer = sizeof(collective::Transfer);
inline constexpr double kBytesPerStepFlow = 330;

// The estimate for simulate_collective(cluster, groups, kind, bytes, options),
// from the algorithm's construction (collective/traffic.hpp) without building
// it, per group of n ranks on h hosts: ring n·c transfers stored and a step (c
// channels), of which c·h leave a host; hierarchical at most 3n stored, n a
// step; pairwise all-to-all n a step and n(n−1) connection ids (counted as
// stored transfers; none under adaptive routing); rail-aligned all-to-all n(n−1) stored
// the same plus its n² schedule; double binary tree n·pieces stored, 4n·pieces
// scheduled, 4n a step. Times the groups; a step's network transfers times
// planes and QPs (one flow each under adaptive routing), the others once.
// Errors: those of simulate_collective's argument checks (groups, bytes, qps).
RAILYARD_LAZY
[[nodiscard]] StatusOr<MemoryEstimate> estimate_collective_memory(
    const topology::ClusterDescriptor<>& d,
    std::span<const std::vector<routing::GpuEndpoint>> groups, collective::Collective kind,
    int64_t bytes, const CollectiveSimOptions& options = {}) {
  if (groups.empty() || groups[0].empty())
    return invalid_field("groups", groups.empty() ? "0" : "empty", "at least one rank is required");
  if (bytes < 1 || bytes > collective::kMaxBytes)
    return invalid_field("bytes", str_cat(bytes), "must be in [1, 2^50]");
  if (options.qps < 1 || options.qps > routing::kMaxQpsPerConnection)
    return invalid_field("qps", str_cat(options.qps),
                         str_cat("must be in [1, ", routing::kMaxQpsPerConnection, "]"));
  const auto n = static_cast<int64_t>(groups[0].size());
  const auto g = static_cast<int64_t>(groups.size());
  std::vector<int32_t> host_of_rank;
  host_of_rank.reserve(static_cast<size_t>(n));
  for (const routing::GpuEndpoint& x : groups[0]) host_of_rank.push_back(x.host.value());
  std::vector<int32_t> hosts = host_of_rank;
  std::sort(hosts.begin(), hosts.end());
  const auto h = static_cast<int64_t>(std::unique(hosts.begin(), hosts.end()) - hosts.begin());
  MemoryEstimate e;
  int64_t stored = 0;         // transfers of one group's phases
  int64_t step_network = n;   // one group's largest step: transfers that leave a host
  int64_t step_local = 0;     // ... and those that stay on NVLink
  switch (options.algorithm) {
    case collective::Algorithm::kRing: {
      int64_t c = options.channels;
      if (c == 0)
        c = n > 1 && h > 1 ? std::min<int64_t>(collective::detail::max_ranks_per_host(host_of_rank),
                                               d.nics_per_host())
                           : 1;
      c = std::max<int64_t>(c, 1);
      stored = n * c;
      step_network = h > 1 ? c * h : 0;
      step_local = stored - step_network;
      break;
    }
    case collective::Algorithm::kHierarchical:
      stored = 3 * n;
      break;
    case collective::Algorithm::kPairwise:
      // Steps are generated one at a time; what stays is one connection id per
      // ordered pair (each its own connection), which adaptive routing does
      // without.
      stored = options.routing == Routing::kAdaptive ? n : n * (n - 1);
      break;
    case collective::Algorithm::kRailAligned:
      stored = n * (n - 1);
      e.schedule_transfers = n * n;
      break;
    case collective::Algorithm::kDoubleBinaryTree: {
      const int64_t pieces = options.tree_pieces > 0 ? options.tree_pieces
                                                     : collective::auto_tree_pieces(bytes);
      stored = n * pieces;
      e.schedule_transfers = 4 * n * pieces;
      step_network = 4 * n;
      break;
    }
  }
  (void)kind;  // the collectives of one algorithm differ in steps, not in transfers per step
  const int64_t qps = options.routing == Routing::kAdaptive ? 1 : options.qps;
  e.stored_transfers = g * stored;
  e.step_flows = g * (step_network * qps * d.planes() + step_local);
  e.bytes = static_cast<double>(e.stored_transfers) * kBytesPerStoredTransfer +
            static_cast<double>(e.schedule_transfers) * kBytesPerScheduleTransfer +
            static_cast<double>(e.step_flows) * kBytesPerStepFlow;
  return e;
}

// The GPUs of a placed job as simulation groups: every group of parallel
// dimension `dim` (members in rank order, groups ordered by their lowest rank),
// or a single group of all ranks when `dim` is empty.
RAILYARD_LAZY
[[nodiscard]] std::vector<std::vector<routing::GpuEndpoint>> job_groups(
    const placement::JobPlacement& job, std::optional<placement::Dim> dim = std::nullopt) {
  const int64_t world = job.plan.world();
  auto gpu = [&](int64_t rank) {
    const placement::Device dev = job.device(rank);
    return routing::GpuEndpoint{dev.host, dev.gpu};
  };
  std::vector<std::vector<routing::GpuEndpoint>> out;
  if (!dim) {
    out.emplace_back();
    out.back().reserve(static_cast<size_t>(world));
    for (int64_t r = 0; r < world; ++r) out.back().push_back(gpu(r));
    return out;
  }
  const int32_t size = job.plan.size(*dim);
  const int64_t stride = job.plan.stride(*dim);
  for (int64_t r = 0; r < world; ++r) {
    if (job.plan.coords(r)[static_cast<size_t>(*dim)] != 0) continue;
    out.emplace_back();
    out.back().reserve(static_cast<size_t>(size));
    for (int32_t m = 0; m < size; ++m) out.back().push_back(gpu(r + m * stride));
  }
  return out;
}

// The collectives of a training step (placement/plan.hpp).
using placement::step_collectives;
using placement::StepCollective;

}  // namespace railyard::sim
