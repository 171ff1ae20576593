// bench/topology/fabric_bench.cpp — building and searching the explicit Fabric.
//
// BM_Fabric_Materialize: materialize() over the cluster ladder (8 to 262,144
// GPUs), with the heap high-water mark of one materialization (peak_MB), the
// bytes the Fabric keeps (fabric_MB), its size (nodes, links) and the
// allocations it makes. Target (the issue): a 3-tier cluster of >= 131,072 GPUs
// in <= 100 ms and <= 256 MB peak on one core.
//
// BM_Fabric_CountPaths: the generic graph search Fabric::count_paths between two
// NIC ports, for comparison with the closed-form
// ClusterDescriptor::path_count (descriptor_bench.cpp). It allocates frontiers;
// allocs_per_iter says how much.
//
// BM_Fabric_MaterializeCold: materialize() paying fresh-memory page faults on
// every iteration, as the first call in a process does.
//
//   build-bench/bench/fabric_bench --benchmark_filter=Materialize/131072
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "../alloc_counter.hpp"
#include "cluster_ladder.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"

namespace {

using railyard::bench::alloc_snapshot;
using railyard::bench::AllocSnapshot;
using railyard::bench::kBytesPerMb;
using railyard::bench::NicPortWalk;
using railyard::bench::PortPair;
using railyard::topology::ClusterDescriptor;
using railyard::topology::Fabric;

void BM_Fabric_Materialize(benchmark::State& state) {
  const int64_t gpus = state.range(0);
  auto desc = railyard::bench::ladder_descriptor(gpus);
  if (!desc.ok()) {
    state.SkipWithError(std::string(desc.status().message()).c_str());
    return;
  }
  int64_t peak_bytes = 0;
  int64_t allocations = 0;
  size_t fabric_bytes = 0;
  int32_t nodes = 0;
  int32_t links = 0;
  for (auto _ : state) {
    railyard::bench::reset_peak();
    const AllocSnapshot before = alloc_snapshot();
    Fabric fabric = railyard::topology::materialize(*desc);
    benchmark::DoNotOptimize(fabric);
    const AllocSnapshot after = alloc_snapshot();
    peak_bytes = std::max(peak_bytes, after.peak_bytes - before.current_bytes);
    allocations += after.allocations - before.allocations;
    fabric_bytes = fabric.memory_bytes();
    nodes = fabric.node_count();
    links = fabric.link_count();
    // The Fabric is freed here, inside the timed region: a caller pays for it too.
  }
  state.SetComplexityN(gpus);
  state.SetItemsProcessed(state.iterations() * links);  // directed links per second
  state.counters["peak_MB"] = static_cast<double>(peak_bytes) / kBytesPerMb;
  state.counters["fabric_MB"] = static_cast<double>(fabric_bytes) / kBytesPerMb;
  state.counters["nodes"] = nodes;
  state.counters["links"] = links;
  state.counters["allocs_per_iter"] =
      static_cast<double>(allocations) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Fabric_Materialize)
    ->Apply([](benchmark::internal::Benchmark* b) { railyard::bench::apply_ladder(b); })
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// BM_Fabric_Materialize reuses heap pages from one iteration to the next (glibc
// raises its mmap threshold once a large block is freed), so it measures a warm
// process. The first materialization in a process also pays a page fault per
// 4 KiB of fresh memory; this variant forces that cost on every iteration by
// fixing the mmap threshold low, so large vectors are always fresh mappings.
// It changes the allocator for the rest of the process: registered last.
void BM_Fabric_MaterializeCold(benchmark::State& state) {
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  mallopt(M_TRIM_THRESHOLD, 64 * 1024);
  BM_Fabric_Materialize(state);
}

// Fabrics are built once per size and kept for the process: the search is what
// is measured.
const Fabric* cached_fabric(int64_t gpus) {
  static std::map<int64_t, Fabric> cache;
  if (auto it = cache.find(gpus); it != cache.end()) return &it->second;
  auto desc = railyard::bench::ladder_descriptor(gpus);
  if (!desc.ok()) return nullptr;
  return &cache.emplace(gpus, railyard::topology::materialize(*desc)).first->second;
}

// Args: {GPUs, PortPair}.
void BM_Fabric_CountPaths(benchmark::State& state) {
  const int64_t gpus = state.range(0);
  const auto which = static_cast<PortPair>(state.range(1));
  const Fabric* fabric = cached_fabric(gpus);
  if (fabric == nullptr) {
    state.SkipWithError("no ladder rung for this GPU count");
    return;
  }
  const ClusterDescriptor<>& desc = fabric->descriptor();
  const NicPortWalk walk(desc);
  if (!walk.ok()) {
    state.SkipWithError("ladder rung sizes are not powers of two");
    return;
  }
  // The graph search must agree with the closed form before it is worth timing.
  const int64_t expected = desc.path_count(walk.source(0), walk.partner(0, which));
  if (fabric->count_paths(fabric->nic_port(walk.source(0)),
                          fabric->nic_port(walk.partner(0, which))) != expected ||
      expected == 0) {
    state.SkipWithError("Fabric::count_paths disagrees with ClusterDescriptor::path_count");
    return;
  }
  uint32_t i = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    const railyard::NodeId a = fabric->nic_port(walk.source(i));
    const railyard::NodeId b = fabric->nic_port(walk.partner(i, which));
    benchmark::DoNotOptimize(fabric->count_paths(a, b));
    ++i;
  }
  const AllocSnapshot after = alloc_snapshot();
  state.counters["paths"] = static_cast<double>(expected);
  state.counters["allocs_per_iter"] = static_cast<double>(after.allocations - before.allocations) /
                                      static_cast<double>(state.iterations());
}
BENCHMARK(BM_Fabric_CountPaths)
    ->ArgNames({"gpus", "pair"})
    ->Args({1024, static_cast<int64_t>(PortPair::kCrossSu)})
    ->Args({16384, static_cast<int64_t>(PortPair::kCrossSu)})
    ->Args({16384, static_cast<int64_t>(PortPair::kCrossPod)})
    ->Args({131072, static_cast<int64_t>(PortPair::kCrossSu)})
    ->Args({131072, static_cast<int64_t>(PortPair::kCrossPod)})
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_Fabric_MaterializeCold)->Arg(131072)->Arg(262144)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
