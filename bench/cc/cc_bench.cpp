// Congestion control: deriving a plan (derive_cc) across the cluster ladder,
// and one fluid-model check (validate_cc: the derived and the vendor sets, 20 ms
// of an incast) for incast 8 and 64. Both run at configuration time, not per
// message; the figures say how long `railyard cc` and `cc --simulate` take.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "../topology/cluster_ladder.hpp"
#include "railyard/cc/derive.hpp"
#include "railyard/cc/validate.hpp"
#include "railyard/topology/cluster.hpp"

namespace {

void BM_Cc_Derive(benchmark::State& state) {
  auto spec = railyard::bench::ladder_spec(state.range(0));
  if (!spec.ok()) {
    state.SkipWithError(std::string(spec.status().message()).c_str());
    return;
  }
  auto desc = railyard::topology::make_descriptor(*spec);
  const railyard::topology::Cluster cluster{*desc, railyard::topology::materialize(*desc)};
  railyard::cc::CcInputs in;
  in.incast = 8;
  for (auto _ : state) {
    auto plan = railyard::cc::derive_cc(cluster, in);
    benchmark::DoNotOptimize(plan);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Cc_Derive)
    ->Arg(8)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity();

void BM_Cc_Validate(benchmark::State& state) {
  auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
  railyard::cc::CcInputs in;
  in.incast = static_cast<int32_t>(state.range(0));
  auto plan = railyard::cc::derive_cc(*cluster, in);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  double steady = 0;
  for (auto _ : state) {
    auto v = railyard::cc::validate_cc(*plan, 1.0);
    steady = v->derived.steady_utilization;
    benchmark::DoNotOptimize(v);
  }
  state.counters["steady_util"] = steady;
}
BENCHMARK(BM_Cc_Validate)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
