#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "../support/brute_force.hpp"
#include "../support/random_shapes.hpp"
#include "railyard/topology/topology.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_descriptor_test {

using namespace railyard;
using namespace railyard::topology;

// A fully static HGX H100 descriptor is usable in constant expressions.
using Hgx = Extents<8, 8, 32, 1>;
constexpr auto kH100 = static_descriptor<Hgx>({.hosts = 128});
static_assert(kH100.gpus() == 1024);
static_assert(kH100.shape().total_leaves() == 32);
static_assert(kH100.shape().total_spines() == 16);
static_assert(kH100.su_of(HostId{95}) == SuId{2});
static_assert(kH100.leaf_of(HostId{40}, RailId{3}) == SwitchIndex{8 + 3});
// Same leaf: one path. Two leaves: 16 spines x 2 parallel cables on each side.
static_assert(kH100.path_count({HostId{0}, NicIndex{0}}, {HostId{1}, NicIndex{0}}) == 1);
static_assert(kH100.path_count({HostId{0}, NicIndex{0}}, {HostId{32}, NicIndex{0}}) == 16 * 2 * 2);
static_assert(kH100.path_count({HostId{0}, NicIndex{0}}, {HostId{0}, NicIndex{0}}) == 0);
static_assert(kH100.shape().leaf_spine_links() == 1024);

constexpr auto kNvl72 =
    static_descriptor<Extents<4, 4, 18, 1>>({.hosts = 144, .scale_up = 72, .nvlink_gbps = 7200});
static_assert(kNvl72.hosts_per_domain() == 18);
static_assert(kNvl72.domain_of(HostId{17}) == 0 && kNvl72.domain_of(HostId{18}) == 1);

constexpr auto kThreeTier =
    static_descriptor<Extents<8, 8, 32, 1>>({.hosts = 2048, .tiers = 3, .sus_per_pod = 4});
static_assert(kThreeTier.pods() == 16);
static_assert(kThreeTier.pod_of(HostId{128}) == PodId{1});

TEST_CASE("descriptor: static extents must match the spec") {
  auto spec = parse_cluster("rail_fat_tree:hosts=64,gpus_per_host=4,nics_per_host=4");
  REQUIRE(spec.ok());
  auto bad = make_descriptor<Hgx>(*spec);
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).find("gpus_per_host=4") != std::string::npos);
  auto good = make_descriptor<Extents<4, 4>>(*spec);
  REQUIRE(good.ok());
  CHECK(good->gpus_per_host() == 4);
  // Static and dynamic descriptors answer identically.
  const auto dyn = *make_descriptor(*spec);
  for (int32_t h = 0; h < 64; ++h)
    for (int32_t r = 0; r < 4; ++r)
      CHECK(good->leaf_of(HostId{h}, RailId{r}) == dyn.leaf_of(HostId{h}, RailId{r}));
}

TEST_CASE("descriptor: GPU/NIC pairing when counts differ") {
  auto four_nics = *make_descriptor(*parse_cluster("rail_fat_tree:hosts=32,nics_per_host=4"));
  CHECK(four_nics.nic_of_gpu(GpuIndex{0}) == NicIndex{0});
  CHECK(four_nics.nic_of_gpu(GpuIndex{1}) == NicIndex{0});
  CHECK(four_nics.nic_of_gpu(GpuIndex{7}) == NicIndex{3});
  CHECK(four_nics.gpu_of_nic(NicIndex{3}) == GpuIndex{6});
  auto two_per_gpu =
      *make_descriptor(*parse_cluster("rail_fat_tree:hosts=32,gpus_per_host=4,nics_per_host=8"));
  CHECK(two_per_gpu.gpu_of_nic(NicIndex{5}) == GpuIndex{2});
  CHECK(two_per_gpu.nic_of_gpu(GpuIndex{2}) == NicIndex{4});
}

namespace {
std::vector<NicPort> all_ports(const ClusterDescriptor<>& d) {
  std::vector<NicPort> ports;
  for (int32_t h = 0; h < d.hosts(); ++h)
    for (int32_t n = 0; n < d.nics_per_host(); ++n)
      for (int32_t p = 0; p < d.planes(); ++p)
        ports.push_back({HostId{h}, NicIndex{n}, PlaneId{p}});
  return ports;
}
}  // namespace

// The descriptor's closed forms against the materialized graph: the leaf a NIC
// port is cabled to, path counts against exhaustive search, and the links of
// each descriptor route against the graph's own path enumeration.
TEST_CASE("descriptor: leaf_of and paths agree with brute-force search over many shapes") {
  std::mt19937 rng(5);
  int64_t pairs_checked = 0;
  int64_t multi_path_pairs = 0;
  for (const ClusterSpec& s : railyard::testing::random_valid_specs(250, 77)) {
    CAPTURE(to_spec_string(s));
    const auto d = *make_descriptor(s);
    const Fabric f = materialize(d);
    const auto ports = all_ports(d);
    for (const NicPort& p : ports) {
      const LinkId up = f.host_uplink(p);
      REQUIRE(f.src(up) == f.nic_port(p));
      CHECK(f.dst(up) == f.leaf(d.leaf_of(p)));
      CHECK(f.tier(up) == LinkTier::kHostLeaf);
    }
    for (int trial = 0; trial < 30; ++trial) {
      const NicPort a = ports[rng() % ports.size()];
      NicPort b = ports[rng() % ports.size()];
      if (trial % 3 == 0) b.plane = a.plane;  // bias towards reachable pairs
      CAPTURE(a.host.value());
      CAPTURE(a.nic.value());
      CAPTURE(b.host.value());
      CAPTURE(b.nic.value());
      const auto brute =
          railyard::testing::brute_force_paths(f, f.nic_port(a), f.nic_port(b), nullptr);
      const int64_t expected = a == b ? 0 : static_cast<int64_t>(brute.size());
      CHECK(d.path_count(a, b) == expected);
      CHECK(f.count_paths(f.nic_port(a), f.nic_port(b)) == expected);

      std::vector<std::vector<int32_t>> from_routes;
      d.for_each_route(a, b, [&](const Route& r) {
        const Path path = f.route_links(a, b, r);
        std::vector<int32_t> ids;
        for (LinkId l : path.view()) ids.push_back(l.value());
        from_routes.push_back(ids);
      });
      std::sort(from_routes.begin(), from_routes.end());
      CHECK(from_routes.size() == static_cast<size_t>(expected));
      if (a != b) CHECK(from_routes == brute);

      std::vector<std::vector<int32_t>> from_graph;
      f.for_each_path(f.nic_port(a), f.nic_port(b), [&](const Path& path) {
        std::vector<int32_t> ids;
        for (LinkId l : path.view()) ids.push_back(l.value());
        from_graph.push_back(ids);
      });
      std::sort(from_graph.begin(), from_graph.end());
      if (a != b) CHECK(from_graph == brute);
      ++pairs_checked;
      multi_path_pairs += expected > 1;
    }
  }
  CHECK(pairs_checked == 250 * 30);
  CHECK(multi_path_pairs > 500);  // the sample exercises spine and core paths
}

TEST_CASE("descriptor: no network path across planes or (rail_only) across rails") {
  auto dual = *make_descriptor(*parse_cluster("h100-1024-dualplane"));
  CHECK(dual.path_count({HostId{0}, NicIndex{0}, PlaneId{0}},
                        {HostId{40}, NicIndex{0}, PlaneId{1}}) == 0);
  CHECK(dual.path_count({HostId{0}, NicIndex{0}, PlaneId{1}},
                        {HostId{40}, NicIndex{0}, PlaneId{1}}) > 0);
  auto rail_only = *make_descriptor(*parse_cluster("rail_only:hosts=128"));
  CHECK(rail_only.path_count({HostId{0}, NicIndex{0}}, {HostId{40}, NicIndex{1}}) == 0);
  CHECK(rail_only.path_count({HostId{0}, NicIndex{0}}, {HostId{40}, NicIndex{0}}) > 0);
  auto tor = *make_descriptor(*parse_cluster("h100-1024-tor"));
  // Two hosts under one ToR: one path through it, whatever the rails.
  CHECK(tor.path_count({HostId{0}, NicIndex{0}}, {HostId{3}, NicIndex{5}}) == 1);
  CHECK(tor.leaf_of(HostId{3}, RailId{5}) == tor.leaf_of(HostId{0}, RailId{0}));
  CHECK(tor.leaf_of(HostId{4}, RailId{0}) != tor.leaf_of(HostId{0}, RailId{0}));
}

TEST_CASE("descriptor: 3-tier cross-pod paths multiply leaf and core choices") {
  const auto d = *make_descriptor(*parse_cluster("h100-16k-3tier"));
  // Per pod: 32 leaves x 32 uplinks over 32 spines (1 cable each); each spine:
  // 32 uplinks over 8 cores of its group (4 cables each). Cross-pod paths:
  // 32 spines x (8 cores x 4 x 4) = 4096.
  CHECK(d.path_count({HostId{0}, NicIndex{0}}, {HostId{32}, NicIndex{0}}) == 32);
  CHECK(d.path_count({HostId{0}, NicIndex{0}}, {HostId{128}, NicIndex{0}}) == 32 * 8 * 4 * 4);
}

// The hot-path path_count (fast divisors) against the route enumeration on
// full-size presets, over random pairs of every kind (same leaf, same SU, other
// SU, other pod, other plane or rail).
TEST_CASE("descriptor: path_count equals the number of enumerated routes on the presets") {
  std::mt19937 rng(17);
  for (const Preset& preset : kPresets) {
    CAPTURE(preset.name);
    const auto d = *make_descriptor(*parse_cluster(preset.name));
    const auto static_hgx = make_descriptor<Extents<8, 8, kDynamic, kDynamic>>(d.spec());
    for (int trial = 0; trial < 400; ++trial) {
      const NicPort a{HostId{static_cast<int32_t>(rng() % d.hosts())},
                      NicIndex{static_cast<int32_t>(rng() % d.nics_per_host())},
                      PlaneId{static_cast<int32_t>(rng() % d.planes())}};
      NicPort b{HostId{static_cast<int32_t>(rng() % d.hosts())},
                NicIndex{static_cast<int32_t>(rng() % d.nics_per_host())},
                PlaneId{static_cast<int32_t>(rng() % d.planes())}};
      if (trial % 2 == 0) b.nic = a.nic, b.plane = a.plane;
      if (trial % 7 == 0) b.host = HostId{a.host.value() ^ 1};
      int64_t routes = 0;
      d.for_each_route(a, b, [&](const Route&) { ++routes; });
      CHECK(d.path_count(a, b) == routes);
      if (static_hgx.ok()) CHECK(static_hgx->path_count(a, b) == routes);
    }
  }
}

}  // namespace railyard_test_topology_descriptor_test
