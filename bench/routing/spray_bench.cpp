// bench/routing/spray_bench.cpp — spraying plans and the per-QP port lookup.
//
// BM_Spray_SourcePort: SprayTable::source_port() — what a net plugin calls per
// QP. Target (issue 5): <= 20 ns and no allocation (allocs_per_iter = 0). The
// table holds every connection of one ring step on every rail of h100-1024
// (1,024 plans of 8 QPs), added `copies` times so the table outgrows the
// caches (Args {connections, qps}); the connection and QP change every
// iteration (a multiplicative walk over the ids), so nothing is hoisted.
//
// BM_Spray_PlanConnection: plan_connection() for k = 1, 4, 16, 64 QPs under
// Crc5TupleHash, on h100-1024 (2-tier, 64 paths per pair: pair 0 crosses SUs)
// and h100-16k-3tier (pair 1 crosses pods: 4,096 paths). The pair changes
// every iteration. Reports `paths` and the allocations of one plan.
//
//   build-bench/bench/spray_bench --benchmark_filter=SourcePort
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../alloc_counter.hpp"
#include "../topology/cluster_ladder.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/spray.hpp"
#include "railyard/topology/fabric.hpp"

namespace {

using railyard::HostId;
using railyard::NicIndex;
using railyard::NicPort;
using railyard::bench::alloc_snapshot;
using railyard::bench::AllocSnapshot;
using railyard::bench::NicPortWalk;
using railyard::bench::PortPair;
using railyard::routing::ConnectionId;
using railyard::routing::Crc5TupleHash;
using railyard::routing::SprayPlan;
using railyard::routing::SprayTable;

using railyard::bench::report_allocations;

// Args {connections (a power of two, multiple of 1024), qps}.
void BM_Spray_SourcePort(benchmark::State& state) {
  const auto connections = static_cast<int32_t>(state.range(0));
  const auto qps = static_cast<int32_t>(state.range(1));
  auto desc = railyard::bench::ladder_descriptor(1024);
  if (!desc.ok()) {
    state.SkipWithError(std::string(desc.status().message()).c_str());
    return;
  }
  const railyard::topology::Fabric fabric = railyard::topology::materialize(*desc);
  const Crc5TupleHash crc(7);
  std::vector<SprayPlan> plans;
  for (int32_t r = 0; r < 8; ++r)
    for (int32_t h = 0; h < 128; ++h) {
      auto p = railyard::routing::plan_connection(*desc, fabric, {HostId{h}, NicIndex{r}},
                                                  {HostId{(h + 1) % 128}, NicIndex{r}}, qps, crc);
      if (!p.ok()) {
        state.SkipWithError(std::string(p.status().message()).c_str());
        return;
      }
      plans.push_back(std::move(*p));
    }
  SprayTable table;
  for (int32_t c = 0; c < connections; ++c) table.add(plans[static_cast<size_t>(c) % plans.size()]);
  const auto mask = static_cast<uint32_t>(connections - 1);
  const auto qp_mask = static_cast<uint32_t>(qps - 1);
  uint32_t i = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    // An odd multiplier walks every id of the power-of-two range, far apart.
    const auto id = ConnectionId{static_cast<int32_t>((i * 0x9E3779B1u) & mask)};
    benchmark::DoNotOptimize(table.source_port(id, static_cast<int32_t>(i & qp_mask)));
    ++i;
  }
  report_allocations(state, before);
  state.counters["table_KB"] = static_cast<double>(table.memory_bytes()) / 1024.0;
}

// Args {gpus, pair, qps}.
void BM_Spray_PlanConnection(benchmark::State& state) {
  auto desc = railyard::bench::ladder_descriptor(state.range(0));
  if (!desc.ok()) {
    state.SkipWithError(std::string(desc.status().message()).c_str());
    return;
  }
  const auto which = static_cast<PortPair>(state.range(1));
  const auto qps = static_cast<int32_t>(state.range(2));
  const railyard::topology::Fabric fabric = railyard::topology::materialize(*desc);
  const NicPortWalk walk(*desc);
  const Crc5TupleHash crc(7);
  const NicPort a0 = walk.source(0);
  const NicPort b0 = walk.partner(0, which);
  state.counters["paths"] = static_cast<double>(desc->path_count(a0, b0));
  uint32_t i = 0;
  int64_t failures = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    auto plan = railyard::routing::plan_connection(*desc, fabric, walk.source(i),
                                                   walk.partner(i, which), qps, crc);
    failures += plan.ok() ? 0 : 1;
    benchmark::DoNotOptimize(plan);
    i += 9;  // next host, next rail
  }
  report_allocations(state, before);
  if (failures != 0) state.SkipWithError("plan_connection failed");
}

constexpr auto kCrossSu = static_cast<int64_t>(PortPair::kCrossSu);
constexpr auto kCrossPod = static_cast<int64_t>(PortPair::kCrossPod);

BENCHMARK(BM_Spray_SourcePort)
    ->ArgNames({"connections", "qps"})
    ->Args({1024, 8})
    ->Args({65536, 8})
    ->Args({1 << 20, 8});

BENCHMARK(BM_Spray_PlanConnection)
    ->ArgNames({"gpus", "pair", "qps"})
    ->Unit(benchmark::kMicrosecond)
    ->Args({1024, kCrossSu, 1})
    ->Args({1024, kCrossSu, 4})
    ->Args({1024, kCrossSu, 16})
    ->Args({1024, kCrossSu, 64})
    ->Args({16384, kCrossPod, 1})
    ->Args({16384, kCrossPod, 4})
    ->Args({16384, kCrossPod, 16})
    ->Args({16384, kCrossPod, 64});

}  // namespace

BENCHMARK_MAIN();
