// bench/c/c_api_bench.cpp — the calling overhead of the C API
// (railyard/c/railyard.h, librailyard_c.so): what a launcher or scheduler pays
// to go through the C boundary instead of the C++ headers.
//
// BM_CApi_OrderRanks/N: railyard_order_ranks on `h100-128k-3tier` for a plan of
// N ranks (tp=8, pp=8 from 512 ranks, dp the rest) and the whole rank table
// copied out with railyard_order_table — compare BM_Ordering_OrderRanks/N
// (bench/placement/ordering_bench.cpp, the C++ call alone).
// BM_CApi_OrderRank: one rank looked up (railyard_order_rank) in a 131,072-rank
// order: O(1), no allocation (allocs_per_iter = 0).
// BM_CApi_SourcePort: railyard_advisor_source_port on an advisor made by
// railyard_cluster_advisor, holding 1,024 connections of 8 QPs (h100-1024):
// the data-path lookup, no allocation; compare BM_Advisor_SourcePortC.
// Allocations are counted by replacing operator new in this binary
// (alloc_counter.hpp); librailyard_c.so's own operator new calls resolve to it.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../alloc_counter.hpp"
#include "railyard/c/railyard.h"

namespace {

using railyard::bench::alloc_snapshot;
using railyard::bench::AllocSnapshot;
using railyard::bench::report_allocations;

std::string plan_for(int64_t ranks) {
  const int64_t tp = ranks >= 8 ? 8 : ranks;
  const int64_t pp = ranks >= 512 ? 8 : 1;
  return "tp=" + std::to_string(tp) + ",pp=" + std::to_string(pp) +
         ",dp=" + std::to_string(ranks / tp / pp);
}

railyard_cluster* big_cluster() {
  static railyard_cluster* c = [] {
    railyard_cluster* out = nullptr;
    (void)railyard_cluster_create("h100-128k-3tier", nullptr, &out, nullptr, 0);
    return out;
  }();
  return c;
}

void BM_CApi_OrderRanks(benchmark::State& state) {
  railyard_cluster* c = big_cluster();
  const std::string plan = plan_for(state.range(0));
  std::vector<railyard_rank> table(static_cast<size_t>(state.range(0)));
  if (c == nullptr) {
    state.SkipWithError("no cluster");
    return;
  }
  for (auto _ : state) {
    railyard_order* o = nullptr;
    if (railyard_order_ranks(c, plan.c_str(), nullptr, 0, 0, &o) != RAILYARD_OK ||
        railyard_order_table(o, table.data(), table.size()) != RAILYARD_OK) {
      state.SkipWithError(railyard_last_error());
      break;
    }
    benchmark::DoNotOptimize(table.data());
    railyard_order_destroy(o);
  }
  state.SetComplexityN(state.range(0));
  state.SetLabel(plan);
}
BENCHMARK(BM_CApi_OrderRanks)
    ->RangeMultiplier(8)
    ->Range(8, 131072)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

void BM_CApi_OrderRank(benchmark::State& state) {
  railyard_cluster* c = big_cluster();
  railyard_order* o = nullptr;
  if (c == nullptr || railyard_order_ranks(c, plan_for(131072).c_str(), nullptr, 0, 0, &o) !=
                          RAILYARD_OK) {
    state.SkipWithError("no order");
    return;
  }
  railyard_rank r;
  int64_t rank = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    rank = (rank * 48271 + 1) % 131072;  // a walk over the ranks, nothing hoisted
    benchmark::DoNotOptimize(railyard_order_rank(o, rank, &r));
    benchmark::DoNotOptimize(r);
  }
  report_allocations(state, before);
  railyard_order_destroy(o);
}
BENCHMARK(BM_CApi_OrderRank);

void BM_CApi_SourcePort(benchmark::State& state) {
  railyard_cluster* c = nullptr;
  railyard_advisor* adv = nullptr;
  if (railyard_cluster_create("h100-1024", nullptr, &c, nullptr, 0) != RAILYARD_OK ||
      railyard_cluster_advisor(c, "crc32", 7, &adv, nullptr, 0) != RAILYARD_OK) {
    state.SkipWithError("no advisor");
    return;
  }
  // 1,024 distinct connections of 8 QPs: host h rail r -> host (h + 64) % 128.
  railyard_conn_plan plan;
  uint32_t connections = 0;
  for (int32_t h = 0; h < 128 && connections < 1024; ++h)
    for (int32_t r = 0; r < 8; ++r) {
      railyard_nic_id a = {h, r, 0, nullptr}, b = {(h + 64) % 128, r, 0, nullptr};
      if (railyard_advisor_connect(adv, &a, &b, 8, &plan) == RAILYARD_ADVISOR_OK) ++connections;
    }
  uint32_t conn = 0, qp = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    conn = (conn * 2654435761u + 1) % connections;
    qp = (qp + 3) & 7;
    benchmark::DoNotOptimize(railyard_advisor_source_port(adv, conn, qp));
  }
  report_allocations(state, before);
  state.counters["connections"] = connections;
  railyard_advisor_destroy(adv);
  railyard_cluster_destroy(c);
}
BENCHMARK(BM_CApi_SourcePort);

}  // namespace

BENCHMARK_MAIN();
