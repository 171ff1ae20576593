// The flow simulator on one all-to-all step (every GPU sends an equal share to
// every GPU on another host; network paths only) on h100-1024 with 64 to 1,024
// GPUs, each flow on one of its up/down routes chosen by a fixed hash of the
// pair. Issue 6's target: one all-to-all step on 1,024 GPUs (about 1M flows)
// simulated in <= 5 s. Setup (building the flows) is not timed.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "railyard/sim/flow_sim.hpp"
#include "railyard/topology/cluster.hpp"

namespace {

struct AllToAll {
  railyard::topology::Cluster cluster;
  railyard::sim::FlowStep step;
  std::vector<double> capacities;
};

AllToAll make_all_to_all(int64_t gpus) {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  AllToAll a{std::move(*cluster), {}, {}};
  const auto& d = a.cluster.descriptor;
  const auto& f = a.cluster.fabric;
  const int32_t per_host = d.gpus_per_host();
  const double bytes = 64.0 * 1024 * 1024 / static_cast<double>(gpus);  // 64 MiB per rank
  a.step.reserve(static_cast<size_t>(gpus * gpus), static_cast<size_t>(gpus * gpus * 4));
  for (int64_t s = 0; s < gpus; ++s)
    for (int64_t t = 0; t < gpus; ++t) {
      const railyard::NicPort src{railyard::HostId{static_cast<int32_t>(s / per_host)},
                                  railyard::NicIndex{static_cast<int32_t>(s % per_host)}};
      const railyard::NicPort dst{railyard::HostId{static_cast<int32_t>(t / per_host)},
                                  railyard::NicIndex{static_cast<int32_t>(t % per_host)}};
      if (src.host == dst.host) continue;  // NVLink, not simulated here
      const int64_t count = d.path_count(src, dst);
      if (count == 0) continue;
      const int64_t want = (s * 7919 + t * 104729) % count;
      int64_t seen = 0;
      d.for_each_route(src, dst, [&](const railyard::topology::Route& r) {
        if (seen++ == want) a.step.add(f.route_links(src, dst, r), bytes);
      });
    }
  a.capacities = railyard::sim::capacities(f);
  return a;
}

void BM_FlowSim_AllToAllStep(benchmark::State& state) {
  const AllToAll a = make_all_to_all(state.range(0));
  for (auto _ : state) {
    auto result = railyard::sim::simulate_step(a.capacities, a.step);
    benchmark::DoNotOptimize(result);
  }
  state.counters["flows"] = static_cast<double>(a.step.size());
  state.SetComplexityN(static_cast<int64_t>(a.step.size()));
}
BENCHMARK(BM_FlowSim_AllToAllStep)
    ->RangeMultiplier(2)
    ->Range(64, 1024)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace

BENCHMARK_MAIN();
