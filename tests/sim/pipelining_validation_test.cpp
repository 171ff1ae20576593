// The pipelined latency model (collective/pipelining.hpp) against a reference
// railyard did not write: NCCL-style chunked rings and trees timed on
// ASTRA-sim's analytical congestion-aware network (tests/data/astra_pipelining.csv,
// tests/data/astra_tree.csv; inputs, drivers and figures in
// docs/latency-validation.md), and the model's own functions against closed
// forms and bad input.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "railyard/collective/pipelining.hpp"
#include "railyard/sim/collective_sim.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_sim_pipelining_validation_test {

namespace {

using railyard::GpuIndex;
using railyard::HostId;
using railyard::collective::Algorithm;
using railyard::collective::Collective;
using railyard::routing::GpuEndpoint;
using railyard::sim::CollectiveSimOptions;
using railyard::sim::simulate_collective;
using Groups = std::vector<std::vector<GpuEndpoint>>;

struct Row {
  std::string kind;
  int32_t ranks = 0;
  int64_t bytes = 0;
  int64_t pieces = 0;
  double astra_us = 0;
};

// tests/data/astra_pipelining.csv, found next to this file.
std::vector<Row> reference_rows() {
  std::string path = __FILE__;
  path = path.substr(0, path.find_last_of('/')) + "/../data/astra_pipelining.csv";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("kind,", 0) == 0) continue;
    std::stringstream s(line);
    Row r;
    std::string field;
    std::getline(s, r.kind, ',');
    std::getline(s, field, ',');
    r.ranks = std::stoi(field);
    std::getline(s, field, ',');
    r.bytes = std::stoll(field);
    std::getline(s, field, ',');
    r.pieces = std::stoll(field);
    std::getline(s, field, ',');
    r.astra_us = std::stod(field);
    rows.push_back(r);
  }
  return rows;
}

Groups all_gpus(int32_t hosts) {
  Groups g(1);
  for (int32_t h = 0; h < hosts; ++h)
    for (int32_t i = 0; i < 8; ++i) g[0].push_back({HostId{h}, GpuIndex{i}});
  return g;
}

}  // namespace

// Tolerance: 0.5 % (the largest gap, 0.31 %, is the 64-piece hierarchical run).
// The driver rounds every link's serialization and latency to
// whole nanoseconds (ASTRA's EventTime) and fixes each hop's bandwidth share
// for the whole run, where railyard's flow simulation lets the NVLink hops
// speed up once the step's network flows are the only ones left.
TEST_CASE("pipelining: ring and hierarchical all-reduce agree with ASTRA-sim within 0.5 %") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const std::vector<Row> rows = reference_rows();
  std::map<std::string, int> count;
  std::map<int64_t, std::map<int64_t, double>> hier_by_bytes;  // bytes -> pieces -> astra
  for (const Row& row : rows) {
    ++count[row.kind];
    if (row.kind == "hier") hier_by_bytes[row.bytes][row.pieces] = row.astra_us;
  }
  CHECK(count["flat"] == 6);
  CHECK(count["ring"] == 4);
  CHECK(count["hier"] == 7);

  for (const Row& row : rows) {
    CAPTURE(row.kind);
    CAPTURE(row.ranks);
    CAPTURE(row.bytes);
    CAPTURE(row.pieces);
    CollectiveSimOptions o;  // NCCL 2.30 Simple chunking, railyard's latency model
    Groups g;
    if (row.kind == "flat") {
      // one GPU per host on rail 0, hosts of one SU: every hop NIC-leaf-NIC at
      // 400 Gb/s and 1,900 ns, as the driver's flat ring
      g.resize(1);
      for (int32_t h = 0; h < row.ranks; ++h) g[0].push_back({HostId{h}, GpuIndex{0}});
    } else {
      g = all_gpus(row.ranks / 8);
      if (row.kind == "hier") o.algorithm = Algorithm::kHierarchical;
    }
    auto automatic = simulate_collective(*cluster, g, Collective::kAllReduce, row.bytes, o);
    REQUIRE(automatic.ok());
    if (row.kind == "hier") o.pipeline.pieces = row.pieces;  // the reference's depth
    auto r = simulate_collective(*cluster, g, Collective::kAllReduce, row.bytes, o);
    REQUIRE(r.ok());
    CHECK(r->pieces == row.pieces);
    CHECK(r->time_us == doctest::Approx(row.astra_us).epsilon(5e-3));
    if (row.kind == "hier" && automatic->pieces == row.pieces) {
      // railyard's own depth is the reference's best among the depths it ran
      for (const auto& [pieces, astra] : hier_by_bytes[row.bytes]) {
        CAPTURE(pieces);
        CHECK(row.astra_us <= astra * (1 + 1e-9));
      }
    }
  }
  // every hierarchical size has its railyard depth in the data
  for (const auto& [bytes, by_pieces] : hier_by_bytes) {
    CollectiveSimOptions o;
    o.algorithm = Algorithm::kHierarchical;
    auto r = simulate_collective(*cluster, all_gpus(128), Collective::kAllReduce, bytes, o);
    REQUIRE(r.ok());
    CAPTURE(bytes);
    CHECK(by_pieces.count(r->pieces) == 1);
  }
}

TEST_CASE("pipelining: the ring rule's closed forms") {
  using railyard::collective::PipelineModel;
  using railyard::collective::ring_stage_us;
  const PipelineModel nccl;
  CHECK(nccl.chunk_bytes() == 2.0 * 1024 * 1024);
  CHECK(nccl.slice_bytes() == 1.0 * 1024 * 1024);
  CHECK(nccl.window_slices() == 4);
  // Identical hops, bandwidth-bound (m · t ≥ alpha + t): transfer + one hop.
  // 10 steps of 2 MiB blocks (one loop, 2 slices of 10 us), alpha 3 us.
  railyard::collective::RingStage bw{10, 2.0 * 1024 * 1024, 200.0, 3.0, 200.0, 3.0};
  CHECK(ring_stage_us(bw, nccl) == doctest::Approx(200.0 + 3.0));
  // Latency-bound (alpha + t > m · t): every step pays alpha + one slice.
  railyard::collective::RingStage lat{10, 2.0 * 1024 * 1024, 20.0, 5.0, 20.0, 5.0};
  CHECK(ring_stage_us(lat, nccl) == doctest::Approx(9 * (5.0 + 1.0) + 2.0 + 5.0));
  // One slow hop with a long latency: its slot credits bind, W = 4 slices per
  // (t + 2 alpha): 9 steps x 2 x (1 + 2 x 10) / 4 = 94.5, + 2 + 10.
  railyard::collective::RingStage credit{10, 2.0 * 1024 * 1024, 20.0, 10.0, 20.0, 2.0};
  CHECK(ring_stage_us(credit, nccl) == doctest::Approx(9 * 2 * 21.0 / 4 + 2.0 + 10.0));
  // Unpipelined: steps · alpha + transfer.
  PipelineModel off;
  off.enabled = false;
  CHECK(ring_stage_us(lat, off) == doctest::Approx(10 * 5.0 + 20.0));
  // 8 MiB blocks: 4 loops, each paying its own fill.
  railyard::collective::RingStage loops{10, 8.0 * 1024 * 1024, 800.0, 3.0, 800.0, 3.0};
  CHECK(ring_stage_us(loops, nccl) == doctest::Approx(4 * (200.0 + 3.0)));
  // Small blocks are one slice: 16 KiB < 2 x 32 KiB.
  CHECK(railyard::collective::ring_slices(16384.0, nccl) == 1);
  CHECK(railyard::collective::ring_slices(65536.0, nccl) == 2);
  // Overlap: the slowest stage plus the others' time per piece, capped by the
  // series and raised to the shared links' bound.
  const double stages[] = {100.0, 400.0, 100.0};
  CHECK(railyard::collective::overlapped_us(stages, 0.0, 4) == doctest::Approx(450.0));
  CHECK(railyard::collective::overlapped_us(stages, 500.0, 4) == doctest::Approx(500.0));
  CHECK(railyard::collective::overlapped_us(stages, 0.0, 1) == doctest::Approx(600.0));
  CHECK(railyard::collective::overlapped_us(stages, 700.0, 4) == doctest::Approx(600.0));
  // Tree, by hand: height 5, t = 10 us, alpha 2 us.
  using railyard::collective::TreeStage;
  using railyard::collective::tree_stage_us;
  // One chunk: the chain, up 5 hops at t and down 5 (t, then 2t per level):
  // 10 alpha + 14 t.
  const TreeStage one{.steps = 10, .height = 5, .chunks = 1, .busiest_us = 40.0,
                      .chunk_us = 10.0, .alpha_us = 2.0, .transfer_us = 150.0};
  CHECK(tree_stage_us(one, nccl) == doctest::Approx(20.0 + 140.0));
  // 64 chunks: the busiest link's 2,560 us, then the last chunk down 4 hops,
  // forwarded to two children at 3 levels: + 4 alpha + 6 t.
  const TreeStage many{.steps = 73, .height = 5, .chunks = 64, .busiest_us = 2560.0,
                       .chunk_us = 10.0, .alpha_us = 2.0, .transfer_us = 2900.0};
  CHECK(tree_stage_us(many, nccl) == doctest::Approx(2560.0 + 8.0 + 60.0));
  // 4 chunks: the chain still wins, 3 t per further chunk: 160 + 90.
  TreeStage four = one;
  four.chunks = 4;
  four.busiest_us = 160.0;
  CHECK(tree_stage_us(four, nccl) == doctest::Approx(250.0));
  // Unpipelined: steps · alpha + the steps' transfers.
  CHECK(tree_stage_us(many, off) == doctest::Approx(73 * 2.0 + 2900.0));
  // NCCL's chunking: 512 KiB chunks, each tree carrying half.
  CHECK(railyard::collective::tree_chunks(64.0 * 1024 * 1024, nccl) == 64);
  CHECK(railyard::collective::tree_chunks(1000.0, nccl) == 1);
  CHECK(railyard::collective::tree_chunk_bytes(1024.0 * 1024, nccl) == 512.0 * 1024);
  CHECK(railyard::collective::tree_chunk_bytes(4096.0, nccl) == 2048.0);
}

TEST_CASE("pipelining: the tree agrees with NCCL's tree program on ASTRA-sim") {
  // tests/data/astra_tree.csv (docs/latency-validation.md#tree): hosts 0..n-1
  // of h100-1024, GPU 0 each, so every hop is NIC, leaf (spine, leaf), NIC.
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  std::string path = __FILE__;
  path = path.substr(0, path.find_last_of('/')) + "/../data/astra_tree.csv";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("ranks,", 0) == 0) continue;
    std::stringstream s(line);
    std::string f0, f1, f2;
    std::getline(s, f0, ',');
    std::getline(s, f1, ',');
    std::getline(s, f2, ',');
    const int32_t n = std::stoi(f0);
    const int64_t bytes = std::stoll(f1);
    const double astra = std::stod(f2);
    ++rows;
    CAPTURE(n);
    CAPTURE(bytes);
    Groups g(1);
    for (int32_t h = 0; h < n; ++h) g[0].push_back({HostId{h}, GpuIndex{0}});
    CollectiveSimOptions o;
    o.algorithm = Algorithm::kDoubleBinaryTree;
    auto r = simulate_collective(*cluster, g, Collective::kAllReduce, bytes, o);
    REQUIRE(r.ok());
    const int64_t chunks = railyard::collective::tree_chunks(static_cast<double>(bytes), {});
    // Where every hop has one latency (one SU: n <= 32) the rule is the
    // reference at 1 chunk and from 16 on, to ASTRA's nanosecond rounding of
    // each 64 KiB segment (0.055 %); 4 chunks sit between the rule's two paths
    // (3.3 %). Across SUs the rule charges every hop the longest latency:
    // +7.3 % at 1 MiB on 64 hosts, 1.2 % from 16 chunks.
    double tolerance = 0.075;
    if (chunks >= 16) tolerance = 0.012;
    if (n <= 32) tolerance = (chunks == 1 || chunks >= 16) ? 0.001 : 0.035;
    CHECK(r->time_us == doctest::Approx(astra).epsilon(tolerance));
    CHECK(r->time_us >= r->phases[0].transfer_us);  // the busiest link's time
  }
  CHECK(rows == 36);
}

TEST_CASE("pipelining: a pipelined tree runs at its busiest link's pace") {
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CollectiveSimOptions on;
  on.algorithm = Algorithm::kDoubleBinaryTree;
  CollectiveSimOptions off = on;
  off.pipeline.enabled = false;
  // 32 hosts of one SU, GPU 0 each, 64 MiB: each tree 64 chunks; a node inside
  // one tree and a leaf of the other sends 4 x 32 MiB through its 400 Gb/s NIC
  // (2S / C = 2,684.35 us); H = 5, alpha 1.9 us (NIC, leaf, NIC, 60 m), t =
  // 512 KiB / 400 Gb/s: the drain adds 4 alpha + 6 t.
  Groups g(1);
  for (int32_t h = 0; h < 32; ++h) g[0].push_back({HostId{h}, GpuIndex{0}});
  const int64_t bytes = int64_t{64} << 20;
  auto a = simulate_collective(*cluster, g, Collective::kAllReduce, bytes, on);
  auto b = simulate_collective(*cluster, g, Collective::kAllReduce, bytes, off);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(a->phases.size() == 1);
  const double c = 400e3 / 8;  // bytes per us
  const double t = 524288.0 / c;
  CHECK(a->phases[0].transfer_us == doctest::Approx(2.0 * static_cast<double>(bytes) / c));
  CHECK(a->time_us == doctest::Approx(2.0 * static_cast<double>(bytes) / c + 4 * 1.9 + 6 * t));
  CHECK(a->time_us < b->time_us);
  CHECK(a->time_us >= a->lower_bound_us);
}

TEST_CASE("pipelining: bad chunking names the field") {
  using railyard::collective::check_pipeline;
  railyard::collective::PipelineModel m;
  CHECK(check_pipeline(m).ok());
  m.chunk_steps = 3;
  CHECK(std::string(check_pipeline(m).message()).find("chunk_steps") != std::string::npos);
  m = {};
  m.chunk_steps = 8;  // more than half the slots
  CHECK(std::string(check_pipeline(m).message()).find("chunk_steps") != std::string::npos);
  m = {};
  m.buffer_bytes = 100;
  CHECK(std::string(check_pipeline(m).message()).find("buffer_bytes") != std::string::npos);
  m = {};
  m.nccl_steps = 0;
  CHECK(std::string(check_pipeline(m).message()).find("nccl_steps") != std::string::npos);
  m = {};
  m.slice_steps = 0;
  CHECK(std::string(check_pipeline(m).message()).find("slice_steps") != std::string::npos);
  // simulate_collective refuses it too
  auto cluster = railyard::topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  CollectiveSimOptions o;
  o.pipeline.buffer_bytes = 100;
  auto r = simulate_collective(*cluster, all_gpus(2), Collective::kAllReduce, 1 << 20, o);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()).find("buffer_bytes") != std::string::npos);
}

}  // namespace railyard_test_sim_pipelining_validation_test
