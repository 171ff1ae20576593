#include "railyard/topology/host_lookup.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "railyard/core/hostlist.hpp"
#include "railyard/topology/node_names.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_host_lookup_test {

using namespace railyard;
using railyard::testing::descriptor_of;
using railyard::testing::message_text;
using railyard::topology::NodeNamer;
using railyard::topology::resolve_hosts;

namespace {

// "gpu-a" + zero-padded (id + 1), written with printf: an independent spelling
// of what the pattern gpu-a{host+1:03} must produce.
std::string printf_name(int id, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gpu-a%0*d", width, id + 1);
  return buf;
}

std::vector<int32_t> values(const std::vector<HostId>& ids) {
  std::vector<int32_t> out;
  for (HostId h : ids) out.push_back(h.value());
  return out;
}

}  // namespace

TEST_CASE("node_names: {host+N} offsets the value and pads to the widest offset value") {
  const auto d = descriptor_of("h100-1024");  // 128 hosts
  auto namer = NodeNamer::parse("gpu-a{host+1:03}");
  REQUIRE(namer.ok());
  const auto names = namer->names(d);
  for (int h = 0; h < d.hosts(); ++h) CHECK(names[static_cast<size_t>(h)] == printf_name(h, 3));
  CHECK(names.front() == "gpu-a001");
  CHECK(names.back() == "gpu-a128");
  // 128 hosts + 900 -> largest value 1027: four digits everywhere, so names still sort.
  const auto wide = NodeNamer::parse("n{host+900:02}")->names(d);
  CHECK(wide.front() == "n0900");
  CHECK(wide.back() == "n1027");
  CHECK(std::is_sorted(wide.begin(), wide.end()));
  // Offsets on other placeholders: SUs numbered from 1.
  CHECK(NodeNamer::parse("su{su+1}-{slot+1:02}")->name(d, HostId{33}) == "su2-02");
  CHECK(NodeNamer::parse("x{host+0}")->names(d) == NodeNamer::parse("x{host}")->names(d));
  for (const char* bad : {"n{host+}", "n{host+x}", "n{host-1}", "n{host+1000000001}",
                          "n{host++1}", "n{host+1a:03}"}) {
    auto parsed = NodeNamer::parse(bad);
    REQUIRE_FALSE_MESSAGE(parsed.ok(), bad);
    CHECK(message_text(parsed.status()).starts_with(std::string("node_pattern=") + bad));
  }
}

TEST_CASE("host_lookup: names resolve to the ids NodeNamer gave them (a bijection)") {
  for (const char* spec : {"h100-1024", "gb200-nvl72-576", "rail_fat_tree:hosts=40"}) {
    CAPTURE(spec);
    const auto d = descriptor_of(spec);
    for (const char* pattern : {"node{host:04}", "gpu-a{host+1:03}", "r{su+1}n{slot:02}"}) {
      CAPTURE(pattern);
      const auto names = NodeNamer::parse(pattern)->names(d);
      // Each name alone.
      for (size_t h = 0; h < names.size(); ++h) {
        auto one = resolve_hosts("hosts", names[h], names);
        REQUIRE_MESSAGE(one.ok(), message_text(one.status()));
        REQUIRE(one->size() == 1);
        CHECK(one->front().value() == static_cast<int32_t>(h));
      }
      // All of them as one compressed hostlist: ids 0..n-1 in order.
      auto all = resolve_hosts("hosts", compress_hostlist(names), names);
      REQUIRE(all.ok());
      std::vector<int32_t> expected(names.size());
      std::iota(expected.begin(), expected.end(), 0);
      CHECK(values(*all) == expected);
    }
  }
}

TEST_CASE("host_lookup: hostlists round trip in launch order, against expand_hostlist") {
  const auto d = descriptor_of("h100-1024");
  const auto names = NodeNamer::parse("gpu-a{host+1:03}")->names(d);
  std::mt19937 rng(20261202);
  for (int round = 0; round < 200; ++round) {
    std::vector<int32_t> ids(names.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    ids.resize(1 + rng() % names.size());
    if (round % 2 == 0) std::sort(ids.begin(), ids.end());  // the form Slurm prints
    std::vector<std::string> picked;
    for (int32_t id : ids) picked.push_back(names[static_cast<size_t>(id)]);
    const std::string text = compress_hostlist(picked);
    CAPTURE(text);
    // Reference: Slurm's expansion, each name looked up by a linear search.
    auto expanded = expand_hostlist(text);
    REQUIRE(expanded.ok());
    std::vector<int32_t> reference;
    for (const std::string& n : *expanded)
      reference.push_back(
          static_cast<int32_t>(std::find(names.begin(), names.end(), n) - names.begin()));
    auto got = resolve_hosts("hosts", text, names);
    REQUIRE_MESSAGE(got.ok(), message_text(got.status()));
    CHECK(values(*got) == reference);
    CHECK(values(*got) == ids);
  }
  // The example: SLURM_JOB_NODELIST text as Slurm writes it.
  auto nodelist = resolve_hosts("hosts", "gpu-a[003-010,035-042]", names);
  REQUIRE(nodelist.ok());
  std::vector<int32_t> expected;
  for (int32_t h = 2; h <= 9; ++h) expected.push_back(h);
  for (int32_t h = 34; h <= 41; ++h) expected.push_back(h);
  CHECK(values(*nodelist) == expected);
}

TEST_CASE("host_lookup: ids keep working, unknown names, duplicates and bad lists are errors") {
  const auto d = descriptor_of("h100-1024");
  const auto names = NodeNamer::parse(topology::kDefaultNodePattern)->names(d);
  auto ids = resolve_hosts("hosts", "40-41,8", names);
  REQUIRE(ids.ok());
  CHECK(values(*ids) == std::vector<int32_t>{40, 41, 8});
  CHECK(topology::is_host_id_text("0-15,32"));
  CHECK_FALSE(topology::is_host_id_text("node[0-3]"));
  CHECK_FALSE(topology::is_host_id_text(""));

  struct Bad {
    const char* text;
    const char* value;  // what the message must name after "hosts="
    const char* says;
  };
  for (const Bad& bad : {Bad{"node0003,gpu7", "gpu7", "no host of the cluster is named 'gpu7'"},
                         Bad{"node[0126-0128]", "node0128", "'node0128' (its 128 hosts are named node0000 ... node0127)"},
                         Bad{"node0003,node[0002-0003]", "node0003", "host 'node0003' is listed twice"},
                         Bad{"3,3", "3,3", "listed twice"},
                         Bad{"128", "128", "out of range"},
                         Bad{"node[3-", "node[3-", "'[' without ']'"},
                         Bad{"node[0001-0002]x", "node[0001-0002]x", "after the last ']'"},
                         Bad{"", "", "empty host list"}}) {
    CAPTURE(bad.text);
    auto r = resolve_hosts("hosts", bad.text, names);
    REQUIRE_FALSE(r.ok());
    const std::string m = message_text(r.status());
    CAPTURE(m);
    CHECK(m.starts_with(std::string("hosts=") + bad.value + ":"));
    CHECK(m.find(bad.says) != std::string::npos);
  }
  // Names that repeat cannot index hosts.
  const std::vector<std::string> twice = {"a1", "a2", "a1"};
  auto dup = resolve_hosts("hosts", "a2", twice);
  REQUIRE_FALSE(dup.ok());
  CHECK(message_text(dup.status()).find("names two hosts (0 and 2)") != std::string::npos);
}

TEST_CASE("host_lookup: numeric host names are refused only where ids and names disagree") {
  const auto d = descriptor_of("rail_fat_tree:hosts=40");
  // {host}: name k is host k, so both readings agree.
  const auto same = NodeNamer::parse("{host}")->names(d);
  auto agree = resolve_hosts("hosts", "3,5", same);
  REQUIRE(agree.ok());
  CHECK(values(*agree) == std::vector<int32_t>{3, 5});
  // {host+1}: "3" is host 3 as an id and host 2 as a name.
  const auto shifted = NodeNamer::parse("{host+1}")->names(d);
  auto clash = resolve_hosts("hosts", "3", shifted);
  REQUIRE_FALSE(clash.ok());
  CHECK(message_text(clash.status()).starts_with("hosts=3: ambiguous"));
  // "0" is no name there (names start at 1): only the id reading exists.
  auto only_id = resolve_hosts("hosts", "0", shifted);
  REQUIRE(only_id.ok());
  CHECK(values(*only_id) == std::vector<int32_t>{0});
  // "40" is no id of 40 hosts, but the name of host 39: only the name reading exists.
  auto only_name = resolve_hosts("hosts", "40", shifted);
  REQUIRE(only_name.ok());
  CHECK(values(*only_name) == std::vector<int32_t>{39});
  // Neither reading: the id error.
  auto neither = resolve_hosts("hosts", "41", shifted);
  REQUIRE_FALSE(neither.ok());
  CHECK(message_text(neither.status()).find("out of range") != std::string::npos);
}

}  // namespace railyard_test_topology_host_lookup_test
