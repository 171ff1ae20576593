// railyard/tune/model.hpp — railyard's NCCL tuning model: NCCL's own cost model
// (nccl_model.hpp) with the fabric above the NIC put in, built once per
// communicator and applied to NCCL's cost table on every collective (the C-ABI
// adapters around it are plugin/tuner.hpp).
//
//   namespace nccl = railyard::tune::nccl;
//   railyard::tune::TunerOptions o;
//   o.cluster = "h100-1024-2to1";                     // or a cluster file's text
//   o.ranks = 512;                                     // NCCL's nRanks, nNodes
//   o.nodes = 64;
//   o.constants = nccl_constants;                      // what NCCL passed (v5, v6)
//   auto core = railyard::tune::TunerCore::create(o);
//   if (!core.ok()) return core.status();              // names the bad field and value
//   float table[nccl::kNumAlgorithms][nccl::kNumProtocols];  // NCCL's own costs, -1 = ignore
//   int channels = 0;
//   core->fill_cost_table(nccl::Func::kAllReduce, size_t{1} << 28, /*num_pipe_ops=*/1,
//                         &table[0][0], nccl::kNumAlgorithms, nccl::kNumProtocols,
//                         /*reg_buff=*/0, &channels);
//
// How a cost is changed. NCCL fills its cost table with its own model before it
// asks the tuner (src/enqueue.cc ncclGetAlgoInfo: updateCollCostTable, then
// getCollInfo), and that table already holds everything NCCL knows and railyard
// does not: the graphs its search found, the constants it runs with, the
// entries it does not allow (-1) and the penalties it applies (fp8 ring on more
// than 8 ranks costs 1024x). railyard runs NCCL's model twice on its estimate
// of the communicator (nccl_model.hpp, estimate_nccl_graphs): once as NCCL sees
// the fabric (a flat network behind each NIC) and once with the fabric railyard
// knows, and multiplies each allowed entry by
//
//     railyard_time(bytes, numPipeOps) / nccl_view_time(bytes, numPipeOps).
//
// Entries NCCL marked not allowed stay untouched; penalties are scaled, never
// removed; where the two runs agree the entry stays bit-identical, so on a fabric
// with no reason to differ NCCL chooses what it would have chosen alone.
//
// What railyard knows better (the FabricTerms of nccl_model.hpp):
// * bandwidth: the algorithm's traffic between nodes (ring: node i -> i+1; tree
//   and nvls_tree: NCCL's double binary tree, collective::dtree_parent; pat:
//   recursive doubling; broadcast/reduce: the chain), spread over the rails and
//   planes its ranks use, costed by the one contention model
//   (collective::contention_us) on the real fabric — NIC ports, each leaf's
//   uplinks and downlinks, each pod's spine-core links — against the same
//   traffic on NIC ports alone. The ratio (>= 1) divides NCCL's inter-node
//   bandwidth: oversubscription, scattered hosts (RAILYARD_HOSTS) and planes.
// * latency: every network hop that leaves its leaf crosses 2 more switches and
//   2 leaf-spine cables, one that leaves its pod 2 more switches and 2
//   spine-core cables (collective::LatencyModel). The worst flow's extra is added
//   to NCCL's per-hop network latency.
// CollNet entries (in-switch reduction) keep NCCL's value: railyard has no model
// of it.
//
// Nodes. NCCL's node is a host, or with multi-node NVLink (MNNVL: GB200 NVL72,
// NVL36) one NVLink domain: NCCL then reports e.g. 576 ranks on 8 nodes. A node
// of more ranks than a host has GPUs is accepted when the cluster's NVLink
// domain (scale_up) holds them; it spans ceil(ranks per node / GPUs per host)
// hosts of one domain. Node i runs on hosts[i] (TunerOptions::hosts, one entry
// per host in node order, e.g. from RAILYARD_HOSTS) or, without a list, on the
// i-th host (the i-th domain's first hosts with MNNVL): consecutive, SU- and
// pod-aligned, the best case a scheduler can give. A host's ranks sit on GPUs
// 0..k-1 and use those GPUs' NICs (descriptor nic_of_gpu) on every plane.
//
// Rules (NCCL_TUNER_CONFIG_FILE, tune/rules.hpp): the first rule that matches the
// call and whose entry NCCL allows wins: that entry gets cost 0.0 (forcing it, as
// NCCL's example tuner does) and *nChannels the rule's channels.
//
// Hot path: fill_cost_table() allocates nothing, takes no lock, does no I/O; per
// allowed entry it evaluates NCCL's time formula twice and divides. It never
// writes an entry NCCL marked not allowed and leaves *nChannels alone unless a
// rule sets it.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
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
#include "railyard/tune/nccl_graphs.hpp"
#include "railyard/tune/nccl_model.hpp"
#include "railyard/tune/rules.hpp"

namespace railyard::tune {

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
  // The constants NCCL passed at init (v5+); without them (v3, v4) the defaults
  // of `release`.
  std::optional<NcclConstants> constants;
  NcclRelease release = NcclRelease::k2_30;
  std::vector<HostId> hosts;      // hosts of node 0, node 1, ...; empty: consecutive
  // A host list of another length than this communicator's (a job's list seen
  // by one of its smaller communicators) is set aside for consecutive hosts,
  // with a note, instead of being an error.
  bool hosts_may_be_the_jobs = false;
  std::string_view rules;         // NCCL_TUNER_CONFIG_FILE text; empty: none
};

namespace detail {

// Where the communicator's ranks are (see the overview).
struct TunerGeometry {
  int32_t ranks = 1;
  int32_t nodes = 1;
  int32_t ranks_per_node = 1;
  int32_t hosts_per_node = 1;  // > 1 only with multi-node NVLink
  std::vector<int32_t> host;   // nodes x hosts_per_node, node-major
  std::vector<int32_t> rails;  // NICs one host's ranks use
  double host_net_gbps = 0;    // NIC egress of one host
};

struct NodeFlow {
  int32_t src = 0;
  int32_t dst = 0;
  double weight = 0;  // bytes per byte of nBytes
};

struct PatternCost {
  double us_per_byte = 0;       // on the real fabric
  double flat_us_per_byte = 0;  // on NIC ports alone (NCCL's view)
  double extra_latency_us = 0;  // worst network flow's latency beyond one leaf
  bool feasible = true;         // false: a flow needs a tier with no links

  // The FabricTerms of this traffic: 1 and 0 when it does not cross the network.
  [[nodiscard]] FabricTerms terms() const {
    if (!feasible || flat_us_per_byte <= 0) return {};
    return {static_cast<float>(std::max(1.0, us_per_byte / flat_us_per_byte)),
            static_cast<float>(extra_latency_us)};
  }
};

// The fabric as the tuning model sees it: each host's NIC egress and ingress,
// each leaf's uplinks and downlinks, each pod's spine-core links up and down (per
// plane and partition), with their capacities. A pattern of node flows is split
// over the hosts of each node (host k to host k), the rails and the planes, and
// costed by the one contention model (collective::contention_us), once on every
// resource and once on NIC ports alone; its extra latency by the one latency
// model (collective::LatencyModel).
class FabricLoads {
 public:
  FabricLoads(const topology::ClusterDescriptor<>& d, const TunerGeometry& g,
              const collective::LatencyModel& latency = {})
      : d_(d), g_(g) {
    const topology::ClosShape& s = d.shape();
    const size_t hosts = g.host.size();
    const size_t pod_groups = static_cast<size_t>(s.planes) * s.partitions * s.pods;
    const auto leaves = static_cast<size_t>(s.total_leaves());
    // Resource ids: host out, host in (per host of the communicator), leaf up,
    // leaf down (per leaf), pod up, pod down (per plane x partition x pod).
    host_out_ = 0;
    host_in_ = host_out_ + hosts;
    leaf_up_ = host_in_ + hosts;
    leaf_down_ = leaf_up_ + leaves;
    pod_up_ = leaf_down_ + leaves;
    pod_down_ = pod_up_ + pod_groups;
    capacity_gbps_.assign(pod_down_ + pod_groups, 0.0);
    auto fill = [&](size_t first, size_t count, double gbps) {
      std::fill_n(capacity_gbps_.begin() + static_cast<std::ptrdiff_t>(first), count, gbps);
    };
    fill(host_out_, 2 * hosts, g.host_net_gbps);
    fill(leaf_up_, 2 * leaves, s.leaf_up_ports * d.capacity_gbps(topology::LinkTier::kLeafSpine));
    fill(pod_up_, 2 * pod_groups,
         static_cast<double>(s.spines_per_pod) * s.spine_up_ports *
             d.capacity_gbps(topology::LinkTier::kSpineCore));
    const double leaf_spine_ns = 2 * d.latency_ns(topology::LinkTier::kLeafSpine) +
                                 2 * latency.switch_ns;
    extra_leaf_us_ = leaf_spine_ns / 1000.0;
    extra_pod_us_ = (leaf_spine_ns + 2 * d.latency_ns(topology::LinkTier::kSpineCore) +
                     2 * latency.switch_ns) /
                    1000.0;
  }

  // The bandwidth terms and the extra latency of `flows` run at once.
  PatternCost cost(std::span<const NodeFlow> flows) {
    PatternCost out;
    for (const bool flat : {false, true}) {
      flows_.clear();
      for (const NodeFlow& f : flows) add(f, flat, out.extra_latency_us);
      const double worst = collective::contention_us(capacity_gbps_, flows_, scratch_);
      if (!std::isfinite(worst)) {
        out.feasible = false;
        return out;
      }
      (flat ? out.flat_us_per_byte : out.us_per_byte) = worst;
    }
    return out;
  }

 private:
  void add(const NodeFlow& f, bool flat, double& extra_out) {
    const topology::ClosShape& s = d_.shape();
    const int32_t planes = d_.planes();
    const int32_t per_node = g_.hosts_per_node;
    const double bytes =
        f.weight / (static_cast<double>(per_node) * static_cast<double>(g_.rails.size()) * planes);
    for (int32_t k = 0; k < per_node; ++k) {
      const auto a = static_cast<size_t>(f.src * per_node + k);
      const auto b = static_cast<size_t>(f.dst * per_node + k);
      const HostId ha{g_.host[a]}, hb{g_.host[b]};
      for (int32_t r : g_.rails)
        for (int32_t p = 0; p < planes; ++p) {
          const SwitchIndex la = d_.leaf_of(ha, RailId{r}, PlaneId{p});
          const SwitchIndex lb = d_.leaf_of(hb, RailId{r}, PlaneId{p});
          if (la != lb) extra_out = std::max(extra_out, extra_leaf_us_);
          if (la == lb || flat) {
            flows_.add(bytes, {host_out_ + a, host_in_ + b});
            continue;
          }
          const int32_t pa = d_.pod_of_leaf(la), pb = d_.pod_of_leaf(lb);
          const size_t leaf_a = leaf_up_ + static_cast<size_t>(la.value());
          const size_t leaf_b = leaf_down_ + static_cast<size_t>(lb.value());
          if (pa == pb) {
            flows_.add(bytes, {host_out_ + a, host_in_ + b, leaf_a, leaf_b});
            continue;
          }
          extra_out = std::max(extra_out, extra_pod_us_);
          const size_t group = static_cast<size_t>(p * s.partitions + d_.partition_of_leaf(la)) *
                               static_cast<size_t>(s.pods);
          flows_.add(bytes, {host_out_ + a, host_in_ + b, leaf_a, leaf_b,
                             pod_up_ + group + static_cast<size_t>(pa),
                             pod_down_ + group + static_cast<size_t>(pb)});
        }
    }
  }

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
  size_t host_out_ = 0, host_in_ = 0, leaf_up_ = 0, leaf_down_ = 0, pod_up_ = 0, pod_down_ = 0;
  std::vector<double> capacity_gbps_;
  double extra_leaf_us_ = 0, extra_pod_us_ = 0;
  ResourceFlows flows_;
  std::vector<double> scratch_;
};

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

// FNV-1a, 64 bits: a digest of the tuner's inputs that is the same on every
// platform (std::hash is not).
class Fnv1a {
 public:
  void add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      state_ ^= c;
      state_ *= 0x100000001b3ULL;
    }
    add_separator();
  }
  void add(int64_t v) {
    for (int i = 0; i < 8; ++i) {
      state_ ^= static_cast<uint64_t>(v >> (8 * i)) & 0xffU;
      state_ *= 0x100000001b3ULL;
    }
  }
  [[nodiscard]] uint64_t value() const { return state_; }

 private:
  void add_separator() {
    state_ ^= 0xffU;
    state_ *= 0x100000001b3ULL;
  }
  uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace detail

// The per-communicator model. Build it once (init), then call fill_cost_table()
// on the hot path; it is immutable after create(), so concurrent calls are safe.
class TunerCore {
 public:
  // Errors (InvalidArgument naming the field): a bad cluster spec, ranks or nodes
  // < 1, nodes > ranks, more ranks per node than one NVLink domain holds, more
  // hosts than the cluster has, a host list of the wrong size or with hosts
  // outside the cluster. Rule lines that do not parse are warnings(), not errors.
  // Cost: O(nodes x hosts per node x rails x planes x log nodes + leaves).
  [[nodiscard]] static StatusOr<TunerCore> create(const TunerOptions& o) {
    RAILYARD_ASSIGN_OR_RETURN(std::string line, detail::cluster_line(o.cluster));
    RAILYARD_ASSIGN_OR_RETURN(topology::ClusterSpec spec, topology::parse_cluster(line));
    RAILYARD_ASSIGN_OR_RETURN(topology::ClusterDescriptor<> d, topology::make_descriptor(spec));
    if (o.ranks < 1 || o.ranks > (int64_t{1} << 30))
      return invalid_field("nRanks", str_cat(o.ranks), "must be in [1, 2^30]");
    if (o.nodes < 1 || o.nodes > o.ranks)
      return invalid_field("nNodes", str_cat(o.nodes),
                           str_cat("must be in [1, nRanks=", o.ranks, "]"));
    detail::TunerGeometry g;
    g.ranks = static_cast<int32_t>(o.ranks);
    g.nodes = static_cast<int32_t>(o.nodes);
    g.ranks_per_node = static_cast<int32_t>((o.ranks + o.nodes - 1) / o.nodes);
    if (o.nvl && o.nvl->max_ranks > 0)
      g.ranks_per_node = std::max(g.ranks_per_node, o.nvl->max_ranks);
    const int32_t gpus = d.gpus_per_host();
    if (g.ranks_per_node > gpus) {
      // NCCL's node is an NVLink domain (MNNVL): it must fit in one.
      if (g.ranks_per_node > spec.scale_up)
        return invalid_field(
            "nRanks", str_cat(o.ranks),
            str_cat(g.ranks_per_node, " ranks per node exceed the cluster's ", gpus,
                    " GPUs per host and its NVLink domain of ", spec.scale_up, " GPUs"));
      g.hosts_per_node = (g.ranks_per_node + gpus - 1) / gpus;
    }
    const int64_t hosts_needed = int64_t{g.nodes} * g.hosts_per_node;
    if (hosts_needed > d.hosts())
      return invalid_field(
          "nNodes", str_cat(o.nodes),
          str_cat(g.nodes, " nodes of ", g.hosts_per_node, " host", g.hosts_per_node == 1 ? "" : "s",
                  " exceed the cluster's ", d.hosts(), " hosts (cluster ", line, ")"));
    std::string hosts_note;
    const bool use_hosts =
        !o.hosts.empty() && !(o.hosts_may_be_the_jobs &&
                              static_cast<int64_t>(o.hosts.size()) != hosts_needed);
    if (!o.hosts.empty() && !use_hosts)
      hosts_note = str_cat("the host list has ", o.hosts.size(), " hosts, not this communicator's ",
                           hosts_needed, ": assuming consecutive hosts");
    if (use_hosts) {
      if (static_cast<int64_t>(o.hosts.size()) != hosts_needed)
        return invalid_field("hosts", format_host_list(o.hosts),
                             str_cat(o.hosts.size(), " hosts for ", g.nodes, " nodes of ",
                                     g.hosts_per_node, " host", g.hosts_per_node == 1 ? "" : "s"));
      for (HostId h : o.hosts) {
        if (h.value() < 0 || h.value() >= d.hosts())
          return invalid_field("hosts", str_cat(h.value()),
                               str_cat("is not a host of the cluster (", d.hosts(), " hosts)"));
        g.host.push_back(h.value());
      }
      if (g.hosts_per_node > 1)
        for (int32_t i = 0; i < g.nodes; ++i) {
          const auto first = static_cast<size_t>(i * g.hosts_per_node);
          for (int32_t k = 1; k < g.hosts_per_node; ++k)
            if (d.domain_of(HostId{g.host[first + static_cast<size_t>(k)]}) !=
                d.domain_of(HostId{g.host[first]}))
              return invalid_field(
                  "hosts", str_cat(g.host[first + static_cast<size_t>(k)]),
                  str_cat("is not in the NVLink domain of host ", g.host[first],
                          ", though both hold ranks of node ", i));
        }
    } else {
      const int32_t stride = g.hosts_per_node > 1 ? d.hosts_per_domain() : 1;
      if (int64_t{g.nodes} * stride > d.hosts())
        return invalid_field("nNodes", str_cat(o.nodes),
                             str_cat("exceeds the cluster's ", d.hosts() / stride,
                                     " NVLink domains (cluster ", line, ")"));
      for (int32_t i = 0; i < g.nodes; ++i)
        for (int32_t k = 0; k < g.hosts_per_node; ++k) g.host.push_back(i * stride + k);
    }
    const int32_t gpus_used = std::min(g.ranks_per_node, gpus);
    for (int32_t gpu = 0; gpu < gpus_used; ++gpu) {
      const int32_t nic = d.nic_of_gpu(GpuIndex{gpu}).value();
      if (std::find(g.rails.begin(), g.rails.end(), nic) == g.rails.end()) g.rails.push_back(nic);
    }
    g.host_net_gbps = static_cast<double>(g.rails.size()) * d.planes() *
                      d.capacity_gbps(topology::LinkTier::kHostLeaf);

    TunerCore core;
    core.comm_ = nccl_comm_view(spec, g.ranks, g.nodes, g.ranks_per_node);
    core.constants_ = o.constants ? *o.constants : nccl_release_constants(o.release);
    core.build_model(d, g);
    TuningRules parsed = parse_tuning_rules(o.rules);
    core.warnings_ = std::move(parsed.warnings);
    core.rules_parsed_ = static_cast<int32_t>(parsed.rules.size());
    for (const TuningRule& r : parsed.rules)
      if ((r.nodes == -1 || r.nodes == g.nodes) && (r.ranks == -1 || r.ranks == g.ranks))
        core.rules_.push_back(r);
    core.summary_ = core.describe(line, d, g);
    core.hosts_note_ = std::move(hosts_note);
    return core;
  }

  // Scales every entry of `table` (NCCL's contiguous float[num_algo][num_proto],
  // already filled by NCCL's model) that is not negative by railyard's time over
  // NCCL's (see the overview), then applies the first matching rule. `coll`
  // outside the five tuned collectives leaves everything untouched. Never
  // allocates, locks or blocks.
  void fill_cost_table(nccl::Func coll, size_t n_bytes, int num_pipe_ops, float* table,
                       int num_algo, int num_proto, int reg_buff, int* n_channels) const noexcept {
    const int c = static_cast<int>(coll);
    if (table == nullptr || c < 0 || c >= nccl::kNumTunedFunctions || num_algo <= 0 ||
        num_proto <= 0)
      return;
    const int algos = std::min(num_algo, nccl::kNumAlgorithms);
    const int protos = std::min(num_proto, nccl::kNumProtocols);
    for (int a = 0; a < algos; ++a)
      for (int p = 0; p < protos; ++p) {
        float& cell = table[a * num_proto + p];
        // Not allowed (negative), forced (0), NaN or infinite: NCCL's as it is.
        if (!(cell > 0.0f) || !std::isfinite(cell)) continue;
        const float ratio = scale(c, a, p, n_bytes, num_pipe_ops);
        if (ratio == 1.0f) continue;
        // A cost near FLT_MAX stays the largest finite one rather than overflowing.
        const float scaled = cell * ratio;
        cell = std::isfinite(scaled) ? scaled : std::numeric_limits<float>::max();
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

  // The factor fill_cost_table applies to NCCL's entry (coll, algo, proto): 1
  // where railyard's fabric changes nothing or the entry is not modeled.
  // NCCL never passes numPipeOps < 1; such a value counts as 1.
  [[nodiscard]] float scale(int coll, int algo, int proto, size_t n_bytes,
                            int num_pipe_ops) const noexcept {
    if (!in_range(coll, algo, proto)) return 1.0f;
    num_pipe_ops = std::max(num_pipe_ops, 1);
    const Entry& e = entries_[index(coll, algo, proto)];
    if (!e.changed) return 1.0f;
    const float nccl_us =
        nccl_time_us(comm_, e.nccl_bw, e.nccl_lat, coll, algo, proto, n_bytes, num_pipe_ops);
    const float railyard_us = nccl_time_us(comm_, e.railyard_bw, e.railyard_lat, coll, algo,
                                           proto, n_bytes, num_pipe_ops);
    if (!(nccl_us > 0.0f) || !(railyard_us > 0.0f)) return 1.0f;
    const float ratio = railyard_us / nccl_us;
    return std::isfinite(ratio) ? ratio : 1.0f;
  }

  // NCCL's model as railyard estimates NCCL computes it, and railyard's: µs, or
  // -1 where NCCL's model has no bandwidth for the entry. Out of range: -1.
  [[nodiscard]] float nccl_view_us(int coll, int algo, int proto, size_t n_bytes,
                                   int num_pipe_ops = 1) const {
    if (!in_range(coll, algo, proto)) return -1.0f;
    const Entry& e = entries_[index(coll, algo, proto)];
    return nccl_time_us(comm_, e.nccl_bw, e.nccl_lat, coll, algo, proto, n_bytes, num_pipe_ops);
  }
  [[nodiscard]] float railyard_us(int coll, int algo, int proto, size_t n_bytes,
                                  int num_pipe_ops = 1) const {
    if (!in_range(coll, algo, proto)) return -1.0f;
    const Entry& e = entries_[index(coll, algo, proto)];
    return nccl_time_us(comm_, e.railyard_bw, e.railyard_lat, coll, algo, proto, n_bytes,
                        num_pipe_ops);
  }
  // NCCL's cost table as railyard estimates it (nccl_model.hpp nccl_cost_table).
  void nccl_view_table(int coll, size_t n_bytes, int num_pipe_ops, bool fp8,
                       float (&table)[nccl::kNumAlgorithms][nccl::kNumProtocols]) const {
    nccl_cost_table(comm_, nccl_tables_, coll, n_bytes, num_pipe_ops, fp8, table);
  }
  // The fabric terms of (coll, algo).
  [[nodiscard]] FabricTerms fabric_terms(int coll, int algo) const {
    if (!in_range(coll, algo, 0)) return {};
    return terms_[static_cast<size_t>(coll)][static_cast<size_t>(algo)];
  }
  // What NCCL knows of the communicator, as railyard estimates it.
  [[nodiscard]] const NcclCommView& nccl_comm() const { return comm_; }
  [[nodiscard]] const NcclConstants& constants() const { return constants_; }

  // Rules that can match this communicator (nNodes/nRanks fit), in file order.
  [[nodiscard]] const std::vector<TuningRule>& rules() const { return rules_; }
  // Rules that parsed, whatever their nNodes/nRanks.
  [[nodiscard]] int32_t rules_parsed() const { return rules_parsed_; }
  // One message per ignored rule line.
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }
  // One line: cluster, placement and headline figures of the model.
  [[nodiscard]] const std::string& summary() const { return summary_; }
  // Why a host list was set aside (hosts_may_be_the_jobs), or empty.
  [[nodiscard]] const std::string& hosts_note() const { return hosts_note_; }

 private:
  struct Entry {
    float nccl_bw = 0, nccl_lat = 0;
    float railyard_bw = 0, railyard_lat = 0;
    bool changed = false;
  };
  static constexpr size_t kAlgoProto = nccl::kNumAlgorithms * nccl::kNumProtocols;
  static constexpr bool in_range(int c, int a, int p) {
    return c >= 0 && c < nccl::kNumTunedFunctions && a >= 0 && a < nccl::kNumAlgorithms &&
           p >= 0 && p < nccl::kNumProtocols;
  }
  static constexpr size_t index(int c, int a, int p) {
    return static_cast<size_t>(c) * kAlgoProto + static_cast<size_t>(a * nccl::kNumProtocols + p);
  }

  void build_model(const topology::ClusterDescriptor<>& d, const detail::TunerGeometry& g) {
    using namespace detail;
    FabricLoads loads(d, g);
    const int32_t N = g.nodes;
    const double R = g.ranks;
    std::vector<NodeFlow> flows;
    if (N > 1) {
      // Ring, every collective: node i -> i+1 (broadcast/reduce: the open chain).
      for (int c = 0; c < nccl::kNumTunedFunctions; ++c) {
        const auto coll = static_cast<nccl::Func>(c);
        const bool chain = coll == nccl::Func::kBroadcast || coll == nccl::Func::kReduce;
        const double w = coll == nccl::Func::kAllReduce ? 2.0 * (R - 1) / R
                         : chain                        ? 1.0
                                                        : (R - 1) / R;
        flows.clear();
        for (int32_t i = 0; i < (chain ? N - 1 : N); ++i) flows.push_back({i, (i + 1) % N, w});
        terms_[static_cast<size_t>(c)][nccl::kAlgoRing] = loads.cost(flows).terms();
      }
      // NCCL's double binary tree over nodes: tree and nvls_tree all-reduce.
      flows.clear();
      for (int32_t t = 0; t < 2; ++t)
        for (int32_t i = 0; i < N; ++i) {
          const int32_t up = collective::dtree_parent(N, t, i);
          if (up < 0) continue;
          flows.push_back({i, up, 0.5});
          flows.push_back({up, i, 0.5});
        }
      const FabricTerms tree = loads.cost(flows).terms();
      const auto all_reduce = static_cast<size_t>(nccl::Func::kAllReduce);
      terms_[all_reduce][nccl::kAlgoTree] = tree;
      terms_[all_reduce][nccl::kAlgoNvlsTree] = tree;
      // PAT (all-gather, reduce-scatter): recursive doubling, steps in sequence.
      double real = 0, flat = 0, extra = 0;
      bool feasible = true;
      for (int64_t dist = 1; dist < N; dist <<= 1) {
        flows.clear();
        const double w = static_cast<double>(std::min<int64_t>(dist, N - dist)) / N;
        for (int32_t i = 0; i < N; ++i)
          flows.push_back({i, static_cast<int32_t>((i + dist) % N), w});
        const PatternCost pc = loads.cost(flows);
        feasible = feasible && pc.feasible;
        real += pc.us_per_byte;
        flat += pc.flat_us_per_byte;
        extra = std::max(extra, pc.extra_latency_us);
      }
      const FabricTerms pat = PatternCost{real, flat, extra, feasible}.terms();
      terms_[static_cast<size_t>(nccl::Func::kAllGather)][nccl::kAlgoPat] = pat;
      terms_[static_cast<size_t>(nccl::Func::kReduceScatter)][nccl::kAlgoPat] = pat;
    }
    nccl_tables_ = nccl_model_tables(comm_, constants_);
    const NcclTables fabric = nccl_model_tables(comm_, constants_, &terms_);
    for (int c = 0; c < nccl::kNumTunedFunctions; ++c)
      for (int a = 0; a < nccl::kNumAlgorithms; ++a)
        for (int p = 0; p < nccl::kNumProtocols; ++p) {
          Entry& e = entries_[index(c, a, p)];
          e.nccl_bw = nccl_tables_.bandwidth[c][a][p];
          e.nccl_lat = nccl_tables_.latency[c][a][p];
          e.railyard_bw = fabric.bandwidth[c][a][p];
          e.railyard_lat = fabric.latency[c][a][p];
          e.changed = e.nccl_bw > 0 && e.railyard_bw > 0 &&
                      (e.nccl_bw != e.railyard_bw || e.nccl_lat != e.railyard_lat);
        }
  }

  // All-reduce bus bandwidth (nccl-tests busBw) of ring/simple, Gb/s, per a table.
  [[nodiscard]] double ring_bus_gbps(bool railyard) const {
    const Entry& e = entries_[index(4, nccl::kAlgoRing, nccl::kProtoSimple)];
    const double alg_gbs = railyard ? e.railyard_bw : e.nccl_bw;  // algorithm GB/s
    const double R = comm_.ranks;
    return alg_gbs * 2 * (R - 1) / R * 8;
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
    const FabricTerms ring = terms_[4][nccl::kAlgoRing];
    const FabricTerms tree = terms_[4][nccl::kAlgoTree];
    char figures[160];
    std::snprintf(figures, sizeof figures,
                  "fabric: allreduce ring x%.2f bandwidth +%.2f us/hop, tree x%.2f +%.2f us/hop",
                  static_cast<double>(ring.bw_factor), static_cast<double>(ring.extra_inter_us),
                  static_cast<double>(tree.bw_factor), static_cast<double>(tree.extra_inter_us));
    return str_cat(
        "cluster '", line, "' (", topology::to_string(s.kind), ", ", s.hosts, " hosts, ",
        s.nics_per_host, "x", s.nic_gbps, "G",
        s.planes > 1 ? str_cat(" x ", s.planes, " planes") : "", ", oversub ", s.oversub.down, ":",
        s.oversub.up, ", ", topology::to_string(s.gpu), "); ", g.ranks, " ranks on ", g.nodes,
        " nodes", g.hosts_per_node > 1 ? str_cat(" of ", g.hosts_per_node, " hosts (MNNVL)") : "",
        " (hosts ", hosts_text, ", ", distinct(sus), " SU, ", distinct(pods), " pod), ",
        std::min(g.ranks_per_node, d.gpus_per_host()), " ranks/host on ", g.rails.size(), " NIC",
        g.rails.size() == 1 ? "" : "s", "; NCCL ring allreduce bus Gb/s ",
        static_cast<int64_t>(ring_bus_gbps(false)), ", railyard ",
        static_cast<int64_t>(ring_bus_gbps(true)), "; ", figures);
  }

  NcclCommView comm_;
  NcclConstants constants_{};
  NcclTables nccl_tables_;
  FabricTermTable terms_{};
  std::array<Entry, nccl::kNumTunedFunctions * kAlgoProto> entries_{};
  std::vector<TuningRule> rules_;
  int32_t rules_parsed_ = 0;
  std::vector<std::string> warnings_;
  std::string summary_;
  std::string hosts_note_;
};

// The digest of the tuner's own inputs, which every rank of a job must share:
// the cluster (its canonical spec string, so "h100-1024" and its spelled-out
// spec agree), the host list text (RAILYARD_HOSTS, spaces ignored) and the rules
// text (NCCL_TUNER_CONFIG_FILE). Not nRanks/nNodes: NCCL gives every rank of a
// communicator the same ones, and one job's communicators differ in them. Equal
// digests and equal NCCL inputs give equal decisions. Errors: the cluster's.
RAILYARD_LAZY
[[nodiscard]] StatusOr<uint64_t> tuner_input_digest(std::string_view cluster,
                                                    std::string_view hosts,
                                                    std::string_view rules) {
  RAILYARD_ASSIGN_OR_RETURN(std::string line, detail::cluster_line(cluster));
  RAILYARD_ASSIGN_OR_RETURN(topology::ClusterSpec spec, topology::parse_cluster(line));
  detail::Fnv1a digest;
  digest.add(topology::to_spec_string(spec));
  std::string compact;
  for (char c : hosts)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') compact.push_back(c);
  digest.add(compact);
  digest.add(rules);
  return digest.value();
}

// 16 lower-case hex digits, as RAILYARD_TUNER_DIGEST holds a digest.
[[nodiscard]] inline std::string format_digest(uint64_t digest) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
  return text;
}

}  // namespace railyard::tune
