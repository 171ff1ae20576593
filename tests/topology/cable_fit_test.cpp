// fit_cables(): cable lists written here by hand-coded loops from a design
// (never from railyard's own exporters) fit back to that design; cables taken
// out or swapped come back as exactly those failures.
#include "railyard/topology/import/cable_fit.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "railyard/core/strings.hpp"
#include "railyard/placement/allocator.hpp"
#include "railyard/placement/jobs.hpp"
#include "railyard/topology/import/cable_list.hpp"
#include "railyard/topology/import/ibnetdiscover.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_cable_fit_test {

using namespace railyard;
using topology::CableProblem;

namespace {

// Rail-optimized: `sus` SUs of `per_su` hosts with `rails` NICs (eth0..),
// one leaf per (SU, rail) named leaf-s<su>-r<rail>, each leaf with one cable to
// each of `spines` spines (spine1..). Hosts gpu01.. numbered SU by SU. Leaf
// ports: swp1.. for hosts, then swp<per_su+1>.. for spines.
struct RailDesign {
  int sus = 2, per_su = 4, rails = 4, spines = 4;
};

std::string two(int v) {
  std::string digits = std::to_string(v);
  if (v < 10) digits.insert(digits.begin(), '0');
  return digits;
}

std::vector<std::string> rail_rows(const RailDesign& x) {
  std::vector<std::string> rows;
  for (int s = 0; s < x.sus; ++s)
    for (int i = 0; i < x.per_su; ++i)
      for (int r = 0; r < x.rails; ++r)
        rows.push_back(str_cat("gpu", two(s * x.per_su + i + 1), ",eth", r, ",leaf-s", s, "-r", r,
                               ",swp", i + 1));
  for (int s = 0; s < x.sus; ++s)
    for (int r = 0; r < x.rails; ++r)
      for (int k = 0; k < x.spines; ++k)
        rows.push_back(str_cat("leaf-s", s, "-r", r, ",swp", x.per_su + k + 1, ",spine", k + 1,
                               ",swp", s * x.rails + r + 1));
  return rows;
}

std::string join(const std::vector<std::string>& rows) {
  std::string text = "a_node,a_port,b_node,b_port\n";
  for (const std::string& r : rows) text += r + "\n";
  return text;
}

topology::CableFit fit_of(const std::string& text) {
  auto list = topology::cable_list_from_text(text);
  REQUIRE_MESSAGE(list.ok(), list.status().message());
  auto fit = topology::fit_cables(*list);
  REQUIRE_MESSAGE(fit.ok(), fit.status().message());
  return *std::move(fit);
}

std::string fit_error(const std::string& text) {
  auto list = topology::cable_list_from_text(text);
  REQUIRE(list.ok());
  auto fit = topology::fit_cables(*list);
  REQUIRE_FALSE(fit.ok());
  return std::string(message_of(fit.status()));
}

void erase_row(std::vector<std::string>& rows, const std::string& row) {
  auto it = std::find(rows.begin(), rows.end(), row);
  REQUIRE(it != rows.end());
  rows.erase(it);
}

}  // namespace

TEST_CASE("fit: a complete rail-optimized cable list fits back to its design, no failures") {
  const topology::CableFit fit = fit_of(join(rail_rows({})));
  // 8 hosts in SUs of 4, 4 rails: leaves take 4 hosts and 4 uplinks (1:1), so
  // the smallest radix is 8, and 8 leaves x 4 uplinks / 8 ports = 4 spines.
  CHECK(topology::to_spec_string(fit.spec()) ==
        "rail_fat_tree:hosts=8,gpus_per_host=8,nics_per_host=4,nic_gbps=400,hosts_per_su=4,"
        "switch_radix=8,oversub=1:1,tiers=2,scale_up=8,nvlink_gbps=3600,planes=1,"
        "switch_layout=reference");
  CHECK(fit.findings.empty());
  CHECK(fit.drained.empty());
  CHECK(fit.file_cables == 64);
  CHECK(fit.design_cables == 64);
  CHECK(fit.host_names == std::vector<std::string>{"gpu01", "gpu02", "gpu03", "gpu04", "gpu05",
                                                   "gpu06", "gpu07", "gpu08"});
  CHECK(fit.nic_names == std::vector<std::string>{"eth0", "eth1", "eth2", "eth3"});
  CHECK(fit.leaf_names[0] == "leaf-s0-r0");
  CHECK(fit.leaf_names[6] == "leaf-s1-r2");
  CHECK(fit.spine_names == std::vector<std::string>{"spine1", "spine2", "spine3", "spine4"});
  const topology::Fabric fabric = topology::materialize(fit.descriptor);
  CHECK(fit.overlay(fabric).down_links() == 0);
}

TEST_CASE("fit: host and row order do not matter, names sort naturally") {
  std::vector<std::string> rows = rail_rows({});
  std::reverse(rows.begin(), rows.end());
  const topology::CableFit fit = fit_of(join(rows));
  CHECK(fit.findings.empty());
  CHECK(fit.host_names.front() == "gpu01");
  CHECK(fit.leaf_names[1] == "leaf-s0-r1");
}

TEST_CASE("fit: a missing host cable is exactly that link down, and its host drained") {
  std::vector<std::string> rows = rail_rows({});
  erase_row(rows, "gpu03,eth2,leaf-s0-r2,swp3");
  const topology::CableFit fit = fit_of(join(rows));
  CHECK(fit.spec().hosts == 8);
  REQUIRE(fit.findings.size() == 1);
  const topology::CableFinding& f = fit.findings[0];
  CHECK(f.problem == CableProblem::kMissing);
  CHECK(f.slot == topology::CableSlot{topology::LinkTier::kHostLeaf, 2, 2});
  CHECK(f.expected_lower == "gpu03 eth2");
  CHECK(f.expected_upper == "leaf-s0-r2");
  CHECK(fit.drained == std::vector<HostId>{HostId{2}});
  const topology::Fabric fabric = topology::materialize(fit.descriptor);
  const topology::FailureOverlay overlay = fit.overlay(fabric);
  CHECK(overlay.down_links() == 2);  // both directions of one cable
  const LinkId up = fabric.host_uplink({HostId{2}, NicIndex{2}});
  CHECK(overlay.is_down(up));
  CHECK(overlay.is_down(topology::Fabric::reverse(up)));
  CHECK_FALSE(overlay.is_down(fabric.host_uplink({HostId{2}, NicIndex{1}})));
}

TEST_CASE("fit: a missing leaf uplink is that uplink down, no host is drained") {
  std::vector<std::string> rows = rail_rows({});
  // leaf-s1-r1 is leaf 5; its uplink to spine3 is uplink j = 2 ((5*4 + 2) mod 4 = 2).
  erase_row(rows, "leaf-s1-r1,swp7,spine3,swp6");
  const topology::CableFit fit = fit_of(join(rows));
  REQUIRE(fit.findings.size() == 1);
  CHECK(fit.findings[0].problem == CableProblem::kMissing);
  CHECK(fit.findings[0].slot == topology::CableSlot{topology::LinkTier::kLeafSpine, 5, 2});
  CHECK(fit.findings[0].expected_upper == "spine3");
  CHECK(fit.drained.empty());
  const topology::Fabric fabric = topology::materialize(fit.descriptor);
  const topology::FailureOverlay overlay = fit.overlay(fabric);
  CHECK(overlay.down_links() == 2);
  CHECK(overlay.is_down(fabric.leaf_uplink(SwitchIndex{5}, 2)));
  CHECK(fabric.node_name(fabric.dst(fabric.leaf_uplink(SwitchIndex{5}, 2))) == "spine2");
}

TEST_CASE("fit: swapping a host's two NIC cables gives two miswired reports naming them") {
  std::vector<std::string> rows = rail_rows({});
  for (std::string& r : rows) {
    if (r == "gpu06,eth0,leaf-s1-r0,swp2")
      r = "gpu06,eth0,leaf-s1-r1,swp2";
    else if (r == "gpu06,eth1,leaf-s1-r1,swp2")
      r = "gpu06,eth1,leaf-s1-r0,swp2";
  }
  const topology::CableFit fit = fit_of(join(rows));
  REQUIRE(fit.findings.size() == 2);
  for (int i = 0; i < 2; ++i) {
    const topology::CableFinding& f = fit.findings[static_cast<size_t>(i)];
    CHECK(f.problem == CableProblem::kMiswired);
    CHECK(f.slot == topology::CableSlot{topology::LinkTier::kHostLeaf, 5, i});
    CHECK(f.expected_lower == "gpu06 eth" + std::to_string(i));
    CHECK(f.expected_upper == "leaf-s1-r" + std::to_string(i));
    REQUIRE(f.actual.has_value());
    CHECK(f.actual->a.node == "gpu06");
    CHECK(f.actual->b.node == "leaf-s1-r" + std::to_string(1 - i));
  }
  CHECK(fit.drained == std::vector<HostId>{HostId{5}});
  const topology::Fabric fabric = topology::materialize(fit.descriptor);
  CHECK(fit.overlay(fabric).down_links() == 4);
}

TEST_CASE("fit: a leaf cabled to the wrong spine is miswired at its uplink") {
  std::vector<std::string> rows = rail_rows({});
  // leaf-s0-r3 (leaf 3) sends uplink j to spine (3*4 + j) mod 4 = j: its first
  // cable, to spine1, lands on spine2 (which already has leaf 3's uplink 1).
  for (std::string& r : rows)
    if (r == "leaf-s0-r3,swp5,spine1,swp4") r = "leaf-s0-r3,swp5,spine2,swp40";
  const topology::CableFit fit = fit_of(join(rows));
  REQUIRE(fit.findings.size() == 1);
  const topology::CableFinding& f = fit.findings[0];
  CHECK(f.problem == CableProblem::kMiswired);
  CHECK(f.slot == topology::CableSlot{topology::LinkTier::kLeafSpine, 3, 0});
  CHECK(f.expected_lower == "leaf-s0-r3 uplink 0");
  CHECK(f.expected_upper == "spine1");
  CHECK(f.actual->b == topology::CableEnd{"spine2", "swp40"});
  CHECK(fit.drained.empty());
}

TEST_CASE("fit: a ToR fabric (all NICs of a host on one leaf)") {
  // 4 leaves of 2 hosts x 2 NICs, each leaf with 4 uplinks, two to each of 2
  // spines (radix 8: floor(8/2) = 4 host ports, 4 x 4 / 8 = 2 spines).
  std::vector<std::string> rows;
  for (int l = 0; l < 4; ++l) {
    for (int i = 0; i < 2; ++i)
      for (int p = 0; p < 2; ++p)
        rows.push_back(str_cat("n", l * 2 + i, ",p", p, ",tor", l, ",e", i * 2 + p));
    for (int k = 0; k < 4; ++k)
      rows.push_back(str_cat("tor", l, ",e", 4 + k, ",sp", k % 2, ",e", l * 2 + k / 2));
  }
  const topology::CableFit fit = fit_of(join(rows));
  CHECK(fit.spec().kind == topology::Kind::kTorFatTree);
  CHECK(fit.spec().hosts == 8);
  CHECK(fit.spec().nics_per_host == 2);
  CHECK(fit.spec().gpus_per_host == 8);
  CHECK(fit.descriptor.shape().hosts_per_leaf == 2);
  CHECK(fit.spec().switch_radix == 8);
  CHECK(fit.descriptor.shape().spines_per_pod == 2);
  CHECK(fit.findings.empty());
}

TEST_CASE("fit: slow cables are degraded to their share of the speed") {
  std::vector<std::string> rows = rail_rows({});
  std::string text = "a_node,a_port,b_node,b_port,gbps\n";
  for (const std::string& r : rows)
    text += r + (r == "gpu01,eth0,leaf-s0-r0,swp1" ? ",100\n" : ",400\n");
  const topology::CableFit fit = fit_of(text);
  CHECK(fit.spec().nic_gbps == 400);
  REQUIRE(fit.findings.size() == 1);
  CHECK(fit.findings[0].problem == CableProblem::kSlow);
  CHECK(fit.findings[0].fraction == doctest::Approx(0.25));
  CHECK(fit.drained.empty());
  const topology::Fabric fabric = topology::materialize(fit.descriptor);
  const topology::FailureOverlay overlay = fit.overlay(fabric);
  CHECK(overlay.down_links() == 0);
  CHECK(overlay.capacity_gbps(fabric.host_uplink({HostId{0}, NicIndex{0}})) ==
        doctest::Approx(100.0));
}

TEST_CASE("fit: irregular fabrics are refused, naming what is irregular") {
  // Five of eight hosts with 3 NICs: two host types, not missing cables.
  std::vector<std::string> rows = rail_rows({});
  for (const char* host : {"gpu02", "gpu03", "gpu04", "gpu05", "gpu06"})
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](const std::string& r) {
                                return r.starts_with(std::string(host) + ",eth3,");
                              }),
               rows.end());
  std::string e = fit_error(join(rows));
  CHECK(e.find("hosts have different NIC counts") != std::string::npos);
  // Hosts naming their NICs differently.
  rows = rail_rows({});
  for (std::string& r : rows)
    if (r.starts_with("gpu02,eth0,")) r.replace(6, 4, "ib0x");
  e = fit_error(join(rows));
  CHECK(e.find("name their NIC ports differently") != std::string::npos);
  CHECK(e.find("'ib0x'") != std::string::npos);
}

TEST_CASE("fit: an ibnetdiscover sample fits with hosts from Ca blocks") {
  // Two hosts with 2 HCAs on 2 rail leaves under 1 spine: one SU, 2 uplinks
  // would be needed for 1:1, the file has 1 (2:1).
  std::string text;
  const char* leaf_guid[2] = {"S-0000000000000a01", "S-0000000000000a02"};
  for (int l = 0; l < 2; ++l) {
    text += std::string("Switch\t40 \"") + leaf_guid[l] + "\"\t\t# \"leaf" + std::to_string(l) +
            "\" enhanced port 0 lid " + std::to_string(l + 1) + " lmc 0\n";
    for (int h = 0; h < 2; ++h)
      text += "[" + std::to_string(h + 1) + "]\t\"H-00000000000000" + std::to_string(h) +
              std::to_string(l) + "\"[1](00000000000000" + std::to_string(h) + std::to_string(l) +
              ") \t\t# \"host" + std::to_string(h) + " mlx5_" + std::to_string(l) +
              "\" lid 9 4xNDR\n";
    text += "[9]\t\"S-0000000000000b01\"[" + std::to_string(l + 1) +
            "]\t\t# \"spine0\" lid 5 4xNDR\n\n";
  }
  auto list = topology::cable_list_from_ibnetdiscover(text);
  REQUIRE_MESSAGE(list.ok(), list.status().message());
  auto fit = topology::fit_cables(*list);
  REQUIRE_MESSAGE(fit.ok(), fit.status().message());
  CHECK(fit->spec().kind == topology::Kind::kRailFatTree);
  CHECK(fit->spec().hosts == 2);
  CHECK(fit->spec().nics_per_host == 2);
  CHECK(fit->spec().oversub == Ratio{2, 1});
  CHECK(fit->nic_names == std::vector<std::string>{"mlx5_0/1", "mlx5_1/1"});
  CHECK(fit->host_names == std::vector<std::string>{"host0", "host1"});
  CHECK(fit->findings.empty());
}

TEST_CASE("fit: drained hosts get no job from place_jobs and count as neither free nor held") {
  std::vector<std::string> rows = rail_rows({});
  erase_row(rows, "gpu03,eth2,leaf-s0-r2,swp3");
  const topology::CableFit fit = fit_of(join(rows));
  REQUIRE(fit.drained == std::vector<HostId>{HostId{2}});
  // 7 hosts in service: a 7-host job fits around host 2, an 8-host one does not.
  auto placed = placement::place_jobs(fit.descriptor, "a:gpus=56", {}, fit.drained);
  REQUIRE(placed.ok());
  REQUIRE(placed->placed.size() == 1);
  const std::vector<HostId>& hosts = placed->placed[0].hosts;
  CHECK(hosts.size() == 7);
  CHECK(std::find(hosts.begin(), hosts.end(), HostId{2}) == hosts.end());
  CHECK(placed->free_hosts == 0);
  auto all = placement::place_jobs(fit.descriptor, "b:gpus=64", {}, fit.drained);
  REQUIRE(all.ok());
  CHECK(all->placed.empty());
  CHECK(all->unplaced.size() == 1);
  CHECK(all->free_hosts == 7);
  // The allocator refuses to reserve a drained host, and draining a held one.
  auto alloc = placement::make_allocator(fit.descriptor, {});
  REQUIRE(alloc.ok());
  REQUIRE(alloc->drain(fit.drained).ok());
  CHECK(alloc->is_drained(HostId{2}));
  CHECK_FALSE(alloc->is_free(HostId{2}));
  const HostId two[] = {HostId{2}};
  CHECK(alloc->reserve({"x", "", 0}, two).status().code() == StatusCode::kFailedPrecondition);
  const HostId zero[] = {HostId{0}};
  REQUIRE(alloc->reserve({"y", "", 0}, zero).ok());
  CHECK(alloc->drain(zero).code() == StatusCode::kFailedPrecondition);
  CHECK(alloc->free_hosts() == 6);
}

TEST_CASE("fit: a host with no cable at all is not in the cluster, its SU is the short last one") {
  // SUs of 6 (leaves of 6 hosts + 4 uplinks: 3:2, radix 10, 8 x 4 / 10 -> 4 spines).
  RailDesign x;
  x.per_su = 6;
  std::vector<std::string> rows = rail_rows(x);
  rows.erase(std::remove_if(rows.begin(), rows.end(),
                            [](const std::string& r) { return r.starts_with("gpu03,"); }),
             rows.end());
  auto list = topology::cable_list_from_text(join(rows));
  REQUIRE(list.ok());
  auto fit = topology::fit_cables(*list);
  if (fit.ok()) {
    // Descriptors that take a partial last SU: SU 0 (gpu01-gpu06 but gpu03) goes last.
    CHECK(fit->spec().hosts == 11);
    CHECK(fit->spec().hosts_per_su == 6);
    CHECK(fit->host_names.front() == "gpu07");
    CHECK(fit->host_names.back() == "gpu06");
    CHECK(fit->findings.empty());
  } else {
    // Descriptors that refuse one say so, through the fit.
    CHECK(
        std::string(message_of(fit.status())).find("hosts=11: not a multiple of hosts_per_su=6") !=
        std::string::npos);
  }
}

TEST_CASE("fit: a three-tier rail fabric (pods, core groups) fits back, a lost core cable is that uplink") {
  // 8 SUs of 2 hosts with 2 NICs, pods of 2 SUs (4 pods). A pod's 4 leaves send
  // 2 uplinks each (1:1): radix 8 gives 8 / 4 = 2 spines per pod (radix 4..7
  // give 3 or more, more than a leaf's 2 uplinks reach). Spines have 4 down and
  // 4 up ports; 4 pods x 4 / 8 = 2 cores per group. Leaf l of a pod sends
  // uplink j to spine (2l + j) mod 2 = j; spine s of pod p sends uplink k to
  // core (4p + k) mod 2 = k mod 2 of group s.
  std::vector<std::string> rows;
  for (int h = 0; h < 16; ++h)
    for (int r = 0; r < 2; ++r)
      rows.push_back(str_cat("h", two(h), ",nic", r, ",leaf-", h / 2, "-", r, ",d", h % 2));
  for (int su = 0; su < 8; ++su)
    for (int r = 0; r < 2; ++r)
      for (int j = 0; j < 2; ++j)
        rows.push_back(str_cat("leaf-", su, "-", r, ",u", j, ",spine-", su / 2, "-", j, ",d",
                               (su % 2) * 2 + r));
  for (int pod = 0; pod < 4; ++pod)
    for (int s = 0; s < 2; ++s)
      for (int k = 0; k < 4; ++k)
        rows.push_back(
            str_cat("spine-", pod, "-", s, ",u", k, ",core-", s, "-", k % 2, ",d", pod, "-", k));
  const topology::CableFit fit = fit_of(join(rows));
  CHECK(topology::to_spec_string(fit.spec()) ==
        "rail_fat_tree:hosts=16,gpus_per_host=8,nics_per_host=2,nic_gbps=400,hosts_per_su=2,"
        "switch_radix=8,oversub=1:1,tiers=3,sus_per_pod=2,pod_oversub=1:1,scale_up=8,"
        "nvlink_gbps=3600,planes=1,switch_layout=reference");
  CHECK(fit.findings.empty());
  CHECK(fit.spine_names[2] == "spine-1-0");
  CHECK(fit.core_names == std::vector<std::string>{"core-0-0", "core-0-1", "core-1-0", "core-1-1"});
  // Spine 3 (pod 1, s = 1) loses its uplink k = 2 (to core-1-0).
  erase_row(rows, "spine-1-1,u2,core-1-0,d1-2");
  const topology::CableFit lost = fit_of(join(rows));
  REQUIRE(lost.findings.size() == 1);
  CHECK(lost.findings[0].problem == CableProblem::kMissing);
  CHECK(lost.findings[0].slot == topology::CableSlot{topology::LinkTier::kSpineCore, 3, 2});
  CHECK(lost.findings[0].expected_upper == "core-1-0");
  const topology::Fabric fabric = topology::materialize(lost.descriptor);
  CHECK(lost.overlay(fabric).is_down(fabric.spine_uplink(SwitchIndex{3}, 2)));
}

}  // namespace railyard_test_topology_cable_fit_test
