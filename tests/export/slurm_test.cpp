#include "railyard/export/slurm.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "../support/hostlist_expand.hpp"
#include "railyard/topology/import/slurm_conf.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_export_slurm_test {

using namespace railyard;
using railyard::topology::NodeNamer;

namespace {

topology::ClusterDescriptor<> cluster(std::string_view spec) {
  return railyard::testing::descriptor_of(spec);
}

const char* const kPatterns[] = {"node{host:04}", "gpu-{su:02}-{slot:03}", "h{host}",
                                 "p{pod:01}-s{su:01}-n{slot:01}"};

std::string message(const absl::Status& s) { return railyard::testing::message_text(s); }

// One `Key=Value Key=Value` line of a generated file, read without railyard's
// parser: names expanded by the test-only expander.
struct TestLine {
  std::map<std::string, std::string> fields;
  std::vector<std::string> expanded;  // of Nodes= or Switches=
};

std::vector<TestLine> read_lines(const std::string& text) {
  std::vector<TestLine> out;
  for (std::string_view line : split(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    TestLine t;
    for (std::string_view field : split(line, ' ')) {
      const size_t eq = field.find('=');
      REQUIRE(eq != std::string_view::npos);
      t.fields[std::string(field.substr(0, eq))] = std::string(field.substr(eq + 1));
    }
    for (const char* key : {"Nodes", "Switches"})
      if (t.fields.count(key)) {
        auto names = testing::expand_hostlist_for_test(t.fields[key]);
        REQUIRE_MESSAGE(names.has_value(), t.fields[key]);
        t.expanded = *names;
      }
    out.push_back(std::move(t));
  }
  return out;
}

int64_t trailing_number(const std::string& name) {
  size_t start = name.size();
  while (start > 0 && is_digit(name[start - 1])) --start;
  return std::stoll(name.substr(start));
}

}  // namespace

TEST_CASE("slurm: slurm-tree puts every host under the leaf the descriptor says") {
  for (const auto& preset : topology::kPresets) {
    const auto d = cluster(preset.name);
    const bool tor = d.kind() == topology::Kind::kTorFatTree;
    const int32_t per_group = tor ? d.shape().hosts_per_leaf : d.hosts_per_su();
    for (const char* pattern : kPatterns) {
      CAPTURE(preset.name);
      CAPTURE(pattern);
      const auto namer = NodeNamer::parse(pattern);
      REQUIRE(namer.ok());
      const auto tree = topology::switch_tree(d, *namer);
      REQUIRE(tree.ok());
      const std::string conf = exports::slurm_topology_conf(*tree);
      CHECK(conf.rfind("# ", 0) == 0);  // a header says what wrote it
      CHECK(conf.find("railyard") != std::string::npos);
      const std::vector<TestLine> lines = read_lines(conf);
      std::map<std::string, int32_t> host_of_name;
      const auto names = namer->names(d);
      for (int32_t h = 0; h < d.hosts(); ++h) host_of_name[names[static_cast<size_t>(h)]] = h;

      std::vector<int> leaf_line_of_host(static_cast<size_t>(d.hosts()), -1);
      std::map<std::string, int> level_of;
      std::map<std::string, int> parents;
      bool above = false;
      for (size_t i = 0; i < lines.size(); ++i) {
        const TestLine& l = lines[i];
        REQUIRE(l.fields.count("SwitchName"));
        const std::string& name = l.fields.at("SwitchName");
        REQUIRE(l.fields.count("Nodes") + l.fields.count("Switches") == 1);
        if (l.fields.count("Nodes")) {
          CHECK_FALSE(above);  // leaves first
          level_of[name] = 1;
          REQUIRE(!l.expanded.empty());
          const int64_t group = trailing_number(name);  // su<N> or leaf<N>
          for (const std::string& host_name : l.expanded) {
            REQUIRE(host_of_name.count(host_name));
            const int32_t h = host_of_name[host_name];
            CHECK(leaf_line_of_host[static_cast<size_t>(h)] == -1);  // exactly one leaf
            leaf_line_of_host[static_cast<size_t>(h)] = static_cast<int>(i);
            CHECK(h / per_group == group);
          }
          CHECK(l.expanded.size() == static_cast<size_t>(per_group));
          CHECK(name.rfind(tor ? "leaf" : "su", 0) == 0);
        } else {
          above = true;
          int child_level = 0;
          for (const std::string& child : l.expanded) {
            REQUIRE(level_of.count(child));  // defined on an earlier line
            if (child_level == 0) child_level = level_of[child];
            CHECK(level_of[child] == child_level);
            ++parents[child];
          }
          level_of[name] = child_level + 1;
          CHECK(level_of[name] <= (d.tiers() == 3 ? 3 : 2));
        }
      }
      for (int line : leaf_line_of_host) CHECK(line >= 0);
      const int top = std::max_element(level_of.begin(), level_of.end(), [](auto& a, auto& b) {
                        return a.second < b.second;
                      })->second;
      for (const auto& [name, level] : level_of) CHECK(parents[name] == (level == top ? 0 : 1));
    }
  }
}

TEST_CASE("slurm: export -> import -> export is byte-identical on every preset") {
  for (const auto& preset : topology::kPresets) {
    const auto d = cluster(preset.name);
    for (const char* pattern : kPatterns) {
      CAPTURE(preset.name);
      CAPTURE(pattern);
      const auto tree = topology::switch_tree(d, *NodeNamer::parse(pattern));
      REQUIRE(tree.ok());
      const std::string conf = exports::slurm_topology_conf(*tree);
      const auto back = topology::slurm_topology_from_conf(conf);
      REQUIRE_MESSAGE(back.ok(), message(back.status()));
      CHECK((*tree == *back));
      CHECK(exports::slurm_topology_conf(*back) == conf);
      CHECK(exports::slurm_topology_conf(*tree) == conf);  // deterministic
    }
    const auto tree = topology::switch_tree(d, *NodeNamer::parse(topology::kDefaultNodePattern));
    const auto fabric = topology::slurm_fabric_from_conf(exports::slurm_topology_conf(*tree), {});
    REQUIRE(fabric.ok());
    CHECK(fabric->node_count() == static_cast<int32_t>(d.hosts() + tree->switches.size()));
    CHECK(fabric->node_name(NodeId{0}) == tree->hosts[0]);
  }
}

TEST_CASE("slurm: import reads uneven trees, comments, continuations, any key case") {
  const std::string conf =
      "# a hand-written file\n"
      "\n"
      "switchname=core switches=\"sp[0-1]\"   # spines last? no: first, any order works\n"
      "SwitchName = sp0 Switches=lf[0-1] LinkSpeed=100\n"
      "SwitchName=sp1 SWITCHES=lf[1-2] linkspeed=0x10\n"  // lf1 under both spines
      "SwitchName=lf0 Nodes=tux[0-3,12,18-20]\n"
      "SwitchName=lf1 \\\n"
      "   Nodes=tux[4-5] LinkSpeed=10k\n"
      "SwitchName=lf2 Nodes=\"tux7 tux6,tux6\"\n";  // duplicates inside a leaf collapse
  const auto tree = topology::slurm_topology_from_conf(conf);
  REQUIRE_MESSAGE(tree.ok(), message(tree.status()));
  REQUIRE(tree->switches.size() == 6);
  CHECK(tree->switches[0].name == "lf0");
  CHECK(tree->switches[0].hosts.size() == 8);
  CHECK(tree->switches[1].hosts.size() == 2);
  CHECK(tree->switches[2].hosts.size() == 2);
  CHECK(tree->switches[3].name == "sp0");
  CHECK(tree->switches[3].level == 2);
  CHECK(tree->switches[4].children == std::vector<int32_t>{1, 2});
  CHECK(tree->switches[5].name == "core");
  CHECK(tree->switches[5].level == 3);
  CHECK(tree->hosts.size() == 12);
  CHECK(tree->hosts[8] == "tux4");
  CHECK(tree->hosts[10] == "tux7");  // first appearance order
  // The re-export is canonical and reads back to the same tree.
  const std::string canonical = exports::slurm_topology_conf(*tree);
  CHECK(canonical.find("SwitchName=lf2 Nodes=tux[7,6]\n") != std::string::npos);
  CHECK(canonical.find("SwitchName=core Switches=sp[0-1]\n") != std::string::npos);
  const auto again = topology::slurm_topology_from_conf(canonical);
  REQUIRE(again.ok());
  CHECK((*tree == *again));
  // The Fabric: lf1 has two uplinks (one per spine).
  const auto fabric = topology::slurm_fabric_from_conf(conf, {.host_gbps = 200});
  REQUIRE(fabric.ok());
  CHECK(fabric->node_count() == 12 + 6);
  // A single leaf with no parent is a valid one-switch cluster.
  const auto flat = topology::slurm_topology_from_conf("SwitchName=only Nodes=n[1-3]");
  REQUIRE(flat.ok());
  CHECK(flat->top_level() == 1);
}

TEST_CASE("slurm: malformed topology.conf is an error naming the line and the token") {
  struct Case {
    const char* what;
    std::string text;
    int line;
    const char* token;
  };
  const std::string ok2 = "SwitchName=l0 Nodes=n[0-1]\nSwitchName=l1 Nodes=n[2-3]\n";
  const Case cases[] = {
      {"unknown switch", ok2 + "SwitchName=top Switches=l[0-2]\n", 3, "Switches=l[0-2]"},
      {"node under two leaves", ok2 + "SwitchName=l2 Nodes=n[3-4]\n", 3, "n3"},
      {"cycle", ok2 + "SwitchName=a Switches=b\nSwitchName=b Switches=a\n", 4, "Switches=a"},
      {"self child", ok2 + "SwitchName=a Switches=a,l0\n", 3, "Switches=a,l0"},
      {"empty switch", ok2 + "SwitchName=e\n", 3, "SwitchName=e"},
      {"empty switch, LinkSpeed only", ok2 + "SwitchName=e LinkSpeed=5\n", 3, "SwitchName=e"},
      {"empty value", ok2 + "SwitchName=x Nodes=\n", 3, "Nodes="},
      {"malformed hostlist", ok2 + "SwitchName=l2 Nodes=n[5-4]\n", 3, "Nodes=n[5-4]"},
      {"unclosed bracket", "SwitchName=l0 Nodes=n[0-1\n", 1, "Nodes=n[0-1"},
      {"suffix after bracket", "# c\nSwitchName=l0 Nodes=n[0-1]-ib\n", 2, "n[0-1]-ib"},
      {"duplicate SwitchName", ok2 + "SwitchName=l0 Nodes=n9\n", 3, "SwitchName=l0"},
      {"unknown key", ok2 + "SwitchName=l2 Nodes=n5 Speed=4\n", 3, "Speed=4"},
      {"both Nodes and Switches", ok2 + "SwitchName=x Nodes=n7 Switches=l0\n", 3, "Switches=l0"},
      {"non-UTF-8", ok2 + "SwitchName=l\xff Nodes=n8\n", 3, "\\xFF"},
      {"truncated UTF-8", "SwitchName=l\xc3", 1, "\\xC3"},
      {"control byte", std::string("SwitchName=l2 Nodes=n\0", 22) + "9\n", 1, "\\x00"},
      {"four levels",
       ok2 + "SwitchName=a Switches=l0\nSwitchName=b Switches=a\nSwitchName=c Switches=b\n", 5,
       "Switches=b"},
      {"not layered", ok2 + "SwitchName=a Switches=l0\nSwitchName=b Switches=a,l1\n", 4,
       "Switches=a,l1"},
      {"block file", "BlockName=b0 Nodes=n[0-3]\nBlockSizes=4\n", 1, "BlockName=b0"},
      {"line not starting with SwitchName", "Nodes=n[0-1] SwitchName=x\n", 1, "Nodes=n[0-1]"},
      {"not Key=Value", ok2 + "SwitchName=l2 Nodes=n5 junk\n", 3, "junk"},
      {"bad LinkSpeed", ok2 + "SwitchName=l2 Nodes=n5 LinkSpeed=fast\n", 3, "LinkSpeed=fast"},
      {"key twice", ok2 + "SwitchName=l2 Nodes=n5 Nodes=n6\n", 3, "Nodes=n6"},
      {"two SwitchNames", ok2 + "SwitchName=l2 Nodes=n5 SwitchName=l3\n", 3, "SwitchName=l3"},
      {"bracket in switch name", ok2 + "SwitchName=l[2] Nodes=n5\n", 3, "SwitchName=l[2]"},
      {"long switch name", ok2 + "SwitchName=" + std::string(65, 's') + " Nodes=n5\n", 3,
       "SwitchName=sss"},
      {"continuation keeps line numbers", ok2 + "SwitchName=l2 \\\n  Nodes=n[9-8]\n", 4,
       "Nodes=n[9-8]"},
      {"include", "Include other.conf\n", 1, "Include"},
      {"unterminated quote", "SwitchName=l0 Nodes=\"n[0-1]\n", 1, "Nodes=\"n[0-1]"},
      {"backslash escape", "SwitchName=l\\#0 Nodes=n1\n", 1, "SwitchName=l\\#0"},
  };
  static_assert(sizeof(cases) / sizeof(cases[0]) >= 15);
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const auto tree = topology::slurm_topology_from_conf(c.text);
    REQUIRE_FALSE(tree.ok());
    const std::string m = message(tree.status());
    CAPTURE(m);
    CHECK(m.find(str_cat("line ", c.line, ":")) != std::string::npos);
    CHECK(m.find(c.token) != std::string::npos);
    CHECK_FALSE(topology::slurm_fabric_from_conf(c.text, {}).ok());
  }
  const auto none = topology::slurm_topology_from_conf("# nothing here\n\n");
  CHECK_FALSE(none.ok());
}

TEST_CASE(
    "slurm: slurm-block blocks are NVLink domains or SUs, BlockSizes power-of-two multiples") {
  for (const auto& preset : topology::kPresets) {
    CAPTURE(preset.name);
    const auto d = cluster(preset.name);
    const auto namer = NodeNamer::parse("gpu-{su:02}-{slot:03}");
    const auto tree = topology::switch_tree(d, *namer);
    REQUIRE(tree.ok());
    const std::string conf = exports::slurm_block_conf(*tree, d);
    CHECK(conf == exports::slurm_block_conf(*tree, d));
    std::map<std::string, int32_t> host_of_name;
    for (int32_t h = 0; h < d.hosts(); ++h) host_of_name[tree->hosts[static_cast<size_t>(h)]] = h;
    const bool by_domain = d.hosts_per_domain() > 1;
    const int32_t base = by_domain ? d.hosts_per_domain() : d.hosts_per_su();
    std::vector<int> seen(static_cast<size_t>(d.hosts()), 0);
    std::vector<int64_t> sizes;
    std::set<std::string> block_names;
    size_t blocks = 0;
    for (const TestLine& l : read_lines(conf)) {
      if (l.fields.count("BlockSizes")) {
        for (std::string_view s : split(l.fields.at("BlockSizes"), ','))
          sizes.push_back(std::stoll(std::string(s)));
        continue;
      }
      REQUIRE(l.fields.count("BlockName"));
      CHECK(block_names.insert(l.fields.at("BlockName")).second);
      CHECK(sizes.empty());  // BlockSizes comes last
      ++blocks;
      REQUIRE(l.expanded.size() == static_cast<size_t>(base));
      const int32_t first = host_of_name.at(l.expanded.front());
      for (const std::string& name : l.expanded) {
        const int32_t h = host_of_name.at(name);
        ++seen[static_cast<size_t>(h)];
        if (by_domain)
          CHECK(d.domain_of(HostId{h}) == d.domain_of(HostId{first}));
        else
          CHECK(d.su_of(HostId{h}) == d.su_of(HostId{first}));
      }
    }
    for (int n : seen) CHECK(n == 1);  // the blocks partition the hosts
    REQUIRE(!sizes.empty());
    CHECK(sizes.front() == base);
    CHECK(sizes.size() <= 16);
    for (size_t k = 0; k < sizes.size(); ++k) CHECK(sizes[k] == int64_t{base} << k);
    CHECK(sizes.back() <= d.hosts());
    CHECK(sizes.back() * 2 > d.hosts());  // every size that fits is listed
    if (preset.name == std::string_view("gb200-nvl72-576")) {
      CHECK(base == 18);
      CHECK(conf.find("BlockSizes=18,36,72,144\n") != std::string::npos);
    }
    if (preset.name == std::string_view("h100-1024"))
      CHECK(conf.find("BlockSizes=32,64,128\n") != std::string::npos);
    const exports::BlockPlan plan = exports::block_plan(d);
    CHECK(plan.blocks.size() == blocks);
    CHECK(plan.base ==
          (by_domain ? exports::BlockPlan::Base::kNvlinkDomain : exports::BlockPlan::Base::kScalableUnit));
  }
}

namespace {

// A tiny line-based reader for the YAML railyard writes: checks that every line
// is `<indent><key>: <value>`, `<indent>- <key>: <value>` or `<indent>- <value>`
// at the indentation its key requires, and collects what it finds.
struct YamlFacts {
  std::vector<std::string> topologies;
  std::vector<std::string> defaults;
  std::map<std::string, std::string> switch_nodes, switch_children;
  std::vector<std::string> switch_order;
  std::map<std::string, std::string> block_nodes;
  std::vector<int64_t> block_sizes;
  std::vector<std::string> errors;
};

YamlFacts read_yaml(const std::string& text) {
  YamlFacts f;
  const std::map<std::string, size_t> indent_of = {
      {"- topology", 0},  {"cluster_default", 2}, {"tree", 2},    {"block", 2},
      {"switches", 4},    {"- switch", 6},        {"nodes", 8},   {"children", 8},
      {"block_sizes", 4}, {"blocks", 4},          {"- block", 6}, {"- <size>", 6}};
  std::string current_switch, current_block, section;
  for (std::string_view line : split(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    std::string_view body = line.substr(indent);
    const bool item = body.rfind("- ", 0) == 0;
    const std::string_view inner = item ? body.substr(2) : body;
    const size_t colon = inner.find(':');
    std::string key =
        std::string(item ? "- " : "") +
        std::string(colon == std::string_view::npos ? "<size>" : inner.substr(0, colon));
    std::string value = colon == std::string_view::npos
                            ? std::string(inner)
                            : std::string(inner.substr(std::min(inner.size(), colon + 2)));
    if (!indent_of.count(key)) {
      f.errors.push_back(str_cat("unknown key in: ", line));
      continue;
    }
    if (indent_of.at(key) != indent) f.errors.push_back(str_cat("bad indentation: ", line));
    if (colon != std::string_view::npos && colon + 1 < inner.size() && inner[colon + 1] != ' ')
      f.errors.push_back(str_cat("no space after colon: ", line));
    if (key == "- topology") f.topologies.push_back(value);
    if (key == "cluster_default") f.defaults.push_back(value);
    if (key == "tree" || key == "block") {
      section = key;
      if (!value.empty()) f.errors.push_back(str_cat("mapping key with a value: ", line));
    }
    if (key == "- switch") {
      current_switch = value;
      f.switch_order.push_back(value);
    }
    if (key == "- block") current_block = value;
    if (key == "nodes" && section == "tree") f.switch_nodes[current_switch] = value;
    if (key == "nodes" && section == "block") f.block_nodes[current_block] = value;
    if (key == "children") f.switch_children[current_switch] = value;
    if (key == "- <size>") f.block_sizes.push_back(std::stoll(value));
  }
  return f;
}

}  // namespace

TEST_CASE("slurm: slurm-yaml has a tree and a block topology, every node once in each") {
  for (const auto& preset : topology::kPresets) {
    for (const char* pattern : {"node{host:04}", "{host}"}) {
      CAPTURE(preset.name);
      CAPTURE(pattern);
      const auto d = cluster(preset.name);
      const auto tree = topology::switch_tree(d, *NodeNamer::parse(pattern));
      REQUIRE(tree.ok());
      const std::string yaml = exports::slurm_topology_yaml(*tree, d);
      CHECK(yaml == exports::slurm_topology_yaml(*tree, d));
      const YamlFacts f = read_yaml(yaml);
      CHECK_MESSAGE(f.errors.empty(), (f.errors.empty() ? "" : f.errors.front()));
      CHECK(f.topologies == std::vector<std::string>{"tree", "block"});
      CHECK(f.defaults == std::vector<std::string>{"true", "false"});
      // Tree: the same switches, in the same order, as topology.conf.
      std::vector<std::string> conf_order;
      for (const TestLine& l : read_lines(exports::slurm_topology_conf(*tree)))
        conf_order.push_back(l.fields.at("SwitchName"));
      CHECK(f.switch_order == conf_order);
      auto unquote = [](std::string s) {
        if (s.size() >= 2 && s.front() == '"') s = s.substr(1, s.size() - 2);
        return s;
      };
      std::map<std::string, int> tree_count, block_count;
      auto expand = [&](const std::string& value) {
        auto names = testing::expand_hostlist_for_test(unquote(value));
        REQUIRE_MESSAGE(names.has_value(), value);
        return *names;
      };
      for (const auto& [sw, nodes] : f.switch_nodes)
        for (const std::string& n : expand(nodes)) ++tree_count[n];
      for (const auto& [b, nodes] : f.block_nodes)
        for (const std::string& n : expand(nodes)) ++block_count[n];
      CHECK(tree_count.size() == tree->hosts.size());
      CHECK(block_count.size() == tree->hosts.size());
      for (const std::string& h : tree->hosts) {
        CHECK(tree_count[h] == 1);
        CHECK(block_count[h] == 1);
      }
      for (const auto& [sw, kids] : f.switch_children)
        for (const std::string& k : expand(kids))
          CHECK(std::find(conf_order.begin(), conf_order.end(), k) != conf_order.end());
      CHECK(f.block_sizes == exports::block_plan(d).block_sizes);
      // Names that YAML would read as numbers are quoted.
      if (std::string_view(pattern) == "{host}") CHECK(yaml.find("nodes: \"") != std::string::npos);
    }
  }
}

}  // namespace railyard_test_export_slurm_test
