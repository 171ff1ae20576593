// bench/routing/hash_bench.cpp — ECMP hash models: one pick(), and the search
// for a source port that realizes a path.
//
// BM_Hash_Pick<Model>/candidates: one HashModel::pick() through the virtual
// interface (as plans call it), on a tuple and switch that change every
// iteration (a counter walks 4,096 pre-drawn tuples and 64 switches through
// masks). Cost does not depend on the candidate count; the argument shows it.
// Measured is a 16,384-entry table (16 switches x 1,024 ports) hit by about
// 6% of the lookups; the rest binary-search, miss and fall back to CRC-32.
// Target: tens of ns per pick, allocs_per_iter 0.
//
// BM_Hash_FindSport/preset: find_sport under CRC-32 for a path between two
// NICs in different SUs (h100-1024: leaf up 32 x spine down 2 = 64 paths) or
// different pods (h100-16k-3tier: leaf up 32 x spine up 32 x core down 4 =
// 4,096 paths); each iteration asks for the next path in turn. About
// prod(candidates) picks per answer on average; paths no port realizes (about
// e^-(16384/paths) of them) cost a full scan of the 16,384 ports. Counters:
// hops, paths, found (share of paths realized), allocs_per_iter (0).
//
//   build/bench/hash_bench --benchmark_filter=FindSport
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../alloc_counter.hpp"
#include "railyard/routing/hash.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/parse_cluster.hpp"

namespace {

using railyard::bench::alloc_snapshot;
using railyard::bench::AllocSnapshot;
using namespace railyard::routing;

// Short names: they appear in the benchmark names.
using Random = UniformRandomHash;
using Crc32 = Crc5TupleHash;
struct Crc32c final {};
using QpAware = QpAwareHash;
struct Measured final {};

constexpr size_t kTuples = 4096;  // power of two: walked with a mask

std::vector<FiveTuple> random_tuples() {
  std::mt19937_64 rng(42);
  std::vector<FiveTuple> out(kTuples);
  for (FiveTuple& t : out) {
    t.src_ip = (10u << 24) | static_cast<uint32_t>(rng() & 0xFFFFFF);
    t.dst_ip = (10u << 24) | static_cast<uint32_t>(rng() & 0xFFFFFF);
    t.src_port = static_cast<uint16_t>(kSportBase | (rng() & 0x3FFF));
    t.dst_qp = static_cast<uint32_t>(rng() & 0xFFFFFF);
  }
  return out;
}

MeasuredTableHash measured_table() {
  std::vector<MeasuredTableHash::Entry> entries;
  for (int32_t sw = 0; sw < 16; ++sw)
    for (int32_t p = 0; p < 1024; ++p)
      entries.push_back({HopKind::kSrcLeafUp, railyard::SwitchIndex{sw},
                         static_cast<uint16_t>(kSportBase + p * 16), p % 8});
  return *MeasuredTableHash::from_entries(std::move(entries));
}

template <class Tag>
struct ModelOf {
  using type = Tag;
  static type make() { return type(7); }
};
template <>
struct ModelOf<Crc32c> {
  using type = Crc5TupleHash;
  static type make() { return Crc5TupleHash(7, CrcPolynomial::kCrc32c); }
};
template <>
struct ModelOf<Measured> {
  using type = MeasuredTableHash;
  static type make() { return measured_table(); }
};

using railyard::bench::report_allocations;

template <class Tag>
void BM_Hash_Pick(benchmark::State& state) {
  const auto model_value = ModelOf<Tag>::make();
  const HashModel* model = &model_value;
  benchmark::DoNotOptimize(model);  // keep the call virtual
  const std::vector<FiveTuple> tuples = random_tuples();
  const auto candidates = static_cast<int32_t>(state.range(0));
  uint32_t i = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    const EcmpHop hop{HopKind::kSrcLeafUp, railyard::SwitchIndex{static_cast<int32_t>(i & 63)},
                      candidates};
    benchmark::DoNotOptimize(model->pick(hop, tuples[i & (kTuples - 1)]));
    ++i;
  }
  report_allocations(state, before);
}

BENCHMARK_TEMPLATE(BM_Hash_Pick, Random)->Arg(32);
BENCHMARK_TEMPLATE(BM_Hash_Pick, Crc32)->Arg(2)->Arg(32)->Arg(100);
BENCHMARK_TEMPLATE(BM_Hash_Pick, Crc32c)->Arg(32);
BENCHMARK_TEMPLATE(BM_Hash_Pick, QpAware)->Arg(32);
BENCHMARK_TEMPLATE(BM_Hash_Pick, Measured)->Arg(32);

constexpr std::array<std::string_view, 3> kFindSportPresets{"h100-1024", "h100-16k-3tier",
                                                            "h100-128k-3tier"};

void BM_Hash_FindSport(benchmark::State& state) {
  const std::string_view preset = kFindSportPresets[static_cast<size_t>(state.range(0))];
  auto spec = railyard::topology::parse_cluster(preset);
  auto desc = spec.ok() ? railyard::topology::make_descriptor(*spec)
                        : railyard::StatusOr<railyard::topology::ClusterDescriptor<>>(spec.status());
  if (!desc.ok()) {
    state.SkipWithError(std::string(desc.status().message()).c_str());
    return;
  }
  // Same rail, far apart: different SUs (2 tiers) or different pods (3 tiers).
  const railyard::NicPort a{railyard::HostId{0}, railyard::NicIndex{0}};
  const railyard::NicPort b{railyard::HostId{desc->hosts() - 1}, railyard::NicIndex{0}};
  const std::vector<EcmpHop> hops = ecmp_hops(*desc, a, b);
  int64_t paths = 1;
  for (const EcmpHop& h : hops) paths *= h.candidates;
  const FiveTuple base = rocev2_tuple(*desc, a, b, kSportBase, 0x51);
  const Crc5TupleHash crc(7);
  std::vector<int32_t> wanted(hops.size());
  int64_t path = 0;
  int64_t found = 0;
  const AllocSnapshot before = alloc_snapshot();
  for (auto _ : state) {
    int64_t rest = path;
    for (size_t h = hops.size(); h-- > 0;) {
      wanted[h] = static_cast<int32_t>(rest % hops[h].candidates);
      rest /= hops[h].candidates;
    }
    const auto sport = find_sport(crc, hops, wanted, base);
    benchmark::DoNotOptimize(sport);
    found += sport.has_value();
    path = path + 1 == paths ? 0 : path + 1;
  }
  report_allocations(state, before);
  state.counters["hops"] = static_cast<double>(hops.size());
  state.counters["paths"] = static_cast<double>(paths);
  state.counters["found"] = static_cast<double>(found) / static_cast<double>(state.iterations());
  state.SetLabel(std::string(preset));
}

BENCHMARK(BM_Hash_FindSport)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
