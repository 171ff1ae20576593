// railyard/tune/model.hpp — railyard's NCCL tuning model: a per-communicator cost
// model built once from the cluster spec and filled into NCCL's cost table on
// every collective (the C-ABI adapters around it are plugin/tuner.hpp).
//
//   namespace nccl = railyard::tune::nccl;
//   railyard::tune::TunerOptions o;
//   o.cluster = "h100-1024-2to1";                     // or a cluster file's text
//   o.ranks = 512;                                     // NCCL's nRanks, nNodes
//   o.nodes = 64;
//   auto core = railyard::tune::TunerCore::create(o);
//   if (!core.ok()) return core.status();              // names the bad field and value
//   float table[nccl::kNumAlgorithms][nccl::kNumProtocols];  // NCCL's, -1 = not allowed
//   int channels = 0;
//   core->fill_cost_table(nccl::Func::kAllReduce, size_t{1} << 28, /*num_pipe_ops=*/1,
//                         &table[0][0], nccl::kNumAlgorithms, nccl::kNumProtocols,
//                         /*reg_buff=*/0, &channels);  // µs per allowed entry
//
// What NCCL cannot see and railyard can: which hosts share a leaf, an SU or a pod,
// how many uplinks each leaf and spine has (oversubscription), how many NICs and
// planes a host has and which of them the communicator's ranks use, and NVLink
// domains that span hosts. The model uses exactly that.
//
// Placement. Node i of the communicator runs on host hosts[i] (TunerOptions::hosts,
// e.g. from RAILYARD_HOSTS) or, without a list, on host i: nNodes consecutive hosts
// from host 0, which is SU- and pod-aligned (the best case a scheduler can give).
// A node's ranks sit on GPUs 0..ppn-1 (ppn = ceil(nRanks / nNodes)); they use the
// NICs of those GPUs (descriptor nic_of_gpu), on every plane. Nodes of one NVLink
// domain (the cluster's scale_up, or NCCL's NVL domain info on v5+, which wins
// because it says what NCCL really uses) talk over NVLink.
//
// Cost of one entry: time_us(nBytes) = alpha + nBytes * beta, with alpha and beta
// computed at init for every (collective, algorithm, protocol); the hot path is a
// multiply-add per allowed entry. nBytes is NCCL's (the largest of send and
// receive buffer: the full output of an all-gather).
//
//   beta = beta_algo / protocol_factor, beta_algo = the one contention model
//   (collective::contention_us: max over the resources the algorithm's traffic
//   crosses of (bytes per byte of nBytes) / capacity) on these resources:
//   * each host's NIC egress and ingress (rails used x planes x nic_gbps),
//   * each leaf's uplinks and downlinks (leaf_up_ports x nic_gbps per leaf,
//     per plane) for flows between hosts under different leaves,
//   * each pod's spine-core links for flows between pods (tiers=3),
//   * NVLink between hosts of one NVLink domain (ranks per host x nvlink_gbps),
//   * each GPU's own NVLink for the intra-host part (nvlink_gbps).
//   Flows (node -> node, in bytes per byte of nBytes), as NCCL builds them:
//   ring      node i -> i+1 (mod n): 2(R-1)/R (all-reduce), (R-1)/R (all-gather,
//             reduce-scatter); broadcast/reduce: a chain 0 -> 1 -> ... carrying 1.
//   tree      NCCL's double binary tree over nodes (collective::dtree_parent),
//             all-reduce only: each edge carries 1/2 up (reduce) and 1/2 down
//             (broadcast) in each of the two trees; intra-host chain 2 per GPU.
//   nvls_tree the same inter-node trees, NVLS (one NVLink pass) inside the host.
//   pat       all-gather/reduce-scatter, recursive doubling: step k sends
//             min(2^k, n-2^k)/n to node i + 2^k; steps add up (they do not overlap).
//   Ring and tree flows of consecutive hosts stay under their leaf except at SU
//   boundaries, so oversubscription barely changes them (as in the flow
//   simulator); PAT's long-distance steps and scattered host lists cross the
//   spine and pay for it.
//
// Constants, with their source:
//   Algorithm efficiency: tree 0.92 (NCCL tuning.cc: tree busBw x .92), nvls_tree
//   5/6 (NCCL: NVLS algBw ratio 5/6), ring and pat 1.
//   Protocol factor (share of link bandwidth that carries data): simple 1.0;
//   ll128 0.92 (a 128-byte line carries 120 data bytes: 0.9375, NCCL uses 0.92);
//   ll 1/4 across the network, 1/3 inside one NVLink domain (an 8-byte LL line
//   carries 4 data bytes, so 1/2 is the wire bound; NCCL's measured model divides
//   ring LL bandwidth by 4 multi-node and 3 single-node), and LL is capped at
//   160 Gb/s bus bandwidth across the network (NCCL llMaxBws, ~20 GB/s for 4+
//   nodes) or 700 Gb/s inside a domain (87.7 GB/s, Hopper single node).
//   alpha: NCCL's latency model (src/graph/tuning.cc, the 6-algorithm tables of
//   NCCL 2.19): base latency + steps x per-hop latency, NVLink hops {ll, ll128,
//   simple} ring {0.6, 1.9, 3.4} µs, tree {0.6, 1.25, 28}, network hops ring
//   {2.7, 4.0, 14.0}, tree {5.0, 8.5, 28}, nvls_tree 23 (NVLink) + 14 per
//   network level; base ring {6.6, 14.0, 8.4}, tree {6.8, 14.0, 0}; a network
//   ring step costs at least NCCL's 1 µs net overhead (x3 for simple). Ring:
//   (steps - inter) NVLink hops + inter network hops, inter = 2 x domains
//   (all-reduce), domains - 1 (all-gather, reduce-scatter); broadcast/reduce
//   traverse the chain once. Tree: 2 x ((ranks per domain - 1) NVLink hops +
//   floor(log2 domains) network hops). PAT: ring base + one network hop per step.
//   railyard adds what NCCL's fixed network hop cannot know: every network hop
//   that leaves its leaf pays 2 more switches and 2 leaf-spine cables, one that
//   leaves its pod 2 more switches and 2 spine-core cables (collective::LatencyModel's
//   switch_ns and the descriptor's cable latencies).
//   Not modeled (left as NCCL computed them): collnet_direct, collnet_chain
//   (in-network reduction) and nvls (NVLink SHARP) — railyard has no model of
//   switch-side reduction.
//
// Rules (NCCL_TUNER_CONFIG_FILE, the format of tune/rules.hpp): the first rule
// that matches the call and whose entry NCCL allows wins: that entry gets cost
// 0.0 (forcing it, as NCCL's example tuner does) and *nChannels the rule's
// channels. A malformed line is a warning (line number and token) and skipped.
//
// Hot path: fill_cost_table() allocates nothing, takes no lock, does no I/O; it
// never writes an entry NCCL marked not allowed (any negative value, so
// kAlgoProtoIgnore) and leaves *nChannels alone unless a rule sets it. Cost
// O(numAlgo x numProto + rules that could match this communicator).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/collective/cost.hpp"
#include "railyard/collective/schedule.hpp"
#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/parse.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/parse_cluster.hpp"
#include "railyard/tune/nccl.hpp"
#include "railyard/tune/rules.hpp"

namespace railyard::tune {

// ---------------------------------------------------------------------------
// The model.
// ---------------------------------------------------------------------------

// NCCL's NVL domain info (v5+), in railyard's terms.
struct NvlDomains {
  int32_t domains = 0;  // 0: unknown
  int32_t min_ranks = 0;
  int32_t max_ranks = 0;
};

struct TunerOptions {
  // A spec string, a preset name, or the text of a cluster file: blank lines and
  // lines starting with '#' are skipped, exactly one line must remain.
  std::string_view cluster;
  int64_t ranks = 0;              // nRanks of the communicator
  int64_t nodes = 0;              // nNodes of the communicator
  std::optional<NvlDomains> nvl;  // from NCCL v5+
  std::vector<HostId> hosts;      // host of node i in node order; empty: 0..nodes-1
  std::string_view rules;         // NCCL_TUNER_CONFIG_FILE text; empty: none
};

// One entry of the model: time_us = alpha_us + bytes * us_per_byte.
struct CostCoefficients {
  float alpha_us = 0;
  float us_per_byte = -1;  // < 0: not modeled (the entry keeps NCCL's value)
  [[nodiscard]] constexpr bool modeled() const { return us_per_byte >= 0; }
};

namespace detail {

// NCCL's latency model (src/graph/tuning.cc; see the overview), in µs,
// indexed [algorithm][protocol] for tree (0) and ring (1).
inline constexpr double kNcclBaseLatUs[2][3] = {{6.8, 14.0, 0.0}, {6.6, 14.0, 8.4}};
inline constexpr double kNcclNvlinkLatUs[2][3] = {{0.6, 1.25, 28.0}, {0.6, 1.9, 3.4}};
inline constexpr double kNcclNetLatUs[2][3] = {{5.0, 8.5, 28.0}, {2.7, 4.0, 14.0}};
inline constexpr double kNcclNvlsTreeNvlinkLatUs = 23.0;
inline constexpr double kNcclNvlsTreeNetLatUs = 14.0;
inline constexpr double kNcclNetOverheadUs = 1.0;  // x3 for simple

inline constexpr double kTreeEfficiency = 0.92;
inline constexpr double kNvlsTreeEfficiency = 5.0 / 6.0;
inline constexpr double kLl128Factor = 0.92;
inline constexpr double kLlNetFactor = 1.0 / 4.0;
inline constexpr double kLlIntraFactor = 1.0 / 3.0;
inline constexpr double kLlMaxBusGbpsNet = 160.0;
inline constexpr double kLlMaxBusGbpsIntra = 700.0;

// Where the communicator's ranks are (see the overview).
struct TunerGeometry {
  int32_t ranks = 1;
  int32_t nodes = 1;
  int32_t ranks_per_node = 1;
  std::vector<int32_t> host;    // per node
  std::vector<int32_t> domain;  // NVLink domain per node (dense ids)
  int32_t domains = 1;
  std::vector<int32_t> rails;  // NICs one node's ranks use
  double host_net_gbps = 0;    // NIC egress of one node
  double gpu_nvlink_gbps = 0;  // one GPU's NVLink, one direction
};

struct NodeFlow {
  int32_t src = 0;
  int32_t dst = 0;
  double weight = 0;  // bytes per byte of nBytes
};

struct PatternCost {
  double us_per_byte = 0;
  double extra_latency_us = 0;  // worst network flow's latency beyond one leaf
  bool feasible = true;         // false: a flow needs a tier with no links
};

// The fabric as the tuning model sees it: aggregated resources — each node's NIC
// egress and ingress, NVLink egress and ingress, each leaf's uplinks and
// downlinks, each pod's spine-core links up and down (per plane and partition)
// — with their capacities. A pattern of node flows is split over the rails and
// planes the nodes use and costed by the one contention model
// (collective::contention_us: the most loaded resource's bytes / capacity), and
// its extra latency by the one latency model (collective::LatencyModel).
class FabricLoads {
 public:
  FabricLoads(const topology::ClusterDescriptor<>& d, const TunerGeometry& g,
              const collective::LatencyModel& latency = {})
      : d_(d), g_(g) {
    const topology::ClosShape& s = d.shape();
    const auto n = static_cast<size_t>(g.nodes);
    const size_t pod_groups = static_cast<size_t>(s.planes) * s.partitions * s.pods;
    const auto leaves = static_cast<size_t>(s.total_leaves());
    // Resource ids: host out, host in, NVLink out, NVLink in (per node), leaf
    // up, leaf down (per leaf), pod up, pod down (per plane x partition x pod).
    host_out_ = 0;
    host_in_ = host_out_ + n;
    nvl_out_ = host_in_ + n;
    nvl_in_ = nvl_out_ + n;
    leaf_up_ = nvl_in_ + n;
    leaf_down_ = leaf_up_ + leaves;
    pod_up_ = leaf_down_ + leaves;
    pod_down_ = pod_up_ + pod_groups;
    capacity_gbps_.assign(pod_down_ + pod_groups, 0.0);
    auto fill = [&](size_t first, size_t count, double gbps) {
      std::fill_n(capacity_gbps_.begin() + static_cast<std::ptrdiff_t>(first), count, gbps);
    };
    fill(host_out_, 2 * n, g.host_net_gbps);
    fill(nvl_out_, 2 * n, g.ranks_per_node * g.gpu_nvlink_gbps);
    fill(leaf_up_, 2 * leaves, s.leaf_up_ports * d.capacity_gbps(topology::LinkTier::kLeafSpine));
    fill(pod_up_, 2 * pod_groups,
         static_cast<double>(s.spines_per_pod) * s.spine_up_ports *
             d.capacity_gbps(topology::LinkTier::kSpineCore));
    // Beyond one leaf a path crosses 2 more switches and 2 leaf-spine cables;
    // beyond one pod 2 more switches and 2 spine-core cables.
    const double leaf_spine_ns = 2 * d.latency_ns(topology::LinkTier::kLeafSpine) +
                                 2 * latency.switch_ns;
    extra_leaf_us_ = leaf_spine_ns / 1000.0;
    extra_pod_us_ = (leaf_spine_ns + 2 * d.latency_ns(topology::LinkTier::kSpineCore) +
                     2 * latency.switch_ns) /
                    1000.0;
  }

  // The bandwidth term and the extra latency of `flows` run at once.
  PatternCost cost(std::span<const NodeFlow> flows) {
    flows_.clear();
    const topology::ClosShape& s = d_.shape();
    const int32_t planes = d_.planes();
    const double per_port = 1.0 / (static_cast<double>(g_.rails.size()) * planes);
    PatternCost out;
    for (const NodeFlow& f : flows) {
      const auto a = static_cast<size_t>(f.src), b = static_cast<size_t>(f.dst);
      if (g_.domain[a] == g_.domain[b]) {
        flows_.add(f.weight, {nvl_out_ + a, nvl_in_ + b});
        continue;
      }
      const HostId ha{g_.host[a]}, hb{g_.host[b]};
      double extra = 0;
      for (int32_t r : g_.rails)
        for (int32_t p = 0; p < planes; ++p) {
          const SwitchIndex la = d_.leaf_of(ha, RailId{r}, PlaneId{p});
          const SwitchIndex lb = d_.leaf_of(hb, RailId{r}, PlaneId{p});
          const double bytes = f.weight * per_port;
          if (la == lb) {
            flows_.add(bytes, {host_out_ + a, host_in_ + b});
            continue;
          }
          extra = std::max(extra, extra_leaf_us_);
          const int32_t pa = d_.pod_of_leaf(la), pb = d_.pod_of_leaf(lb);
          const size_t leaf_a = leaf_up_ + static_cast<size_t>(la.value());
          const size_t leaf_b = leaf_down_ + static_cast<size_t>(lb.value());
          if (pa == pb) {
            flows_.add(bytes, {host_out_ + a, host_in_ + b, leaf_a, leaf_b});
            continue;
          }
          extra = std::max(extra, extra_pod_us_);
          const size_t group = static_cast<size_t>(p * s.partitions + d_.partition_of_leaf(la)) *
                               static_cast<size_t>(s.pods);
          flows_.add(bytes, {host_out_ + a, host_in_ + b, leaf_a, leaf_b,
                             pod_up_ + group + static_cast<size_t>(pa),
                             pod_down_ + group + static_cast<size_t>(pb)});
        }
      out.extra_latency_us = std::max(out.extra_latency_us, extra);
    }
    const double worst = collective::contention_us(capacity_gbps_, flows_, scratch_);
    out.feasible = std::isfinite(worst);
    out.us_per_byte = out.feasible ? worst : 0;
    return out;
  }

 private:
  // Flows over resources, in the shape collective::contention_us reads.
  struct ResourceFlows {
    std::vector<double> flow_bytes;
    std::vector<int32_t> resources;
    std::vector<size_t> first{0};
    void clear() {
      flow_bytes.clear();
      resources.clear();
      first.assign(1, 0);
    }
    void add(double b, std::initializer_list<size_t> rs) {
      flow_bytes.push_back(b);
      for (size_t r : rs) resources.push_back(static_cast<int32_t>(r));
      first.push_back(resources.size());
    }
    [[nodiscard]] size_t size() const { return flow_bytes.size(); }
    [[nodiscard]] std::span<const int32_t> links(size_t i) const {
      return std::span<const int32_t>(resources).subspan(first[i], first[i + 1] - first[i]);
    }
    [[nodiscard]] double bytes(size_t i) const { return flow_bytes[i]; }
  };

  const topology::ClusterDescriptor<>& d_;
  const TunerGeometry& g_;
  size_t host_out_ = 0, host_in_ = 0, nvl_out_ = 0, nvl_in_ = 0, leaf_up_ = 0, leaf_down_ = 0,
         pod_up_ = 0, pod_down_ = 0;
  std::vector<double> capacity_gbps_;
  double extra_leaf_us_ = 0, extra_pod_us_ = 0;
  ResourceFlows flows_;
  std::vector<double> scratch_;
};

RAILYARD_LAZY
int32_t floor_log2(int64_t n) {
  int32_t l = 0;
  while (n > 1) n >>= 1, ++l;
  return l;
}

// The cluster spec line of a spec string or a cluster file's text.
RAILYARD_LAZY
StatusOr<std::string> cluster_line(std::string_view text) {
  std::string found;
  int lines = 0;
  for (std::string_view raw : split(text, '\n')) {
    const std::string_view line = rule_trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (++lines > 1)
      return invalid_field("cluster", line, "a cluster file must hold exactly one spec line");
    found = std::string(line);
  }
  if (lines == 0) return invalid_field("cluster", "", "no cluster spec given");
  return found;
}

}  // namespace detail

// The per-communicator model. Build it once (init), then call fill_cost_table()
// on the hot path; it is immutable after create(), so concurrent calls are safe.
class TunerCore {
 public:
  // Errors (InvalidArgument naming the field): a bad cluster spec, ranks or nodes
  // < 1, nodes > ranks or > the cluster's hosts, more ranks per node than GPUs per
  // host, a host list of the wrong size or with hosts outside the cluster. Rule
  // lines that do not parse are warnings(), not errors.
  // Cost: O(nodes x rails x planes x log nodes + leaves x log nodes).
  [[nodiscard]] static StatusOr<TunerCore> create(const TunerOptions& o) {
    RAILYARD_ASSIGN_OR_RETURN(std::string line, detail::cluster_line(o.cluster));
    RAILYARD_ASSIGN_OR_RETURN(topology::ClusterSpec spec, topology::parse_cluster(line));
    RAILYARD_ASSIGN_OR_RETURN(topology::ClusterDescriptor<> d, topology::make_descriptor(spec));
    if (o.ranks < 1 || o.ranks > (int64_t{1} << 30))
      return invalid_field("nRanks", str_cat(o.ranks), "must be in [1, 2^30]");
    if (o.nodes < 1 || o.nodes > o.ranks)
      return invalid_field("nNodes", str_cat(o.nodes),
                           str_cat("must be in [1, nRanks=", o.ranks, "]"));
    if (o.nodes > d.hosts())
      return invalid_field(
          "nNodes", str_cat(o.nodes),
          str_cat("exceeds the cluster's ", d.hosts(), " hosts (cluster ", line, ")"));
    detail::TunerGeometry g;
    g.ranks = static_cast<int32_t>(o.ranks);
    g.nodes = static_cast<int32_t>(o.nodes);
    g.ranks_per_node = static_cast<int32_t>((o.ranks + o.nodes - 1) / o.nodes);
    if (g.ranks_per_node > d.gpus_per_host())
      return invalid_field("nRanks", str_cat(o.ranks),
                           str_cat(g.ranks_per_node, " ranks per node exceed the cluster's ",
                                   d.gpus_per_host(), " GPUs per host"));
    if (!o.hosts.empty()) {
      if (static_cast<int64_t>(o.hosts.size()) != o.nodes)
        return invalid_field("hosts", format_host_list(o.hosts),
                             str_cat(o.hosts.size(), " hosts for ", o.nodes, " nodes"));
      for (HostId h : o.hosts) {
        if (h.value() < 0 || h.value() >= d.hosts())
          return invalid_field("hosts", str_cat(h.value()),
                               str_cat("is not a host of the cluster (", d.hosts(), " hosts)"));
        g.host.push_back(h.value());
      }
    } else {
      g.host.resize(static_cast<size_t>(g.nodes));
      for (int32_t i = 0; i < g.nodes; ++i) g.host[static_cast<size_t>(i)] = i;
    }
    // NVLink domains: NCCL's count wins (it is what NCCL uses); else the spec's.
    g.domain.resize(static_cast<size_t>(g.nodes));
    if (o.nvl && o.nvl->domains > 0) {
      // In 64 bits: NCCL's count is any int, and nodes + INT_MAX overflows.
      const auto per =
          static_cast<int32_t>((int64_t{g.nodes} + o.nvl->domains - 1) / o.nvl->domains);
      for (int32_t i = 0; i < g.nodes; ++i) g.domain[static_cast<size_t>(i)] = i / per;
    } else {
      for (int32_t i = 0; i < g.nodes; ++i)
        g.domain[static_cast<size_t>(i)] = d.domain_of(HostId{g.host[static_cast<size_t>(i)]});
    }
    {
      std::vector<int32_t> ids = g.domain;
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      g.domains = static_cast<int32_t>(ids.size());
    }
    for (int32_t gpu = 0; gpu < g.ranks_per_node; ++gpu) {
      const int32_t nic = d.nic_of_gpu(GpuIndex{gpu}).value();
      if (std::find(g.rails.begin(), g.rails.end(), nic) == g.rails.end()) g.rails.push_back(nic);
    }
    g.host_net_gbps = static_cast<double>(g.rails.size()) * d.planes() *
                      d.capacity_gbps(topology::LinkTier::kHostLeaf);
    g.gpu_nvlink_gbps = d.capacity_gbps(topology::LinkTier::kNvlink);

    TunerCore core;
    core.build_model(d, g);
    TuningRules parsed = parse_tuning_rules(o.rules);
    core.warnings_ = std::move(parsed.warnings);
    core.rules_parsed_ = static_cast<int32_t>(parsed.rules.size());
    for (const TuningRule& r : parsed.rules)
      if ((r.nodes == -1 || r.nodes == g.nodes) && (r.ranks == -1 || r.ranks == g.ranks))
        core.rules_.push_back(r);
    core.summary_ = core.describe(line, d, g);
    return core;
  }

  // Writes the predicted time (µs) into every entry of `table` (NCCL's contiguous
  // float[num_algo][num_proto]) that is not negative and that the model covers,
  // then applies the first matching rule. `coll` outside the five tuned
  // collectives leaves everything untouched. Never allocates, locks or blocks.
  void fill_cost_table(nccl::Func coll, size_t n_bytes, int num_pipe_ops, float* table,
                       int num_algo, int num_proto, int reg_buff, int* n_channels) const noexcept {
    const int c = static_cast<int>(coll);
    if (table == nullptr || c < 0 || c >= nccl::kNumTunedFunctions || num_algo <= 0 ||
        num_proto <= 0)
      return;
    const int algos = std::min(num_algo, nccl::kNumAlgorithms);
    const int protos = std::min(num_proto, nccl::kNumProtocols);
    const auto bytes = static_cast<float>(n_bytes);
    const CostCoefficients* row = &coef_[static_cast<size_t>(c) * kAlgoProto];
    for (int a = 0; a < algos; ++a)
      for (int p = 0; p < protos; ++p) {
        float& cell = table[a * num_proto + p];
        const CostCoefficients& k = row[a * nccl::kNumProtocols + p];
        if (cell < 0.0f || !k.modeled()) continue;
        cell = k.alpha_us + bytes * k.us_per_byte;
      }
    for (const TuningRule& r : rules_) {
      if (r.coll != c || n_bytes < r.min_bytes || n_bytes > r.max_bytes) continue;
      if ((r.pipe_ops != -1 && r.pipe_ops != num_pipe_ops) ||
          (r.reg_buff != -1 && r.reg_buff != reg_buff))
        continue;
      if (r.algo >= num_algo || r.proto >= num_proto) continue;
      float& cell = table[r.algo * num_proto + r.proto];
      if (cell < 0.0f) continue;  // NCCL does not allow it here: try the next rule
      cell = 0.0f;
      if (r.channels != -1 && n_channels != nullptr) *n_channels = r.channels;
      return;
    }
  }

  // The model entry of (coll, algo, proto), NCCL numbering; not modeled when out of range.
  [[nodiscard]] CostCoefficients coefficients(int coll, int algo, int proto) const {
    if (coll < 0 || coll >= nccl::kNumTunedFunctions || algo < 0 || algo >= nccl::kNumAlgorithms ||
        proto < 0 || proto >= nccl::kNumProtocols)
      return {};
    return coef_[static_cast<size_t>(coll) * kAlgoProto +
                 static_cast<size_t>(algo * nccl::kNumProtocols + proto)];
  }
  // Predicted µs, or -1 when not modeled.
  [[nodiscard]] double predict_us(int coll, int algo, int proto, double bytes) const {
    const CostCoefficients k = coefficients(coll, algo, proto);
    return k.modeled() ? k.alpha_us + bytes * k.us_per_byte : -1.0;
  }

  // Rules that can match this communicator (nNodes/nRanks fit), in file order.
  [[nodiscard]] const std::vector<TuningRule>& rules() const { return rules_; }
  // Rules that parsed, whatever their nNodes/nRanks.
  [[nodiscard]] int32_t rules_parsed() const { return rules_parsed_; }
  // One message per ignored rule line.
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }
  // One line: cluster, placement and headline figures of the model.
  [[nodiscard]] const std::string& summary() const { return summary_; }

 private:
  static constexpr size_t kAlgoProto = nccl::kNumAlgorithms * nccl::kNumProtocols;

  CostCoefficients& at(int c, int a, int p) {
    return coef_[static_cast<size_t>(c) * kAlgoProto +
                 static_cast<size_t>(a * nccl::kNumProtocols + p)];
  }

  void build_model(const topology::ClusterDescriptor<>& d, const detail::TunerGeometry& g) {
    using namespace detail;
    detail::FabricLoads loads(d, g);
    const double R = g.ranks;
    const int32_t N = g.nodes;
    const int32_t D = g.domains;
    const bool net = D > 1;
    const double nvl_us_per_byte = 1.0 / (g.gpu_nvlink_gbps * collective::kBytesPerUsPerGbps);
    const double ranks_per_domain = R / D;
    std::vector<NodeFlow> flows;

    // Protocol factor and LL cap applied to an algorithm's raw bandwidth term.
    auto with_protocol = [&](double raw, double bus_weight, int p) {
      if (p == nccl::kProtoSimple) return raw;
      if (p == nccl::kProtoLl128) return raw / kLl128Factor;
      const double ll = raw / (net ? kLlNetFactor : kLlIntraFactor);
      const double cap = net ? kLlMaxBusGbpsNet : kLlMaxBusGbpsIntra;
      return std::max(ll, bus_weight / (cap * collective::kBytesPerUsPerGbps));
    };
    auto set = [&](int c, int a, int p, double alpha, double beta) {
      at(c, a, p) = {static_cast<float>(alpha), static_cast<float>(beta)};
    };

    // Ring, every collective.
    for (int c = 0; c < nccl::kNumTunedFunctions; ++c) {
      const auto coll = static_cast<nccl::Func>(c);
      const bool all_reduce = coll == nccl::Func::kAllReduce;
      const bool chain = coll == nccl::Func::kBroadcast || coll == nccl::Func::kReduce;
      const double w = all_reduce ? 2.0 * (R - 1) / R : chain ? 1.0 : (R - 1) / R;
      flows.clear();
      if (N > 1) {
        for (int32_t i = 0; i < (chain ? N - 1 : N); ++i) flows.push_back({i, (i + 1) % N, w});
      }
      const PatternCost pc = loads.cost(flows);
      if (!pc.feasible) continue;
      const double raw = std::max(pc.us_per_byte, g.ranks_per_node > 1 ? w * nvl_us_per_byte : 0.0);
      const double steps = all_reduce ? 2 * (R - 1) : chain ? R - 1 : R - 1;
      const double inter = !net ? 0 : all_reduce ? 2.0 * D : D - 1;
      for (int p = 0; p < nccl::kNumProtocols; ++p) {
        double intra_lat = kNcclNvlinkLatUs[1][p];
        if (net)
          intra_lat = std::max(intra_lat, kNcclNetOverheadUs * (p == nccl::kProtoSimple ? 3 : 1));
        const double inter_lat = kNcclNetLatUs[1][p] + pc.extra_latency_us;
        const double alpha = kNcclBaseLatUs[1][p] + std::max(0.0, steps - inter) * intra_lat +
                             std::min(inter, steps) * inter_lat;
        set(c, nccl::kAlgoRing, p, alpha, with_protocol(raw, w, p));
      }
    }

    // Double binary tree over nodes (all-reduce), and NVLS inside hosts + the same
    // trees across them (nvls_tree).
    {
      flows.clear();
      if (N > 1)
        for (int32_t t = 0; t < 2; ++t)
          for (int32_t i = 0; i < N; ++i) {
            const int32_t up = collective::dtree_parent(N, t, i);
            if (up < 0) continue;
            flows.push_back({i, up, 0.5});
            flows.push_back({up, i, 0.5});
          }
      const PatternCost pc = loads.cost(flows);
      if (pc.feasible) {
        const int c = nccl::kNumTunedFunctions - 1;  // all-reduce
        const double tree_raw =
            std::max(pc.us_per_byte, g.ranks_per_node > 1 || N == 1 ? 2.0 * nvl_us_per_byte : 0.0) /
            kTreeEfficiency;
        const double levels = floor_log2(D);
        for (int p = 0; p < nccl::kNumProtocols; ++p) {
          const double alpha =
              kNcclBaseLatUs[0][p] + 2 * ((ranks_per_domain - 1) * kNcclNvlinkLatUs[0][p] +
                                          levels * (kNcclNetLatUs[0][p] + pc.extra_latency_us));
          set(c, nccl::kAlgoTree, p, alpha, with_protocol(tree_raw, 2.0, p));
        }
        if (net) {
          const double nvls_raw =
              std::max(pc.us_per_byte, g.ranks_per_node > 1 ? nvl_us_per_byte : 0.0) /
              kNvlsTreeEfficiency;
          const double alpha =
              kNcclNvlsTreeNvlinkLatUs + 2 * levels * (kNcclNvlsTreeNetLatUs + pc.extra_latency_us);
          set(c, nccl::kAlgoNvlsTree, nccl::kProtoSimple, alpha, nvls_raw);
        }
      }
    }

    // PAT (all-gather, reduce-scatter) across nodes: recursive doubling steps.
    if (net) {
      double beta = 0, extra = 0;
      int32_t steps = 0;
      bool feasible = true;
      for (int64_t dist = 1; dist < N; dist <<= 1, ++steps) {
        flows.clear();
        const double w = static_cast<double>(std::min<int64_t>(dist, N - dist)) / N;
        for (int32_t i = 0; i < N; ++i)
          flows.push_back({i, static_cast<int32_t>((i + dist) % N), w});
        const PatternCost pc = loads.cost(flows);
        feasible = feasible && pc.feasible;
        beta += pc.us_per_byte;
        extra += pc.extra_latency_us;
      }
      if (feasible) {
        const double w = (R - 1) / R;
        const double raw = beta + (g.ranks_per_node > 1 ? w * nvl_us_per_byte : 0.0);
        for (int c : {static_cast<int>(nccl::Func::kAllGather),
                      static_cast<int>(nccl::Func::kReduceScatter)})
          for (int p = 0; p < nccl::kNumProtocols; ++p) {
            const double hop = std::max(kNcclNetLatUs[1][p],
                                        kNcclNetOverheadUs * (p == nccl::kProtoSimple ? 3 : 1));
            set(c, nccl::kAlgoPat, p, kNcclBaseLatUs[1][p] + steps * hop + extra,
                with_protocol(raw, w, p));
          }
      }
    }
    ring_allreduce_gbps_ = headline(nccl::kAlgoRing, R);
    tree_allreduce_gbps_ = headline(nccl::kAlgoTree, R);
  }

  // All-reduce bus bandwidth (nccl-tests) of an algorithm's simple protocol, Gb/s.
  double headline(int algo, double R) const {
    const CostCoefficients k = coef_[4 * kAlgoProto + static_cast<size_t>(algo * 3 + 2)];
    if (!k.modeled() || k.us_per_byte <= 0) return 0;
    return 2 * (R - 1) / R / (k.us_per_byte * collective::kBytesPerUsPerGbps);
  }

  std::string describe(std::string_view line, const topology::ClusterDescriptor<>& d,
                       const detail::TunerGeometry& g) const {
    std::vector<int32_t> sus, pods;
    for (int32_t h : g.host) {
      sus.push_back(d.su_of(HostId{h}).value());
      pods.push_back(d.pod_of(HostId{h}).value());
    }
    auto distinct = [](std::vector<int32_t> v) {
      std::sort(v.begin(), v.end());
      return std::unique(v.begin(), v.end()) - v.begin();
    };
    const topology::ClusterSpec& s = d.spec();
    std::string hosts_text = format_id_list(g.host);
    if (hosts_text.size() > 64) hosts_text = str_cat(hosts_text.substr(0, 60), "...");
    char alpha[64];
    std::snprintf(alpha, sizeof alpha, "%.1f",
                  coefficients(4, nccl::kAlgoRing, nccl::kProtoSimple).alpha_us);
    return str_cat(
        "cluster '", line, "' (", topology::to_string(s.kind), ", ", s.hosts, " hosts, ",
        s.nics_per_host, "x", s.nic_gbps, "G",
        s.planes > 1 ? str_cat(" x ", s.planes, " planes") : "", ", oversub ", s.oversub.down, ":",
        s.oversub.up, "); ", g.ranks, " ranks on ", g.nodes, " nodes (hosts ", hosts_text, ", ",
        distinct(sus), " SU, ", distinct(pods), " pod, ", g.domains, " NVLink domain",
        g.domains == 1 ? "" : "s", "), ", g.ranks_per_node, " ranks/node on ", g.rails.size(),
        " NIC", g.rails.size() == 1 ? "" : "s", "; model allreduce bus Gb/s ring ",
        static_cast<int64_t>(ring_allreduce_gbps_), " tree ",
        static_cast<int64_t>(tree_allreduce_gbps_), ", ring/simple alpha ", alpha, " us");
  }

  std::array<CostCoefficients, nccl::kNumTunedFunctions * kAlgoProto> coef_{};
  std::vector<TuningRule> rules_;
  int32_t rules_parsed_ = 0;
  std::vector<std::string> warnings_;
  std::string summary_;
  double ring_allreduce_gbps_ = 0;
  double tree_allreduce_gbps_ = 0;
};

}  // namespace railyard::tune
