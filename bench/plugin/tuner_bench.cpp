// Benchmarks of railyard's NCCL tuner (railyard/plugin/tuner.hpp).
//
// BM_Tuner_GetCollInfo/gpus:N  one getCollInfo call as NCCL makes it: through a
//   function pointer to the v4+ adapter, on a communicator of all N GPUs of the
//   ladder cluster with N GPUs, a 7x3 table with -1 entries, collective and size
//   changing every call (5 collectives x 32 sizes). Target: <= 100 ns median,
//   no allocation (allocs_per_iter).
// BM_Tuner_GetCollInfoRules/rules:K  the same with K rule lines that can match
//   the communicator, none matching the call (the whole list is scanned) but the
//   last, which matches 1 call in 32.
// BM_Tuner_Init/gpus:N  what init costs per communicator (parse, geometry,
//   every traffic pattern's loads), with allocations.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <string>

#include "../alloc_counter.hpp"
#include "../topology/cluster_ladder.hpp"
#include "railyard/plugin/tuner.hpp"

namespace {

namespace rp = railyard::plugin;
namespace nccl = railyard::plugin::nccl;

// NCCL calls through the plugin struct; keep the call indirect.
nccl::GetCollInfoV4Fn volatile g_get_coll_info = rp::tuner_get_coll_info_v4;

void* make_context(int64_t gpus, const std::string& rules) {
  const railyard::bench::LadderRung* rung = nullptr;
  for (const auto& r : railyard::bench::kClusterLadder)
    if (r.gpus == gpus) rung = &r;
  if (rung == nullptr) return nullptr;
  rp::TunerOptions o;
  o.cluster = rung->spec;
  o.ranks = gpus;
  o.nodes = gpus / 8;
  o.rules = rules;
  auto core = rp::TunerCore::create(o);
  if (!core.ok()) return nullptr;
  auto* ctx = new rp::TunerPluginContext;
  ctx->core = std::move(*core);
  return ctx;
}

std::array<float, 21> nccl_table() {
  std::array<float, 21> t{};
  for (size_t i = 0; i < t.size(); ++i) t[i] = 10.0f + static_cast<float>(i);
  for (size_t i : {2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 15, 16, 18, 19}) t[i] = -1.0f;
  return t;
}

void run_get_coll_info(benchmark::State& state, void* ctx) {
  if (ctx == nullptr) {
    state.SkipWithError("cannot build the tuner context");
    return;
  }
  std::array<float, 21> table = nccl_table();
  int channels = 0;
  uint32_t i = 0;
  const railyard::bench::AllocSnapshot before = railyard::bench::alloc_snapshot();
  for (auto _ : state) {
    const auto coll = static_cast<nccl::Func>(i % 5);
    const size_t bytes = size_t{1} << (i & 31);
    benchmark::DoNotOptimize(g_get_coll_info(
        ctx, coll, bytes, 1, reinterpret_cast<float**>(table.data()), 7, 3, 0, &channels));
    benchmark::DoNotOptimize(table.data());
    ++i;
  }
  const railyard::bench::AllocSnapshot after = railyard::bench::alloc_snapshot();
  state.counters["allocs_per_iter"] = static_cast<double>(after.allocations - before.allocations) /
                                      static_cast<double>(state.iterations());
  rp::tuner_finalize(ctx);
}

void BM_Tuner_GetCollInfo(benchmark::State& state) {
  state.SetComplexityN(state.range(0));
  run_get_coll_info(state, make_context(state.range(0), ""));
}
BENCHMARK(BM_Tuner_GetCollInfo)
    ->ArgName("gpus")
    ->Arg(8)
    ->Arg(64)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Complexity(benchmark::o1);

void BM_Tuner_GetCollInfoRules(benchmark::State& state) {
  std::string rules;
  for (int64_t k = 1; k < state.range(0); ++k)  // never match: numPipeOps 9
    rules += "allreduce,0,-1,tree,simple,-1,-1,-1,9\n";
  rules += "allgather,1024,1024,ring,simple,8,-1,-1\n";  // matches 1 call in 32
  run_get_coll_info(state, make_context(1024, rules));
}
BENCHMARK(BM_Tuner_GetCollInfoRules)->ArgName("rules")->Arg(1)->Arg(4)->Arg(16)->Arg(64);

void BM_Tuner_Init(benchmark::State& state) {
  const int64_t gpus = state.range(0);
  std::string spec;
  for (const auto& r : railyard::bench::kClusterLadder)
    if (r.gpus == gpus) spec = r.spec;
  const railyard::bench::AllocSnapshot before = railyard::bench::alloc_snapshot();
  for (auto _ : state) {
    rp::TunerOptions o;
    o.cluster = spec;
    o.ranks = gpus;
    o.nodes = gpus / 8;
    auto core = rp::TunerCore::create(o);
    if (!core.ok()) {
      state.SkipWithError("create failed");
      return;
    }
    benchmark::DoNotOptimize(core->scale(4, 1, 2, size_t{1} << 20, 1));
  }
  const railyard::bench::AllocSnapshot after = railyard::bench::alloc_snapshot();
  state.counters["allocs_per_init"] = static_cast<double>(after.allocations - before.allocations) /
                                      static_cast<double>(state.iterations());
  state.SetComplexityN(gpus);
}
BENCHMARK(BM_Tuner_Init)
    ->ArgName("gpus")
    ->Arg(64)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oNLogN);

}  // namespace

BENCHMARK_MAIN();
