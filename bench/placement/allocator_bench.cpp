// bench/placement/allocator_bench.cpp — the multi-tenant Allocator under a
// replay of allocate/release operations on a busy cluster.
//
// Target (the issue): <= 100 us per allocate/release on a 16,384-host cluster
// over a 10,000-op replay.
//
// BM_Allocator_Replay<Policy>: 16,384 hosts (131,072 GPUs) in 512 SUs of 32
// hosts, pods of 4 SUs (128 pods): `rail_fat_tree:hosts=16384,hosts_per_su=32,
// tiers=3,sus_per_pod=4,switch_radix=128` (the 64-port default radix cannot
// reach 128 pods). Each iteration builds a fresh Allocator and fills it to 90 %
// of its hosts (not timed), then times 10,000 operations: allocate (when the
// drawn job fits, with probability 1/2) or release of a uniformly chosen live
// job. The cluster stays nearly full, where fragmentation decisions matter.
// Job sizes follow the shipped trace (tests/data/README.md): 1 host with
// probability 0.55, else 2^j hosts, j = 0..7, weights 0.616^j; 64 tenants.
// The operation list is drawn once from a fixed seed and is the same for every
// policy: whether a job fits depends only on the free-host count, which every
// policy changes identically.
//
// BM_Allocator_ReplaySweep<BestFit>: the same replay on the cluster ladder
// (1,024 to 262,144 GPUs; job sizes capped at a quarter of the cluster), with
// its growth fitted over the host count.
//
// Counters: ns_per_op (timed loop / 10,000), allocs_per_op (heap allocations per
// operation: the Allocation's vectors and strings, hash-map nodes),
// allocate_ops (allocations among the 10,000), split_pct (share of the live
// jobs split across SUs at the end of the replay).
//
//   build-bench/bench/allocator_bench --benchmark_filter=Replay
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../alloc_counter.hpp"
#include "../topology/cluster_ladder.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/parse_cluster.hpp"

namespace {

using railyard::bench::alloc_snapshot;
using railyard::bench::AllocSnapshot;
using railyard::placement::Allocator;
using railyard::placement::AllocatorOptions;
using railyard::placement::JobId;
using railyard::placement::JobRequest;
using railyard::placement::Policy;
using railyard::topology::ClusterDescriptor;

// Short names: they appear in the benchmark names.
constexpr Policy BestFit = Policy::kBestFit;
constexpr Policy FirstFit = Policy::kFirstFit;
constexpr Policy Random = Policy::kRandom;

constexpr std::string_view kCluster16k =
    "rail_fat_tree:hosts=16384,hosts_per_su=32,tiers=3,sus_per_pod=4,switch_radix=128";
constexpr int kTimedOps = 10000;
constexpr double kFillFraction = 0.9;
constexpr int kTenants = 64;

// One operation: allocate requests[request] or release the job with id `job`.
// Ids are predictable because every allocate in the list succeeds and an
// Allocator numbers its jobs 0, 1, 2, ... in allocation order.
struct Op {
  bool allocate = false;
  int32_t request = 0;
  int32_t job = 0;
};

struct Replay {
  std::vector<JobRequest> requests;
  std::vector<Op> warmup;  // fills the cluster to kFillFraction
  std::vector<Op> timed;   // kTimedOps operations
  int64_t allocate_ops = 0;
};

Replay make_replay(int32_t hosts, int32_t gpus_per_host, int32_t max_job_hosts, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> weights = {0.55};
  double total = 0;
  for (int j = 0; j < 8; ++j) total += std::pow(0.616, j);
  for (int j = 0; j < 8; ++j) weights.push_back(0.45 * std::pow(0.616, j) / total);
  std::discrete_distribution<int> bucket(weights.begin(), weights.end());
  auto draw_hosts = [&]() {
    const int b = bucket(rng);
    const int32_t h = b == 0 ? 1 : 1 << (b - 1);
    return std::min(h, max_job_hosts);
  };

  Replay r;
  int32_t free = hosts;
  int32_t next_id = 0;
  std::vector<std::pair<int32_t, int32_t>> live;  // (job id, hosts)
  auto allocate = [&](std::vector<Op>& ops, int32_t size) {
    const auto index = static_cast<int32_t>(r.requests.size());
    r.requests.push_back({railyard::str_cat("job", index),
                          railyard::str_cat("tenant", index % kTenants),
                          int64_t{size} * gpus_per_host});
    ops.push_back({true, index, next_id});
    live.emplace_back(next_id++, size);
    free -= size;
  };
  auto release = [&](std::vector<Op>& ops) {
    const size_t pick = rng() % live.size();
    ops.push_back({false, 0, live[pick].first});
    free += live[pick].second;
    live[pick] = live.back();
    live.pop_back();
  };
  while (free > hosts * (1 - kFillFraction)) {
    const int32_t size = draw_hosts();
    if (size <= free) allocate(r.warmup, size);
  }
  while (static_cast<int>(r.timed.size()) < kTimedOps) {
    const int32_t size = draw_hosts();
    if (live.empty() || (size <= free && unit(rng) < 0.5)) {
      if (size > free) continue;
      allocate(r.timed, size);
      ++r.allocate_ops;
    } else {
      release(r.timed);
    }
  }
  return r;
}

void apply(Allocator& alloc, const Replay& replay, const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    if (op.allocate) {
      auto a = alloc.allocate(replay.requests[static_cast<size_t>(op.request)]);
      benchmark::DoNotOptimize(a);
    } else {
      auto s = alloc.release(JobId{op.job});
      benchmark::DoNotOptimize(s);
    }
  }
}

// Runs the replay; on a bad spec or an operation that fails, skips with the reason.
void run_replay(benchmark::State& state, const ClusterDescriptor<>& desc, Policy policy,
                int32_t max_job_hosts) {
  const Replay replay = make_replay(desc.hosts(), desc.gpus_per_host(), max_job_hosts, 2024);
  AllocatorOptions options;
  options.policy = policy;

  // One checked run first: every operation of the list must succeed.
  {
    Allocator check(desc, options);
    for (const std::vector<Op>* ops : {&replay.warmup, &replay.timed})
      for (const Op& op : *ops) {
        const absl::Status s =
            op.allocate ? check.allocate(replay.requests[static_cast<size_t>(op.request)]).status()
                        : check.release(JobId{op.job});
        if (!s.ok()) {
          state.SkipWithError(std::string(s.message()).c_str());
          return;
        }
      }
  }

  double timed_ns = 0;
  int64_t allocations = 0;
  double split_pct = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::optional<Allocator> alloc(std::in_place, desc, options);
    apply(*alloc, replay, replay.warmup);
    const AllocSnapshot before = alloc_snapshot();
    state.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    apply(*alloc, replay, replay.timed);
    const auto t1 = std::chrono::steady_clock::now();
    state.PauseTiming();
    allocations += alloc_snapshot().allocations - before.allocations;
    timed_ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
    split_pct = 100.0 * alloc->jobs_split_across_sus() / std::max(1, alloc->live_jobs());
    alloc.reset();
    state.ResumeTiming();
  }
  const double ops = static_cast<double>(state.iterations()) * kTimedOps;
  state.SetItemsProcessed(state.iterations() * kTimedOps);
  state.SetComplexityN(desc.hosts());
  state.counters["ns_per_op"] = timed_ns / ops;
  state.counters["allocs_per_op"] = static_cast<double>(allocations) / ops;
  state.counters["allocate_ops"] = static_cast<double>(replay.allocate_ops);
  state.counters["split_pct"] = split_pct;
}

template <Policy P>
void BM_Allocator_Replay(benchmark::State& state) {
  auto spec = railyard::topology::parse_cluster(kCluster16k);
  if (!spec.ok()) {
    state.SkipWithError(std::string(spec.status().message()).c_str());
    return;
  }
  auto desc = railyard::topology::make_descriptor(*spec);
  if (!desc.ok()) {
    state.SkipWithError(std::string(desc.status().message()).c_str());
    return;
  }
  run_replay(state, *desc, P, 128);
}
BENCHMARK_TEMPLATE(BM_Allocator_Replay, BestFit)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Allocator_Replay, FirstFit)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Allocator_Replay, Random)->Unit(benchmark::kMillisecond);

template <Policy P>
void BM_Allocator_ReplaySweep(benchmark::State& state) {
  auto desc =
      railyard::bench::ladder_descriptor<railyard::topology::DynamicExtents>(state.range(0));
  if (!desc.ok()) {
    state.SkipWithError(std::string(desc.status().message()).c_str());
    return;
  }
  run_replay(state, *desc, P, std::min(128, std::max(1, desc->hosts() / 4)));
}
BENCHMARK_TEMPLATE(BM_Allocator_ReplaySweep, BestFit)
    ->Arg(8)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->Arg(16384)
    ->Arg(65536)
    ->Arg(131072)
    ->Arg(262144)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace

BENCHMARK_MAIN();
