// railyard/tune/simulated_rules.hpp — tuning rules from the flow simulator: for an
// all-reduce communicator of a placed job, which of ring and double binary tree
// finishes first at each size, as NCCL example-tuner rules (rules.hpp).
//
//   railyard::sim::CollectiveSimOptions deploy;   // how the job's traffic is routed
//   deploy.routing = railyard::sim::Routing::kSteered;
//   deploy.qps = 4;                                // its NCCL_IB_QPS_PER_CONNECTION
//   auto rules = railyard::tune::simulated_allreduce_rules(cluster, groups, /*nodes=*/8, deploy);
//   std::string file = railyard::tune::format_tuning_rules(*rules);
//
// Method: ring and double binary tree all-reduce are simulated in `groups` (every
// group at once, sim/collective_sim.hpp) under the routing the job deploys —
// `deploy`'s routing, QPs, hash, seed and latency model (default: ECMP, one QP);
// never the planned oracle unless the caller asks for it, since NCCL acts on
// these rules — at
// kSimulatedRuleSizes = 4 MiB, 32 MiB, 256 MiB and 2 GiB; the faster algorithm at
// each size owns the band from that size up to the next (the last band has no
// upper end), adjacent bands with the same winner merge (ties go to the ring,
// NCCL's usual choice for large all-reduce). Protocol simple, channels -1 (NCCL
// keeps its own count: the simulator's channels are rings over NICs, not NCCL's
// per-SM channels), nNodes = `nodes`, nRanks = ranks per group. No rule below
// 4 MiB: there latency and the LL/LL128 protocols dominate, which the simulator
// does not model, so NCCL keeps its own choice. Each rule carries one note per
// simulated size (both algorithms' bus bandwidth), well under the 255 characters
// NCCL's example tuner reads per line.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "railyard/collective/schedule.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/progress.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/routing/paths.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/tune/nccl.hpp"
#include "railyard/tune/rules.hpp"

namespace railyard::tune {

// The sizes rules are simulated at (each starts a band).
inline constexpr std::array<int64_t, 4> kSimulatedRuleSizes = {
    int64_t{4} << 20, int64_t{32} << 20, int64_t{256} << 20, int64_t{2} << 30};

// Ring or tree all-reduce rules for one communicator (see the overview), each
// algorithm simulated with `deploy` (its algorithm replaced; links not kept, no
// progress of its own). `progress` (core/progress.hpp) counts the simulations:
// 2 per size, 8 in all.
// Errors: the simulator's (groups of different sizes, GPUs outside the cluster).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<NotedRule>> simulated_allreduce_rules(
    const topology::Cluster& cluster, std::span<const std::vector<routing::GpuEndpoint>> groups,
    int32_t nodes, const sim::CollectiveSimOptions& deploy = {},
    const ProgressHook& progress = {}) {
  using collective::Algorithm;
  struct Sample {
    int32_t winner;  // NCCL algorithm
    double ring_gbps, tree_gbps;
  };
  if (groups.empty()) return invalid_field("groups", "0", "at least one group is required");
  std::vector<Sample> samples;
  ProgressMeter meter(progress, 2 * static_cast<int64_t>(kSimulatedRuleSizes.size()));
  int64_t simulated = 0;
  for (int64_t bytes : kSimulatedRuleSizes) {
    std::array<double, 2> busbw{};
    std::array<double, 2> time{};
    for (size_t a = 0; a < 2; ++a) {
      sim::CollectiveSimOptions o = deploy;
      o.algorithm = a == 0 ? Algorithm::kRing : Algorithm::kDoubleBinaryTree;
      o.keep_links = false;
      o.progress = {};  // the caller counts whole simulations (`progress`)
      RAILYARD_ASSIGN_OR_RETURN(
          sim::CollectiveReport r,
          sim::simulate_collective(cluster, groups, collective::Collective::kAllReduce, bytes, o));
      busbw[a] = r.busbw_gbps;
      time[a] = r.time_us;
      meter.update(++simulated);
    }
    samples.push_back({time[1] < time[0] ? nccl::kAlgoTree : nccl::kAlgoRing, busbw[0], busbw[1]});
  }
  std::vector<NotedRule> rules;
  const auto ranks = static_cast<int32_t>(groups.front().size());
  for (size_t i = 0; i < samples.size(); ++i) {
    const auto lo = static_cast<uint64_t>(kSimulatedRuleSizes[i]);
    const uint64_t hi = i + 1 < kSimulatedRuleSizes.size()
                            ? static_cast<uint64_t>(kSimulatedRuleSizes[i + 1]) - 1
                            : std::numeric_limits<uint64_t>::max();
    std::string why = str_cat(format_bytes(static_cast<int64_t>(lo)), ": ring ",
                              fixed(samples[i].ring_gbps, 1), ", tree ",
                              fixed(samples[i].tree_gbps, 1), " Gb/s busbw");
    if (!rules.empty() && rules.back().rule.algo == samples[i].winner) {
      rules.back().rule.max_bytes = hi;
      rules.back().notes.push_back(std::move(why));
      continue;
    }
    TuningRule r;
    r.coll = static_cast<int32_t>(nccl::Func::kAllReduce);
    r.min_bytes = lo;
    r.max_bytes = hi;
    r.algo = samples[i].winner;
    r.proto = nccl::kProtoSimple;
    r.nodes = nodes;
    r.ranks = ranks;
    rules.push_back({r, {std::move(why)}});
  }
  return rules;
}

}  // namespace railyard::tune
