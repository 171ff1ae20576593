// bench/sim/collective_sim_bench.cpp — time to simulate a collective
// (sim::simulate_collective: traffic, routing, max-min fair flow simulator) on
// the cluster ladder of bench/topology/cluster_ladder.hpp, S = 1 GiB per group,
// one group of all the cluster's GPUs.
//
// Rank orders. Host-major: rank r on host r / 8, GPU r % 8 (host 0 holds ranks
// 0..7, ...), so a ring leaves a host once and mostly stays inside its SU.
// Interleaved: rank r on host order[r / 8], order[i] = (i % sus) * hosts_per_su
// + i / sus — consecutive hosts sit in different SUs, every inter-host hop
// crosses the spines and ECMP has choices (and collisions) to make.
//
// BM_Collective_RingAllReduce/N      ring all-reduce, default options (planned
//                                    routing, one channel per NIC), host-major.
// BM_Collective_AllToAllStep/N       ONE all-to-all step with every ordered
//                                    pair of GPUs concurrent (N(N-1) flows of
//                                    S/N bytes): paths from
//                                    routing::network_crossing (PXN, as
//                                    simulate_collective) and planned network
//                                    routes (assign_paths), then
//                                    FlowSimulator::run_step. Built and routed
//                                    inside the timed loop; the split (thread CPU
//                                    time per iteration) is reported as build_ms
//                                    (network_crossing for every pair), route_ms,
//                                    assemble_ms (FlowStep of whole paths) and
//                                    sim_ms (run_step).
// BM_Collective_AllToAllStepEcmp/N   the same with ECMP routes (ecmp_paths,
//                                    UniformRandomHash(1), one QP per flow).
// BM_Collective_AllToAllPairwise/N   simulate_collective(kAllToAll, kPairwise),
//                                    planned: N-1 distinct steps of N flows
//                                    (N(N-1) flows in all, one segment per step).
// BM_Collective_AllToAllPairwiseEcmp/N   the same with ECMP.
// BM_Collective_AllToAllPairwiseAdaptive/N   the same with adaptive routing,
//                                    folded by symmetry (CollectiveSimOptions::
//                                    aggregate): the 16,384-GPU target of issue 19
//                                    (<= 60 s, <= 8 GB on one core); one iteration.
// BM_Collective_RingStepEcmp/N       ring all-gather with ECMP routing,
//                                    host-major: N-1 identical steps, simulated
//                                    once (one segment), so this is one ring step.
// BM_Collective_RingStepEcmpInterleaved/N   the same, interleaved hosts.
// BM_Collective_RingInterleaved/gpus:N/qps:Q       ring all-reduce, interleaved
// BM_Collective_RingInterleavedEcmp/gpus:N/qps:Q   hosts, Q QPs per connection,
//                                    planned / ECMP (each QP hashed on its own).
//
// Counters: steps (of the collective), segments (distinct steps simulated),
// flows (simulator flows over those segments), events (water-filling rounds),
// busbw_gbps (nccl-tests bus bandwidth of the simulated collective, Gb/s),
// links_per_flow (mean path length in directed links). Cluster materialization
// and group building are outside the timed loop.
//
//   build-bench/bench/collective_sim_bench --benchmark_filter=RingAllReduce
#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../topology/cluster_ladder.hpp"
#include "railyard/collective/schedule.hpp"
#include "railyard/routing/assign.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/routing/paths.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/sim/flow_sim.hpp"
#include "railyard/topology/cluster.hpp"

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::collective::Algorithm;
using railyard::collective::Collective;
using railyard::routing::GpuEndpoint;
using railyard::sim::CollectiveReport;
using railyard::sim::CollectiveSimOptions;
using railyard::sim::Routing;
using railyard::topology::Cluster;
using Groups = std::vector<std::vector<GpuEndpoint>>;

constexpr int64_t kBytes = int64_t{1} << 30;  // S, per group

// The ladder rung with `gpus` GPUs, materialized once per process.
const Cluster* ladder_cluster(int64_t gpus, std::string* error) {
  static std::map<int64_t, std::unique_ptr<Cluster>> cache;
  auto it = cache.find(gpus);
  if (it != cache.end()) return it->second.get();
  railyard::StatusOr<railyard::topology::ClusterSpec> spec = railyard::bench::ladder_spec(gpus);
  if (!spec.ok()) {
    *error = std::string(spec.status().message());
    return nullptr;
  }
  railyard::StatusOr<railyard::topology::ClusterDescriptor<>> d =
      railyard::topology::make_descriptor(*spec);
  if (!d.ok()) {
    *error = std::string(d.status().message());
    return nullptr;
  }
  railyard::topology::Fabric f = railyard::topology::materialize(*d);
  auto c = std::make_unique<Cluster>(Cluster{*d, std::move(f)});
  return cache.emplace(gpus, std::move(c)).first->second.get();
}

// One group of every GPU, host-major or with hosts interleaved across SUs.
Groups all_gpus(const Cluster& c, bool interleave) {
  const auto& d = c.descriptor;
  const int32_t sus = d.sus();
  const int32_t per_su = d.hosts_per_su();
  Groups g(1);
  g[0].reserve(static_cast<size_t>(d.gpus()));
  for (int32_t i = 0; i < d.hosts(); ++i) {
    const int32_t h = interleave ? (i % sus) * per_su + i / sus : i;
    for (int32_t k = 0; k < d.gpus_per_host(); ++k) g[0].push_back({HostId{h}, GpuIndex{k}});
  }
  return g;
}

void set_report_counters(benchmark::State& state, const CollectiveReport& r) {
  state.counters["steps"] = static_cast<double>(r.steps);
  state.counters["segments"] = static_cast<double>(r.segments);
  state.counters["flows"] = static_cast<double>(r.flows);
  state.counters["events"] = static_cast<double>(r.events);
  state.counters["simulated_flows"] = static_cast<double>(r.simulated_flows);
  state.counters["busbw_gbps"] = r.busbw_gbps;
}

// Times simulate_collective on one group of all GPUs of the rung state.range(0).
void run_collective(benchmark::State& state, Collective kind, const CollectiveSimOptions& o,
                    bool interleave) {
  const int64_t gpus = state.range(0);
  std::string error;
  const Cluster* c = ladder_cluster(gpus, &error);
  if (c == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const Groups groups = all_gpus(*c, interleave);
  railyard::StatusOr<CollectiveReport> rep;
  for (auto _ : state) {
    rep = railyard::sim::simulate_collective(*c, groups, kind, kBytes, o);
    if (!rep.ok()) {
      state.SkipWithError(std::string(rep.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(rep->time_us);
  }
  set_report_counters(state, *rep);
  state.SetComplexityN(gpus);
}

// 1. Ring all-reduce, default options, host-major.
void BM_Collective_RingAllReduce(benchmark::State& state) {
  run_collective(state, Collective::kAllReduce, CollectiveSimOptions{}, false);
}
BENCHMARK(BM_Collective_RingAllReduce)
    ->Apply([](benchmark::internal::Benchmark* b) { railyard::bench::apply_ladder(b, 8, 131072); })
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// 2a. One all-to-all step, every ordered pair concurrent, built by hand.

// This thread's CPU time in ms: the split counters stay meaningful when other
// processes share the core (wall time would charge their slices to us).
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

void all_to_all_step(benchmark::State& state, Routing routing) {
  namespace rr = railyard::routing;
  namespace rs = railyard::sim;
  const int64_t gpus = state.range(0);
  std::string error;
  const Cluster* c = ladder_cluster(gpus, &error);
  if (c == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const auto& d = c->descriptor;
  const auto& f = c->fabric;
  const std::vector<GpuEndpoint> ranks = all_gpus(*c, false)[0];
  const auto n = static_cast<int32_t>(ranks.size());
  // The bytes of one pairwise all-to-all transfer: S / n.
  const double bytes = static_cast<double>(kBytes) / static_cast<double>(n);
  const std::vector<double> caps = rs::capacities(f);
  rs::FlowSimulator sim(caps);
  const rr::UniformRandomHash hash(1);
  rr::GpuPathOptions po;
  po.forward_over_nvlink = true;  // PXN, as simulate_collective's default

  std::vector<rr::NetworkCrossing> crossings;
  std::vector<rr::Flow> flows;
  std::vector<railyard::topology::Route> routes;
  std::vector<int32_t> links;
  double build_ms = 0, route_ms = 0, assemble_ms = 0, sim_ms = 0;
  size_t step_flows = 0, network_flows = 0;
  double links_per_flow = 0;
  double step_us = 0;
  int64_t events = 0;
  for (auto _ : state) {
    double t0 = cpu_ms();
    rs::FlowStep step;
    crossings.clear();
    flows.clear();
    for (int32_t s = 0; s < n; ++s)
      for (int32_t t = 0; t < n; ++t) {
        if (s == t) continue;
        rr::NetworkCrossing x = rr::network_crossing(d, f, ranks[static_cast<size_t>(s)],
                                                     ranks[static_cast<size_t>(t)], po);
        if (!x.network) {
          step.add(absl::Span<const railyard::LinkId>(x.prefix), bytes);
          continue;
        }
        flows.push_back({x.src, x.dst, bytes});
        crossings.push_back(std::move(x));
      }
    build_ms += cpu_ms() - t0;

    t0 = cpu_ms();
    if (routing == Routing::kPlanned) {
      rr::AssignOptions ao;
      ao.exact_search_limit = 0;  // as simulate_collective
      railyard::StatusOr<rr::PathPlan> plan = rr::assign_paths(d, f, flows, nullptr, ao);
      if (!plan.ok()) {
        state.SkipWithError(std::string(plan.status().message()).c_str());
        return;
      }
      routes = std::move(plan->routes);
    } else {
      railyard::StatusOr<std::vector<railyard::topology::Route>> r = rr::ecmp_paths(d, f, flows, hash);
      if (!r.ok()) {
        state.SkipWithError(std::string(r.status().message()).c_str());
        return;
      }
      routes = std::move(*r);
    }
    route_ms += cpu_ms() - t0;

    t0 = cpu_ms();
    step.reserve(step.size() + flows.size(), step.total_links() + flows.size() * 8);
    for (size_t i = 0; i < flows.size(); ++i) {
      const rr::NetworkCrossing& x = crossings[i];
      links.clear();
      for (railyard::LinkId l : x.prefix) links.push_back(l.value());
      const railyard::topology::Path net = f.route_links(x.src, x.dst, routes[i]);
      for (railyard::LinkId l : net.view()) links.push_back(l.value());
      links.push_back(x.last.value());
      step.add(std::span<const int32_t>(links), bytes);
    }
    assemble_ms += cpu_ms() - t0;

    t0 = cpu_ms();
    railyard::StatusOr<rs::StepResult> r = sim.run_step(step);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    sim_ms += cpu_ms() - t0;
    step_flows = step.size();
    network_flows = flows.size();
    links_per_flow = static_cast<double>(step.total_links()) / static_cast<double>(step.size());
    step_us = r->time_us;
    events = r->events;
  }
  const auto avg = benchmark::Counter::kAvgIterations;
  state.counters["build_ms"] = benchmark::Counter(build_ms, avg);
  state.counters["route_ms"] = benchmark::Counter(route_ms, avg);
  state.counters["assemble_ms"] = benchmark::Counter(assemble_ms, avg);
  state.counters["sim_ms"] = benchmark::Counter(sim_ms, avg);
  state.counters["flows"] = static_cast<double>(step_flows);
  state.counters["network_flows"] = static_cast<double>(network_flows);
  state.counters["events"] = static_cast<double>(events);
  state.counters["step_us"] = step_us;
  state.counters["links_per_flow"] = links_per_flow;
  state.SetComplexityN(static_cast<int64_t>(step_flows));
}
void BM_Collective_AllToAllStep(benchmark::State& state) {
  all_to_all_step(state, Routing::kPlanned);
}
BENCHMARK(BM_Collective_AllToAllStep)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();
void BM_Collective_AllToAllStepEcmp(benchmark::State& state) {
  all_to_all_step(state, Routing::kEcmp);
}
BENCHMARK(BM_Collective_AllToAllStepEcmp)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// 2b. Pairwise all-to-all through simulate_collective: N-1 steps of N flows.
void all_to_all_pairwise(benchmark::State& state, Routing routing) {
  CollectiveSimOptions o;
  o.algorithm = Algorithm::kPairwise;
  o.routing = routing;
  run_collective(state, Collective::kAllToAll, o, false);
}
void BM_Collective_AllToAllPairwise(benchmark::State& state) {
  all_to_all_pairwise(state, Routing::kPlanned);
}
BENCHMARK(BM_Collective_AllToAllPairwise)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();
void BM_Collective_AllToAllPairwiseEcmp(benchmark::State& state) {
  all_to_all_pairwise(state, Routing::kEcmp);
}
BENCHMARK(BM_Collective_AllToAllPairwiseEcmp)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

void BM_Collective_AllToAllPairwiseAdaptive(benchmark::State& state) {
  all_to_all_pairwise(state, Routing::kAdaptive);
}
BENCHMARK(BM_Collective_AllToAllPairwiseAdaptive)
    ->Arg(1024)
    ->Arg(4096)
    ->Arg(16384)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// 3. One ring step with ECMP: a ring all-gather is one segment.
void BM_Collective_RingStepEcmp(benchmark::State& state) {
  CollectiveSimOptions o;
  o.routing = Routing::kEcmp;
  run_collective(state, Collective::kAllGather, o, false);
}
BENCHMARK(BM_Collective_RingStepEcmp)
    ->Apply([](benchmark::internal::Benchmark* b) {
      railyard::bench::apply_ladder(b, 1024, 131072);
    })
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

void BM_Collective_RingStepEcmpInterleaved(benchmark::State& state) {
  CollectiveSimOptions o;
  o.routing = Routing::kEcmp;
  run_collective(state, Collective::kAllGather, o, true);
}
BENCHMARK(BM_Collective_RingStepEcmpInterleaved)
    ->Apply([](benchmark::internal::Benchmark* b) {
      railyard::bench::apply_ladder(b, 1024, 131072);
    })
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// 4. Ring all-reduce, hosts interleaved across SUs, QPs per connection.
void ring_interleaved(benchmark::State& state, Routing routing) {
  CollectiveSimOptions o;
  o.routing = routing;
  o.qps = static_cast<int32_t>(state.range(1));
  run_collective(state, Collective::kAllReduce, o, true);
}
void BM_Collective_RingInterleaved(benchmark::State& state) {
  ring_interleaved(state, Routing::kPlanned);
}
void BM_Collective_RingInterleavedEcmp(benchmark::State& state) {
  ring_interleaved(state, Routing::kEcmp);
}
void qps_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"gpus", "qps"})->Args({1024, 1})->Args({1024, 4})->Args({1024, 16});
  b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_Collective_RingInterleaved)->Apply(qps_args);
BENCHMARK(BM_Collective_RingInterleavedEcmp)->Apply(qps_args);

}  // namespace

BENCHMARK_MAIN();
