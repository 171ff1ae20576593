// Tests for railyard/tune/nccl_model.hpp and nccl_graphs.hpp: railyard's port of
// NCCL's cost model, on railyard's estimate of NCCL's graphs, against the cost
// tables NCCL 2.30.7's own code computed (tests/tune/data/nccl-2.30.7).
#include "railyard/tune/nccl_model.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "nccl_reference.hpp"
#include "railyard/topology/parse_cluster.hpp"
#include "railyard/tune/nccl_graphs.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_tune_nccl_model_test {

namespace {

namespace rt = railyard::tune;
namespace nccl = railyard::tune::nccl;

rt::NcclCommView view_of(const nccl_reference::Case& c) {
  auto spec = railyard::topology::parse_cluster(c.cluster);
  REQUIRE(spec.ok());
  return rt::nccl_comm_view(*spec, c.ranks, c.nodes, c.ranks / c.nodes);
}

}  // namespace

TEST_CASE("nccl model: railyard's port reproduces NCCL 2.30.7's cost table bit for bit") {
  const rt::NcclConstants k = rt::nccl_release_constants(rt::NcclRelease::k2_30);
  for (const nccl_reference::Case& c : nccl_reference::kCases) {
    CAPTURE(c.file);
    const rt::NcclCommView view = view_of(c);
    const rt::NcclTables tables = rt::nccl_model_tables(view, k);
    int cells = 0, asked = 0;
    for (const nccl_reference::Row& r : nccl_reference::read(c.file)) {
      float mine[nccl::kNumAlgorithms][nccl::kNumProtocols];
      rt::nccl_cost_table(view, tables, r.coll, r.bytes, r.pipe_ops, r.fp8, mine);
      for (int a = 0; a < nccl::kNumAlgorithms; ++a)
        for (int p = 0; p < nccl::kNumProtocols; ++p) {
          const float theirs = r.cost[static_cast<size_t>(a * 3 + p)];
          ++cells;
          asked += theirs >= 0 ? 1 : 0;
          if (mine[a][p] != theirs) {
            CAPTURE(r.coll);
            CAPTURE(r.bytes);
            CAPTURE(r.pipe_ops);
            CAPTURE(r.fp8);
            CAPTURE(a);
            CAPTURE(p);
            CHECK(mine[a][p] == theirs);
          }
        }
      const rt::NcclChoice choice = rt::nccl_choice(&mine[0][0], 7, 3);
      CHECK(choice.algo == r.choice_algo);
      CHECK(choice.proto == r.choice_proto);
    }
    MESSAGE(c.file, ": ", cells, " cells, ", asked, " asked by NCCL, all equal");
    CHECK(asked > 1000);
  }
}

TEST_CASE("nccl model: the graphs railyard estimates are the ones NCCL's search found") {
  // NCCL 2.30.7 on railyard's topology files (data/nccl-2.30.7/README.md).
  auto ring = [](const nccl_reference::Case& c) { return view_of(c).graphs[nccl::kAlgoRing]; };
  const rt::NcclGraph h100 = ring(nccl_reference::kCases[0]);
  CHECK(h100.channels == 8);
  CHECK(h100.bw_inter == 48.0f);
  CHECK_FALSE(h100.same_channels);
  const rt::NcclGraph one_node = ring(nccl_reference::kCases[1]);
  CHECK(one_node.channels == 12);
  CHECK(one_node.bw_intra == 30.0f);
  const rt::NcclGraph nvl72 = ring(nccl_reference::kCases[5]);
  CHECK(nvl72.channels == 16);
  CHECK(nvl72.bw_inter == 45.1f);
  CHECK(view_of(nccl_reference::kCases[0]).max_tree_pattern == rt::kNcclPatternTree);
  CHECK(view_of(nccl_reference::kCases[5]).max_tree_pattern == rt::kNcclPatternBalancedTree);
  CHECK(view_of(nccl_reference::kCases[5]).graphs[nccl::kAlgoNvls].channels == 32);
}

TEST_CASE("nccl model: the constants NCCL passes drive every term") {
  const rt::NcclCommView view = view_of(nccl_reference::kCases[0]);  // 64 nodes x 8
  rt::NcclConstants k = rt::nccl_release_constants(rt::NcclRelease::k2_30);
  const rt::NcclTables base = rt::nccl_model_tables(view, k);
  // A ring all-reduce crosses the network 2(nNodes - 1) = 126 times.
  k.hw_latencies[rt::kNcclHwNet][nccl::kAlgoRing][nccl::kProtoLl] += 1.0;
  // Hopper ring LL128 capped at 10 GB/s per channel: 8 x 10 x 512/1022 GB/s.
  k.per_ch_max_ring_ll128_bws[2][2] = 10.0;
  const rt::NcclTables changed = rt::nccl_model_tables(view, k);
  const int ar = static_cast<int>(nccl::Func::kAllReduce);
  CHECK(changed.latency[ar][nccl::kAlgoRing][nccl::kProtoLl] ==
        doctest::Approx(base.latency[ar][nccl::kAlgoRing][nccl::kProtoLl] + 126.0));
  CHECK(changed.bandwidth[ar][nccl::kAlgoRing][nccl::kProtoLl128] ==
        doctest::Approx(8 * 10.0 * 512 / 1022.0));
  CHECK(changed.bandwidth[ar][nccl::kAlgoRing][nccl::kProtoSimple] ==
        base.bandwidth[ar][nccl::kAlgoRing][nccl::kProtoSimple]);
}

TEST_CASE("nccl model: numPipeOps scales latency, per operation on ring, per batch of 8 elsewhere") {
  const rt::NcclCommView view = view_of(nccl_reference::kCases[0]);
  const rt::NcclTables t =
      rt::nccl_model_tables(view, rt::nccl_release_constants(rt::NcclRelease::k2_30));
  const int ar = static_cast<int>(nccl::Func::kAllReduce);
  const size_t bytes = 65536;
  auto time = [&](int a, int p, int ops) {
    return rt::nccl_algo_time_us(view, t, ar, a, p, bytes, ops);
  };
  const float ring_lat = t.latency[ar][nccl::kAlgoRing][nccl::kProtoLl];
  CHECK(time(nccl::kAlgoRing, 0, 8) - time(nccl::kAlgoRing, 0, 1) ==
        doctest::Approx(7 * ring_lat));
  CHECK(time(nccl::kAlgoTree, 0, 8) == time(nccl::kAlgoTree, 0, 1));
  CHECK(time(nccl::kAlgoTree, 0, 9) - time(nccl::kAlgoTree, 0, 1) ==
        doctest::Approx(t.latency[ar][nccl::kAlgoTree][0]));
}

}  // namespace railyard_test_tune_nccl_model_test
