// bench/topology/descriptor_bench.cpp — closed-form descriptor queries.
//
// Each query runs once per iteration on inputs that change every iteration (a
// counter walks hosts and rails through masks, see NicPortWalk), so the
// compiler can neither hoist the query nor fold it. Every benchmark exists for a
// dynamic-extent descriptor (ClusterDescriptor<>) and a static-extent one
// (Extents<8,8,32,1> on h100-1024, Extents<8,8,64,1> on h100-128k-3tier).
// Target (the issue): <= 5 ns per query and no allocation; allocs_per_iter
// reports the heap allocations made inside the timed loop, divided by its
// iterations, and must be 0.
//
// BM_Descriptor_LeafOf / BM_Descriptor_SuOf: the dynamic forms sweep the whole
// cluster ladder (8 to 262,144 GPUs) and report their growth, expected O(1).
// BM_Descriptor_PathCount: Args {GPUs, pair}, pair 0 = NIC ports on the same rail
// in different SUs of one pod, 1 = in different pods (3-tier).
//
//   build-bench/bench/descriptor_bench --benchmark_filter=PathCount
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <string>

#include "../alloc_counter.hpp"
#include "cluster_ladder.hpp"
#include "railyard/topology/descriptor.hpp"

namespace {

using railyard::bench::alloc_snapshot;
using railyard::bench::AllocSnapshot;
using railyard::bench::NicPortWalk;
using railyard::bench::PortPair;
using railyard::topology::ClusterDescriptor;

// Short names: they appear in the benchmark names.
using Dynamic = railyard::topology::DynamicExtents;
using Hgx8x8x32 = railyard::topology::Extents<8, 8, 32, 1>;  // h100-1024
using Hgx8x8x64 = railyard::topology::Extents<8, 8, 64, 1>;  // h100-128k-3tier

constexpr auto kCrossSu = static_cast<int64_t>(PortPair::kCrossSu);
constexpr auto kCrossPod = static_cast<int64_t>(PortPair::kCrossPod);

// The descriptor and input walk of a run; on failure the run is skipped with
// the reason and `ok` stays false.
template <class E>
struct Fixture {
  explicit Fixture(benchmark::State& state)
      : desc(railyard::bench::ladder_descriptor<E>(state.range(0))) {
    if (!desc.ok()) {
      state.SkipWithError(std::string(desc.status().message()).c_str());
      return;
    }
    walk.emplace(*desc);
    if (!walk->ok()) {
      state.SkipWithError("ladder rung sizes are not powers of two");
      return;
    }
    ok = true;
  }
  railyard::StatusOr<ClusterDescriptor<E>> desc;
  std::optional<NicPortWalk> walk;
  bool ok = false;
};

using railyard::bench::report_allocations;

template <class E>
void BM_Descriptor_LeafOf(benchmark::State& state) {
  Fixture<E> fx(state);
  if (!fx.ok) return;
  const ClusterDescriptor<E> desc = *fx.desc;
  const NicPortWalk walk = *fx.walk;
  uint32_t i = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    benchmark::DoNotOptimize(desc.leaf_of(walk.host(i), walk.rail(i), railyard::PlaneId{0}));
    ++i;
  }
  report_allocations(state, before);
  state.SetComplexityN(state.range(0));
}

template <class E>
void BM_Descriptor_SuOf(benchmark::State& state) {
  Fixture<E> fx(state);
  if (!fx.ok) return;
  const ClusterDescriptor<E> desc = *fx.desc;
  const NicPortWalk walk = *fx.walk;
  uint32_t i = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    benchmark::DoNotOptimize(desc.su_of(walk.host(i)));
    ++i;
  }
  report_allocations(state, before);
  state.SetComplexityN(state.range(0));
}

template <class E>
void BM_Descriptor_PathCount(benchmark::State& state) {
  Fixture<E> fx(state);
  if (!fx.ok) return;
  const ClusterDescriptor<E> desc = *fx.desc;
  const NicPortWalk walk = *fx.walk;
  const auto which = static_cast<PortPair>(state.range(1));
  // The pair must really cross what it claims to cross, and be connected.
  const railyard::NicPort a0 = walk.source(0);
  const railyard::NicPort b0 = walk.partner(0, which);
  const bool crosses = which == PortPair::kCrossSu
                           ? desc.su_of(a0.host) != desc.su_of(b0.host) &&
                                 desc.pod_of(a0.host) == desc.pod_of(b0.host)
                           : desc.pod_of(a0.host) != desc.pod_of(b0.host);
  if (!crosses || desc.path_count(a0, b0) <= 0) {
    state.SkipWithError("this cluster has no such port pair");
    return;
  }
  uint32_t i = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    benchmark::DoNotOptimize(desc.path_count(walk.source(i), walk.partner(i, which)));
    ++i;
  }
  report_allocations(state, before);
  state.counters["paths"] = static_cast<double>(desc.path_count(a0, b0));
}

void dynamic_ladder(benchmark::internal::Benchmark* b) { railyard::bench::apply_ladder(b); }

BENCHMARK_TEMPLATE(BM_Descriptor_LeafOf, Dynamic)->Apply(dynamic_ladder)->Complexity();
BENCHMARK_TEMPLATE(BM_Descriptor_LeafOf, Hgx8x8x32)->Arg(1024);
BENCHMARK_TEMPLATE(BM_Descriptor_LeafOf, Hgx8x8x64)->Arg(131072);

BENCHMARK_TEMPLATE(BM_Descriptor_SuOf, Dynamic)->Apply(dynamic_ladder)->Complexity();
BENCHMARK_TEMPLATE(BM_Descriptor_SuOf, Hgx8x8x32)->Arg(1024);
BENCHMARK_TEMPLATE(BM_Descriptor_SuOf, Hgx8x8x64)->Arg(131072);

BENCHMARK_TEMPLATE(BM_Descriptor_PathCount, Dynamic)
    ->ArgNames({"gpus", "pair"})
    ->Args({1024, kCrossSu})
    ->Args({16384, kCrossSu})
    ->Args({16384, kCrossPod})
    ->Args({131072, kCrossSu})
    ->Args({131072, kCrossPod});
BENCHMARK_TEMPLATE(BM_Descriptor_PathCount, Hgx8x8x32)
    ->ArgNames({"gpus", "pair"})
    ->Args({1024, kCrossSu});
BENCHMARK_TEMPLATE(BM_Descriptor_PathCount, Hgx8x8x64)
    ->ArgNames({"gpus", "pair"})
    ->Args({131072, kCrossSu})
    ->Args({131072, kCrossPod});

}  // namespace

BENCHMARK_MAIN();
