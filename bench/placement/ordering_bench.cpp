// Rank ordering: order_ranks() (railyard's numbering, several candidate order
// strings scored with the traffic model) and traffic() alone, from 8 to 131,072
// ranks on 3-tier clusters. Target (issue 4): ordering 131,072 ranks <= 20 ms.
#include <benchmark/benchmark.h>

#include <string>

#include "railyard/core/strings.hpp"
#include "railyard/placement/ordering.hpp"
#include "railyard/topology/parse_cluster.hpp"

namespace {

using railyard::placement::parse_plan;

// A cluster big enough for `gpus` and a Megatron-style plan filling it.
struct Case {
  railyard::topology::ClusterDescriptor<> desc;
  railyard::placement::ParallelPlan plan;
};

Case make_case(int64_t gpus) {
  auto spec = railyard::topology::parse_cluster("h100-128k-3tier");
  auto desc = railyard::topology::make_descriptor(*spec);
  const int64_t tp = gpus >= 8 ? 8 : gpus;
  const int64_t pp = gpus >= 512 ? 8 : 1;
  const int64_t dp = gpus / tp / pp;
  auto plan = parse_plan(railyard::str_cat("tp=", tp, ",pp=", pp, ",dp=", dp));
  return {*desc, *plan};
}

void BM_Ordering_OrderRanks(benchmark::State& state) {
  const Case c = make_case(state.range(0));
  for (auto _ : state) {
    auto placed = railyard::placement::order_ranks(c.desc, c.plan);
    benchmark::DoNotOptimize(placed);
  }
  state.SetComplexityN(state.range(0));
  state.SetLabel(c.plan.to_string());
}
BENCHMARK(BM_Ordering_OrderRanks)
    ->RangeMultiplier(8)
    ->Range(8, 131072)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

void BM_Ordering_Traffic(benchmark::State& state) {
  const Case c = make_case(state.range(0));
  auto placed = railyard::placement::order_ranks(c.desc, c.plan);
  for (auto _ : state) {
    auto report = railyard::placement::traffic(c.desc, *placed);
    benchmark::DoNotOptimize(report);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Ordering_Traffic)
    ->RangeMultiplier(8)
    ->Range(8, 131072)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace

BENCHMARK_MAIN();
