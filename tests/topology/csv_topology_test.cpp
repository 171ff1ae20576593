#include "railyard/topology/import/csv_topology.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "railyard/export/csv_topology.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_topology_csv_topology_test {

using namespace railyard;

namespace {

topology::ClusterDescriptor<> cluster(std::string_view spec) {
  return railyard::testing::descriptor_of(spec);
}

}  // namespace

TEST_CASE("csv_topology: comments, blank lines, CRLF, BOM, header, order of first appearance") {
  const std::string text =
      "\xEF\xBB\xBF# dumped from the fabric manager\r\n"
      "host, leaf, spine\r\n"
      "\r\n"
      "n5,leafB,sp1\r\n"
      "  # indented comment\n"
      "n1 ,leafA,sp0\n"
      "n2,leafB,sp1\n"
      "n0,\tleafC ,sp0\n";
  auto tree = topology::csv_topology_from_text(text);
  REQUIRE_MESSAGE(tree.ok(), tree.status().message());
  CHECK(tree->hosts == std::vector<std::string>{"n5", "n1", "n2", "n0"});
  REQUIRE(tree->switches.size() == 5);
  CHECK(tree->switches[0].name == "leafB");
  CHECK(tree->switches[0].hosts == std::vector<int32_t>{0, 2});
  CHECK(tree->switches[1].name == "leafA");
  CHECK(tree->switches[2].name == "leafC");
  CHECK(tree->switches[3].name == "sp1");
  CHECK(tree->switches[3].level == 2);
  CHECK(tree->switches[3].children == std::vector<int32_t>{0});
  CHECK(tree->switches[4].children == std::vector<int32_t>{1, 2});
  CHECK(topology::validate_tree(*tree).ok());
  // Export is canonical: header, host order, no spaces, LF.
  auto csv = exports::csv_topology_from_tree(*tree);
  REQUIRE(csv.ok());
  CHECK(*csv == "host,leaf,spine\nn5,leafB,sp1\nn1,leafA,sp0\nn2,leafB,sp1\nn0,leafC,sp0\n");
  // Four columns, no header, no trailing newline.
  auto four = topology::csv_topology_from_text("a,l0,s0,c\nb,l1,s0,c\nc0,l2,s1,c");
  REQUIRE_MESSAGE(four.ok(), four.status().message());
  CHECK(four->top_level() == 3);
  CHECK(four->switches.back().name == "c");
  CHECK(four->switches.back().children == std::vector<int32_t>{3, 4});
  // Valid non-ASCII UTF-8 names are accepted.
  CHECK(topology::csv_topology_from_text("h\xC3\xA9,l,s\n").ok());
}

TEST_CASE("csv_topology: every preset round-trips tree -> CSV -> tree -> CSV") {
  for (const auto& preset : topology::kPresets) {
    CAPTURE(preset.name);
    const auto d = cluster(preset.name);
    auto tree = topology::switch_tree(d, *topology::NodeNamer::parse("gpu-{su:02}-{slot:03}"));
    REQUIRE(tree.ok());
    auto csv = exports::csv_topology_from_tree(*tree);
    if (tree->top_level() == 1) {  // one switch: no host,leaf,spine form
      REQUIRE(!csv.ok());
      CHECK(std::string(csv.status().message()).find("switch 'su0'") != std::string::npos);
      continue;
    }
    REQUIRE_MESSAGE(csv.ok(), csv.status().message());
    auto back = topology::csv_topology_from_text(*csv);
    REQUIRE_MESSAGE(back.ok(), back.status().message());
    CHECK((*tree == *back));
    auto again = exports::csv_topology_from_tree(*back);
    REQUIRE(again.ok());
    CHECK(*again == *csv);  // identical bytes
    // Rows: header plus one per host, each with 1 + levels fields.
    const auto lines = split(*csv, '\n');
    CHECK(lines.size() == tree->hosts.size() + 2);  // + header, + "" after the last LF
    CHECK(split(lines[1], ',').size() == static_cast<size_t>(1 + tree->top_level()));
  }
}

TEST_CASE("csv_topology: the Fabric read from CSV has the original's path counts") {
  for (const char* name :
       {"h100-1024-2to1", "h100-1024-tor", "gb200-nvl72-576", "h100-16k-3tier"}) {
    CAPTURE(name);
    const auto d = cluster(name);
    auto tree = topology::switch_tree(d, *topology::NodeNamer::parse(topology::kDefaultNodePattern));
    REQUIRE(tree.ok());
    auto original = topology::fabric_from_tree(*tree, topology::LinkSpeeds{});
    REQUIRE(original.ok());
    auto csv = exports::csv_topology_from_tree(*tree);
    REQUIRE(csv.ok());
    auto imported = topology::fabric_from_csv(*csv, topology::LinkSpeeds{});
    REQUIRE_MESSAGE(imported.ok(), imported.status().message());
    REQUIRE(imported->node_count() == original->node_count());
    REQUIRE(imported->link_count() == original->link_count());
    const int32_t hosts = d.hosts();
    // Every pair for small clusters; a strided sample (hitting every SU and pod) otherwise.
    const int32_t step = hosts <= 160 ? 1 : 37;
    int64_t pairs = 0;
    for (int32_t a = 0; a < hosts; a += step)
      for (int32_t b = (a * 7) % step; b < hosts; b += step) {
        if (a == b) continue;
        CHECK(imported->count_paths(NodeId{a}, NodeId{b}) ==
              original->count_paths(NodeId{a}, NodeId{b}));
        CHECK(imported->node_name(NodeId{a}) == tree->hosts[static_cast<size_t>(a)]);
        ++pairs;
      }
    CHECK(pairs > 1000);
  }
}

TEST_CASE("csv_topology: malformed input names the line and the token") {
  struct Case {
    const char* what;
    std::string text;
    const char* line;
    const char* token;
  };
  const Case cases[] = {
      {"leaf under two spines", "host,leaf,spine\nn0,l0,s0\nn1,l0,s1\n", "line 3:", "leaf=l0:"},
      {"spine under two cores", "n0,l0,s0,c0\nn1,l1,s0,c1\n", "line 2:", "spine=s0:"},
      {"host twice", "n0,l0,s0\n# c\nn0,l1,s0\n", "line 3:", "host=n0: listed twice"},
      {"empty host", "n0,l0,s0\n,l0,s0\n", "line 2:", "host=: empty field"},
      {"empty spine", "n0,l0,s0\nn1,l0,  \n", "line 2:", "spine=:"},
      {"trailing comma", "n0,l0,s0\nn1,l0,s0,\n", "line 2:", "row=n1,l0,s0,:"},
      {"space in name", "host,leaf,spine\nn0,leaf 0,s0\n", "line 2:", "leaf=leaf 0:"},
      {"non-UTF-8 byte", "n0,l0,s0\n\nn\xff,l0,s0\n", "line 3:", "host=n\\xff:"},
      {"truncated UTF-8", "n0,l\xC3,s0\n", "line 1:", "leaf=l\\xc3:"},
      {"overlong UTF-8", "n0,l0,s\xC0\xAF\n", "line 1:", "spine=s\\xc0\\xaf:"},
      {"NBSP inside",
       "n0,l\xC2\xA0"
       "0,s0\n",
       "line 1:", "leaf=l\\xc2\\xa00: contains whitespace or a control character (U+00A0)"},
      {"control char", "n0,l0,s\x01\n", "line 1:", "spine=s\\x01:"},
      {"switch name at two levels", "n0,x,s0\nn1,l1,x\n", "line 2:", "spine=x: already a leaf"},
      {"host named like a switch", "n0,l0,s0\ns0,l1,s0\n", "line 2:", "host=s0: already a spine"},
      {"switch named like a host", "n0,l0,s0\nn1,n0,s0\n", "line 2:", "leaf=n0: already a host"},
      {"leaf named like its own host", "n0,n0,s0\n", "line 1:", "leaf=n0:"},
      {"mixed column counts", "n0,l0,s0\nn1,l1,s0,c0\n", "line 2:", "row=n1,l1,s0,c0:"},
      {"two columns", "# x\nn0,l0\n", "line 2:", "row=n0,l0:"},
      {"five columns", "host,leaf,spine,core,x\n", "line 1:", "row=host,leaf,spine,core,x:"},
      {"header after data", "n0,l0,s0\nhost,leaf,spine\n", "line 2:", "host=host:"},
      {"quoted field", "n0,\"l0\",s0\n", "line 1:", "leaf=\"l0\":"},
      {"header only", "# nothing\nhost,leaf,spine\n\n", "line 4:", "no host rows"},
      {"empty text", "", "line 1:", "no host rows"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    auto tree = topology::csv_topology_from_text(c.text);
    REQUIRE_FALSE(tree.ok());
    const std::string message(tree.status().message());
    CHECK_MESSAGE(message.rfind(c.line, 0) == 0, message);
    CHECK_MESSAGE(message.find(c.token) != std::string::npos, message);
    CHECK_FALSE(topology::fabric_from_csv(c.text, topology::LinkSpeeds{}).ok());
  }
}

TEST_CASE("csv_topology: errors carry the column and the raw token") {
  struct Case {
    std::string text;
    const char* field;
    std::string value;
  };
  const Case cases[] = {
      {"host,leaf,spine\nn0,l0,s0\nn1,l0,s1\n", "leaf", "l0"},
      {"n0,l0,s\x01\n", "spine", "s\x01"},             // raw, though the message says s\x01
      {"n0,l0,s0\r\n\xff,l1,s0\r\n", "host", "\xff"},  // the CR is the line ending
      {"Host,le af,spine\n", "header", "le af"},
      {"n0,l0\t\n", "row", "n0,l0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    auto tree = topology::csv_topology_from_text(c.text);
    REQUIRE_FALSE(tree.ok());
    const auto field = error_field(tree.status());
    REQUIRE(field.has_value());
    CHECK(field->field == c.field);
    CHECK(field->value == c.value);
  }
}

TEST_CASE("csv_topology: trees the CSV form cannot hold are refused on export") {
  topology::SwitchTree base;
  base.hosts = {"a", "b"};
  base.switches = {{"l0", 1, {}, {0}}, {"l1", 1, {}, {1}}, {"top", 2, {0, 1}, {}}};
  REQUIRE(exports::csv_topology_from_tree(base).ok());
  struct Case {
    const char* what;
    void (*mutate)(topology::SwitchTree&);
    const char* needle;
  };
  const Case cases[] = {
      {"host called host", [](topology::SwitchTree& t) { t.hosts[0] = std::string("Host"); },
       "host 'Host'"},
      {"host starting with #", [](topology::SwitchTree& t) { t.hosts[1] = std::string("#b"); },
       "host '#b'"},
      {"comma in switch", [](topology::SwitchTree& t) { t.switches[0].name = std::string("l,0"); },
       "switch 'l,0'"},
      {"space in host", [](topology::SwitchTree& t) { t.hosts[1] = std::string("b b"); }, "host 'b b'"},
      {"host named like a switch", [](topology::SwitchTree& t) { t.hosts[1] = std::string("top"); },
       "host 'top'"},
      {"single level",
       [](topology::SwitchTree& t) {
         t.switches = {{"only", 1, {}, {0, 1}}};
       },
       "switch 'only'"},
      {"leaf without a spine", [](topology::SwitchTree& t) { t.switches[2].children = {0}; },
       "switch 'l1'"},
      {"invalid tree", [](topology::SwitchTree& t) { t.switches[1].hosts.push_back(0); }, "host a"},
  };
  for (const Case& c : cases) {
    topology::SwitchTree t = base;
    c.mutate(t);
    auto csv = exports::csv_topology_from_tree(t);
    REQUIRE_MESSAGE(!csv.ok(), std::string(c.what));
    CHECK_MESSAGE(std::string(csv.status().message()).find(c.needle) != std::string::npos,
                  std::string(c.what), ": ", csv.status().message());
  }
}

}  // namespace railyard_test_topology_csv_topology_test
