// Tests for railyard/tune/model.hpp and railyard/plugin/tuner.hpp: the tuner
// core on NCCL's own cost tables (tests/tune/data/nccl-2.30.7), its cost-table
// contract, rules applied, and the C-ABI adapters (in process; the built library
// is driven through dlopen by tests/plugin/tuner_harness.cpp).
#include "railyard/plugin/tuner.hpp"
#include "railyard/tune/model.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>
#include <string>
#include <vector>

#include "railyard/collective/cost.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"
#include "railyard/tune/nccl_model.hpp"
#include "../tune/nccl_reference.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_plugin_tuner_test {

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
                                         (flags & nccl::kLogInit) ? "INIT " : "",
                                         (flags & nccl::kLogTuning) ? "TUNING " : "", buf));
}

// NCCL's table of a recorded call, scaled by the tuner; returns the choice.
rt::NcclChoice tuned_choice(const rt::TunerCore& core, const nccl_reference::Row& r,
                            std::array<float, 21>& table) {
  table = r.cost;
  int channels = 0;
  core.fill_cost_table(static_cast<nccl::Func>(r.coll), r.bytes, r.pipe_ops, table.data(), 7, 3,
                       0, &channels);
  return rt::nccl_choice(table.data(), 7, 3);
}

std::string name_of(rt::NcclChoice c) {
  return railyard::str_cat(railyard::tune::nccl::kAlgorithmNames[static_cast<size_t>(c.algo)], "/",
                           railyard::tune::nccl::kProtocolNames[static_cast<size_t>(c.proto)]);
}

// The rows of a table in docs/nccl-tuner.md between <!-- marker --> and
// <!-- /marker -->: | collective | bytes | NCCL | railyard | ... |
std::set<std::tuple<std::string, size_t, std::string, std::string>> documented_differences(
    std::string_view marker) {
  std::string here = __FILE__;
  const std::string path = here.substr(0, here.find("/tests/")) + "/docs/nccl-tuner.md";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open ", path);
  std::set<std::tuple<std::string, size_t, std::string, std::string>> rows;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.find(railyard::str_cat("<!-- ", marker, " -->")) != std::string::npos) inside = true;
    if (line.find(railyard::str_cat("<!-- /", marker, " -->")) != std::string::npos) inside = false;
    if (!inside || line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      const size_t a = cell.find_first_not_of(" `"), b = cell.find_last_not_of(" `");
      cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
    }
    REQUIRE(cells.size() >= 4);
    rows.insert({cells[0], std::stoull(cells[1]), cells[2], cells[3]});
  }
  return rows;
}

}  // namespace

TEST_CASE("tuner: where the fabric gives no reason, NCCL's own table comes back bit-identical") {
  // Two and 32 hosts under one leaf per rail (one SU of h100-1024): no flow
  // crosses a spine, so no term changes.
  for (const auto& [file, ranks, nodes] : std::vector<std::tuple<std::string_view, int, int>>{
           {"hgx-h100-2-nodes.csv", 16, 2}, {"hgx-h100-1-node.csv", 8, 1}}) {
    const rt::TunerCore core = make(options("h100-1024-2to1", ranks, nodes));
    for (const nccl_reference::Row& r : nccl_reference::read(file)) {
      std::array<float, 21> table{};
      tuned_choice(core, r, table);
      CHECK(std::memcmp(table.data(), r.cost.data(), sizeof(float) * 21) == 0);
    }
  }
  const rt::TunerCore one_su = make(options("h100-1024-2to1", 256, 32));
  for (int c = 0; c < 5; ++c)
    for (int a = 0; a < 7; ++a) CHECK(one_su.fabric_terms(c, a).bw_factor == 1.0f);
  CHECK(one_su.scale(kAllReduce, nccl::kAlgoRing, nccl::kProtoLl, 1024, 1) == 1.0f);
}

TEST_CASE("tuner: on 512 ranks it chooses as NCCL does except where docs/nccl-tuner.md says why") {
  // NCCL's own table for 512 ranks on 64 HGX H100 nodes (it cannot see
  // oversubscription, SUs or where the hosts are), scaled by the tuner for
  // (1) the default job: h100-1024-2to1, hosts 0-63 (2 SUs);
  // (2) the same ranks on hosts taken round-robin from the 4 SUs of a 4:1 fabric.
  std::vector<railyard::HostId> scattered;
  for (int32_t i = 0; i < 64; ++i) scattered.push_back(HostId{(i % 4) * 32 + i / 4});
  struct Scenario {
    std::string_view marker;
    std::string_view cluster;
    std::vector<railyard::HostId> hosts;
  };
  for (const Scenario& job : {Scenario{"default-job-differences", "h100-1024-2to1", {}},
                              Scenario{"scattered-job-differences",
                                       "rail_fat_tree:hosts=128,oversub=4:1", scattered}}) {
    CAPTURE(job.marker);
    rt::TunerOptions o = options(job.cluster, 512, 64);
    o.hosts = job.hosts;
    const rt::TunerCore core = make(o);
    std::set<std::tuple<std::string, size_t, std::string, std::string>> differences;
    int rows = 0, fp8_rows = 0;
    for (const nccl_reference::Row& r : nccl_reference::read("hgx-h100-64-nodes.csv")) {
      std::array<float, 21> table{};
      const rt::NcclChoice mine = tuned_choice(core, r, table);
      const rt::NcclChoice theirs{r.choice_algo, r.choice_proto};
      ++rows;
      for (size_t i = 0; i < 21; ++i) {
        if (r.cost[i] < 0) {
          CHECK(table[i] == r.cost[i]);  // not allowed stays not allowed
        } else {
          CHECK(table[i] >= r.cost[i]);  // the fabric only adds
          CHECK(table[i] <= 2.0f * r.cost[i]);
        }
      }
      if (r.fp8) {
        ++fp8_rows;
        // NCCL's fp8 ring penalty survives: never ring where NCCL did not pick it.
        if (theirs.algo != nccl::kAlgoRing) CHECK(mine.algo != nccl::kAlgoRing);
        continue;
      }
      if (r.pipe_ops == 1 && !(mine == theirs))
        differences.insert(
            {std::string(railyard::tune::nccl::kCollectiveNames[static_cast<size_t>(r.coll)]),
             r.bytes, name_of(theirs), name_of(mine)});
    }
    CHECK(rows > 500);
    CHECK(fp8_rows > 250);
    CHECK(differences == documented_differences(job.marker));
    for (const auto& [coll, bytes, theirs, mine] : differences)
      MESSAGE("| `", coll, "` | ", bytes, " | `", theirs, "` | `", mine, "` |");
  }
}

TEST_CASE("tuner: oversubscription and scattered hosts slow the ring as the flow simulator says") {
  // A ring over hosts taken round-robin from the 4 SUs: every hop crosses the
  // spine, 32 flows per leaf on 16 uplinks at 2:1.
  std::vector<railyard::HostId> interleaved;
  for (int32_t i = 0; i < 128; ++i) interleaved.push_back(HostId{(i % 4) * 32 + i / 4});
  auto factor = [&](std::string_view cluster, bool scatter) {
    rt::TunerOptions o = options(cluster, 1024, 128);
    if (scatter) o.hosts = interleaved;
    return make(o).fabric_terms(kAllReduce, nccl::kAlgoRing).bw_factor;
  };
  CHECK(factor("h100-1024-2to1", true) == doctest::Approx(2.0));
  CHECK(factor("h100-1024", true) == doctest::Approx(1.0));
  CHECK(factor("h100-1024-2to1", false) == doctest::Approx(1.0));
  // The flow simulator on the same rings: 2:1 against 1:1 with the same order.
  auto sim_time = [&](std::string_view cluster) {
    auto c = railyard::topology::make_cluster(cluster);
    REQUIRE(c.ok());
    std::vector<std::vector<railyard::routing::GpuEndpoint>> groups(1);
    for (HostId h : interleaved)
      for (int32_t g = 0; g < 8; ++g) groups[0].push_back({h, GpuIndex{g}});
    railyard::sim::CollectiveSimOptions so;
    so.routing = railyard::sim::Routing::kPlanned;
    auto r = railyard::sim::simulate_collective(
        *c, groups, railyard::collective::Collective::kAllReduce, int64_t{1} << 32, so);
    REQUIRE(r.ok());
    return r->time_us - r->latency_us;
  };
  CHECK(sim_time("h100-1024-2to1") / sim_time("h100-1024") ==
        doctest::Approx(factor("h100-1024-2to1", true)).epsilon(0.1));
  // Crossing SUs costs switch hops: 33 hosts leave the first SU.
  const rt::TunerCore two_su = make(options("h100-1024", 264, 33));
  CHECK(two_su.fabric_terms(kAllReduce, nccl::kAlgoTree).extra_inter_us > 1.0f);
  CHECK(two_su.railyard_us(kAllReduce, nccl::kAlgoTree, nccl::kProtoLl, 1024) >
        two_su.nccl_view_us(kAllReduce, nccl::kAlgoTree, nccl::kProtoLl, 1024));
}

TEST_CASE("tuner: grouped operations (numPipeOps) weigh the extra latency as NCCL weighs its own") {
  const rt::TunerCore core = make(options("h100-1024-2to1", 512, 64));
  const float one = core.scale(kAllReduce, nccl::kAlgoRing, nccl::kProtoLl, 65536, 1);
  const float eight = core.scale(kAllReduce, nccl::kAlgoRing, nccl::kProtoLl, 65536, 8);
  const float many = core.scale(kAllReduce, nccl::kAlgoRing, nccl::kProtoLl, 65536, 32);
  CHECK(one > 1.0f);
  CHECK(eight > one);
  CHECK(many > eight);
  // Tree latency counts batches of 8 operations (NCCL_MAX_DEV_WORK_BATCH_COLLS).
  CHECK(core.scale(kAllReduce, nccl::kAlgoTree, nccl::kProtoLl, 65536, 8) ==
        core.scale(kAllReduce, nccl::kAlgoTree, nccl::kProtoLl, 65536, 1));
}

TEST_CASE("tuner: GB200 NVL72 with multi-node NVLink: NCCL's node is an NVLink domain") {
  // NCCL 2.30 reports 576 ranks on 8 nodes (one per NVL72 rack).
  const rt::TunerCore core = make(options("gb200-nvl72-576", 576, 8));
  CHECK(core.summary().find("576 ranks on 8 nodes of 18 hosts (MNNVL)") != std::string::npos);
  CHECK(core.nccl_comm().local_ranks == 72);
  // Racks are SUs: the ring and the trees cross the spine between racks.
  CHECK(core.fabric_terms(kAllReduce, nccl::kAlgoRing).extra_inter_us > 1.0f);
  // NCCL's own table for it scales and stays consistent.
  for (const nccl_reference::Row& r : nccl_reference::read("gb200-nvl72-8-domains.csv")) {
    std::array<float, 21> table{};
    const rt::NcclChoice mine = tuned_choice(core, r, table);
    CHECK(mine.algo >= 0);
    for (size_t i = 0; i < 21; ++i)
      if (r.cost[i] < 0) CHECK(table[i] == r.cost[i]);
  }
  // Half a rack per node, and 4 racks of 2 hosts each listed explicitly.
  CHECK(rt::TunerCore::create(options("gb200-nvl72-576", 288, 8)).ok());
  rt::TunerOptions o = options("gb200-nvl72-576", 64, 8);  // 8 ranks: 2 hosts per node
  for (int32_t rack = 0; rack < 8; ++rack)
    for (int32_t k = 0; k < 2; ++k) o.hosts.push_back(HostId{rack * 18 + k});
  CHECK(rt::TunerCore::create(o).ok());
  o.hosts[1] = HostId{18};  // node 0's second host in rack 1
  auto split = rt::TunerCore::create(o);
  REQUIRE_FALSE(split.ok());
  CHECK(std::string(split.status().message()).find("not in the NVLink domain of host 0") !=
        std::string::npos);
  // More ranks per node than one NVL72 domain holds.
  auto big = rt::TunerCore::create(options("gb200-nvl72-576", 576, 4));
  REQUIRE_FALSE(big.ok());
  CHECK(std::string(big.status().message()).find("NVLink domain of 72 GPUs") != std::string::npos);
}

TEST_CASE("tuner: the constants NCCL passes are the ones the model runs") {
  rt::TunerOptions o = options("h100-1024-2to1", 512, 64);
  const rt::TunerCore defaults = make(o);
  rt::NcclConstants k = rt::nccl_release_constants(rt::NcclRelease::k2_30);
  k.base_latencies[nccl::kAlgoTree][nccl::kProtoLl] += 100.0;
  o.constants = k;
  const rt::TunerCore given = make(o);
  CHECK(given.nccl_view_us(kAllReduce, nccl::kAlgoTree, nccl::kProtoLl, 1024) ==
        doctest::Approx(defaults.nccl_view_us(kAllReduce, nccl::kAlgoTree, nccl::kProtoLl, 1024) +
                        100.0));
  CHECK(given.constants().base_latencies[0][0] == doctest::Approx(106.8));
}

TEST_CASE("tuner: fill_cost_table scales allowed entries only") {
  const rt::TunerCore core = make(options("h100-1024-2to1", 512, 64));
  for (int num_algo : {6, 7}) {
    std::array<float, 21> table{};
    for (size_t i = 0; i < table.size(); ++i) table[i] = 1000.0f + static_cast<float>(i);
    table[0 * 3 + 1] = nccl::kAlgoProtoIgnore;  // tree/ll128 off
    table[1 * 3 + 0] = nccl::kAlgoProtoIgnore;  // ring/ll off
    table[5 * 3 + 2] = -2.5f;                   // any negative: not allowed
    table[0 * 3 + 2] = 0.0f;                    // forced by NCCL or a tuner before
    const std::array<float, 21> before = table;
    int channels = 7;
    core.fill_cost_table(nccl::Func::kAllReduce, 1 << 20, 1, table.data(), num_algo, 3, 0,
                         &channels);
    CHECK(channels == 7);
    for (int a = 0; a < 7; ++a)
      for (int p = 0; p < 3; ++p) {
        const size_t i = static_cast<size_t>(a * 3 + p);
        CAPTURE(a);
        CAPTURE(p);
        if (before[i] <= 0 || a >= num_algo) {
          CHECK(std::memcmp(&before[i], &table[i], sizeof(float)) == 0);
        } else {
          CHECK(table[i] ==
                doctest::Approx(before[i] * core.scale(kAllReduce, a, p, 1 << 20, 1)));
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

TEST_CASE("tuner: a wrong input fails init loudly, never a silent per-rank fallback") {
  rp::TunerEnvironment env;
  auto init = [&](void** ctx) {
    captured().clear();
    return rp::tuner_init(ctx, 0x42, 64, 8, capture, nullptr, nullptr,
                          rt::NcclRelease::k2_30, env);
  };
  void* ctx = reinterpret_cast<void*>(0x1);
  // No cluster at all.
  CHECK(init(&ctx) == nccl::Result::kInvalidUsage);
  REQUIRE(captured().size() == 1);
  CHECK(captured()[0].find("WARN INIT TUNING railyard tuner: RAILYARD_CLUSTER") == 0);
  CHECK(ctx != nullptr);
  CHECK(rp::tuner_finalize(ctx) == nccl::Result::kSuccess);
  // A bad spec.
  env.cluster = "rail_fat_tree:hosts=0";
  CHECK(init(&ctx) == nccl::Result::kInvalidUsage);
  CHECK(captured()[0].find("RAILYARD_CLUSTER: hosts=0") != std::string::npos);
  // A cluster file that is missing.
  env.cluster.reset();
  env.cluster_file = "/nonexistent/railyard-cluster";
  CHECK(init(&ctx) == nccl::Result::kInvalidUsage);
  CHECK(captured()[0].find("RAILYARD_CLUSTER_FILE=/nonexistent/railyard-cluster") !=
        std::string::npos);
  // A digest from other inputs.
  env.cluster_file.reset();
  env.cluster = "h100-1024-2to1";
  env.digest = "0123456789abcdef";
  CHECK(init(&ctx) == nccl::Result::kInvalidUsage);
  CHECK(captured()[0].find("RAILYARD_TUNER_DIGEST=0123456789abcdef") != std::string::npos);
  // The right digest (of the canonical spec: a preset and its spec agree).
  auto spec = railyard::topology::parse_cluster("h100-1024-2to1");
  REQUIRE(spec.ok());
  auto digest = rt::tuner_input_digest(railyard::topology::to_spec_string(*spec), "", "");
  REQUIRE(digest.ok());
  env.digest = rt::format_digest(*digest);
  CHECK(init(&ctx) == nccl::Result::kSuccess);
  REQUIRE(captured().size() == 1);
  const std::string& info = captured()[0];
  CHECK(info.find("INFO INIT TUNING railyard tuner: comm 0x42: cluster 'h100-1024-2to1'") == 0);
  CHECK(info.find("64 ranks on 8 nodes") != std::string::npos);
  CHECK(info.find(railyard::str_cat("inputs ", *env.digest)) != std::string::npos);
  std::array<float, 21> table{};
  table.fill(3.0f);
  int channels = 0;
  CHECK(rp::tuner_get_coll_info_v3(ctx, nccl::Func::kAllReduce, 1 << 20, 1,
                                   reinterpret_cast<float**>(table.data()), 7, 3,
                                   &channels) == nccl::Result::kSuccess);
  CHECK(rp::tuner_finalize(ctx) == nccl::Result::kSuccess);
  // A host list of another communicator's length is noted, the same on every rank.
  env.digest.reset();
  env.hosts = "0-3";
  CHECK(init(&ctx) == nccl::Result::kSuccess);
  CHECK(captured()[0].find("RAILYARD_HOSTS: the host list has 4 hosts, not this communicator's 8") !=
        std::string::npos);
  CHECK(rp::tuner_finalize(ctx) == nccl::Result::kSuccess);
  CHECK(rp::tuner_finalize(nullptr) == nccl::Result::kSuccess);
  CHECK(rp::tuner_init(nullptr, 0, 1, 1, nullptr, nullptr, nullptr, rt::NcclRelease::k2_30,
                       env) == nccl::Result::kInvalidArgument);
}

TEST_CASE("tuner: a one-tier cluster gives no fabric reason, cable keys move the extra latency") {
  // Every NIC of 2 hosts on one switch (tiers=1): NCCL's table comes back
  // bit-identical, as under one leaf of a two-tier fabric.
  const rt::TunerCore one = make(options("tor_fat_tree:hosts=8,tiers=1", 16, 2));
  for (const nccl_reference::Row& r : nccl_reference::read("hgx-h100-2-nodes.csv")) {
    std::array<float, 21> table{};
    tuned_choice(one, r, table);
    CHECK(std::memcmp(table.data(), r.cost.data(), sizeof(float) * 21) == 0);
  }
  const rt::TunerCore rails = make(options("rail_only:hosts=64,tiers=1", 512, 64));
  for (int a = 0; a < 7; ++a) {
    CHECK(rails.fabric_terms(kAllReduce, a).bw_factor == 1.0f);
    CHECK(rails.fabric_terms(kAllReduce, a).extra_inter_us == 0.0f);
  }
  // 33 hosts of h100-1024 leave the first SU: the worst flow crosses 2 more
  // switches and 2 leaf-spine cables (tune/model.hpp). 250 m instead of 50 m
  // adds 2 x 200 m x 5 ns/m = 2 us, read from the spec as the plugin reads it.
  const float base = make(options("h100-1024", 264, 33))
                         .fabric_terms(kAllReduce, nccl::kAlgoTree)
                         .extra_inter_us;
  const float longer = make(options("rail_fat_tree:hosts=128,leaf_spine_m=250", 264, 33))
                           .fabric_terms(kAllReduce, nccl::kAlgoTree)
                           .extra_inter_us;
  CHECK(base == doctest::Approx((2 * 50 * 5.0 + 2 * 600) / 1000));
  CHECK(longer - base == doctest::Approx(2.0).epsilon(1e-6));
}

}  // namespace railyard_test_plugin_tuner_test
