#include "railyard/routing/paths.hpp"

#include <doctest/doctest.h>

#include <random>

#include "../support/clusters.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_routing_paths_test {

using namespace railyard;
using namespace railyard::routing;

namespace {
// A path is a chain of links from GPU a to GPU b.
void check_chain(const topology::Fabric& f, const GpuPath& p, GpuEndpoint a, GpuEndpoint b) {
  REQUIRE_FALSE(p.links.empty());
  CHECK(f.src(p.links.front()) == f.gpu(a.host, a.gpu));
  CHECK(f.dst(p.links.back()) == f.gpu(b.host, b.gpu));
  for (size_t i = 1; i < p.links.size(); ++i) CHECK(f.dst(p.links[i - 1]) == f.src(p.links[i]));
}
}  // namespace

TEST_CASE("paths: GPU to GPU on every preset — chains, planes kept, rail-only over NVLink") {
  std::mt19937 rng(9);
  for (const auto& preset : topology::kPresets) {
    if (std::string_view(preset.name).find("128k") != std::string_view::npos) continue;
    CAPTURE(preset.name);
    auto cluster = topology::make_cluster(preset.name);
    REQUIRE(cluster.ok());
    const auto& d = cluster->descriptor;
    const auto& f = cluster->fabric;
    for (int trial = 0; trial < 60; ++trial) {
      const GpuEndpoint a{HostId{static_cast<int32_t>(rng() % d.hosts())},
                          GpuIndex{static_cast<int32_t>(rng() % d.gpus_per_host())}};
      const GpuEndpoint b{HostId{static_cast<int32_t>(rng() % d.hosts())},
                          GpuIndex{static_cast<int32_t>(rng() % d.gpus_per_host())}};
      const PlaneId plane{static_cast<int32_t>(rng() % d.planes())};
      auto paths = gpu_paths(d, f, a, b, {plane});
      REQUIRE(paths.ok());
      if (a == b) {
        CHECK(paths->empty());
        continue;
      }
      REQUIRE_FALSE(paths->empty());
      for (size_t i = 0; i < paths->size(); i += 1 + paths->size() / 64) {  // a sample
        const GpuPath& p = (*paths)[i];
        check_chain(f, p, a, b);
        for (LinkId l : p.links)
          if (f.kind(f.dst(l)) == topology::NodeKind::kNicPort)
            CHECK(f.node_name(f.dst(l)).ends_with(str_cat(".p", plane.value())));
      }
      const bool nvlink_only = a.host == b.host || d.domain_of(a.host) == d.domain_of(b.host);
      if (nvlink_only) {
        CHECK(paths->size() == 1);
        CHECK(paths->front().links.size() == 2);
        continue;
      }
      const NicPort src{a.host, d.nic_of_gpu(a.gpu), plane};
      const NicPort dst{b.host, d.nic_of_gpu(b.gpu), plane};
      if (d.path_count(src, dst) > 0) {
        CHECK(static_cast<int64_t>(paths->size()) == d.path_count(src, dst));
        CHECK_FALSE(paths->front().nvlink_forward);
      } else {
        CHECK(d.kind() == topology::Kind::kRailOnly);
        CHECK(paths->front().nvlink_forward);
        // Through the NIC on the destination's rail.
        CHECK(f.dst(paths->front().links[2]) == f.nic_port({a.host, d.nic_of_gpu(b.gpu), plane}));
      }
    }
  }
}

TEST_CASE("paths: PXN forwarding on request, errors name the endpoint") {
  auto cluster = topology::make_cluster("h100-1024");
  REQUIRE(cluster.ok());
  const auto& d = cluster->descriptor;
  const auto& f = cluster->fabric;
  const GpuEndpoint a{HostId{0}, GpuIndex{1}}, b{HostId{40}, GpuIndex{5}};
  auto direct = gpu_paths(d, f, a, b);
  auto pxn = gpu_paths(d, f, a, b, {PlaneId{0}, true});
  REQUIRE(direct.ok());
  REQUIRE(pxn.ok());
  CHECK_FALSE(direct->front().nvlink_forward);
  CHECK(pxn->front().nvlink_forward);
  // Same rail after forwarding: the spine paths of rail 5 between the two SUs.
  CHECK(static_cast<int64_t>(pxn->size()) ==
        d.path_count({a.host, NicIndex{5}}, {b.host, NicIndex{5}}));
  CHECK_FALSE(gpu_paths(d, f, {HostId{500}, GpuIndex{0}}, b).ok());
  CHECK(
      std::string(gpu_paths(d, f, {HostId{1}, GpuIndex{9}}, b).status().message()).find("gpu=9") !=
      std::string::npos);
  CHECK_FALSE(gpu_paths(d, f, a, b, {PlaneId{1}}).ok());
}

}  // namespace railyard_test_routing_paths_test
