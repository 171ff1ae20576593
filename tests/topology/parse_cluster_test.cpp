#include "railyard/topology/parse_cluster.hpp"

#include <doctest/doctest.h>

#include <string>

#include "../support/random_shapes.hpp"
#include "railyard/topology/descriptor.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_parse_cluster_test {

using railyard::topology::ClusterSpec;
using railyard::topology::Kind;
using railyard::topology::kPresets;
using railyard::topology::parse_cluster;
using railyard::topology::to_spec_string;

TEST_CASE("parse_cluster: every preset parses and round-trips through its canonical string") {
  for (const auto& preset : kPresets) {
    auto spec = parse_cluster(preset.name);
    REQUIRE_MESSAGE(spec.ok(), preset.name, ": ", spec.status().message());
    auto again = parse_cluster(to_spec_string(*spec));
    REQUIRE_MESSAGE(again.ok(), again.status().message());
    CHECK(*again == *spec);
  }
  CHECK(parse_cluster(railyard::topology::kDefaultCluster)->oversub == railyard::Ratio{2, 1});
}

TEST_CASE("parse_cluster: gpu and cpu, with the CPU following the GPU unless given") {
  using railyard::topology::CpuModel;
  using railyard::topology::GpuModel;
  auto h100 = parse_cluster("rail_fat_tree:hosts=64");
  REQUIRE(h100.ok());
  CHECK(h100->gpu == GpuModel::kH100);
  CHECK(h100->cpu == CpuModel::kIntel);
  CHECK(to_spec_string(*h100).find("gpu=") == std::string::npos);
  auto amd = parse_cluster("rail_fat_tree:hosts=64,gpu=b200,cpu=amd");
  REQUIRE(amd.ok());
  CHECK(railyard::topology::compute_capability(amd->gpu) == 100);
  CHECK(to_spec_string(*amd).ends_with(",gpu=b200,cpu=amd"));
  auto gb = parse_cluster("gb200-nvl72-576");
  REQUIRE(gb.ok());
  CHECK(gb->gpu == GpuModel::kGb200);
  CHECK(gb->cpu == CpuModel::kGrace);
  CHECK(to_spec_string(*gb).ends_with(",gpu=gb200"));
  CHECK(*parse_cluster(to_spec_string(*gb)) == *gb);
}

TEST_CASE("parse_cluster: defaults follow docs/cluster-spec.md") {
  auto spec = parse_cluster("rail_fat_tree:hosts=64");
  REQUIRE(spec.ok());
  CHECK(spec->kind == Kind::kRailFatTree);
  CHECK(spec->gpus_per_host == 8);
  CHECK(spec->nics_per_host == 8);
  CHECK(spec->nic_gbps == 400);
  CHECK(spec->hosts_per_su == 32);
  CHECK(spec->switch_radix == 64);
  CHECK(spec->oversub == railyard::Ratio{1, 1});
  CHECK(spec->tiers == 2);
  CHECK(spec->scale_up == 8);
  CHECK(spec->nvlink_gbps == 3600);
  CHECK(spec->planes == 1);
  // scale_up defaults to gpus_per_host, whatever that is.
  CHECK(parse_cluster("rail_fat_tree:hosts=64,gpus_per_host=4,nics_per_host=4")->scale_up == 4);
}

TEST_CASE("parse_cluster: random valid specs round-trip") {
  for (const ClusterSpec& s : railyard::testing::random_valid_specs(300, 11)) {
    const std::string text = to_spec_string(s);
    auto back = parse_cluster(text);
    REQUIRE_MESSAGE(back.ok(), text, ": ", back.status().message());
    CHECK_MESSAGE(*back == s, text);
  }
}

// Each class of bad input yields InvalidArgument whose message names the key
// (and the value where there is one).
TEST_CASE("parse_cluster: every bad-input class names its key and value") {
  struct Case {
    const char* spec;
    const char* must_contain;
  };
  const Case cases[] = {
      // unknown key
      {"rail_fat_tree:hosts=64,foo=1", "foo=1"},
      {"rail_fat_tree:hosts=64,Hosts=2", "Hosts=2"},
      // missing required key
      {"rail_fat_tree:gpus_per_host=8", "hosts"},
      {"tor_fat_tree", "hosts"},
      // non-numeric
      {"rail_fat_tree:hosts=abc", "hosts=abc"},
      {"rail_fat_tree:hosts=64,nic_gbps=4e2", "nic_gbps=4e2"},
      {"rail_fat_tree:hosts=64,oversub=two", "oversub=two"},
      {"rail_fat_tree:hosts=64,switch_layout=fancy", "switch_layout=fancy"},
      {"rail_fat_tree:hosts=64,gpu=h800", "gpu=h800"},
      {"rail_fat_tree:hosts=64,cpu=power", "cpu=power"},
      {"rail_fat_tree:hosts=64,gpu=gb200,cpu=amd", "cpu=amd"},
      // zero / negative / out of range
      {"rail_fat_tree:hosts=0", "hosts=0"},
      {"rail_fat_tree:hosts=-4", "hosts=-4"},
      {"rail_fat_tree:hosts=64,gpus_per_host=0", "gpus_per_host=0"},
      {"rail_fat_tree:hosts=64,switch_radix=1", "switch_radix=1"},
      {"rail_fat_tree:hosts=64,tiers=4", "tiers=4"},
      {"rail_fat_tree:hosts=64,oversub=0:1", "oversub=0:1"},
      {"rail_fat_tree:hosts=64,oversub=1:2", "oversub=1:2"},
      {"rail_fat_tree:hosts=64,planes=0", "planes=0"},
      {"rail_fat_tree:hosts=64,tiers=0", "tiers=0"},
      {"rail_fat_tree:hosts=64,switch_radix=65537", "switch_radix=65537"},
      {"rail_fat_tree:hosts=64,leaf_spine_m=100001", "leaf_spine_m=100001"},
      {"rail_fat_tree:hosts=64,host_leaf_m=-1", "host_leaf_m=-1"},
      {"rail_fat_tree:hosts=64,spine_core_m=1.5", "spine_core_m=1.5"},
      // inconsistent values
      {"rail_only:hosts=20,tiers=1,hosts_per_su=32", "hosts_per_su=32"},  // no partial SU
      {"rail_fat_tree:hosts=4096", "switch_radix=64"},
      {"rail_fat_tree:hosts=128,hosts_per_su=64", "hosts_per_su=64"},
      {"rail_fat_tree:hosts=64,gpus_per_host=8,nics_per_host=3", "nics_per_host=3"},
      {"rail_fat_tree:hosts=64,scale_up=12", "scale_up=12"},
      {"rail_fat_tree:hosts=64,gpus_per_host=4,nics_per_host=4,scale_up=72", "scale_up=72"},
      {"rail_fat_tree:hosts=72,hosts_per_su=8,gpus_per_host=4,nics_per_host=4,scale_up=72",
       "hosts_per_su=8"},
      {"rail_fat_tree:hosts=64,sus_per_pod=1", "sus_per_pod=1"},
      {"rail_fat_tree:hosts=64,pod_oversub=2:1", "pod_oversub=2:1"},
      {"rail_fat_tree:hosts=64,tiers=3", "sus_per_pod"},
      {"rail_fat_tree:hosts=96,tiers=3,sus_per_pod=3", "sus_per_pod=3"},  // 3 SUs: one pod
      {"rail_fat_tree:hosts=128,tiers=3,sus_per_pod=4", "sus_per_pod=4"},  // one pod: tiers=2
      {"rail_fat_tree:hosts=16384,hosts_per_su=64,switch_radix=128,tiers=3,sus_per_pod=1",
       "switch_radix=128"},
      {"tor_fat_tree:hosts=64,switch_radix=8,nics_per_host=8,oversub=2:1", "switch_radix=8"},
      // unknown kind or preset, malformed
      {"fat_tree:hosts=64", "fat_tree"},
      {"h100-9999", "h100-9999"},
      {"rail_fat_tree:hosts=64,hosts=32", "hosts"},
      {"rail_fat_tree:hosts", "hosts"},
      {"", "missing kind"},
  };
  for (const Case& c : cases) {
    auto spec = parse_cluster(c.spec);
    REQUIRE_FALSE_MESSAGE(spec.ok(), c.spec);
    CHECK(absl::IsInvalidArgument(spec.status()));
    const std::string message(spec.status().message());
    CHECK_MESSAGE(message.find(c.must_contain) != std::string::npos, c.spec, " -> ", message);
  }
}

// Text before ':' that is not a kind is a mistyped kind or preset, whatever
// follows: "h100-1024-2:1" (the ':' of a ratio) must not be read as a spec whose
// entry '1' lacks '='. The message lists the kinds and every preset.
TEST_CASE("parse_cluster: an unknown kind before ':' is named, with the kinds and presets") {
  for (const char* text : {"h100-1024-2:1", "h100-1024-2:hosts=64", "dragonfly:hosts=64,1"}) {
    auto spec = parse_cluster(text);
    REQUIRE_FALSE(spec.ok());
    CHECK(absl::IsInvalidArgument(spec.status()));
    const std::string message(spec.status().message());
    const std::string kind(std::string_view(text).substr(0, std::string_view(text).find(':')));
    CHECK_MESSAGE(message.find("'" + kind + "': unknown cluster kind or preset") == 0, message);
    CHECK_MESSAGE(message.find("expected key=value") == std::string::npos, message);
    for (std::string_view k : railyard::topology::kKindNames)
      CHECK_MESSAGE(message.find(k) != std::string::npos, message);
    for (const auto& preset : kPresets)
      CHECK_MESSAGE(message.find(preset.name) != std::string::npos, message);
    CHECK(railyard::error_field(spec.status())->field == "kind");
    CHECK(railyard::error_field(spec.status())->value == kind);
  }
  // A preset with keys: presets take none; the message gives its spec to edit.
  auto keyed = parse_cluster("h100-1024:hosts=64");
  REQUIRE_FALSE(keyed.ok());
  const std::string message(keyed.status().message());
  CHECK_MESSAGE(message.find("'h100-1024': a preset takes no keys") == 0, message);
  CHECK_MESSAGE(message.find(std::string(kPresets[0].spec)) != std::string::npos, message);
}

// tiers=1: one switch per partition. Its port count is worked out by hand: a
// rail switch takes one port per host, a ToR switch every NIC of every host.
TEST_CASE("parse_cluster: tiers=1 is one switch per rail (rail_only) or for every NIC (ToR)") {
  using railyard::topology::derive_shape;
  auto rail = parse_cluster("rail_only:hosts=64,tiers=1");
  REQUIRE_MESSAGE(rail.ok(), rail.status().message());
  CHECK(rail->hosts_per_su == 64);  // defaults to hosts
  CHECK(rail->tiers == 1);
  const auto rs = derive_shape(*rail).shape;
  CHECK(rs.total_leaves() == 8);  // one per rail
  CHECK(rs.leaf_down_ports == 64);
  CHECK(rs.leaf_up_ports == 0);
  CHECK(rs.total_spines() == 0);
  CHECK(rs.total_cores() == 0);
  CHECK(*parse_cluster(to_spec_string(*rail)) == *rail);
  CHECK(to_spec_string(*rail).find(",hosts_per_su=64,") != std::string::npos);
  CHECK(to_spec_string(*rail).find(",tiers=1,") != std::string::npos);

  auto tor = parse_cluster("tor_fat_tree:hosts=8,tiers=1");  // 8 x 8 NICs = 64 ports
  REQUIRE_MESSAGE(tor.ok(), tor.status().message());
  const auto ts = derive_shape(*tor).shape;
  CHECK(ts.total_leaves() == 1);
  CHECK(ts.leaf_down_ports == 64);
  CHECK(ts.total_spines() == 0);

  // A single-NIC rail fat tree is one switch too; two planes double it.
  auto single = parse_cluster("rail_fat_tree:hosts=48,nics_per_host=1,tiers=1,planes=2");
  REQUIRE_MESSAGE(single.ok(), single.status().message());
  CHECK(derive_shape(*single).shape.total_leaves() == 2);

  // Exactly full, and one port beyond.
  CHECK(parse_cluster("rail_only:hosts=128,tiers=1,switch_radix=128").ok());
  CHECK(parse_cluster("tor_fat_tree:hosts=16,tiers=1,switch_radix=128").ok());
  struct Case {
    const char* spec;
    const char* message;
  };
  const Case bad[] = {
      {"rail_only:hosts=65,tiers=1",
       "switch_radix=64: tiers=1 puts 65 hosts (one port each) on one switch; needs "
       "switch_radix >= 65"},
      {"tor_fat_tree:hosts=9,tiers=1",
       "switch_radix=64: tiers=1 puts 72 NIC ports (every NIC of every host) on one switch; "
       "needs switch_radix >= 72"},
      {"rail_fat_tree:hosts=32,tiers=1",
       "tiers=1: a rail_fat_tree with 8 NICs per host needs spines to join its rail leaves; for "
       "one switch per rail write rail_only (rails meet over NVLink), for one switch for every "
       "NIC tor_fat_tree"},
      {"rail_only:hosts=64,tiers=1,hosts_per_su=32",
       "hosts_per_su=32: tiers=1 is one SU on one switch per partition, so hosts_per_su must "
       "equal hosts=64 (or be left out)"},
      {"rail_only:hosts=32,tiers=1,oversub=2:1",
       "oversub=2:1: only applies to tiers=2 or 3 (a one-tier fabric has no uplinks)"},
      {"rail_only:hosts=32,tiers=1,sus_per_pod=1", "sus_per_pod=1: only applies to tiers=3"},
      {"rail_only:hosts=32,tiers=1,pod_oversub=2:1", "pod_oversub=2:1: only applies to tiers=3"},
  };
  for (const Case& c : bad) {
    auto spec = parse_cluster(c.spec);
    REQUIRE_FALSE_MESSAGE(spec.ok(), c.spec);
    CHECK(absl::IsInvalidArgument(spec.status()));
    CHECK_MESSAGE(std::string(spec.status().message()) == c.message, c.spec);
  }
}

// The radix bound: 65,536 (a whole chassis or DDC cluster modelled as one
// switch) parses and builds a shape; 65,537 is refused naming the value.
TEST_CASE("parse_cluster: switch_radix up to 65536, refused one beyond") {
  auto big = parse_cluster("rail_only:hosts=65536,gpus_per_host=1,nics_per_host=1,tiers=1,"
                           "switch_radix=65536");
  REQUIRE_MESSAGE(big.ok(), big.status().message());
  const auto shape = railyard::topology::derive_shape(*big).shape;
  CHECK(shape.total_leaves() == 1);
  CHECK(shape.leaf_down_ports == 65536);
  // Two tiers at the top radix, one NIC per host: 2 SUs of 32,768 hosts, one
  // leaf each with 32,768 down and U = 32,768 up ports, ceil(2 * 32768 / 65536) = 1
  // spine taking all 65,536 uplinks. Hosts in different SUs then have U * U =
  // 2^30 paths (any uplink of one leaf, any downlink of the other).
  auto two = parse_cluster("rail_fat_tree:hosts=65536,gpus_per_host=1,nics_per_host=1,"
                           "hosts_per_su=32768,switch_radix=65536");
  REQUIRE_MESSAGE(two.ok(), two.status().message());
  const auto ts = railyard::topology::derive_shape(*two).shape;
  CHECK(ts.leaf_up_ports == 32768);
  CHECK(ts.total_spines() == 1);
  CHECK(ts.spine_down_ports == 65536);
  auto d = railyard::topology::make_descriptor(*two);
  REQUIRE(d.ok());
  using railyard::HostId;
  using railyard::NicPort;
  const NicPort a{HostId{0}, railyard::NicIndex{0}, railyard::PlaneId{0}};
  const NicPort b{HostId{40000}, railyard::NicIndex{0}, railyard::PlaneId{0}};
  CHECK(d->path_count(a, b) == int64_t{1} << 30);
  auto beyond = parse_cluster("rail_only:hosts=64,tiers=1,switch_radix=65537");
  REQUIRE_FALSE(beyond.ok());
  CHECK(std::string(beyond.status().message()) == "switch_radix=65537: must be between 2 and 65536");
  // A hand-built spec beyond the bound fails derive_shape naming the value.
  ClusterSpec hand = *big;
  hand.switch_radix = 65537;
  CHECK(railyard::topology::describe_problem(hand, railyard::topology::derive_shape(hand)) ==
        "switch_radix=65537: value out of range (parse_cluster() lists the valid ranges)");
}

// Cable lengths per tier: spec keys, canonical only when given, and the
// descriptor's per-link latency is 5 ns per metre of them.
TEST_CASE("parse_cluster: host_leaf_m, leaf_spine_m, spine_core_m set each tier's cable") {
  using railyard::topology::LinkTier;
  auto plain = parse_cluster("rail_fat_tree:hosts=64");
  REQUIRE(plain.ok());
  CHECK(to_spec_string(*plain).find("_m=") == std::string::npos);
  auto spec = parse_cluster("rail_fat_tree:hosts=2048,tiers=3,sus_per_pod=4,host_leaf_m=0,"
                            "leaf_spine_m=200,spine_core_m=2000");
  REQUIRE_MESSAGE(spec.ok(), spec.status().message());
  CHECK(to_spec_string(*spec).ends_with(",host_leaf_m=0,leaf_spine_m=200,spine_core_m=2000"));
  CHECK(*parse_cluster(to_spec_string(*spec)) == *spec);
  auto d = railyard::topology::make_descriptor(*spec);
  REQUIRE(d.ok());
  CHECK(d->latency_ns(LinkTier::kHostLeaf) == 0.0);
  CHECK(d->latency_ns(LinkTier::kLeafSpine) == 1000.0);
  CHECK(d->latency_ns(LinkTier::kSpineCore) == 10000.0);
  CHECK(d->latency_ns(LinkTier::kNvlink) == 0.0);  // inside the host: no cable
  auto dp = railyard::topology::make_descriptor(*plain);
  REQUIRE(dp.ok());
  CHECK(dp->latency_ns(LinkTier::kHostLeaf) == 150.0);   // 30 m optical
  CHECK(dp->latency_ns(LinkTier::kLeafSpine) == 250.0);  // 50 m optical
}

}  // namespace railyard_test_topology_parse_cluster_test
