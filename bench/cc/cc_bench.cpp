// Congestion control: deriving a plan (derive_cc) across the cluster ladder,
// the search of `cc --simulate` (validate_cc) for incast 8 and 64, and the
// packet-level incast model alone (20 ms). Both run at configuration time, not per
// message; the figures say how long `railyard cc` and `cc --simulate` take.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "../topology/cluster_ladder.hpp"
#include "railyard/cc/derive.hpp"
#include "railyard/cc/recommend.hpp"
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

// `railyard cc --simulate`: the search (every candidate on every scenario, 5 ms
// each) and the paper's fluid model, without the sensitivity reruns.
void BM_Cc_Validate(benchmark::State& state) {
  auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
  railyard::cc::CcInputs in;
  in.incast = static_cast<int32_t>(state.range(0));
  auto plan = railyard::cc::derive_cc(*cluster, in);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  railyard::cc::CcValidateOptions o;
  o.sensitivity = false;
  double candidates = 0;
  for (auto _ : state) {
    auto v = railyard::cc::validate_cc(*plan, 1.0, o);
    candidates = static_cast<double>(v->search.candidates.size());
    benchmark::DoNotOptimize(v);
  }
  state.counters["candidates"] = candidates;
}
BENCHMARK(BM_Cc_Validate)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond);

// The packet-level NIC/switch model alone: N ConnectX-default senders at line
// rate into one 400G port for 20 ms (target: 64 senders in <= 1 s on one core).
void BM_Cc_PacketIncast(benchmark::State& state) {
  auto cluster = railyard::topology::make_cluster("h100-1024-2to1");
  railyard::cc::CcInputs in;
  in.incast = static_cast<int32_t>(state.range(0));
  auto plan = railyard::cc::derive_cc(*cluster, in);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  railyard::cc::CcSearchOptions o;
  o.duration_us = 20'000;
  const auto scenarios = railyard::cc::cc_scenarios(*plan, o);
  const railyard::cc::PacketIncastScenario& burst = scenarios.front().scenario;
  int64_t packets = 0;
  for (auto _ : state) {
    auto r = railyard::cc::simulate_packet_incast(railyard::cc::connectx_default_dcqcn(), {},
                                                  railyard::cc::vendor_default_red(), burst);
    packets = r->packets;
    benchmark::DoNotOptimize(r);
  }
  state.counters["packets"] = static_cast<double>(packets);
  state.counters["packets_per_s"] =
      benchmark::Counter(static_cast<double>(packets), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Cc_PacketIncast)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
