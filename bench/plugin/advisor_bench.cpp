// bench/plugin/advisor_bench.cpp — the net-plugin path advisor
// (railyard/plugin/advisor.hpp): the per-QP lookups a net plugin makes on its
// data path, and the connect-time planning.
//
// BM_Advisor_SourcePort / _FlowLabel: PathAdvisor::source_port() and
// flow_label() on an advisor holding `connections` connections of 8 QPs
// (h100-1024, every rail, pairs of hosts; all distinct requests). Target
// (issue 8): <= 20 ns median and no allocation (allocs_per_iter = 0). The
// connection and QP change every iteration (a multiplicative walk over the
// ids), so nothing is hoisted. _SourcePortC goes through the C function
// railyard_advisor_source_port (defined in this file). _SourcePortDuringConnect
// measures the same lookup while another thread keeps connecting (publishing
// new segments and slots): lookups take no lock, so they do not wait.
//
// BM_Advisor_Connect: railyard_advisor_connect's work for a new request
// (validation, the uplink count, plan_connection, publication), budget B on
// h100-1024 across SUs (32 uplinks) and h100-16k-3tier across pods (32
// uplinks, 4,096 paths). Every iteration is a new request (a new
// base_dst_qpn), so the table grows. _ConnectRepeat: the same request again
// (a mutex and a hash lookup). BM_Advisor_RailPlane: a device name and a PCI
// path to railId/planeId. BM_Advisor_Create: the advisor for h100-1024
// (parse, materialize the fabric).
//
//   build-bench/bench/advisor_bench --benchmark_filter=SourcePort
#define RAILYARD_ADVISOR_IMPLEMENTATION
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "../alloc_counter.hpp"
#include "../topology/cluster_ladder.hpp"
#include "railyard/plugin/advisor.hpp"

namespace {

using railyard::HostId;
using railyard::NicIndex;
using railyard::NicPort;
using railyard::bench::alloc_snapshot;
using railyard::bench::AllocSnapshot;
using railyard::bench::NicPortWalk;
using railyard::bench::PortPair;
using railyard::plugin::AdvisorOptions;
using railyard::plugin::PathAdvisor;
using railyard::routing::ConnectionId;

using railyard::bench::report_allocations;

std::unique_ptr<PathAdvisor> make_advisor(const std::string& cluster) {
  AdvisorOptions o;
  o.cluster = cluster;
  o.hash_seed = 7;
  auto a = PathAdvisor::create(o);
  return a.ok() ? std::move(*a) : nullptr;
}

// Request i of a filled advisor: rail i mod 8, host (i / 8) mod 128 to the host
// 1 + (i / 1024) mod 127 further on, base_dst_qpn i (all distinct).
bool connect_nth(PathAdvisor& a, uint32_t i, int32_t qps) {
  const auto rail = static_cast<int32_t>(i % 8);
  const auto host = static_cast<int32_t>((i / 8) % 128);
  const auto other = static_cast<int32_t>((host + 1 + (i / 1024) % 127) % 128);
  return a
      .connect(NicPort{HostId{host}, NicIndex{rail}}, NicPort{HostId{other}, NicIndex{rail}}, qps,
               i & 0xFFFFFFu)
      .ok();
}

// One advisor per size, filled once for all repetitions.
PathAdvisor* filled_advisor(int32_t connections) {
  static std::map<int32_t, std::unique_ptr<PathAdvisor>> cache;
  auto& slot = cache[connections];
  if (slot == nullptr) {
    slot = make_advisor("h100-1024");
    if (slot == nullptr) return nullptr;
    for (int32_t c = 0; c < connections; ++c)
      if (!connect_nth(*slot, static_cast<uint32_t>(c), 8)) return nullptr;
  }
  return slot.get();
}

// Args {connections (a power of two)}; 8 QPs each.
template <class Lookup>
void lookup_bench(benchmark::State& state, Lookup lookup) {
  const auto connections = static_cast<int32_t>(state.range(0));
  PathAdvisor* a = filled_advisor(connections);
  if (a == nullptr) {
    state.SkipWithError("could not fill the advisor");
    return;
  }
  const auto mask = static_cast<uint32_t>(connections - 1);
  uint32_t i = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    // An odd multiplier walks every id of the power-of-two range, far apart.
    benchmark::DoNotOptimize(lookup(*a, (i * 0x9E3779B1u) & mask, i & 7u));
    ++i;
  }
  report_allocations(state, before);
  state.SetComplexityN(connections);
  state.counters["advisor_MB"] = static_cast<double>(a->memory_bytes()) / (1024.0 * 1024.0);
}

void BM_Advisor_SourcePort(benchmark::State& state) {
  lookup_bench(state,
               [](const PathAdvisor& a, uint32_t c, uint32_t q) { return a.source_port(c, q); });
}

void BM_Advisor_FlowLabel(benchmark::State& state) {
  lookup_bench(state,
               [](const PathAdvisor& a, uint32_t c, uint32_t q) { return a.flow_label(c, q); });
}

// Through the C API: a railyard_advisor wrapping its own advisor.
void BM_Advisor_SourcePortC(benchmark::State& state) {
  const auto connections = static_cast<int32_t>(state.range(0));
  static std::map<int32_t, railyard_advisor*> cache;  // kept for the process
  railyard_advisor*& adv = cache[connections];
  if (adv == nullptr) {
    adv = railyard_advisor_create("h100-1024", "crc32", 7, nullptr, 0);
    for (int32_t c = 0; adv != nullptr && c < connections; ++c) {
      const auto i = static_cast<uint32_t>(c);
      const railyard_nic_id a = {static_cast<int32_t>((i / 8) % 128), static_cast<int32_t>(i % 8),
                                 0, nullptr};
      const railyard_nic_id b = {static_cast<int32_t>((a.host + 1 + (i / 1024) % 127) % 128),
                                 a.rail, 0, nullptr};
      railyard_conn_plan plan;
      if (railyard_advisor_connect_ex(adv, &a, &b, 8, i, &plan) != RAILYARD_ADVISOR_OK) {
        railyard_advisor_destroy(adv);
        adv = nullptr;
      }
    }
  }
  if (adv == nullptr) {
    state.SkipWithError("could not fill the advisor");
    return;
  }
  const auto mask = static_cast<uint32_t>(connections - 1);
  uint32_t i = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    benchmark::DoNotOptimize(railyard_advisor_source_port(adv, (i * 0x9E3779B1u) & mask, i & 7u));
    ++i;
  }
  report_allocations(state, before);
}

// Lookups over the first 1,024 connections while another thread connects new
// ones (and so appends slots and allocates segments).
void BM_Advisor_SourcePortDuringConnect(benchmark::State& state) {
  std::unique_ptr<PathAdvisor> a = make_advisor("h100-1024");
  if (a == nullptr) {
    state.SkipWithError("no advisor");
    return;
  }
  for (uint32_t c = 0; c < 1024; ++c) connect_nth(*a, c, 8);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> connected{0};
  std::thread writer([&] {
    for (uint32_t c = 1024; !stop.load(std::memory_order_relaxed); ++c) {
      connect_nth(*a, c, 8);
      connected.fetch_add(1, std::memory_order_relaxed);
    }
  });
  uint32_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(a->source_port((i * 0x9E3779B1u) & 1023u, i & 7u));
    ++i;
  }
  stop.store(true);
  writer.join();
  state.counters["connects_meanwhile"] = static_cast<double>(connected.load());
}

// Args {gpus, pair, budget}.
void BM_Advisor_Connect(benchmark::State& state) {
  auto desc = railyard::bench::ladder_descriptor(state.range(0));
  if (!desc.ok()) {
    state.SkipWithError(std::string(desc.status().message()).c_str());
    return;
  }
  const auto which = static_cast<PortPair>(state.range(1));
  const auto budget = static_cast<int32_t>(state.range(2));
  auto created = PathAdvisor::create(
      railyard::topology::Cluster{*desc, railyard::topology::materialize(*desc)});
  if (!created.ok()) {
    state.SkipWithError(std::string(created.status().message()).c_str());
    return;
  }
  PathAdvisor& a = **created;
  const NicPortWalk walk(*desc);
  state.counters["paths"] =
      static_cast<double>(desc->path_count(walk.source(0), walk.partner(0, which)));
  uint32_t i = 0;
  int64_t failures = 0;
  int32_t qps = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    auto c = a.connect(walk.source(i), walk.partner(i, which), budget, i & 0xFFFFFFu);
    failures += c.ok() ? 0 : 1;
    qps = c.ok() ? c->qps : 0;
    benchmark::DoNotOptimize(c);
    i += 9;  // next host, next rail
  }
  report_allocations(state, before);
  state.counters["qps"] = qps;
  if (failures != 0) state.SkipWithError("connect failed");
}

void BM_Advisor_ConnectRepeat(benchmark::State& state) {
  std::unique_ptr<PathAdvisor> a = make_advisor("h100-1024");
  if (a == nullptr || !connect_nth(*a, 0, 8)) {
    state.SkipWithError("no advisor");
    return;
  }
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) benchmark::DoNotOptimize(connect_nth(*a, 0, 8));
  report_allocations(state, before);
}

// Arg 0: device name "mlx5_5"; 1: a sysfs PCI path with port 1.
void BM_Advisor_RailPlane(benchmark::State& state) {
  std::unique_ptr<PathAdvisor> a = make_advisor("h100-1024");
  if (a == nullptr) {
    state.SkipWithError("no advisor");
    return;
  }
  const std::string name = state.range(0) == 0 ? "mlx5_5"
                                               : "/sys/devices/pci0000:00/0000:00:01.0/" +
                                                     std::string(a->nic_busid(NicIndex{5}));
  const int32_t port = state.range(0) == 0 ? 0 : 1;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) benchmark::DoNotOptimize(a->rail_plane(name, port));
  report_allocations(state, before);
}

void BM_Advisor_Create(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(make_advisor("h100-1024"));
}

constexpr auto kCrossSu = static_cast<int64_t>(PortPair::kCrossSu);
constexpr auto kCrossPod = static_cast<int64_t>(PortPair::kCrossPod);

BENCHMARK(BM_Advisor_SourcePort)
    ->ArgName("connections")
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Complexity(benchmark::o1);
BENCHMARK(BM_Advisor_FlowLabel)->ArgName("connections")->Arg(1024)->Arg(131072);
BENCHMARK(BM_Advisor_SourcePortC)->ArgName("connections")->Arg(1024)->Arg(131072);
BENCHMARK(BM_Advisor_SourcePortDuringConnect);
BENCHMARK(BM_Advisor_Connect)
    ->ArgNames({"gpus", "pair", "budget"})
    ->Unit(benchmark::kMicrosecond)
    ->Args({1024, kCrossSu, 1})
    ->Args({1024, kCrossSu, 4})
    ->Args({1024, kCrossSu, 16})
    ->Args({1024, kCrossSu, 256})
    ->Args({16384, kCrossPod, 1})
    ->Args({16384, kCrossPod, 16})
    ->Args({16384, kCrossPod, 256});
BENCHMARK(BM_Advisor_ConnectRepeat);
BENCHMARK(BM_Advisor_RailPlane)->ArgName("pci")->Arg(0)->Arg(1);
BENCHMARK(BM_Advisor_Create)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
