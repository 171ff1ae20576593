// railyard/tune/nccl_graphs.hpp — what NCCL's topology search would find for a
// communicator on a cluster spec: the graphs (channels and per-channel
// bandwidths) and communicator facts ncclTopoTuneModel reads. A tuner never
// sees NCCL's graphs, so railyard estimates them from the spec with the rules of
// NCCL's search (src/graph/search.cc, NCCL 2.30.7), to weigh latency against
// bandwidth the way NCCL does when it scales NCCL's cost table (model.hpp).
//
//   auto spec = railyard::topology::parse_cluster("h100-1024");
//   railyard::tune::NcclCommView comm =
//       railyard::tune::nccl_comm_view(*spec, /*ranks=*/512, /*nodes=*/64, /*ranks_per_node=*/8);
//   // comm.graphs[ring]: 8 channels x 48 GB/s, as NCCL 2.30.7's search finds on an
//   // HGX H100 with 8 x 400G NICs (docs/nccl-tuner.md#graphs)
//
// The estimate is checked against NCCL's own search and model, run on railyard's
// topology files (docs/nccl-tuner.md#reference); where it is off, only the
// weight of latency against bandwidth in railyard's ratio moves, never an entry
// NCCL computed.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

#include "railyard/topology/cluster_spec.hpp"
#include "railyard/tune/nccl.hpp"
#include "railyard/tune/nccl_model.hpp"

namespace railyard::tune {

namespace detail {

// NCCL's search speeds, GB/s per channel, fastest first (search.cc
// speedArrayInter, sm90SpeedArrayInter, sm100SpeedArrayInter and the Intra ones).
inline constexpr float kNcclSpeedsInter[] = {48.0f, 30.0f, 28.0f, 24.0f, 20.0f, 18.0f, 15.0f,
                                             12.0f, 10.0f, 9.0f,  7.0f,  6.0f,  5.0f,  4.0f,
                                             3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
inline constexpr float kNcclSpeedsInterSm90[] = {48.0f, 45.0f, 42.0f, 40.0f, 30.0f, 24.0f,
                                                 22.0f, 20.0f, 17.5f, 15.0f, 12.0f, 6.0f,
                                                 3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
inline constexpr float kNcclSpeedsInterSm100[] = {96.0f, 86.0f, 80.0f, 48.0f, 45.1f, 42.0f, 40.0f,
                                                  30.0f, 24.0f, 22.0f, 20.0f, 17.5f, 15.0f, 12.0f,
                                                  6.0f,  3.0f,  2.4f,  1.2f,  0.24f, 0.12f};
inline constexpr float kNcclSpeedsIntra[] = {40.0f, 30.0f, 20.0f, 18.0f, 15.0f, 12.0f, 10.0f,
                                             9.0f,  7.0f,  6.0f,  5.0f,  4.0f,  3.0f};
inline constexpr float kNcclSpeedsIntraSm90[] = {60.0f, 50.0f, 40.0f, 30.0f, 24.0f, 20.0f,
                                                 15.0f, 12.0f, 11.0f, 6.0f,  3.0f};
inline constexpr float kNcclSpeedsIntraSm100[] = {90.0f, 80.0f, 70.0f, 60.0f, 50.0f, 45.0f,
                                                  40.0f, 30.0f, 24.0f, 20.0f, 19.0f, 18.0f};

// The fastest search speed not above `limit` (the slowest one otherwise).
constexpr float nccl_speed_at_most(std::span<const float> speeds, float limit) {
  for (float s : speeds)
    if (s <= limit) return s;
  return speeds.back();
}

// ncclTopoDupChannels: a graph of bwIntra >= 25 GB/s doubles its channels at half
// the bandwidth each, unless (sm > 80) it is under 50 GB/s with more than 4.
constexpr NcclGraph nccl_dup_channels(NcclGraph g, int32_t compcap, int32_t max_channels) {
  if (g.channels == 0 || g.pattern == kNcclPatternNvls || g.bw_intra < 25.0f) return g;
  if (compcap > 80 && g.bw_intra < 50.0f && g.channels > 4) return g;
  const int32_t dup = std::min(g.channels * 2, max_channels);
  const int32_t div = (dup + g.channels - 1) / g.channels;
  g.bw_intra /= static_cast<float>(div);
  g.bw_inter /= static_cast<float>(div);
  g.channels = dup;
  return g;
}

// Bandwidth NCCL computes for a GPU's path to its NIC over PCIe Gen5 x16
// (topo.cc: 16 lanes x 32 GT/s, as NCCL's GPU-NIC path reports 48 GB/s on an HGX
// H100, docs/nccl-tuner.md#graphs).
inline constexpr float kNcclGpuNicPathGbs = 48.0f;

}  // namespace detail

// NCCL's compute-capability speed arrays for one GPU.
[[nodiscard]] constexpr std::span<const float> nccl_inter_speeds(int32_t compcap) {
  if (compcap >= 100) return tune::detail::kNcclSpeedsInterSm100;
  if (compcap >= 90) return tune::detail::kNcclSpeedsInterSm90;
  return tune::detail::kNcclSpeedsInter;
}
[[nodiscard]] constexpr std::span<const float> nccl_intra_speeds(int32_t compcap) {
  if (compcap >= 100) return tune::detail::kNcclSpeedsIntraSm100;
  if (compcap >= 90) return tune::detail::kNcclSpeedsIntraSm90;
  return tune::detail::kNcclSpeedsIntra;
}

// The graphs NCCL's search finds for `nodes` nodes of `ranks_per_node` ranks
// (per algorithm, NCCL numbering: tree, ring, collnet direct/chain (none:
// CollNet off), nvls, nvls_tree (the NVLS graph), pat (the tree graph)).
//
// Across nodes (the ring and tree searches of an 8-GPU, 8-NIC host): one
// channel per NIC port the node's ranks use (at most 16: MAXCHANNELS/2 per
// graph), each at the fastest search speed the NIC port and the GPU's PCIe path
// carry; the tree graph on the same NICs; then ncclTopoDupChannels. The ring
// graph's channels differ (sameChannels 0); NCCL settles the tree pattern on
// NCCL_TOPO_PATTERN_TREE for such hosts. NVLS: one channel per GPU
// (NCCL_MAX_NVLS_ARITY). Inside one node: see below. Each rule is what NCCL
// 2.30.7's own search found on railyard's topology files
// (docs/nccl-tuner.md#graphs); other hosts are extrapolations.
[[nodiscard]] inline std::array<NcclGraph, nccl::kNumAlgorithms> estimate_nccl_graphs(
    const topology::ClusterSpec& spec, int32_t ranks_per_node, int32_t nodes) {
  using namespace nccl;
  const int32_t cc = topology::compute_capability(spec.gpu);
  const int32_t gpus_per_host = std::min(ranks_per_node, spec.gpus_per_host);
  const int32_t hosts_per_node = (ranks_per_node + spec.gpus_per_host - 1) / spec.gpus_per_host;
  // NIC ports the node's ranks sit next to (NICs are spread evenly over GPUs).
  const int32_t nics_used =
      std::max(1, gpus_per_host * spec.nics_per_host / spec.gpus_per_host);
  const int32_t nets = nics_used * spec.planes * hosts_per_node;
  const float net_gbs = static_cast<float>(spec.nic_gbps) / 8.0f;
  // NCCL counts NVLink at its own per-link figure (topo.h: 20.0 GB/s Ampere, 20.6
  // Hopper, 40.1 Blackwell) on links of 25 GB/s (A100, H100) or 50 GB/s (B200)
  // per direction: an H100's 450 GB/s of NVLink is 18 links, 370.8 GB/s to NCCL.
  const float nominal_link_gbs = cc >= 100 ? 50.0f : 25.0f;
  const float nccl_link_gbs = cc >= 100 ? 40.1f : cc >= 90 ? 20.6f : 20.0f;
  const float nvlink_gbs = static_cast<float>(spec.nvlink_gbps) / 8.0f / nominal_link_gbs *
                           nccl_link_gbs;
  constexpr int32_t kMaxChannels = 16;  // MAXCHANNELS / 2 per graph search

  std::array<NcclGraph, kNumAlgorithms> g{};
  NcclGraph ring, tree, nvls;
  const bool nvlink = spec.scale_up > 1;
  if (nodes > 1) {
    // With more NIC ports than channels (an NVL72 domain has 72) NICs no longer
    // bound the search: the channels' total must fit the GPU's NVLink (NCCL
    // 2.30.7 on a GB200 NVL72 domain: 16 x 45.1 of 721.8 GB/s).
    const int32_t channels = std::min(nets, kMaxChannels);
    float limit = std::min(net_gbs, tune::detail::kNcclGpuNicPathGbs);
    if (nets > kMaxChannels) limit = std::min(limit, nvlink_gbs / static_cast<float>(channels));
    const float speed = tune::detail::nccl_speed_at_most(nccl_inter_speeds(cc), limit);
    ring = {channels, speed, speed, nvlink, 0, false, kNcclPatternRing};
    // On a host with one NIC per GPU the balanced tree fails and NCCL settles on
    // NCCL_TOPO_PATTERN_TREE (x0.85 in the model); an NVL72 domain keeps the
    // balanced tree (both: NCCL 2.30.7's search on railyard's topology files).
    const bool nic_bound = nets <= kMaxChannels;
    tree = {channels, speed, speed, nvlink, 0, false,
            nic_bound ? kNcclPatternTree : kNcclPatternBalancedTree};
    // ncclTopoDupChannels runs after the first pass; the second raises a
    // NIC-bound Blackwell tree's NVLink speed to twice the network's (HGX B200:
    // bwIntra 96, bwInter 48).
    ring = tune::detail::nccl_dup_channels(ring, cc, 2 * kMaxChannels);
    tree = tune::detail::nccl_dup_channels(tree, cc, 2 * kMaxChannels);
    if (cc >= 100 && nic_bound) tree.bw_intra *= 2;
  } else {
    // The most aggregate bandwidth n x speed within the GPU's NVLink, at most 12
    // channels, more channels on a tie (HGX H100: 12 x 30 GB/s of 370.8).
    const float total = nvlink_gbs;
    float best_speed = nccl_intra_speeds(cc).back();
    int32_t best_channels = 1;
    for (float speed : nccl_intra_speeds(cc)) {
      const int32_t n = std::min(12, static_cast<int32_t>(total / speed));
      if (n < 1) continue;
      if (static_cast<float>(n) * speed >= static_cast<float>(best_channels) * best_speed) {
        best_channels = n;
        best_speed = speed;
      }
    }
    ring = {best_channels, best_speed, best_speed, nvlink, 0, true, kNcclPatternRing};
    tree = {best_channels, best_speed, best_speed, nvlink, 0, true, kNcclPatternBalancedTree};
  }
  if (cc >= 90 && nvlink && ranks_per_node > 1) {
    // One channel per GPU (at most NCCL_MAX_NVLS_ARITY); per-channel speeds as
    // NCCL 2.30.7's search found them: HGX H100 40/48 GB/s (one node: 40/60),
    // HGX B200 48/48, a GB200 NVL72 domain (32 channels) 20/40.
    const int32_t channels = std::min(ranks_per_node, 32);
    float intra = cc >= 100 ? 48.0f : 40.0f;
    float inter = nodes > 1 ? 48.0f : 60.0f;
    if (channels > 8) {
      intra = tune::detail::nccl_speed_at_most(nccl_intra_speeds(cc),
                                               nvlink_gbs / static_cast<float>(channels));
      inter = 40.0f;
    }
    nvls = {channels, intra, inter, true, 0, false, kNcclPatternNvls};
  }
  g[kAlgoTree] = tree;
  g[kAlgoRing] = ring;
  g[kAlgoNvls] = nvls;
  g[kAlgoNvlsTree] = nvls;
  g[kAlgoPat] = tree;
  return g;
}

// Everything ncclTopoTuneModel reads, for `ranks` ranks on `nodes` nodes of a
// cluster spec: the GPU's compute capability, the CPU, NVLS support (NVSwitch
// on Hopper and later), comm->nChannels (the ring's channels, doubled by
// ncclTopoPostset), the graphs.
[[nodiscard]] inline NcclCommView nccl_comm_view(const topology::ClusterSpec& spec, int32_t ranks,
                                                 int32_t nodes, int32_t ranks_per_node) {
  NcclCommView v;
  v.ranks = ranks;
  v.nodes = nodes;
  v.local_ranks = ranks_per_node;
  v.compcap = topology::compute_capability(spec.gpu);
  v.cpu = spec.cpu == topology::CpuModel::kAmd     ? NcclCpu::kAmd
          : spec.cpu == topology::CpuModel::kGrace ? NcclCpu::kArm
                                                   : NcclCpu::kIntel;
  v.graphs = estimate_nccl_graphs(spec, ranks_per_node, nodes);
  v.nvls_support = v.graphs[nccl::kAlgoNvls].channels >= 2;
  v.channels = std::min(64, 2 * v.graphs[nccl::kAlgoRing].channels);
  v.max_tree_pattern = v.graphs[nccl::kAlgoTree].pattern;
  v.ll128_enabled = true;
  return v;
}

}  // namespace railyard::tune
