// bench/routing/assign_bench.cpp — whole-step path assignment against ECMP.
//
// Cluster: rail_fat_tree:hosts=512,tiers=3,sus_per_pod=4 (4,096 GPUs, 16 SUs in
// 4 pods, non-blocking, 64-port switches). A step of F flows is one rail-aligned
// ring step over F/8 hosts spread evenly over the cluster (every hop leaves its
// SU: ring position i is in SU i mod 16), 64 MB per flow.
//
// BM_Assign_RingStep: assign_paths() (greedy + local improvement; the exact
// search is off: these steps are far above its limit).
// BM_Assign_Ecmp: ecmp_paths() with UniformRandomHash(1), one QP per flow.
// BM_Assign_RingStepLadder/N and BM_Assign_EcmpLadder/N: the same kind of step
// over every GPU of the ladder cluster with N GPUs (64 ... 131,072; one flow per
// GPU, ring position i in SU i mod SUs), for growth with cluster size. (The
// 8-GPU rung is one host: its ring never leaves the host.)
// Counters (computed once, outside the timing): ecmp_over_planned = ECMP's most
// loaded link / the planned one; planned_over_nic = planned maximum / one NIC's
// load (1 = perfect balance); moves = improvement steps taken.
//
//   build/bench/assign_bench --benchmark_filter=Assign
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../topology/cluster_ladder.hpp"
#include "railyard/routing/assign.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/topology/cluster.hpp"

namespace {

using railyard::HostId;
using railyard::NicIndex;
using railyard::NicPort;
using railyard::routing::Flow;

constexpr std::string_view kCluster = "rail_fat_tree:hosts=512,tiers=3,sus_per_pod=4";
constexpr double kBytes = 64e6;

const railyard::topology::Cluster& cluster() {
  static const railyard::topology::Cluster c = *railyard::topology::make_cluster(kCluster);
  return c;
}

std::vector<Flow> ring_step(int64_t flows) {
  const auto& d = cluster().descriptor;
  const int32_t rails = d.nics_per_host();
  const auto hosts = static_cast<int32_t>(flows / rails);
  // Ring position i sits in SU i mod (SUs used): consecutive hops change SU.
  const int32_t sus_used = std::min(hosts, d.sus());
  const int32_t su_step = d.sus() / sus_used;
  const int32_t per_su = hosts / sus_used;
  const int32_t host_step = d.hosts_per_su() / per_su;
  std::vector<HostId> ring;
  for (int32_t i = 0; i < hosts; ++i)
    ring.push_back(
        HostId{(i % sus_used) * su_step * d.hosts_per_su() + (i / sus_used) * host_step});
  std::vector<Flow> out;
  for (int32_t r = 0; r < rails; ++r)
    for (int32_t i = 0; i < hosts; ++i)
      out.push_back({NicPort{ring[static_cast<size_t>(i)], NicIndex{r}},
                     NicPort{ring[static_cast<size_t>((i + 1) % hosts)], NicIndex{r}}, kBytes});
  return out;
}

void report(benchmark::State& state, const std::vector<Flow>& flows) {
  const auto& c = cluster();
  railyard::routing::UniformRandomHash hash(1);
  auto rep = railyard::routing::compare_with_ecmp(c.descriptor, c.fabric, flows, hash, nullptr,
                                                  {.exact_search_limit = 0});
  if (!rep.ok()) {
    state.SkipWithError(std::string(rep.status().message()).c_str());
    return;
  }
  state.counters["ecmp_over_planned"] = rep->ecmp_over_planned;
  state.counters["planned_over_nic"] =
      rep->max_load_planned_ns / railyard::routing::drain_ns(kBytes, 400);
  state.counters["moves"] = static_cast<double>(rep->planned.moves);
  state.SetComplexityN(static_cast<int64_t>(flows.size()));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(flows.size()));
}

void BM_Assign_RingStep(benchmark::State& state) {
  const std::vector<Flow> flows = ring_step(state.range(0));
  const auto& c = cluster();
  for (auto _ : state) {
    auto plan = railyard::routing::assign_paths(c.descriptor, c.fabric, flows, nullptr,
                                                {.exact_search_limit = 0});
    benchmark::DoNotOptimize(plan);
  }
  report(state, flows);
}
BENCHMARK(BM_Assign_RingStep)
    ->RangeMultiplier(4)
    ->Range(64, 4096)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity();

void BM_Assign_Ecmp(benchmark::State& state) {
  const std::vector<Flow> flows = ring_step(state.range(0));
  const auto& c = cluster();
  railyard::routing::UniformRandomHash hash(1);
  for (auto _ : state) {
    auto routes = railyard::routing::ecmp_paths(c.descriptor, c.fabric, flows, hash);
    benchmark::DoNotOptimize(routes);
  }
  report(state, flows);
}
BENCHMARK(BM_Assign_Ecmp)
    ->RangeMultiplier(4)
    ->Range(64, 4096)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity();

// The ladder cluster with `gpus` GPUs, built once per size.
const railyard::topology::Cluster* ladder_cluster(int64_t gpus, std::string* error) {
  static std::map<int64_t, railyard::topology::Cluster> built;
  if (auto it = built.find(gpus); it != built.end()) return &it->second;
  std::string_view spec;
  for (const auto& rung : railyard::bench::kClusterLadder)
    if (rung.gpus == gpus) spec = rung.spec;
  auto c = railyard::topology::make_cluster(spec);
  if (!c.ok()) {
    *error = std::string(c.status().message());
    return nullptr;
  }
  return &built.emplace(gpus, *std::move(c)).first->second;
}

// One rail-aligned ring step over every host of `d`, consecutive positions in
// different SUs (when there are several), 64 MB per flow: one flow per GPU.
std::vector<Flow> full_ring_step(const railyard::topology::ClusterDescriptor<>& d) {
  const int32_t hosts = d.hosts();
  const int32_t sus = d.sus();
  std::vector<HostId> ring;
  ring.reserve(static_cast<size_t>(hosts));
  for (int32_t i = 0; i < hosts; ++i) ring.push_back(HostId{(i % sus) * d.hosts_per_su() + i / sus});
  std::vector<Flow> out;
  if (hosts < 2) return out;
  for (int32_t r = 0; r < d.nics_per_host(); ++r)
    for (int32_t i = 0; i < hosts; ++i)
      out.push_back({NicPort{ring[static_cast<size_t>(i)], NicIndex{r}},
                     NicPort{ring[static_cast<size_t>((i + 1) % hosts)], NicIndex{r}}, kBytes});
  return out;
}

// Times `route(cluster, flows)` on the ring step over every GPU of the ladder
// cluster with state.range(0) GPUs.
template <class Route>
void run_ladder_step(benchmark::State& state, Route route) {
  std::string error;
  const auto* c = ladder_cluster(state.range(0), &error);
  if (c == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const std::vector<Flow> flows = full_ring_step(c->descriptor);
  for (auto _ : state) {
    auto routes = route(*c, flows);
    benchmark::DoNotOptimize(routes);
  }
  state.counters["flows"] = static_cast<double>(flows.size());
  state.SetComplexityN(state.range(0));
}

void BM_Assign_RingStepLadder(benchmark::State& state) {
  run_ladder_step(state, [](const railyard::topology::Cluster& c, const std::vector<Flow>& flows) {
    return railyard::routing::assign_paths(c.descriptor, c.fabric, flows, nullptr,
                                           {.exact_search_limit = 0});
  });
}
BENCHMARK(BM_Assign_RingStepLadder)
    ->Arg(64)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

void BM_Assign_EcmpLadder(benchmark::State& state) {
  railyard::routing::UniformRandomHash hash(1);
  run_ladder_step(state, [&hash](const railyard::topology::Cluster& c,
                                 const std::vector<Flow>& flows) {
    return railyard::routing::ecmp_paths(c.descriptor, c.fabric, flows, hash);
  });
}
BENCHMARK(BM_Assign_EcmpLadder)
    ->Arg(64)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace

BENCHMARK_MAIN();
