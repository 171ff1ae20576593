// railyard/tune/nccl_model.hpp — NCCL's own cost model, ported term by term:
// what `ncclTopoTuneModel`, `ncclTopoGetAlgoTime` (src/graph/tuning.cc) and
// `updateCollCostTable` (src/enqueue.cc) compute for a communicator, given the
// graphs NCCL's search found and the constants NCCL tunes with. railyard's tuner
// (model.hpp) runs this model twice — once as NCCL sees the fabric, once with
// what railyard knows above the NIC — and scales NCCL's own cost table by the
// ratio, so every term railyard does not change stays NCCL's.
//
//   railyard::tune::NcclCommView comm;                   // what NCCL knows
//   comm.ranks = 512; comm.nodes = 64; comm.compcap = 90;
//   comm.graphs = railyard::tune::estimate_nccl_graphs(spec, /*ranks_per_node=*/8, comm.nodes);
//   comm.channels = comm.graphs[railyard::tune::nccl::kAlgoRing].channels;
//   auto tables = railyard::tune::nccl_model_tables(
//       comm, railyard::tune::nccl_release_constants(railyard::tune::NcclRelease::k2_30));
//   float us = railyard::tune::nccl_algo_time_us(comm, tables, /*coll=*/4, /*algo=*/1,
//                                                /*proto=*/2, size_t{1} << 20, /*pipe_ops=*/1);
//
// Every formula cites NCCL 2.30.7 (tag v2.30.7-1); docs/nccl-tuner.md lists the
// terms, which come from NCCL and which from railyard, per NCCL release. Arithmetic
// is in float where NCCL's is (comm->bandwidths and comm->latencies are float), so
// the port reproduces NCCL's numbers, not just its shape.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "railyard/tune/nccl.hpp"

namespace railyard::tune {

inline constexpr int kNcclHwNvlink = 0;  // NCCL_HW_NVLINK
inline constexpr int kNcclHwPci = 1;     // NCCL_HW_PCI
inline constexpr int kNcclHwNet = 2;     // NCCL_HW_NET
inline constexpr int kNcclCompCaps = 4;  // Volta, Ampere, Hopper, Blackwell
inline constexpr int kNcclScales = 3;    // 1 node, 2 nodes, more

// ncclTunerConstants_v5_t (also v6), field for field: the latency (µs) and
// bandwidth (GB/s) tables NCCL's model reads. NCCL hands its own to a v5/v6
// tuner's init; plugin/tuner.hpp checks the two layouts are identical.
struct NcclConstants {
  double base_latencies[nccl::kNumAlgorithms][nccl::kNumProtocols];
  double hw_latencies[3][nccl::kNumAlgorithms][nccl::kNumProtocols];
  double ll_max_bws[kNcclCompCaps][kNcclScales];
  double per_ch_max_ring_ll128_bws[kNcclCompCaps][kNcclScales];
  double per_ch_max_tree_ll128_bws[kNcclCompCaps][kNcclScales];
  double per_ch_max_tree_bws[kNcclCompCaps][kNcclScales];
  double per_ch_max_nvls_tree_bws[kNcclCompCaps][kNcclScales];
};

// NCCL releases whose default constants railyard carries, for tuners NCCL does
// not hand its constants to. A plugin cannot ask NCCL its version; the ABI it
// was called through bounds it (src/plugin/tuner.cc probes v6, v5, ... and
// each release exports up to one version): v3 only from NCCL 2.22-2.23, v4 from
// 2.24-2.27, v5 from 2.28-2.29 (with constants), v6 from 2.30 (with constants).
// railyard takes the last release of each range. docs/nccl-tuner.md#constants
// lists what changed in which release.
enum class NcclRelease : uint8_t {
  k2_23,  // tuner ABI v3 (2.22, 2.23)
  k2_27,  // tuner ABI v4 (2.24 to 2.27)
  k2_30,  // 2.30 (ABI v6); 2.28 and 2.29 (v5) pass their own constants
};

// The default constants of a release: `ncclTunerConstantsDefaults` (NVIDIA/nccl
// src/graph/tuning.cc, tag v2.30.7-1), or the static tables of tuning.cc that
// preceded it (tags v2.27.7-1, v2.23.4-1). Where an older release had no cap
// (NVLS tree), the cap is unbounded (1e9 GB/s); where it had no Blackwell row
// (2.23: Blackwell ran on the Hopper row), the Hopper row.
[[nodiscard]] constexpr NcclConstants nccl_release_constants(NcclRelease release) {
  NcclConstants k{
      // baseLatencies: tree, ring, collnet direct, collnet chain, nvls, nvls tree, pat
      {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0},
       {8.0, 8.0, 8.0}},
      // hwLatencies [NVLINK, PCI, NET][algorithm][protocol]
      {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25},
        {0, 0, 4.0}},
       {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0},
        {0, 0, 4.0}},
       {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9},
        {0, 0, 14}}},
      // llMaxBws [Volta/Intel, Ampere/AMD, Hopper, Blackwell][1 node, 2 nodes, 4+ nodes]
      {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}},
      // perChMaxRingLL128Bws
      {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}},
      // perChMaxTreeLL128Bws
      {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}},
      // perChMaxTreeBws
      {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}},
      // perChMaxNVLSTreeBws
      {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}},
  };
  if (release == NcclRelease::k2_30) return k;
  // 2.27: NVLS tree network hop 14 µs, Blackwell caps of 2.25, no NVLS tree cap.
  k.hw_latencies[2][5][2] = 14.0;
  for (int s = 0; s < 3; ++s) {
    k.per_ch_max_ring_ll128_bws[3][s] = 73.4;
    k.per_ch_max_tree_ll128_bws[3][s] = s < 2 ? 73.4 : 58.0;
    k.per_ch_max_tree_bws[3][s] = s == 0 ? 77.4 : s == 1 ? 82.8 : 72.0;
    for (int cc = 0; cc < kNcclCompCaps; ++cc) k.per_ch_max_nvls_tree_bws[cc][s] = 1e9;
  }
  if (release == NcclRelease::k2_27) return k;
  // 2.23: no Blackwell row (Blackwell GPUs took the Hopper one).
  for (int s = 0; s < 3; ++s) {
    k.ll_max_bws[3][s] = k.ll_max_bws[2][s];
    k.per_ch_max_ring_ll128_bws[3][s] = k.per_ch_max_ring_ll128_bws[2][s];
    k.per_ch_max_tree_ll128_bws[3][s] = k.per_ch_max_tree_ll128_bws[2][s];
    k.per_ch_max_tree_bws[3][s] = k.per_ch_max_tree_bws[2][s];
  }
  return k;
}

// NCCL_TOPO_PATTERN_* (src/include/graph.h).
inline constexpr int kNcclPatternBalancedTree = 1;
inline constexpr int kNcclPatternSplitTree = 2;
inline constexpr int kNcclPatternTree = 3;
inline constexpr int kNcclPatternRing = 4;
inline constexpr int kNcclPatternNvls = 5;

// What NCCL's search leaves in one `struct ncclTopoGraph` that the model reads.
struct NcclGraph {
  int32_t channels = 0;
  float bw_intra = 0;         // GB/s per channel inside a node
  float bw_inter = 0;         // GB/s per channel between nodes
  bool nvlink_intra = true;   // typeIntra == LINK_NVL (else the PCI latencies)
  float latency_inter = 0;    // µs, 0 unless the topology file gives one
  bool same_channels = true;  // ring: every channel the same path
  int32_t pattern = kNcclPatternRing;
};

enum class NcclCpu : uint8_t { kIntel, kAmd, kArm };

// What ncclTopoTuneModel reads from the communicator.
struct NcclCommView {
  int32_t ranks = 1;
  int32_t nodes = 1;
  int32_t local_ranks = 1;  // comm->localRanks (max over nodes)
  int32_t compcap = 90;     // comm->minCompCap == maxCompCap (sm x 10)
  NcclCpu cpu = NcclCpu::kIntel;
  bool nvls_support = false;    // NVLS multicast available (NVSwitch, CUDA driver)
  bool ll128_enabled = true;    // the LL128 enable rules (tuning.cc) hold
  int32_t channels = 1;         // comm->nChannels (the ring plateau uses it)
  int32_t max_tree_pattern = kNcclPatternBalancedTree;
  std::array<NcclGraph, nccl::kNumAlgorithms> graphs{};
};

// NCCL's comm->bandwidths (GB/s of algorithm bandwidth) and comm->latencies (µs).
struct NcclTables {
  float bandwidth[nccl::kNumTunedFunctions][nccl::kNumAlgorithms][nccl::kNumProtocols] = {};
  float latency[nccl::kNumTunedFunctions][nccl::kNumAlgorithms][nccl::kNumProtocols] = {};
};

// What railyard changes in NCCL's model for one (collective, algorithm): the
// fabric above the NIC. Neutral terms give NCCL's own numbers.
struct FabricTerms {
  float bw_factor = 1;        // >= 1: the inter-node bandwidth divides by it
  float extra_inter_us = 0;   // added to NCCL's per-hop network latency
};
using FabricTermTable = std::array<std::array<FabricTerms, nccl::kNumAlgorithms>,
                                   nccl::kNumTunedFunctions>;

namespace detail {

// NCCL's compCapIndex (tuning.cc).
constexpr int nccl_compcap_index(int32_t compcap) {
  return compcap >= 100 ? 3 : compcap >= 90 ? 2 : compcap >= 80 ? 1 : 0;
}

// NCCL's nvlsEfficiency (tuning.cc): Volta, Ampere, Hopper, Blackwell.
inline constexpr float kNcclNvlsEfficiency[kNcclCompCaps] = {0.0f, 0.0f, 0.85f, 0.74f};

// NCCL's treeCorrectionFactor (tuning.cc): powers of two from 64 B.
inline constexpr float kNcclTreeCorrection[nccl::kNumProtocols][24] = {
    {1.0f, 1.0f, 1.0f, 1.0f, .9f, .8f, .7f, .7f, .7f, .7f, .6f, .5f,
     .4f,  .4f,  .5f,  .6f,  .7f, .8f, .9f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f},
    {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, .9f, .8f, .8f, .8f, .7f, .6f, .6f,
     .6f,  .6f,  .6f,  .6f,  .8f,  .9f, .9f, .9f, .9f, 1.0f, 1.0f, 1.0f},
    {.9f, .9f, .9f, .9f, .9f, .9f, .9f, .8f, .7f, .6f, .6f, .5f,
     .5f, .5f, .5f, .6f, .7f, .8f, .7f, .7f, .8f, .9f, .9f, .9f}};

// NCCL_MAX_DEV_WORK_BATCH_COLLS (src/include/device.h): 1024 bytes of batch over
// a 128-byte ncclDevWorkColl.
inline constexpr int kNcclMaxWorkBatchColls = 8;

// log2i (src/include/utils.h, log2Down): floor(log2 n), -1 for 0.
constexpr int nccl_log2i(uint64_t n) {
  int l = -1;
  while (n != 0) n >>= 1, ++l;
  return l;
}

// getNetOverhead (tuning.cc) without NCCL_NET_OVERHEAD: Intel 1 µs, AMD 2 µs,
// anything else 1 µs.
constexpr float nccl_net_overhead_us(NcclCpu cpu) { return cpu == NcclCpu::kAmd ? 2.0f : 1.0f; }

}  // namespace detail

// ncclTopoTuneModel's bandwidths and latencies, plus the enable rules after it
// (NVLS tree off on one node; CollNet off: collnetEnable is 0 by default, which
// also turns NVLS off across nodes; LL128 per ll128_enabled). `terms` applies
// railyard's fabric terms; null gives NCCL's own tables.
[[nodiscard]] inline NcclTables nccl_model_tables(const NcclCommView& comm, const NcclConstants& k,
                                                  const FabricTermTable* terms = nullptr) {
  using namespace nccl;
  NcclTables t;
  const int n_nodes = comm.nodes, n_ranks = comm.ranks;
  if (n_ranks <= 1) return t;
  const int cc = tune::detail::nccl_compcap_index(comm.compcap);
  const int index2 = n_nodes <= 2 ? n_nodes - 1 : 2;
  const int index1 = n_nodes == 1 ? cc : comm.cpu == NcclCpu::kAmd ? 1 : 0;
  const double ll_max_bw = k.ll_max_bws[index1][index2];
  const double per_ch_tree = k.per_ch_max_tree_bws[cc][index2];
  const double per_ch_ring_ll128 = k.per_ch_max_ring_ll128_bws[cc][index2];
  const double per_ch_tree_ll128 = k.per_ch_max_tree_ll128_bws[cc][index2];
  const double per_ch_nvls_tree = k.per_ch_max_nvls_tree_bws[cc][index2];
  const float ppn = static_cast<float>(n_ranks) / static_cast<float>(n_nodes);
  int intra_hw[kNumAlgorithms], hw[kNumAlgorithms];
  for (int a = 0; a < kNumAlgorithms; ++a) {
    intra_hw[a] = comm.graphs[static_cast<size_t>(a)].nvlink_intra ? kNcclHwNvlink : kNcclHwPci;
    hw[a] = n_nodes == 1 ? intra_hw[a] : kNcclHwNet;
  }
  for (int coll = 0; coll < kNumTunedFunctions; ++coll) {
    const auto f = static_cast<Func>(coll);
    const bool all_reduce = f == Func::kAllReduce;
    const bool gather_scatter = f == Func::kReduceScatter || f == Func::kAllGather;
    const bool chain = f == Func::kBroadcast || f == Func::kReduce;
    const int nsteps = all_reduce ? 2 * (n_ranks - 1) : gather_scatter ? n_ranks - 1 : n_ranks;
    for (int a = 0; a < kNumAlgorithms; ++a) {
      if (chain && a != kAlgoRing) continue;
      if (gather_scatter && a != kAlgoPat && a != kAlgoRing && a != kAlgoNvls &&
          a != kAlgoCollNetDirect)
        continue;
      if (all_reduce && a == kAlgoPat) continue;
      const NcclGraph& g = comm.graphs[static_cast<size_t>(a)];
      const FabricTerms fabric =
          terms != nullptr ? (*terms)[static_cast<size_t>(coll)][static_cast<size_t>(a)]
                           : FabricTerms{};
      for (int p = 0; p < kNumProtocols; ++p) {
        if ((a == kAlgoNvls || a == kAlgoNvlsTree) && p != kProtoSimple) continue;
        const bool pat_enabled = comm.compcap >= 60 && n_nodes == n_ranks;
        if (gather_scatter && a == kAlgoPat && (p != kProtoSimple || !pat_enabled)) continue;
        const bool collnet = a == kAlgoCollNetDirect || a == kAlgoCollNetChain;
        // railyard: the fabric divides what crosses it (CollNet reduces in the
        // switches, which railyard does not model).
        const float fabric_factor = collnet ? 1.0f : fabric.bw_factor;
        const float bw_inter = g.bw_inter / fabric_factor;
        float bw = (n_nodes <= 2 || collnet ? g.bw_intra : g.bw_inter) / fabric_factor;
        if (a == kAlgoNvlsTree || a == kAlgoNvls) {
          if (g.channels < 2) continue;
          float intra_bw = g.bw_intra * tune::detail::kNcclNvlsEfficiency[cc] *
                           static_cast<float>(g.channels - 1) / static_cast<float>(g.channels);
          if (all_reduce)
            intra_bw *= 2.0f;
          else
            intra_bw *= (ppn - 1) / ppn;
          const float inter_bw = bw_inter * ((n_nodes <= 2 && a == kAlgoNvlsTree) ? 2.0f : 1.0f);
          bw = std::min({intra_bw, inter_bw,
                         a == kAlgoNvlsTree ? static_cast<float>(per_ch_nvls_tree)
                                            : std::numeric_limits<float>::max()});
        }
        float bus_bw = static_cast<float>(g.channels) * bw;
        if (a == kAlgoRing && p == kProtoLl)
          bus_bw = static_cast<float>(std::min(ll_max_bw, bus_bw * .5));
        if (a == kAlgoRing && p == kProtoLl128)
          bus_bw = static_cast<float>(std::min(bus_bw * 0.92, g.channels * per_ch_ring_ll128));
        if (a == kAlgoTree && all_reduce)
          bus_bw = static_cast<float>(std::min(bus_bw * .92, g.channels * per_ch_tree));
        if (a == kAlgoTree && p == kProtoLl)
          bus_bw = static_cast<float>(std::min(bus_bw * 1.0 / 3.8, ll_max_bw));
        if (a == kAlgoTree && p == kProtoLl128)
          bus_bw = static_cast<float>(std::min(
              bus_bw * (n_nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), g.channels * per_ch_tree_ll128));
        // NCCL multiplies a float by a double literal: the product is a double.
        if (a == kAlgoTree && comm.max_tree_pattern == kNcclPatternTree)
          bus_bw = static_cast<float>(bus_bw * .85);
        if (a == kAlgoPat) bus_bw = static_cast<float>(bus_bw * .75);
        if (collnet && p != kProtoSimple) bus_bw = 0;
        // CollNet and NVLS all-gather/reduce-scatter across nodes need CollNet,
        // which is off (collnetEnable 0).
        if ((a == kAlgoNvls || a == kAlgoCollNetDirect) && p == kProtoSimple && gather_scatter &&
            n_nodes > 1)
          bus_bw = 0;
        if (!(a != kAlgoRing && gather_scatter)) {
          float ratio = 1.0f;
          if (a == kAlgoRing || a == kAlgoNvls || a == kAlgoNvlsTree)
            ratio *= static_cast<float>((1.0 * n_ranks) / nsteps);
          else
            ratio *= .5f;
          bus_bw *= ratio;
        }
        float& bw_out = t.bandwidth[coll][a][p];
        float& lat = t.latency[coll][a][p];
        bw_out = bus_bw;
        lat = static_cast<float>(k.base_latencies[a][p]);
        float intra_lat = static_cast<float>(k.hw_latencies[intra_hw[a]][a][p]);
        float inter_lat = ppn == 1 ? static_cast<float>(k.hw_latencies[kNcclHwNet][kAlgoTree][p])
                                   : static_cast<float>(k.hw_latencies[kNcclHwNet][a][p]);
        inter_lat += g.latency_inter;
        if (p == kProtoSimple) inter_lat += g.latency_inter;
        inter_lat += fabric.extra_inter_us;  // railyard: switches and cables beyond the leaf
        if (a == kAlgoRing) {
          float hop = static_cast<float>(k.hw_latencies[hw[a]][a][p]);
          if (chain) {
            if (g.same_channels) {
              lat += hop;
            } else {
              if (p == kProtoSimple) hop = static_cast<float>(k.hw_latencies[hw[a]][kAlgoTree][p]);
              lat += static_cast<float>(nsteps) * hop;
            }
          } else {
            float net_overhead = 0.0f;
            if (n_nodes > 1) {
              net_overhead = tune::detail::nccl_net_overhead_us(comm.cpu);
              if (p == kProtoSimple) net_overhead *= 3;
            }
            intra_lat = std::max(intra_lat, net_overhead);
            const int inter_steps = n_nodes == 1 ? 0 : all_reduce ? 2 * (n_nodes - 1) : n_nodes - 1;
            lat += static_cast<float>(nsteps - inter_steps) * intra_lat +
                   static_cast<float>(inter_steps) * inter_lat;
          }
        } else if (a == kAlgoTree) {
          if (all_reduce)
            lat += 2 * (static_cast<float>(n_ranks / n_nodes - 1) * intra_lat +
                        static_cast<float>(tune::detail::nccl_log2i(static_cast<uint64_t>(n_nodes))) *
                            inter_lat);
        } else if (a == kAlgoCollNetDirect) {
          lat = static_cast<float>(lat + 2 * (std::min(1, n_ranks / n_nodes - 1) * intra_lat +
                                              (n_ranks / n_nodes - 1) * 0.4) +
                                   inter_lat);
        } else if (a == kAlgoCollNetChain) {
          lat += 2 * static_cast<float>(n_ranks / n_nodes - 1) * intra_lat + inter_lat;
        } else if (a == kAlgoNvls) {
          lat = intra_lat;
          if (n_nodes > 1) lat += inter_lat;
        } else if (a == kAlgoNvlsTree) {
          lat += intra_lat +
                 2 * static_cast<float>(tune::detail::nccl_log2i(static_cast<uint64_t>(n_nodes))) *
                     inter_lat;
        } else if (a == kAlgoPat) {
          if (gather_scatter)
            lat = static_cast<float>(
                lat + (static_cast<double>(tune::detail::nccl_log2i(static_cast<uint64_t>(n_nodes))) *
                           (inter_lat / 3.5) +
                       n_ranks * 2.8));
        }
      }
    }
  }
  // The enable rules after the model (tuning.cc): NVLS tree off on one node,
  // CollNet (and NVLS across nodes, which needs it) off, LL128 where its rules fail.
  for (int c = 0; c < kNumTunedFunctions; ++c)
    for (int a = 0; a < kNumAlgorithms; ++a)
      for (int p = 0; p < kNumProtocols; ++p) {
        const bool off = (n_nodes == 1 && a == kAlgoNvlsTree) || a == kAlgoCollNetDirect ||
                         a == kAlgoCollNetChain || (a == kAlgoNvls && n_nodes > 1) ||
                         (p == kProtoLl128 && !comm.ll128_enabled);
        if (off) t.bandwidth[c][a][p] = 0;
      }
  return t;
}

// ncclTopoGetAlgoTime for one entry's bandwidth `bw` (GB/s) and latency `lat`
// (µs): µs for nBytes with numPipeOps grouped operations, or -1 when bw is 0
// (NCCL skips the entry). The tree correction factors, the ring plateau and the
// pipelined latency count are NCCL's.
[[nodiscard]] inline float nccl_time_us(const NcclCommView& comm, float bw, float lat, int coll,
                                        int algo, int proto, size_t n_bytes, int num_pipe_ops) {
  using namespace nccl;
  if (bw == 0) return -1.0f;
  const int log_size = tune::detail::nccl_log2i(n_bytes >> 6);
  const bool all_reduce = coll == static_cast<int>(Func::kAllReduce);
  if (algo == kAlgoTree && all_reduce && log_size >= 0 && log_size < 23)
    bw *= tune::detail::kNcclTreeCorrection[proto][log_size];
  if (algo == kAlgoNvlsTree && all_reduce && log_size >= 0 && log_size < 24 &&
      comm.compcap >= 100 && comm.cpu != NcclCpu::kArm)
    bw *= tune::detail::kNcclTreeCorrection[proto][log_size];
  if (algo == kAlgoRing && proto == kProtoSimple && comm.nodes > 1 && all_reduce &&
      n_bytes / (static_cast<size_t>(std::max(comm.channels, 1)) *
                 static_cast<size_t>(comm.ranks)) >= 64)
    lat = static_cast<float>(lat * (comm.compcap < 80 ? 1.9 : 1.4));
  // DIVUP in 64 bits: NCCL's numPipeOps is small, a caller's may be INT_MAX.
  const int64_t lat_count =
      algo == kAlgoRing ? num_pipe_ops
                        : (int64_t{num_pipe_ops} + tune::detail::kNcclMaxWorkBatchColls - 1) /
                              tune::detail::kNcclMaxWorkBatchColls;
  return lat * static_cast<float>(lat_count) + static_cast<float>(n_bytes) / (1000.0f * bw);
}

[[nodiscard]] inline float nccl_algo_time_us(const NcclCommView& comm, const NcclTables& t,
                                             int coll, int algo, int proto, size_t n_bytes,
                                             int num_pipe_ops) {
  return nccl_time_us(comm, t.bandwidth[coll][algo][proto], t.latency[coll][algo][proto], coll,
                      algo, proto, n_bytes, num_pipe_ops);
}

// Which (algorithm, protocol) entries updateCollCostTable (src/enqueue.cc) asks
// the model about: CollNet only with CollNet support (off), NVLS and NVLS tree
// only with NVLS support (and at most NCCL_MAX_NVLS_ARITY = 32 local ranks except
// for all-reduce), NVLS across nodes only with CollNet.
[[nodiscard]] inline bool nccl_entry_considered(const NcclCommView& comm, int coll, int algo) {
  using namespace nccl;
  if (algo == kAlgoCollNetDirect || algo == kAlgoCollNetChain) return false;
  if ((algo == kAlgoNvls || algo == kAlgoNvlsTree) &&
      (!comm.nvls_support ||
       (coll != static_cast<int>(Func::kAllReduce) && comm.local_ranks > 32)))
    return false;
  if (algo == kAlgoNvls && comm.nodes > 1) return false;
  return true;
}

// NCCL's cost table for one call (updateCollCostTable): -1 (NCCL_ALGO_PROTO_IGNORE)
// where NCCL does not ask, else ncclTopoGetAlgoTime, times 1024 on ring for fp8
// data on more than 8 ranks (NCCL relegates those lossy reductions). `fp8`: an
// fp8 (e4m3, e5m2) sum, which NVLS cannot reduce.
inline void nccl_cost_table(const NcclCommView& comm, const NcclTables& t, int coll,
                            size_t n_bytes, int num_pipe_ops, bool fp8,
                            float (&table)[nccl::kNumAlgorithms][nccl::kNumProtocols]) {
  using namespace nccl;
  for (auto& row : table)
    for (float& cell : row) cell = kAlgoProtoIgnore;
  if (comm.ranks == 1) {
    table[kAlgoRing][kProtoSimple] = 0.0f;
    return;
  }
  // NVLS reduces in the switch only for sum/min/max of 16-bit to 64-bit types
  // (src/include/device.h ncclNvlsSupported; all-gather moves data only).
  NcclCommView view = comm;
  if (fp8 && coll != static_cast<int>(Func::kAllGather)) view.nvls_support = false;
  for (int a = 0; a < kNumAlgorithms; ++a) {
    if (!nccl_entry_considered(view, coll, a)) continue;
    for (int p = 0; p < kNumProtocols; ++p) {
      table[a][p] = nccl_algo_time_us(comm, t, coll, a, p, n_bytes, num_pipe_ops);
      if (fp8 && a == kAlgoRing && comm.ranks > 8) table[a][p] *= 1024.0f;
    }
  }
}

// topoGetAlgoInfo's choice: the lowest non-negative entry, first in
// (algorithm, protocol) order on ties; {-1, -1} when none.
struct NcclChoice {
  int algo = -1;
  int proto = -1;
  friend constexpr bool operator==(const NcclChoice&, const NcclChoice&) = default;
};
[[nodiscard]] inline NcclChoice nccl_choice(const float* table, int num_algo, int num_proto) {
  NcclChoice best;
  float min_time = std::numeric_limits<float>::max();
  for (int a = 0; a < num_algo; ++a)
    for (int p = 0; p < num_proto; ++p) {
      const float v = table[a * num_proto + p];
      if (v == nccl::kAlgoProtoIgnore) continue;
      if (v >= 0.0f && v < min_time) {
        best = {a, p};
        min_time = v;
      }
    }
  return best;
}

}  // namespace railyard::tune
