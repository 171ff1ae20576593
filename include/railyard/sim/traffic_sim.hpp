// railyard/sim/traffic_sim.hpp — any traffic matrix on a cluster: flows with
// sizes, start times and queue pairs, routed by ECMP, by the path advisor's
// steered QPs, or by per-packet spraying (adaptive routing), timed by the flow
// simulator with its queueing correction; per-flow completion times and their
// statistics.
//
//   auto cluster = railyard::topology::make_cluster(
//       "rail_fat_tree:hosts=128,gpus_per_host=1,nics_per_host=1,nic_gbps=100,"
//       "hosts_per_su=4,switch_radix=8,tiers=3,sus_per_pod=4");   // a k=8 fat tree
//   auto flows = railyard::sim::permutation_traffic(cluster->descriptor, 2'000'000, 1);
//   // or: auto flows = railyard::sim::parse_traffic(text, cluster->descriptor);
//   // or an all-to-all-v byte matrix: parse_traffic_matrix(text, cluster->descriptor)
//   railyard::sim::TrafficSimOptions o;
//   o.routing = railyard::sim::TrafficRouting::kAdaptive;  // or kSteered, kEcmp
//   auto r = railyard::sim::simulate_traffic(*cluster, *flows, o);
//   // r->mean_fct_us, r->p50_fct_us, r->p99_fct_us, r->max_fct_us, r->flows[i].fct_us
//   // estimate_traffic_memory(cluster->descriptor, *flows, o).bytes: before a big run;
//   // o.progress (core/progress.hpp): QP flows finished / QP flows, while it runs.
//
// Traffic file (parse_traffic): one flow per line, `src,dst,bytes[,start_us][,qps]`.
// Blank lines and lines starting with '#' are skipped, and so is a first line
// starting with `src`. An endpoint is `H:G` (host H, GPU G) or `H` (host H's
// GPU 0 — the GPU paired with its first NIC, so on a one-GPU-per-host cluster
// `H` is simply host H). bytes: a size (4096, 2MB, 1MiB; 1 byte .. 2^50);
// start_us: a decimal >= 0 (default 0); qps: 1..256 (default 1). Errors name
// the line and the field: `line 3: bytes=x: expected a size ...`.
//
// Routing (TrafficRouting):
//   kEcmp      every QP is its own simulator flow of bytes/qps, hashed at each
//              switch independently (routing::ecmp_paths under `switch_hash`,
//              by default UniformRandomHash seeded by `seed`: an unknown vendor
//              hash; QP q of the whole matrix has source port
//              0xC000 + q mod 2^14 and destination QP 0x100 + q), as
//              collective_sim.hpp does. One path per QP.
//   kSteered   each flow is one connection between its source GPU's NIC and its
//              destination GPU's NIC (after PXN forwarding, as for ECMP), and
//              its QPs are what railyard's path advisor hands a net plugin for
//              it: routing::advised_plan with budget `qps`, so k = min(qps,
//              usable source-leaf uplinks) QPs (one when both NICs hang off one
//              leaf), destination QPs from 0x100 + q (q = the flow's first QP in
//              the matrix's numbering above), under `switch_hash` (default
//              Crc5TupleHash(seed), the advisor's crc32 model). Each QP carries
//              bytes/k, and its path is where the switches' hash sends its
//              5-tuple with the advised source port, hop by hop
//              (routing::ecmp_paths): nothing is assigned. This is
//              collective_sim.hpp's kSteered with a flow as the connection.
//              Under a non-steerable hash (UniformRandomHash) the advisor can
//              only hand out consecutive ports and the QPs land where the hash
//              puts them: TrafficReport::steerable is false.
//   kAdaptive  per-packet spraying (adaptive routing as Spectrum-X or UEC
//              switches do): each QP is ONE flow (one fair share), split over
//              every up/down route of its NIC pair. The multipath rule: at every
//              switch the flow's packets are split evenly over the equal-cost
//              up-ports (per hop, not per route), so a route's share is the
//              product of 1/(choices) over its up hops (and over parallel
//              down cables); a link's weight is the sum over the routes that
//              cross it. On a regular fat tree that is 1/U on each of U leaf
//              uplinks, 1/(U·Us) on each spine uplink, and 1 on the host links.
// qps > 1 splits a flow's bytes evenly over that many QPs (sub-flows); the flow
// completes when its last QP does.
//
// Time. A flow's completion time (FCT) = fluid transfer time of its last QP
// (flow_sim.hpp: max-min fair sharing, arrivals at start_us) + that QP's
// queueing delay (QueueingModel; on by default here) + its one-way latency
// (collective::LatencyModel over its links: switches, NICs, cables) — and the
// same latency again when `count_ack` (the sender learns of completion from
// the last ACK, as htsim and most packet simulators measure FCT). The ideal
// FCT is the same flow alone in the fabric: bytes over its path's bottleneck
// (min over links of capacity / weight) + latency (× 2 with count_ack).
// Percentiles are nearest-rank: p-th = the ceil(p/100 · n)-th smallest FCT.
//
// Not covered: failures (every cable up), planned paths, collectives (see
// collective_sim.hpp). Cost: routing O(flows × routes per NIC pair × path)
// for kAdaptive; for kSteered one advised_plan per network flow (a search of
// the 2^14 RoCEv2 source ports per QP, stopping at the first that lands where
// the plan wants: the 1,024-flow permutation with 8 QPs on the k=16 fat tree
// adds about 0.01 s in a release build), then ECMP's hashing; then the flow
// simulator (one full water-filling per distinct start time, flow_sim.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/collective/cost.hpp"
#include "railyard/core/csv.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/progress.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/routing/assign.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/paths.hpp"
#include "railyard/routing/spray.hpp"
#include "railyard/sim/flow_sim.hpp"
#include "railyard/topology/cluster.hpp"

namespace railyard::sim {

// kSteered comes last so that the values of the first two stay what they were.
enum class TrafficRouting : uint8_t { kEcmp, kAdaptive, kSteered };
inline constexpr size_t kTrafficRoutingCount = 3;
inline constexpr std::string_view kTrafficRoutingNames[kTrafficRoutingCount] = {
    "ecmp", "adaptive", "steered"};

[[nodiscard]] constexpr std::string_view traffic_routing_name(TrafficRouting r) {
  return kTrafficRoutingNames[static_cast<size_t>(r)];
}
// "ecmp", "steered" or "adaptive" (per-packet spraying). "spray" is refused
// with a hint: for collectives it is the old name of steered routing
// (sim::parse_routing), and per-packet spraying is "adaptive" here, so
// accepting it would give one word two meanings. "planned" is refused: it is
// a collective-only bound.
RAILYARD_LAZY
[[nodiscard]] StatusOr<TrafficRouting> parse_traffic_routing(std::string_view text) {
  for (size_t i = 0; i < kTrafficRoutingCount; ++i)
    if (text == kTrafficRoutingNames[i]) return static_cast<TrafficRouting>(i);
  if (text == "spray")
    return invalid_field("routing", text,
                         "traffic routing is ecmp, steered or adaptive; for per-packet spraying "
                         "use adaptive, for the path advisor's QPs steered (spray is the old "
                         "name of steered for collectives only)");
  return invalid_field("routing", text, "traffic routing is ecmp, steered or adaptive");
}

inline constexpr int32_t kMaxTrafficQps = 256;

struct TrafficFlow {
  GpuEndpoint src;
  GpuEndpoint dst;
  int64_t bytes = 0;
  double start_us = 0.0;
  int32_t qps = 1;
};

struct TrafficSimOptions {
  TrafficRouting routing = TrafficRouting::kEcmp;
  uint64_t seed = 1;  // hash seed (ecmp, steered)
  // The switches' hash (ecmp, steered). nullptr: UniformRandomHash(seed) under
  // kEcmp (an unknown vendor hash), Crc5TupleHash(seed) under kSteered (the
  // advisor's default crc32 model), as collective_sim.hpp chooses. A
  // non-steerable model under kSteered leaves the advisor's consecutive ports.
  const routing::HashModel* switch_hash = nullptr;
  bool pxn = true;    // forward over NVLink to the destination's rail first (as collective_sim)
  collective::LatencyModel latency;
  QueueingModel queueing{.enabled = true};
  bool count_ack = false;  // FCT ends at the last ACK: latency counted twice
  // Progress (core/progress.hpp), in simulator flows: (QP flows finished, QP
  // flows that cross a link), reported as the flow simulator completes them.
  // Routing before the simulation is not counted.
  ProgressHook progress;
};

struct TrafficFlowResult {
  double start_us = 0;
  double transfer_us = 0;  // fluid: last QP's finish − start
  double queue_us = 0;     // that QP's queueing delay
  double latency_us = 0;   // one way (× 2 with count_ack)
  double fct_us = 0;       // transfer + queue + latency
  double ideal_us = 0;     // alone in the fabric
  int32_t qps = 0;         // QPs the flow ran on (steered: min(qps, usable uplinks))
};

struct TrafficReport {
  TrafficRouting routing = TrafficRouting::kEcmp;
  std::string hash_model;   // the switches' hash (ecmp, steered); empty for adaptive
  bool steerable = false;   // steered: the hash let the advisor choose ports
  std::vector<TrafficFlowResult> flows;  // in input order
  int64_t sim_flows = 0;                 // QP flows given to the simulator
  int64_t events = 0;
  double mean_fct_us = 0, p50_fct_us = 0, p99_fct_us = 0, max_fct_us = 0;
  double mean_ideal_us = 0;
  double mean_slowdown = 0;  // mean of fct / ideal
  double makespan_us = 0;    // the last completion
  std::vector<double> link_bytes;  // per directed link: Σ bytes · weight of its entries
};

namespace detail {

RAILYARD_LAZY
[[nodiscard]] Status check_endpoint(const topology::ClusterDescriptor<>& d, GpuEndpoint e,
                                    std::string_view field) {
  if (e.host.value() < 0 || e.host.value() >= d.hosts() || e.gpu.value() < 0 ||
      e.gpu.value() >= d.gpus_per_host())
    return invalid_field(field, str_cat(e.host.value(), ":", e.gpu.value()),
                         str_cat("is not a GPU of the cluster (hosts 0..", d.hosts() - 1,
                                 ", GPUs 0..", d.gpus_per_host() - 1, ")"));
  return ok_status();
}

RAILYARD_LAZY
[[nodiscard]] StatusOr<GpuEndpoint> parse_endpoint(std::string_view field, std::string_view text) {
  const size_t colon = text.find(':');
  RAILYARD_ASSIGN_OR_RETURN(int64_t h, parse_int(field, text.substr(0, colon)));
  int64_t g = 0;
  if (colon != std::string_view::npos) {
    auto gpu = parse_int(field, text.substr(colon + 1));
    if (!gpu.ok()) return invalid_field(field, text, "expected HOST or HOST:GPU");
    g = *gpu;
  }
  if (h > (int64_t{1} << 30) || g > (int64_t{1} << 30))
    return invalid_field(field, text, "is not a GPU of the cluster");
  return GpuEndpoint{HostId{static_cast<int32_t>(h)}, GpuIndex{static_cast<int32_t>(g)}};
}

// Fisher–Yates with the generator's raw output (std::shuffle's algorithm is
// not specified, so its order would differ between standard libraries).
RAILYARD_LAZY
void shuffle_ints(std::vector<int64_t>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

RAILYARD_LAZY
[[nodiscard]] GpuEndpoint gpu_of_index(const topology::ClusterDescriptor<>& d, int64_t i) {
  const int64_t g = d.gpus_per_host();
  return {HostId{static_cast<int32_t>(i / g)}, GpuIndex{static_cast<int32_t>(i % g)}};
}

// Per-hop probability of every route in `routes` (for_each_route of one NIC
// pair): hop keys in the order the packet meets them — source leaf uplink,
// source spine uplink, core down cable, destination spine down cable — and at
// each hop an even split over the distinct choices the prefix leaves.
RAILYARD_LAZY
void per_hop_shares(std::span<const topology::Route> routes, std::vector<double>& share,
                    std::vector<int32_t>& order) {
  const size_t n = routes.size();
  auto key = [&](size_t r, int level) {
    const topology::Route& x = routes[r];
    switch (level) {
      case 0: return x.src_leaf_uplink;
      case 1: return x.src_spine_uplink;
      case 2: return x.dst_spine_uplink;
      default: return x.dst_leaf_uplink;
    }
  };
  order.resize(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    for (int level = 0; level < 4; ++level) {
      const int32_t ka = key(static_cast<size_t>(a), level);
      const int32_t kb = key(static_cast<size_t>(b), level);
      if (ka != kb) return ka < kb;
    }
    return a < b;
  });
  share.assign(n, 1.0);
  for (int level = 0; level < 4; ++level) {
    // Runs of equal prefix (levels < `level`); count distinct keys at `level`.
    size_t begin = 0;
    while (begin < n) {
      size_t end = begin + 1;
      auto same_prefix = [&](size_t a, size_t b) {
        for (int p = 0; p < level; ++p)
          if (key(static_cast<size_t>(order[a]), p) != key(static_cast<size_t>(order[b]), p))
            return false;
        return true;
      };
      while (end < n && same_prefix(begin, end)) ++end;
      int32_t distinct = 1;
      for (size_t i = begin + 1; i < end; ++i)
        distinct += key(static_cast<size_t>(order[i]), level) !=
                    key(static_cast<size_t>(order[i - 1]), level);
      for (size_t i = begin; i < end; ++i) share[static_cast<size_t>(order[i])] /= distinct;
      begin = end;
    }
  }
}

}  // namespace detail

// Parses a traffic file (see the overview) against the cluster's GPUs.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<TrafficFlow>> parse_traffic(
    std::string_view text, const topology::ClusterDescriptor<>& d) {
  std::vector<TrafficFlow> out;
  int64_t line_no = 0;
  bool first = true;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    if (first && line.substr(0, 3) == "src") {
      first = false;
      continue;
    }
    first = false;
    auto at = [&](const Status& s) {
      return with_context(s, str_cat("line ", line_no));
    };
    const std::vector<std::string_view> f = split(line, ',');
    if (f.size() < 3 || f.size() > 5)
      return invalid_argument_error(str_cat("line ", line_no, ": ", f.size(),
                                            " fields; expected src,dst,bytes[,start_us][,qps]"));
    TrafficFlow flow;
    auto src = detail::parse_endpoint("src", f[0]);
    if (!src.ok()) return at(src.status());
    auto dst = detail::parse_endpoint("dst", f[1]);
    if (!dst.ok()) return at(dst.status());
    if (Status s = detail::check_endpoint(d, *src, "src"); !s.ok()) return at(s);
    if (Status s = detail::check_endpoint(d, *dst, "dst"); !s.ok()) return at(s);
    if (*src == *dst)
      return at(invalid_field("dst", f[1], "is the source GPU (a flow needs two GPUs)"));
    flow.src = *src;
    flow.dst = *dst;
    auto bytes = parse_size_in("bytes", f[2], 1, uint64_t{1} << 50);
    if (!bytes.ok()) return at(bytes.status());
    flow.bytes = static_cast<int64_t>(*bytes);
    if (f.size() >= 4 && !f[3].empty()) {
      auto start = parse_decimal("start_us", f[3]);
      if (!start.ok()) return at(start.status());
      if (!(*start >= 0.0) || !std::isfinite(*start) || *start > 1e12)
        return at(invalid_field("start_us", f[3], "must be a number of µs in [0, 1e12]"));
      flow.start_us = *start;
    }
    if (f.size() == 5) {
      auto qps = parse_int_in("qps", f[4], 1, kMaxTrafficQps);
      if (!qps.ok()) return at(qps.status());
      flow.qps = static_cast<int32_t>(*qps);
    }
    out.push_back(flow);
  }
  if (out.empty()) return invalid_argument_error("traffic: no flows (every line blank or a comment)");
  return out;
}

// All-to-all-v from a byte matrix (an MoE layer's dispatch, say): row i, column
// j = the bytes rank i sends to rank j. Rank r is the cluster's r-th GPU,
// host-major (host r / gpus_per_host, GPU r mod gpus_per_host), so an n x n
// matrix covers the first n GPUs. The diagonal (a rank's bytes to itself stay
// in its memory) and zeros make no flow; every other entry is one flow
// starting at 0 with one QP, in row-major order. Rows are comma-separated
// sizes (4096, 2MB, 1MiB; 0 .. 2^50) in railyard's CSV dialect
// (core/csv.hpp: fields trimmed, blank and '#' lines skipped). The matrix must be
// square, 2 .. gpus rows. Errors name the row and column: `row 3, column 2:
// bytes=x: ...`.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<TrafficFlow>> parse_traffic_matrix(
    std::string_view text, const topology::ClusterDescriptor<>& d) {
  // The rows first (their views point into `text`): the matrix's size is its
  // row count, which every row's column count must match.
  struct Row {
    int64_t line;
    std::vector<std::string_view> fields;
  };
  std::vector<Row> rows;
  CsvReader reader(text);
  for (CsvRecord record; reader.next(record);) rows.push_back({record.line, record.fields});
  const auto n = static_cast<int64_t>(rows.size());
  if (n < 2)
    return invalid_field("matrix", str_cat(n, " rows"), "needs at least 2 rows (ranks)");
  if (n > d.gpus())
    return invalid_field("matrix", str_cat(n, " rows"),
                         str_cat("has more ranks than the cluster's ", d.gpus(), " GPUs"));
  std::vector<TrafficFlow> out;
  for (int64_t i = 0; i < n; ++i) {
    const Row& row = rows[static_cast<size_t>(i)];
    if (static_cast<int64_t>(row.fields.size()) != n)
      return invalid_argument_error(str_cat("row ", i + 1, " (line ", row.line, "): ",
                                            row.fields.size(), " columns; the matrix has ", n,
                                            " rows and must be square"));
    for (int64_t j = 0; j < n; ++j) {
      auto bytes = parse_size_in("bytes", row.fields[static_cast<size_t>(j)], 0, uint64_t{1} << 50);
      if (!bytes.ok())
        return with_context(bytes.status(), str_cat("row ", i + 1, ", column ", j + 1));
      if (i == j || *bytes == 0) continue;
      out.push_back({detail::gpu_of_index(d, i), detail::gpu_of_index(d, j),
                     static_cast<int64_t>(*bytes)});
    }
  }
  if (out.empty())
    return invalid_argument_error("matrix: no flows (every entry off the diagonal is 0)");
  return out;
}

// --- Generators (every flow starts at 0, one QP) ----------------------------

// A random permutation of the cluster's GPUs without fixed points: every GPU
// sends `bytes` to one other GPU and receives from one (rejection-sampled
// shuffle, seeded: the same seed gives the same matrix everywhere).
RAILYARD_LAZY
[[nodiscard]] std::vector<TrafficFlow> permutation_traffic(const topology::ClusterDescriptor<>& d,
                                                           int64_t bytes, uint64_t seed) {
  const int64_t n = d.gpus();
  std::vector<TrafficFlow> out;
  if (n < 2) return out;
  std::mt19937_64 rng(seed);
  std::vector<int64_t> dst(static_cast<size_t>(n));
  for (;;) {
    std::iota(dst.begin(), dst.end(), 0);
    detail::shuffle_ints(dst, rng);
    bool fixed_point = false;
    for (int64_t i = 0; i < n; ++i) fixed_point = fixed_point || dst[static_cast<size_t>(i)] == i;
    if (!fixed_point) break;
  }
  for (int64_t i = 0; i < n; ++i)
    out.push_back({detail::gpu_of_index(d, i), detail::gpu_of_index(d, dst[static_cast<size_t>(i)]),
                   bytes});
  return out;
}

// N:1 incast into `dst`: the GPUs of the same index on the next `senders`
// hosts (wrapping), each sending `bytes`. Needs senders < hosts.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<TrafficFlow>> incast_traffic(
    const topology::ClusterDescriptor<>& d, int32_t senders, GpuEndpoint dst, int64_t bytes) {
  RAILYARD_RETURN_IF_ERROR(detail::check_endpoint(d, dst, "dst"));
  if (senders < 1 || senders >= d.hosts())
    return invalid_field("incast", str_cat(senders),
                         str_cat("senders must be in [1, ", d.hosts() - 1, "] (other hosts)"));
  std::vector<TrafficFlow> out;
  for (int32_t k = 1; k <= senders; ++k)
    out.push_back({{HostId{static_cast<int32_t>((dst.host.value() + k) % d.hosts())}, dst.gpu},
                   dst, bytes});
  return out;
}

// `count` flows between uniformly random GPU pairs (src != dst), seeded.
RAILYARD_LAZY
[[nodiscard]] std::vector<TrafficFlow> uniform_traffic(const topology::ClusterDescriptor<>& d,
                                                       int64_t count, int64_t bytes,
                                                       uint64_t seed) {
  const auto n = static_cast<uint64_t>(d.gpus());
  std::vector<TrafficFlow> out;
  if (n < 2) return out;
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < count; ++i) {
    const auto a = static_cast<int64_t>(rng() % n);
    auto b = static_cast<int64_t>(rng() % (n - 1));
    if (b >= a) ++b;
    out.push_back({detail::gpu_of_index(d, a), detail::gpu_of_index(d, b), bytes});
  }
  return out;
}

// Every GPU sends `bytes` to every other GPU (n·(n−1) flows).
RAILYARD_LAZY
[[nodiscard]] std::vector<TrafficFlow> all_to_all_traffic(const topology::ClusterDescriptor<>& d,
                                                          int64_t bytes) {
  const int64_t n = d.gpus();
  std::vector<TrafficFlow> out;
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b < n; ++b)
      if (a != b) out.push_back({detail::gpu_of_index(d, a), detail::gpu_of_index(d, b), bytes});
  return out;
}

// Nearest-rank percentile of sorted values, p in (0, 100].
RAILYARD_LAZY
[[nodiscard]] double nearest_rank(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0.0;
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

// Memory a simulate_traffic() run holds beyond the cluster and the flow list,
// estimated before it starts: QP flows (a flow's qps; steered may use fewer)
// times kBytesPerTrafficQp, plus the per-flow results; adaptive routing adds
// kBytesPerAdaptiveLinkEntry per link its routes cross between the leaves (2U,
// and 2U + 2U·Us on three tiers; U leaf, Us spine uplinks) for every QP flow.
// Measured like collective_sim.hpp's constants (peak resident memory of
// simulate_traffic, release build, GCC 12) on h100-16k-3tier with a
// permutation of its 16,384 GPUs (docs/models.md#memory):
//   kBytesPerTrafficQp: ecmp, qps 8 against qps 1 (131,072 against 16,384 QP
//     flows): 116 against 29 MiB, 795 B per QP flow — its network crossing,
//     5-tuple, route, FlowStep entry and the simulator's arrays;
//   kBytesPerAdaptiveLinkEntry: adaptive, qps 1: 1,465 MiB for 16,384 QP flows
//     of 2,112 link entries each, 44 B per entry (the entry in the FlowStep and
//     the simulator, its share of the route list it comes from).
struct TrafficMemoryEstimate {
  int64_t qp_flows = 0;
  double bytes = 0;
};
inline constexpr double kBytesPerTrafficQp = 800;
inline constexpr double kBytesPerTrafficFlow = sizeof(TrafficFlowResult) + 4 * sizeof(double);
inline constexpr double kBytesPerAdaptiveLinkEntry = 44;

RAILYARD_LAZY
[[nodiscard]] TrafficMemoryEstimate estimate_traffic_memory(
    const topology::ClusterDescriptor<>& d, std::span<const TrafficFlow> flows,
    const TrafficSimOptions& options = {}) {
  TrafficMemoryEstimate e;
  for (const TrafficFlow& f : flows) e.qp_flows += std::max<int32_t>(f.qps, 1);
  // Distinct links of the routes of a NIC pair across the top: U leaf uplinks
  // up and U down, and on three tiers U·Us spine uplinks up and U·Us down.
  const auto u = static_cast<double>(d.uplinks(topology::LinkTier::kLeafSpine));
  const auto us = static_cast<double>(d.uplinks(topology::LinkTier::kSpineCore));
  const double route_links = options.routing == TrafficRouting::kAdaptive
                                 ? 2.0 * u + (d.tiers() >= 3 ? 2.0 * u * us : 0.0)
                                 : 0.0;
  e.bytes = static_cast<double>(e.qp_flows) *
                (kBytesPerTrafficQp + route_links * kBytesPerAdaptiveLinkEntry) +
            static_cast<double>(flows.size()) * kBytesPerTrafficFlow;
  return e;
}

// Routes and times `flows` on the cluster (see the overview). Errors
// (InvalidArgument naming the flow): GPUs outside the cluster, src == dst,
// bytes < 1, start times < 0, qps outside [1, 256]; no path between the GPUs.
RAILYARD_LAZY
[[nodiscard]] StatusOr<TrafficReport> simulate_traffic(const topology::Cluster& cluster,
                                                       std::span<const TrafficFlow> flows,
                                                       const TrafficSimOptions& options = {}) {
  const topology::ClusterDescriptor<>& d = cluster.descriptor;
  const topology::Fabric& f = cluster.fabric;
  if (flows.empty()) return invalid_field("flows", "0", "at least one flow is required");
  for (size_t i = 0; i < flows.size(); ++i) {
    const TrafficFlow& fl = flows[i];
    auto at = [&](const Status& s) { return with_context(s, str_cat("flow ", i)); };
    if (Status s = detail::check_endpoint(d, fl.src, "src"); !s.ok()) return at(s);
    if (Status s = detail::check_endpoint(d, fl.dst, "dst"); !s.ok()) return at(s);
    if (fl.src == fl.dst)
      return at(invalid_field("dst", str_cat(fl.dst.host.value(), ":", fl.dst.gpu.value()),
                              "is the source GPU"));
    if (fl.bytes < 1 || fl.bytes > (int64_t{1} << 50))
      return at(invalid_field("bytes", str_cat(fl.bytes), "must be in [1, 2^50]"));
    if (!(fl.start_us >= 0.0) || !std::isfinite(fl.start_us))
      return at(invalid_field("start_us", str_cat(fl.start_us), "must be a finite number >= 0"));
    if (fl.qps < 1 || fl.qps > kMaxTrafficQps)
      return at(invalid_field("qps", str_cat(fl.qps), "must be in [1, 256]"));
  }

  const std::vector<double> caps = capacities(f);
  FlowSimulator simulator(caps);
  RAILYARD_RETURN_IF_ERROR(simulator.check_capacities());
  RAILYARD_RETURN_IF_ERROR(simulator.set_queueing(options.queueing));
  simulator.set_progress(options.progress);

  const routing::UniformRandomHash random_hash(options.seed);
  const routing::Crc5TupleHash crc_hash(static_cast<uint32_t>(options.seed));
  const routing::HashModel& switch_hash =
      options.switch_hash != nullptr ? *options.switch_hash
      : options.routing == TrafficRouting::kSteered
          ? static_cast<const routing::HashModel&>(crc_hash)
          : static_cast<const routing::HashModel&>(random_hash);
  const bool hashed = options.routing != TrafficRouting::kAdaptive;

  // One simulator flow per QP: owner flow, its bytes, links (and weights for
  // adaptive).
  struct Qp {
    size_t flow = 0;
    double bytes = 0;
    routing::NetworkCrossing x;
  };
  std::vector<Qp> qps;
  // The network QPs in order, with the 5-tuple fields the switches hash
  // (ecmp, steered).
  std::vector<routing::Flow> ecmp_flows;
  std::vector<uint16_t> sports;
  std::vector<uint32_t> dst_qps;
  std::vector<double> ideal_rate(flows.size(), 0.0);
  std::vector<int32_t> flow_qps(flows.size(), 0);
  for (size_t i = 0; i < flows.size(); ++i) {
    const TrafficFlow& fl = flows[i];
    routing::GpuPathOptions po;
    po.forward_over_nvlink = options.pxn;
    routing::NetworkCrossing x = routing::network_crossing(d, f, fl.src, fl.dst, po);
    if (x.network && d.path_count(x.src, x.dst) == 0)
      return with_context(
          invalid_argument_error(str_cat("no network path from ", fl.src.host.value(), ":",
                                         fl.src.gpu.value(), " to ", fl.dst.host.value(), ":",
                                         fl.dst.gpu.value())),
          str_cat("flow ", i));
    if (options.routing == TrafficRouting::kSteered && x.network) {
      // What the advisor hands the net plugin for this connection; its
      // destination QPs continue the matrix's numbering, as ECMP's do.
      const auto first_qp = static_cast<uint32_t>((0x100 + qps.size()) & 0xFFFFFF);
      auto plan = routing::advised_plan(d, f, x.src, x.dst, fl.qps, switch_hash, first_qp);
      if (!plan.ok()) return with_context(plan.status(), str_cat("flow ", i));
      const double per_qp = static_cast<double>(fl.bytes) / static_cast<double>(plan->qp.size());
      for (const routing::QpRoute& q : plan->qp) {
        ecmp_flows.push_back({x.src, x.dst, per_qp});
        sports.push_back(q.sport);
        dst_qps.push_back(q.dst_qpn);
        qps.push_back({i, per_qp, x});
      }
      flow_qps[i] = static_cast<int32_t>(plan->qp.size());
      continue;
    }
    const double per_qp = static_cast<double>(fl.bytes) / fl.qps;
    for (int32_t j = 0; j < fl.qps; ++j) {
      if (x.network) {
        const auto q = static_cast<int64_t>(qps.size());
        ecmp_flows.push_back({x.src, x.dst, per_qp});
        sports.push_back(static_cast<uint16_t>(routing::kSportBase + q % routing::kSportCount));
        dst_qps.push_back(static_cast<uint32_t>((0x100 + q) & 0xFFFFFF));
      }
      qps.push_back({i, per_qp, x});
    }
    flow_qps[i] = fl.qps;
  }
  // Every network QP's 5-tuple through the switches' hash, hop by hop.
  std::vector<topology::Route> ecmp_routes;
  if (hashed && !ecmp_flows.empty()) {
    RAILYARD_ASSIGN_OR_RETURN(
        ecmp_routes,
        routing::ecmp_paths(d, f, ecmp_flows, switch_hash, routing::EcmpOptions{sports, dst_qps}));
  }

  FlowStep step;
  step.reserve(qps.size(), qps.size() * 8);
  std::vector<int32_t> links;
  std::vector<double> weights;
  std::vector<topology::Route> routes;
  std::vector<double> share;
  std::vector<int32_t> order;
  std::vector<double> link_weight(caps.size(), 0.0);
  std::vector<int32_t> touched, touched_hop, hop_order;
  std::vector<int32_t> one_path;
  std::vector<double> qp_latency;
  qp_latency.reserve(qps.size());
  size_t net_q = 0;  // index into ecmp_routes
  for (const Qp& q : qps) {
    const TrafficFlow& fl = flows[q.flow];
    links.clear();
    weights.clear();
    for (LinkId l : q.x.prefix) links.push_back(l.value());
    if (q.x.network) {
      if (hashed) {
        const topology::Path net = f.route_links(q.x.src, q.x.dst, ecmp_routes[net_q]);
        for (LinkId l : net.view()) links.push_back(l.value());
        links.push_back(q.x.last.value());
        weights.assign(links.size(), 1.0);
      } else {
        routes.clear();
        d.for_each_route(q.x.src, q.x.dst, [&](const topology::Route& r) { routes.push_back(r); });
        detail::per_hop_shares(routes, share, order);
        weights.assign(links.size(), 1.0);
        // Links in hop order (the queueing rule reads an entry's feeder from
        // the entry before it: the receiving NIC's link must precede its GPU
        // link), first appearance within a hop.
        for (size_t r = 0; r < routes.size(); ++r) {
          const topology::Path net = f.route_links(q.x.src, q.x.dst, routes[r]);
          int32_t hop = 0;
          for (LinkId l : net.view()) {
            double& w = link_weight[static_cast<size_t>(l.value())];
            if (w == 0.0) touched.push_back(l.value()), touched_hop.push_back(hop);
            w += share[r];
            ++hop;
          }
        }
        hop_order.resize(touched.size());
        std::iota(hop_order.begin(), hop_order.end(), 0);
        std::stable_sort(hop_order.begin(), hop_order.end(), [&](int32_t a, int32_t b) {
          return touched_hop[static_cast<size_t>(a)] < touched_hop[static_cast<size_t>(b)];
        });
        for (int32_t& t : hop_order) t = touched[static_cast<size_t>(t)];
        touched.swap(hop_order);
        touched_hop.clear();
        for (int32_t l : touched) {
          links.push_back(l);
          // Shares of one hop sum to 1; clamp rounding so a shared link is 1.
          weights.push_back(std::min(link_weight[static_cast<size_t>(l)], 1.0));
          link_weight[static_cast<size_t>(l)] = 0.0;
        }
        touched.clear();
        links.push_back(q.x.last.value());
        weights.push_back(1.0);
      }
      ++net_q;
    } else {
      weights.assign(links.size(), 1.0);
    }
    // Latency along one path: a hashed QP's own (ecmp, steered); for a sprayed
    // QP its first route (every up/down route of a NIC pair has the same length
    // on these fabrics).
    if (options.routing == TrafficRouting::kAdaptive && q.x.network) {
      one_path.clear();
      for (LinkId l : q.x.prefix) one_path.push_back(l.value());
      const topology::Path net = f.route_links(q.x.src, q.x.dst, routes.front());
      for (LinkId l : net.view()) one_path.push_back(l.value());
      one_path.push_back(q.x.last.value());
      qp_latency.push_back(collective::flow_latency_us(f, one_path, options.latency));
    } else {
      qp_latency.push_back(collective::flow_latency_us(f, links, options.latency));
    }
    step.add_multipath(links, weights, q.bytes);
    if (fl.start_us > 0.0) step.set_start_us(step.size() - 1, fl.start_us);
    // Alone, the flow runs at its path's bottleneck: min of capacity / weight.
    if (ideal_rate[q.flow] == 0.0) {
      double rate = std::numeric_limits<double>::infinity();
      for (size_t k = 0; k < links.size(); ++k)
        rate = std::min(rate, caps[static_cast<size_t>(links[k])] * kBytesPerUsPerGbps / weights[k]);
      ideal_rate[q.flow] = rate;
    }
  }

  RAILYARD_ASSIGN_OR_RETURN(StepResult sr, simulator.run_step(step));
  TrafficReport rep;
  rep.routing = options.routing;
  if (hashed) rep.hash_model = std::string(switch_hash.name());
  rep.steerable = options.routing == TrafficRouting::kSteered && switch_hash.steerable();
  rep.sim_flows = static_cast<int64_t>(step.size());
  rep.events = sr.events;
  rep.flows.resize(flows.size());
  rep.link_bytes.assign(caps.size(), 0.0);
  for (size_t k = 0; k < step.size(); ++k) {
    const auto path = step.links(k);
    for (size_t e = 0; e < path.size(); ++e)
      rep.link_bytes[static_cast<size_t>(path[e])] += step.bytes(k) * step.weight(k, e);
  }
  const double lat_factor = options.count_ack ? 2.0 : 1.0;
  std::vector<double> end(flows.size(), 0.0), queue(flows.size(), 0.0), lat(flows.size(), 0.0);
  for (size_t k = 0; k < qps.size(); ++k) {
    const size_t i = qps[k].flow;
    const double qd = sr.queue_us.empty() ? 0.0 : sr.queue_us[k];
    const double e = sr.finish_us[k] + qd + lat_factor * qp_latency[k];
    if (e >= end[i]) {
      end[i] = e;
      queue[i] = qd;
      lat[i] = lat_factor * qp_latency[k];
    }
  }
  std::vector<double> fct(flows.size());
  double slowdown = 0.0;
  for (size_t i = 0; i < flows.size(); ++i) {
    TrafficFlowResult& r = rep.flows[i];
    r.start_us = flows[i].start_us;
    r.qps = flow_qps[i];
    r.queue_us = queue[i];
    r.latency_us = lat[i];
    r.fct_us = end[i] - r.start_us;
    r.transfer_us = r.fct_us - r.queue_us - r.latency_us;
    r.ideal_us = static_cast<double>(flows[i].bytes) / ideal_rate[i] + r.latency_us;
    fct[i] = r.fct_us;
    rep.mean_fct_us += r.fct_us;
    rep.mean_ideal_us += r.ideal_us;
    slowdown += r.fct_us / r.ideal_us;
    rep.makespan_us = std::max(rep.makespan_us, end[i]);
  }
  const auto n = static_cast<double>(flows.size());
  rep.mean_fct_us /= n;
  rep.mean_ideal_us /= n;
  rep.mean_slowdown = slowdown / n;
  std::sort(fct.begin(), fct.end());
  rep.p50_fct_us = nearest_rank(fct, 50);
  rep.p99_fct_us = nearest_rank(fct, 99);
  rep.max_fct_us = fct.back();
  return rep;
}

}  // namespace railyard::sim
