// Tests for railyard/tune/model.hpp and railyard/plugin/tuner.hpp: the tuner
// core's model, its cost-table contract, rules applied, and the C-ABI adapters (in process; the built
// library is driven through dlopen by tests/plugin/tuner_harness.cpp).
#include "railyard/plugin/tuner.hpp"
#include "railyard/tune/model.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "railyard/collective/cost.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"

namespace {

namespace rp = railyard::plugin;
namespace rt = railyard::tune;
namespace nccl = railyard::plugin::nccl;
using railyard::GpuIndex;
using railyard::HostId;

rt::TunerOptions options(std::string_view cluster, int64_t ranks, int64_t nodes) {
  rt::TunerOptions o;
  o.cluster = cluster;
  o.ranks = ranks;
  o.nodes = nodes;
  return o;
}

rt::TunerCore make(const rt::TunerOptions& o) {
  auto core = rt::TunerCore::create(o);
  REQUIRE_MESSAGE(core.ok(), core.status().message());
  return *std::move(core);
}

constexpr int kAllReduce = 4, kAllGather = 2;

std::vector<std::string>& captured() {
  static std::vector<std::string> lines;
  return lines;
}
extern "C" void capture(nccl::LogLevel level, unsigned long flags, const char*, int,
                        const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  captured().push_back(railyard::str_cat(level == nccl::LogLevel::kWarn ? "WARN " : "INFO ",
                                         (flags & nccl::kLogTuning) ? "TUNING " : "", buf));
}

}  // namespace

TEST_CASE("tuner: every modeled cost is positive and grows with nBytes") {
  for (const auto& [cluster, ranks, nodes] :
       std::vector<std::tuple<std::string_view, int64_t, int64_t>>{
           {"h100-1024", 8, 1},
           {"h100-1024-2to1", 64, 8},
           {"h100-1024-2to1", 512, 64},
           {"h100-1024-tor", 1024, 128},
           {"h100-16k-3tier", 2048, 256},
           {"gb200-nvl72-576", 288, 72},
           {"h100-1024-dualplane", 128, 128}}) {
    CAPTURE(cluster);
    CAPTURE(nodes);
    const rt::TunerCore core = make(options(cluster, ranks, nodes));
    int modeled = 0;
    for (int c = 0; c < nccl::kNumTunedFunctions; ++c)
      for (int a = 0; a < nccl::kNumAlgorithms; ++a)
        for (int p = 0; p < nccl::kNumProtocols; ++p) {
          const rt::CostCoefficients k = core.coefficients(c, a, p);
          if (!k.modeled()) continue;
          ++modeled;
          CHECK(std::isfinite(k.alpha_us));
          CHECK(std::isfinite(k.us_per_byte));
          CHECK(k.alpha_us > 0);
          double previous = 0;
          for (int s = 0; s <= 40; ++s) {
            const double t = core.predict_us(c, a, p, std::ldexp(1.0, s));
            CHECK(t > 0);
            CHECK(t >= previous);
            previous = t;
          }
          // A byte more never costs less; big messages are bandwidth-bound.
          if (nodes > 1 || ranks > 1) CHECK(k.us_per_byte > 0);
        }
    // Ring (all five) and tree (all-reduce) at least; NVLS tree and PAT across nodes.
    CHECK(modeled >= 3 * nccl::kNumTunedFunctions + 3);
    CHECK_FALSE(core.coefficients(kAllReduce, nccl::kAlgoCollNetDirect, 2).modeled());
    CHECK_FALSE(core.coefficients(kAllReduce, nccl::kAlgoNvls, 2).modeled());
  }
}

TEST_CASE("tuner: tree wins small all-reduces, ring wins large ones, LL wins tiny ones") {
  const rt::TunerCore core = make(options("h100-1024-2to1", 512, 64));
  const auto ring = [&](double s) { return core.predict_us(kAllReduce, 1, 2, s); };
  const auto tree = [&](double s) { return core.predict_us(kAllReduce, 0, 2, s); };
  CHECK(tree(65536) < ring(65536));
  double crossover = 0;
  for (int s = 16; s <= 40 && crossover == 0; ++s)
    if (ring(std::ldexp(1.0, s)) < tree(std::ldexp(1.0, s))) crossover = std::ldexp(1.0, s);
  CHECK(crossover > 0);
  // Past the crossover ring stays ahead (smaller beta).
  CHECK(core.coefficients(kAllReduce, 1, 2).us_per_byte <
        core.coefficients(kAllReduce, 0, 2).us_per_byte);
  // Protocols: LL's latency wins at 1 KiB, simple's bandwidth at 64 GiB (at 512
  // ranks LL128's shorter hops still beat simple's at 1 GiB, as in NCCL's model).
  const double big = std::ldexp(1.0, 36);
  CHECK(core.predict_us(kAllReduce, 1, 0, 1024) < core.predict_us(kAllReduce, 1, 2, 1024));
  CHECK(core.predict_us(kAllReduce, 1, 2, big) < core.predict_us(kAllReduce, 1, 0, big));
  CHECK(core.predict_us(kAllReduce, 1, 2, big) < core.predict_us(kAllReduce, 1, 1, big));
}

TEST_CASE("tuner: oversubscription costs only where traffic crosses SUs") {
  // PAT all-gather, one rank per node: its long steps leave the SU.
  auto pat = [](std::string_view cluster, int64_t nodes) {
    return make(options(cluster, nodes, nodes)).predict_us(kAllGather, nccl::kAlgoPat, 2, 1 << 30);
  };
  CHECK(pat("h100-1024-2to1", 64) > 1.3 * pat("h100-1024", 64));              // 2 SUs
  CHECK(pat("h100-1024-2to1", 16) == doctest::Approx(pat("h100-1024", 16)));  // 1 SU

  // A ring over hosts taken round-robin from the 4 SUs: every hop crosses the
  // spine, 32 flows per leaf on 16 uplinks at 2:1.
  auto ring = [](std::string_view cluster, bool interleaved) {
    rt::TunerOptions o = options(cluster, 1024, 128);
    if (interleaved)
      for (int32_t i = 0; i < 128; ++i) o.hosts.push_back(railyard::HostId{(i % 4) * 32 + i / 4});
    return make(o).coefficients(kAllReduce, nccl::kAlgoRing, 2).us_per_byte;
  };
  CHECK(ring("h100-1024-2to1", true) == doctest::Approx(2 * ring("h100-1024", true)));
  // Consecutive hosts: the ring leaves each SU once, whatever the oversubscription
  // (what the flow simulator says too).
  CHECK(ring("h100-1024-2to1", false) == doctest::Approx(ring("h100-1024", false)));
  // Crossing SUs costs switch hops: latency grows even when bandwidth does not.
  const rt::TunerCore one_su = make(options("h100-1024", 256, 32));
  const rt::TunerCore two_su = make(options("h100-1024", 264, 33));
  CHECK(two_su.coefficients(kAllReduce, nccl::kAlgoTree, 0).alpha_us >
        one_su.coefficients(kAllReduce, nccl::kAlgoTree, 0).alpha_us);
}

TEST_CASE("tuner: ring bandwidth term agrees with the flow simulator and the lower bound") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  for (int32_t hosts : {2, 8}) {
    CAPTURE(hosts);
    std::vector<std::vector<railyard::routing::GpuEndpoint>> groups(1);
    for (int32_t h = 0; h < hosts; ++h)
      for (int32_t g = 0; g < 8; ++g) groups[0].push_back({HostId{h}, GpuIndex{g}});
    const int64_t bytes = int64_t{1} << 32;
    auto sim = railyard::sim::simulate_collective(
        *cluster, groups, railyard::collective::Collective::kAllReduce, bytes);
    REQUIRE(sim.ok());
    const rt::TunerCore core = make(options("h100-1024", hosts * 8, hosts));
    const double model_bw_us =
        static_cast<double>(bytes) * core.coefficients(kAllReduce, 1, 2).us_per_byte;
    CHECK(model_bw_us == doctest::Approx(sim->time_us - sim->latency_us).epsilon(0.05));
    CHECK(model_bw_us >= sim->lower_bound_us * (1 - 1e-6));
    CHECK(core.predict_us(kAllReduce, 0, 2, static_cast<double>(bytes)) >= sim->lower_bound_us);
  }
}

TEST_CASE("tuner: NCCL's NVLink domain info wins over the spec") {
  // 18 GB200 hosts of one NVL72 rack, 4 ranks each.
  const rt::TunerCore from_spec = make(options("gb200-nvl72-576", 72, 18));
  rt::TunerOptions one = options("gb200-nvl72-576", 72, 18);
  one.nvl = rt::NvlDomains{1, 72, 72};
  rt::TunerOptions split = options("gb200-nvl72-576", 72, 18);
  split.nvl = rt::NvlDomains{18, 4, 4};  // NCCL runs without MNNVL
  const double spec_beta = from_spec.coefficients(kAllReduce, 1, 2).us_per_byte;
  CHECK(make(one).coefficients(kAllReduce, 1, 2).us_per_byte == doctest::Approx(spec_beta));
  // 4 x 400G NICs per host instead of 7.2 Tb/s NVLink per GPU.
  CHECK(make(split).coefficients(kAllReduce, 1, 2).us_per_byte > 4 * spec_beta);
  CHECK(from_spec.summary().find("1 NVLink domain") != std::string::npos);
}

TEST_CASE("tuner: fill_cost_table writes allowed, modeled entries only") {
  rt::TunerOptions o = options("h100-1024-2to1", 64, 8);
  const rt::TunerCore core = make(o);
  for (int num_algo : {6, 7}) {
    std::array<float, 21> table{};
    for (size_t i = 0; i < table.size(); ++i) table[i] = 1000.0f + static_cast<float>(i);
    table[0 * 3 + 1] = nccl::kAlgoProtoIgnore;  // tree/ll128 off
    table[1 * 3 + 0] = nccl::kAlgoProtoIgnore;  // ring/ll off
    table[5 * 3 + 2] = -2.5f;                   // any negative: not allowed
    const std::array<float, 21> before = table;
    int channels = 7;
    core.fill_cost_table(nccl::Func::kAllReduce, 1 << 20, 1, table.data(), num_algo, 3, 0,
                         &channels);
    CHECK(channels == 7);
    for (int a = 0; a < 7; ++a)
      for (int p = 0; p < 3; ++p) {
        const size_t i = static_cast<size_t>(a * 3 + p);
        const bool allowed = before[i] >= 0;
        const bool modeled = a < num_algo && core.coefficients(kAllReduce, a, p).modeled();
        CAPTURE(a);
        CAPTURE(p);
        if (!allowed || !modeled) {
          CHECK(std::memcmp(&before[i], &table[i], sizeof(float)) == 0);
        } else {
          CHECK(table[i] == doctest::Approx(core.predict_us(kAllReduce, a, p, 1 << 20)));
        }
      }
  }
  // Send/recv and newer functions are not the tuner's.
  std::array<float, 21> table{};
  table.fill(5.0f);
  core.fill_cost_table(static_cast<nccl::Func>(5), 1 << 20, 1, table.data(), 7, 3, 0, nullptr);
  core.fill_cost_table(static_cast<nccl::Func>(-1), 1 << 20, 1, table.data(), 7, 3, 0, nullptr);
  for (float v : table) CHECK(v == 5.0f);
}

TEST_CASE("tuner: the first matching rule whose entry NCCL allows wins") {
  rt::TunerOptions o = options("h100-1024-2to1", 64, 8);
  o.rules =
      "allreduce,0,4096,ring,simple,2,-1,-1,3\n"  // numPipeOps 3 only
      "allreduce,0,4096,nvls,simple,-1,-1,-1\n"   // NCCL may not allow nvls
      "allreduce,0,4096,tree,ll,6,-1,-1\n"
      "allreduce,0,4096,ring,ll,8,-1,-1\n"
      "allreduce,0,-1,ring,simple,12,16,-1\n";  // nNodes 16: never this communicator
  const rt::TunerCore core = make(o);
  CHECK(core.rules_parsed() == 5);
  CHECK(core.rules().size() == 4);
  std::array<float, 21> table{};
  auto run = [&](size_t bytes, int pipe_ops) {
    table.fill(100.0f);
    table[nccl::kAlgoNvls * 3 + 2] = nccl::kAlgoProtoIgnore;
    int channels = 0;
    core.fill_cost_table(nccl::Func::kAllReduce, bytes, pipe_ops, table.data(), 7, 3, 0, &channels);
    return channels;
  };
  CHECK(run(4096, 3) == 2);
  CHECK(table[nccl::kAlgoRing * 3 + 2] == 0.0f);
  CHECK(run(4096, 1) == 6);  // nvls not allowed: the next rule
  CHECK(table[nccl::kAlgoTree * 3 + 0] == 0.0f);
  CHECK(table[nccl::kAlgoNvls * 3 + 2] == nccl::kAlgoProtoIgnore);
  CHECK(table[nccl::kAlgoRing * 3 + 0] > 0.0f);  // only the first match is forced
  CHECK(run(8192, 1) == 0);                      // no rule: model costs only
  for (float v : table) CHECK(v != 0.0f);
}

TEST_CASE("tuner: create rejects what does not describe the communicator") {
  auto error = [](rt::TunerOptions o) {
    auto core = rt::TunerCore::create(o);
    REQUIRE_FALSE(core.ok());
    return std::string(core.status().message());
  };
  CHECK(error(options("rail_fat_tree:hosts=banana", 8, 1)).find("hosts=banana") == 0);
  CHECK(error(options("", 8, 1)).find("no cluster spec") != std::string::npos);
  CHECK(error(options("# a comment\nh100-1024\nh100-1024-tor\n", 8, 1)).find("exactly one") !=
        std::string::npos);
  CHECK(error(options("h100-1024", 2048, 256)).find("nNodes=256") == 0);
  CHECK(error(options("h100-1024", 72, 8)).find("9 ranks per node") != std::string::npos);
  CHECK(error(options("h100-1024", 8, 16)).find("nNodes=16") == 0);
  rt::TunerOptions o = options("h100-1024", 16, 2);
  o.hosts = {railyard::HostId{0}, railyard::HostId{200}};
  CHECK(error(o).find("hosts=200") == 0);
  o.hosts = {railyard::HostId{0}, railyard::HostId{1}, railyard::HostId{2}};
  CHECK(error(o).find("3 hosts for 2 nodes") != std::string::npos);
  // A cluster file's text: comments and blank lines around one spec line.
  CHECK(rt::TunerCore::create(options("# our cluster\n\n  h100-1024-2to1  \n", 16, 2)).ok());
}

TEST_CASE("tuner: the adapters pass NCCL's table through on any problem, never failing") {
  rp::TunerEnvironment env;
  env.cluster = "rail_fat_tree:hosts=0";
  captured().clear();
  void* ctx = reinterpret_cast<void*>(0x1);
  CHECK(rp::tuner_init(&ctx, 0x42, 64, 8, capture, nullptr, env) == nccl::Result::kSuccess);
  REQUIRE(ctx != nullptr);
  REQUIRE(captured().size() == 1);
  CHECK(captured()[0].find("WARN TUNING railyard tuner: RAILYARD_CLUSTER: hosts=0") == 0);
  std::array<float, 21> table{};
  table.fill(3.0f);
  int channels = 0;
  CHECK(rp::tuner_get_coll_info_v4(ctx, nccl::Func::kAllReduce, 1 << 20, 1,
                                   reinterpret_cast<float**>(table.data()), 7, 3, 0,
                                   &channels) == nccl::Result::kSuccess);
  for (float v : table) CHECK(v == 3.0f);
  CHECK(rp::tuner_finalize(ctx) == nccl::Result::kSuccess);

  // A good cluster: one INFO line describing what was loaded; a host list of the
  // wrong length is noted and ignored.
  env.cluster = "h100-1024-2to1";
  env.hosts = "0-3";
  captured().clear();
  nccl::NvlDomainInfoV5 nvl{8, 8, 8};
  CHECK(rp::tuner_init(&ctx, 0x42, 64, 8, capture, &nvl, env) == nccl::Result::kSuccess);
  REQUIRE(captured().size() == 1);
  const std::string& info = captured()[0];
  CHECK(info.find("INFO TUNING railyard tuner: comm 0x42: cluster 'h100-1024-2to1'") == 0);
  CHECK(info.find("64 ranks on 8 nodes") != std::string::npos);
  CHECK(info.find("RAILYARD_HOSTS lists 4 hosts") != std::string::npos);
  CHECK(rp::tuner_get_coll_info_v3(ctx, nccl::Func::kAllReduce, 1 << 20, 1,
                                   reinterpret_cast<float**>(table.data()), 7, 3,
                                   &channels) == nccl::Result::kSuccess);
  CHECK(table[nccl::kAlgoRing * 3 + 2] != 3.0f);
  CHECK(rp::tuner_finalize(ctx) == nccl::Result::kSuccess);
  CHECK(rp::tuner_finalize(nullptr) == nccl::Result::kSuccess);
  CHECK(rp::tuner_init(nullptr, 0, 1, 1, nullptr, nullptr, env) == nccl::Result::kSuccess);
}
