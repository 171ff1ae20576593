// railyard/placement/ordering.hpp — which GPU is rank r: rank orderings that keep
// heavy traffic low in the fabric, and the traffic any ordering puts on each tier.
//
//   auto desc =
//       railyard::topology::make_descriptor(*railyard::topology::parse_cluster("h100-1024"));
//   auto plan = railyard::placement::parse_plan("tp=8,pp=4,dp=4");
//   auto hosts = railyard::parse_host_list("hosts", "40-41,8-15,42-47");  // launch order
//   auto ours = railyard::placement::order_ranks(*desc, *plan, *hosts);
//   auto naive = railyard::placement::naive_order(*desc, *plan, *hosts);
//   auto t = railyard::placement::traffic(*desc, *ours);
//   t.bytes_at_or_above(railyard::placement::Tier::kSpine);  // bytes per step crossing a spine
//   ours->plan.order_string();                               // the Megatron order that matches
//
// A placement is a launch order of the job's hosts plus a Megatron order string:
// rank r runs on hosts[r / gpus_per_host], GPU r % gpus_per_host (what torchrun,
// `mpirun --map-by seq` and Megatron do with a node list), and the order string
// says which parallel coordinates rank r has. railyard chooses both:
// * hosts grouped by pod, SU, leaf (ToR designs) and NVLink domain, biggest
//   groups first, so consecutive ranks stay low in the tree and every
//   data-parallel ring walks each SU once, in one pass (the hosts' given order is
//   tried too, so railyard is never worse than the naive numbering);
// * the order string that minimizes bytes per step above each tier —
//   lexicographically: core first, then spine, then leaf (the user's order wins
//   ties). TP is always innermost (it must stay inside an NVLink domain); the
//   other dimensions are tried in every order when the job is small enough
//   (world * orders <= 2^21) and, above that, heaviest-first plus the user's.
//
// Traffic model (per step; "bytes" are what ranks send): a group of dimension d
// has the ranks that differ only in d and runs the step collective of d
// (plan.hpp: step_collective) over S = bytes(d); what each member sends to each
// peer is that collective's per-peer volume (collective::peer_volumes, the
// closed form of the simulator's phases): ring all-reduce 2(n-1)/n·S to the
// next member, ring all-gather (n-1)/n·S, pairwise all-to-all S/n to every
// other. PP: stage k sends bytes(pp) to stages k-1 and k+1. A transfer's tier is
// where its two GPUs meet: NVLink inside a host or NVLink domain; leaf inside an
// SU (rail designs: NCCL's PXN forwards over NVLink to the GPU on the
// destination's rail, so cross-rail traffic in an SU stays on one leaf; that
// NVLink hop is counted in `pxn_bytes`) or under one ToR; spine inside a pod;
// core across pods.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "railyard/collective/traffic.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/fit.hpp"
#include "railyard/placement/layout.hpp"
#include "railyard/placement/plan.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::placement {

// A rank's device: host and GPU index (core/ids.hpp).
using Device = GpuEndpoint;

// A job's hosts in launch order with the plan whose order string numbers ranks.
struct JobPlacement {
  ParallelPlan plan;
  int32_t gpus_per_host = 0;
  std::vector<HostId> hosts;  // node rank i runs on hosts[i]

  [[nodiscard]] Device device(int64_t rank) const {
    return {hosts[static_cast<size_t>(rank / gpus_per_host)],
            GpuIndex{static_cast<int32_t>(rank % gpus_per_host)}};
  }
  [[nodiscard]] std::vector<Device> devices() const {
    std::vector<Device> out;
    out.reserve(static_cast<size_t>(plan.world()));
    for (int64_t r = 0; r < plan.world(); ++r) out.push_back(device(r));
    return out;
  }
};

enum class Tier : uint8_t { kNvlink, kLeaf, kSpine, kCore };
inline constexpr std::array<std::string_view, 4> kTierNames = {"nvlink", "leaf", "spine", "core"};

struct TrafficReport {
  std::array<double, 4> bytes_by_tier{};  // per step, by the highest tier a transfer uses
  double pxn_bytes = 0;                   // NVLink forwarding of cross-rail, same-SU transfers
  // Data-parallel rings (in dp-coordinate order, wrapping): how many hops of
  // each ring change SU. A ring spanning k > 1 SUs crosses at least k times.
  std::vector<int32_t> dp_ring_spine_crossings;
  std::vector<int32_t> dp_ring_sus;  // SUs each ring spans
  bool tp_within_domain = true;      // every TP group inside one NVLink domain

  [[nodiscard]] double bytes(Tier t) const { return bytes_by_tier[static_cast<size_t>(t)]; }
  // Bytes per step that leave the level below `t` (t and everything above it).
  [[nodiscard]] double bytes_at_or_above(Tier t) const {
    double sum = 0;
    for (size_t i = static_cast<size_t>(t); i < bytes_by_tier.size(); ++i) sum += bytes_by_tier[i];
    return sum;
  }
};

namespace detail {
// Where a host sits, precomputed so the traffic loop compares small integers.
struct HostPlace {
  int32_t host, su, pod, leaf, domain;
};
RAILYARD_LAZY
HostPlace host_place(const topology::ClusterDescriptor<>& d, HostId h) {
  return {h.value(), d.su_of(h).value(), d.pod_of(h).value(), d.leaf_of(h, RailId{0}).value(),
          d.domain_of(h)};
}
RAILYARD_LAZY
Tier meeting_tier(const HostPlace& a, const HostPlace& b, bool tor) {
  if (a.host == b.host || a.domain == b.domain) return Tier::kNvlink;
  if (tor ? a.leaf == b.leaf : a.su == b.su) return Tier::kLeaf;
  return a.pod == b.pod ? Tier::kSpine : Tier::kCore;
}

// The traffic model over any rank -> (host place, GPU) lookup. `place(r)` returns
// a HostPlace, `gpu(r)` the GPU index of rank r.
template <class PlaceOf, class GpuOf>
TrafficReport traffic_of(const topology::ClusterDescriptor<>& d, const ParallelPlan& plan,
                         PlaceOf&& place, GpuOf&& gpu) {
  TrafficReport report;
  const bool tor = d.kind() == topology::Kind::kTorFatTree;
  auto send = [&](int64_t from, int64_t to, double bytes) {
    const HostPlace& a = place(from);
    const HostPlace& b = place(to);
    const Tier t = meeting_tier(a, b, tor);
    report.bytes_by_tier[static_cast<size_t>(t)] += bytes;
    if (t == Tier::kLeaf && !tor &&
        d.nic_of_gpu(GpuIndex{gpu(from)}) != d.nic_of_gpu(GpuIndex{gpu(to)}))
      report.pxn_bytes += bytes;
  };
  const Layout ranks = plan.rank_layout();
  // Per-peer volumes of each dimension's step collective; the step collectives
  // are ring and pairwise, which always have them.
  std::array<std::vector<collective::PeerVolume>, kDimCount> volumes;
  for (int di = 0; di < kDimCount; ++di)
    if (const auto step = step_collective(static_cast<Dim>(di)))
      volumes[static_cast<size_t>(di)] =
          collective::peer_volumes(step->kind, step->algorithm, plan.size(static_cast<Dim>(di)),
                                   plan.bytes(static_cast<Dim>(di)))
              .value();
  std::vector<int32_t> sus;
  for (int di = 0; di < kDimCount; ++di) {
    const auto dim = static_cast<Dim>(di);
    const int64_t n = plan.size(dim);
    if (n == 1) continue;
    const double bytes = plan.bytes(dim);
    // The groups of `dim`: member k of group g is firsts(g) + members(k), where
    // members is the group's sub-layout and firsts its complement (layout.hpp).
    const Layout members = group_layout(ranks, di);
    const Layout firsts = group_offsets(ranks, di).value();
    for (int64_t g = 0; g < firsts.size(); ++g) {
      const int64_t first = firsts(g);
      auto member = [&](int64_t k) { return first + members(k); };
      if (const std::optional<StepCollective> step = step_collective(dim)) {
        // The dimension's collective, per peer (collective::peer_volumes).
        for (int64_t k = 0; k < n; ++k)
          for (const collective::PeerVolume& v : volumes[static_cast<size_t>(di)])
            send(member(k), member((k + v.offset) % n), v.bytes);
      } else {  // pp: point to point with the neighbouring stages
        for (int64_t k = 0; k + 1 < n; ++k) {
          send(member(k), member(k + 1), bytes);
          send(member(k + 1), member(k), bytes);
        }
      }
      if (dim == Dim::kDp) {
        int32_t crossings = 0;
        sus.clear();
        for (int64_t k = 0; k < n; ++k) {
          const int32_t su = place(member(k)).su;
          crossings += su != place(member((k + 1) % n)).su;
          sus.push_back(su);
        }
        std::sort(sus.begin(), sus.end());
        report.dp_ring_spine_crossings.push_back(crossings);
        report.dp_ring_sus.push_back(
            static_cast<int32_t>(std::unique(sus.begin(), sus.end()) - sus.begin()));
      }
      if (dim == Dim::kTp) {
        const int32_t domain = place(first).domain;
        for (int64_t k = 1; k < n; ++k)
          if (place(member(k)).domain != domain) report.tp_within_domain = false;
      }
    }
  }
  return report;
}
}  // namespace detail

// The tier where two GPUs meet (see the traffic model above).
RAILYARD_LAZY
[[nodiscard]] Tier meeting_tier(const topology::ClusterDescriptor<>& d, Device a, Device b) {
  return detail::meeting_tier(detail::host_place(d, a.host), detail::host_place(d, b.host),
                              d.kind() == topology::Kind::kTorFatTree);
}

// Traffic of an arbitrary rank -> device map (index = rank).
RAILYARD_LAZY
[[nodiscard]] TrafficReport traffic(const topology::ClusterDescriptor<>& d,
                                    const ParallelPlan& plan,
                                    std::span<const Device> device_of_rank) {
  std::vector<detail::HostPlace> places;
  places.reserve(device_of_rank.size());
  for (const Device& dev : device_of_rank) places.push_back(detail::host_place(d, dev.host));
  return detail::traffic_of(
      d, plan,
      [&](int64_t r) -> const detail::HostPlace& { return places[static_cast<size_t>(r)]; },
      [&](int64_t r) { return device_of_rank[static_cast<size_t>(r)].gpu.value(); });
}

// Traffic of a placement: rank r on hosts[r / gpus_per_host], GPU r % gpus_per_host.
RAILYARD_LAZY
[[nodiscard]] TrafficReport traffic(const topology::ClusterDescriptor<>& d,
                                    const JobPlacement& p) {
  std::vector<detail::HostPlace> places;
  places.reserve(p.hosts.size());
  for (HostId h : p.hosts) places.push_back(detail::host_place(d, h));
  const int64_t g = p.gpus_per_host;
  return detail::traffic_of(
      d, p.plan,
      [&](int64_t r) -> const detail::HostPlace& { return places[static_cast<size_t>(r / g)]; },
      [&](int64_t r) { return static_cast<int32_t>(r % g); });
}

// Two numberings of one job and the traffic each puts on every tier per step:
// what `railyard order` reports (report/order_report.hpp renders it).
struct OrderComparison {
  JobPlacement ours;
  JobPlacement naive;
  TrafficReport ours_traffic;
  TrafficReport naive_traffic;
};

RAILYARD_LAZY
[[nodiscard]] OrderComparison compare_orders(const topology::ClusterDescriptor<>& d,
                                             JobPlacement ours, JobPlacement naive) {
  OrderComparison c{std::move(ours), std::move(naive), {}, {}};
  c.ours_traffic = traffic(d, c.ours);
  c.naive_traffic = traffic(d, c.naive);
  return c;
}

// Checks a job against the cluster and its hosts: the plan fits the cluster
// (fit.hpp: whole hosts, TP inside an NVLink domain), the plan's world equals the
// GPUs of `hosts` (ids in range, none twice; empty `hosts` means the first
// world / gpus_per_host hosts). Returns the host list to use.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<HostId>> job_hosts(const topology::ClusterDescriptor<>& d,
                                                             const ParallelPlan& plan,
                                                             std::span<const HostId> hosts) {
  RAILYARD_RETURN_IF_ERROR(check_plan_fits(d, plan));
  const int64_t gpus_per_host = d.gpus_per_host();
  const int64_t world = plan.world();
  std::vector<HostId> out;
  if (hosts.empty()) {
    for (int32_t h = 0; h < world / gpus_per_host; ++h) out.push_back(HostId{h});
    return out;
  }
  if (static_cast<int64_t>(hosts.size()) * gpus_per_host != world)
    return invalid_field("job", plan.to_string(),
                         str_cat(world, " ranks but the ", hosts.size(), " hosts given hold ",
                                 static_cast<int64_t>(hosts.size()) * gpus_per_host, " GPUs"));
  std::vector<HostId> sorted(hosts.begin(), hosts.end());
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i].value() < 0 || sorted[i].value() >= d.hosts())
      return invalid_field("hosts", str_cat(sorted[i].value()),
                           str_cat("out of range (the cluster has hosts 0..", d.hosts() - 1, ")"));
    if (i > 0 && sorted[i] == sorted[i - 1])
      return invalid_field("hosts", str_cat(sorted[i].value()), "listed twice");
  }
  out.assign(hosts.begin(), hosts.end());
  return out;
}

// Ranks numbered as the user asked: hosts in the order given (host-id order
// when none are given), the plan's own order string.
RAILYARD_LAZY
[[nodiscard]] StatusOr<JobPlacement> naive_order(const topology::ClusterDescriptor<>& d,
                                                       const ParallelPlan& plan,
                                                       std::span<const HostId> hosts = {}) {
  RAILYARD_ASSIGN_OR_RETURN(std::vector<HostId> list, job_hosts(d, plan, hosts));
  return JobPlacement{plan, d.gpus_per_host(), std::move(list)};
}

namespace detail {
// The job's hosts grouped by the fabric, biggest groups first at every level:
// pods by how many of the job's hosts they hold, then SUs, then leaves (ToR
// designs) and NVLink domains, then host id. Contiguous groups keep
// consecutive ranks low in the tree; big groups first keep blocks of ranks
// aligned with them when group sizes are uneven.
RAILYARD_LAZY
std::vector<HostId> topology_host_order(const topology::ClusterDescriptor<>& d,
                                        std::vector<HostId> hosts) {
  using Key = std::array<int32_t, 4>;  // pod, SU, leaf, domain
  auto key = [&](HostId h) {
    return Key{d.pod_of(h).value(), d.su_of(h).value(), d.leaf_of(h, RailId{0}).value(),
               d.domain_of(h)};
  };
  // Job hosts under each prefix of the key (pod; pod+SU; ...).
  std::vector<std::pair<Key, int32_t>> counts;
  auto count_of = [&](Key k, int level) {
    for (int i = level + 1; i < 4; ++i) k[static_cast<size_t>(i)] = -1;
    auto it = std::lower_bound(counts.begin(), counts.end(), std::pair<Key, int32_t>{k, INT32_MIN});
    return it != counts.end() && it->first == k ? it->second : 0;
  };
  for (HostId h : hosts)
    for (int level = 0; level < 4; ++level) {
      Key k = key(h);
      for (int i = level + 1; i < 4; ++i) k[static_cast<size_t>(i)] = -1;
      counts.push_back({k, 1});
    }
  std::sort(counts.begin(), counts.end());
  size_t w = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (w > 0 && counts[w - 1].first == counts[i].first)
      ++counts[w - 1].second;
    else
      counts[w++] = counts[i];
  }
  counts.resize(w);
  // One sort key per host: at each level, bigger groups first, then group id.
  std::vector<std::array<int32_t, 9>> order;
  order.reserve(hosts.size());
  for (HostId h : hosts) {
    const Key k = key(h);
    std::array<int32_t, 9> sort_key{};
    for (int level = 0; level < 4; ++level) {
      sort_key[static_cast<size_t>(2 * level)] = -count_of(k, level);
      sort_key[static_cast<size_t>(2 * level + 1)] = k[static_cast<size_t>(level)];
    }
    sort_key[8] = h.value();
    order.push_back(sort_key);
  }
  std::sort(order.begin(), order.end());
  for (size_t i = 0; i < order.size(); ++i) hosts[i] = HostId{order[i][8]};
  return hosts;
}
}  // namespace detail

// The cost order_ranks() minimizes: bytes at core, then spine, then leaf,
// compared lexicographically (lower is better).
RAILYARD_LAZY
[[nodiscard]] std::array<double, 3> ordering_cost(const TrafficReport& t) {
  return {t.bytes(Tier::kCore), t.bytes(Tier::kSpine), t.bytes(Tier::kLeaf)};
}

// railyard's ordering (see the header comment). Errors as job_hosts().
RAILYARD_LAZY
[[nodiscard]] StatusOr<JobPlacement> order_ranks(const topology::ClusterDescriptor<>& d,
                                                       const ParallelPlan& plan,
                                                       std::span<const HostId> hosts = {}) {
  RAILYARD_ASSIGN_OR_RETURN(const std::vector<HostId> given, job_hosts(d, plan, hosts));
  const std::vector<HostId> grouped = detail::topology_host_order(d, given);
  // Candidate order strings: TP first, then the other dimensions. Dimensions of
  // size 1 do not change the numbering; they keep the user's relative order at
  // the end, so equivalent candidates are not tried twice.
  std::vector<Dim> active, inactive;
  for (Dim dim : plan.order) {
    if (dim == Dim::kTp) continue;
    (plan.size(dim) > 1 ? active : inactive).push_back(dim);
  }
  auto make_order = [&](const std::vector<Dim>& middle) {
    std::array<Dim, kDimCount> order{};
    size_t i = 0;
    order[i++] = Dim::kTp;
    for (Dim dim : middle) order[i++] = dim;
    for (Dim dim : inactive) order[i++] = dim;
    return order;
  };
  std::vector<std::array<Dim, kDimCount>> candidates;
  // The user's exact order first, then with TP moved first, so they win ties.
  candidates.push_back(plan.order);
  if (make_order(active) != plan.order) candidates.push_back(make_order(active));
  int64_t permutations = 1;
  for (size_t k = 2; k <= active.size(); ++k) permutations *= static_cast<int64_t>(k);
  if (plan.world() * permutations <= (int64_t{1} << 21)) {
    std::vector<Dim> perm = active;
    std::sort(perm.begin(), perm.end());
    do candidates.push_back(make_order(perm));
    while (std::next_permutation(perm.begin(), perm.end()));
  } else {
    std::vector<Dim> heavy = active;
    std::stable_sort(heavy.begin(), heavy.end(),
                     [&](Dim a, Dim b) { return plan.bytes(a) > plan.bytes(b); });
    candidates.push_back(make_order(heavy));
  }

  // Every candidate order string on the grouped host order, then on the order
  // the hosts were given in (so the result is never worse than naive_order()).
  // Orders that differ only in where size-1 dimensions sit number ranks alike:
  // keep the first of each.
  std::vector<std::vector<Dim>> seen;
  std::erase_if(candidates, [&](const std::array<Dim, kDimCount>& order) {
    std::vector<Dim> effective;
    for (Dim dim : order)
      if (plan.size(dim) > 1) effective.push_back(dim);
    if (std::find(seen.begin(), seen.end(), effective) != seen.end()) return true;
    seen.push_back(std::move(effective));
    return false;
  });

  JobPlacement best{plan, d.gpus_per_host(), grouped};
  std::array<double, 3> best_cost{};
  bool have_best = false;
  for (const std::vector<HostId>* host_order : {&grouped, &given}) {
    if (host_order == &given && given == grouped) break;
    for (const auto& order : candidates) {
      JobPlacement candidate{plan, d.gpus_per_host(), *host_order};
      candidate.plan.order = order;
      const TrafficReport report = traffic(d, candidate);
      if (!report.tp_within_domain) continue;  // TP must stay inside an NVLink domain
      const std::array<double, 3> cost = ordering_cost(report);
      if (!have_best || cost < best_cost) {
        best = std::move(candidate);
        best_cost = cost;
        have_best = true;
      }
    }
  }
  return best;
}

}  // namespace railyard::placement
