#include "railyard/export/k8s_labels.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "../support/clusters.hpp"
#include "../support/yaml_lines.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/topology/parse_cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_export_k8s_labels_test {

using namespace railyard;
using railyard::testing::parse_yaml_documents;
using railyard::testing::YamlError;
using railyard::testing::YamlNode;

namespace {

topology::ClusterDescriptor<> cluster(std::string_view spec) {
  return railyard::testing::descriptor_of(spec);
}

using Labels = std::map<std::string, std::string>;

// node name -> labels, from the parsed YAML; every name exactly once, every value quoted.
std::map<std::string, Labels> node_labels(const YamlNode& list) {
  REQUIRE(list.at("apiVersion").str() == "v1");
  REQUIRE(list.at("kind").str() == "List");
  std::map<std::string, Labels> out;
  for (const YamlNode& item : list.at("items").seq) {
    CHECK(item.at("apiVersion").str() == "v1");
    CHECK(item.at("kind").str() == "Node");
    const YamlNode& meta = item.at("metadata");
    const std::string& name = meta.at("name").str();
    CHECK(meta.at("name").quoted);
    CHECK_MESSAGE(!out.count(name), "node listed twice: ", name);
    Labels& labels = out[name];
    for (const auto& [key, value] : meta.at("labels").map) {
      CHECK(value.quoted);
      labels[key] = value.str();
    }
  }
  return out;
}

std::vector<std::string> kueue_levels(const YamlNode& topo, std::string_view api_version) {
  CHECK(topo.at("apiVersion").str() == api_version);
  CHECK(topo.at("kind").str() == "Topology");
  CHECK(topo.at("metadata").at("name").str() == "railyard");
  std::vector<std::string> out;
  for (const YamlNode& level : topo.at("spec").at("levels").seq) {
    CHECK(level.map.size() == 1);
    out.push_back(level.at("nodeLabel").str());
  }
  return out;
}

// The chain of switch names above each host, nearest first, found by scanning
// the tree's member lists (no use of the exporter's own walk).
std::vector<std::vector<std::string>> ancestors(const topology::SwitchTree& tree) {
  std::vector<std::vector<std::string>> out(tree.hosts.size());
  for (size_t h = 0; h < tree.hosts.size(); ++h) {
    int32_t current = -1;
    for (size_t i = 0; i < tree.switches.size(); ++i)
      for (int32_t x : tree.switches[i].hosts)
        if (static_cast<size_t>(x) == h) current = static_cast<int32_t>(i);
    while (current >= 0) {
      out[h].push_back(tree.switches[static_cast<size_t>(current)].name);
      int32_t up = -1;
      for (size_t i = 0; i < tree.switches.size(); ++i)
        for (int32_t c : tree.switches[i].children)
          if (c == current) up = static_cast<int32_t>(i);
      current = up;
    }
  }
  return out;
}

// Kueue's levels must nest: nodes sharing a value at a finer level share the
// value at every coarser level. Checked on the parsed labels.
void check_levels_nest(const std::map<std::string, Labels>& nodes,
                       const std::vector<std::string>& levels) {
  for (size_t fine = 1; fine < levels.size(); ++fine) {
    std::map<std::string, std::string> coarse_of;
    for (const auto& [name, labels] : nodes) {
      const std::string f =
          levels[fine] == "kubernetes.io/hostname" ? name : labels.at(levels[fine]);
      const std::string& c = labels.at(levels[fine - 1]);
      auto [it, inserted] = coarse_of.emplace(f, c);
      CHECK_MESSAGE(it->second == c, levels[fine], "=", f, " under two ", levels[fine - 1]);
    }
  }
}

}  // namespace

TEST_CASE("k8s_labels: every preset, labels match the switch tree and the NVLink domains") {
  for (const auto& preset : topology::kPresets) {
    for (const bool legacy : {false, true}) {
      CAPTURE(preset.name);
      CAPTURE(legacy);
      const auto d = cluster(preset.name);
      auto tree = topology::switch_tree(d, *topology::NodeNamer::parse(topology::kDefaultNodePattern));
      REQUIRE(tree.ok());
      exports::K8sLabelOptions options;
      options.legacy_labels = legacy;
      auto yaml = exports::k8s_labels_yaml(*tree, d, options);
      REQUIRE_MESSAGE(yaml.ok(), yaml.status().message());
      std::vector<YamlNode> docs;
      REQUIRE_NOTHROW(docs = parse_yaml_documents(*yaml));
      REQUIRE(docs.size() == 2);
      const auto nodes = node_labels(docs[0]);
      REQUIRE(nodes.size() == tree->hosts.size());  // each host exactly once

      const auto chains = ancestors(*tree);
      const int tiers = tree->top_level();
      const bool multi_host_domains = d.hosts_per_domain() > 1;
      std::map<std::string, int32_t> domain_of_value;  // label value -> descriptor domain
      std::set<int32_t> domains_seen;
      for (size_t h = 0; h < tree->hosts.size(); ++h) {
        const Labels& labels = nodes.at(tree->hosts[h]);
        const std::vector<std::string>& chain = chains[h];
        REQUIRE(chain.size() == static_cast<size_t>(tiers));
        size_t expected = chain.size() + (multi_host_domains ? 1 : 0);
        if (legacy) expected *= 2;
        CHECK(labels.size() == expected);
        for (size_t t = 0; t < chain.size(); ++t) {
          CHECK(labels.at("fabric.topograph.run/tier-" + std::to_string(t)) == chain[t]);
          if (legacy) {
            const char* legacy_key[] = {"network.topology.nvidia.com/leaf",
                                        "network.topology.nvidia.com/spine",
                                        "network.topology.nvidia.com/core"};
            CHECK(labels.at(legacy_key[t]) == chain[t]);
          }
        }
        CHECK(labels.count("accelerator.topograph.run/domain") == (multi_host_domains ? 1u : 0u));
        if (!multi_host_domains) continue;
        const std::string& value = labels.at("accelerator.topograph.run/domain");
        if (legacy) CHECK(labels.at("network.topology.nvidia.com/accelerator") == value);
        // The label groups exactly the hosts of one descriptor domain: value <-> domain is 1:1.
        const int32_t domain = d.domain_of(HostId{static_cast<int32_t>(h)});
        auto [it, inserted] = domain_of_value.emplace(value, domain);
        CHECK(it->second == domain);
        if (inserted) CHECK(domains_seen.insert(domain).second);
      }
      if (multi_host_domains)
        CHECK(domain_of_value.size() == static_cast<size_t>(d.hosts() / d.hosts_per_domain()));

      // Kueue: coarsest tier first, hostname last, nested, only the new keys.
      const auto levels = kueue_levels(docs[1], "kueue.x-k8s.io/v1beta2");
      REQUIRE(!levels.empty());
      CHECK(levels.back() == "kubernetes.io/hostname");
      std::vector<std::string> tier_levels;
      for (const auto& l : levels)
        if (l.rfind("fabric.topograph.run/tier-", 0) == 0) tier_levels.push_back(l);
      REQUIRE(tier_levels.size() == static_cast<size_t>(tiers));
      for (int t = 0; t < tiers; ++t)
        CHECK(tier_levels[static_cast<size_t>(t)] ==
              "fabric.topograph.run/tier-" + std::to_string(tiers - 1 - t));
      CHECK(std::count(levels.begin(), levels.end(), "accelerator.topograph.run/domain") ==
            (multi_host_domains ? 1 : 0));
      CHECK(levels.size() == static_cast<size_t>(tiers) + (multi_host_domains ? 2 : 1));
      for (const auto& l : levels)
        CHECK(l.find("network.topology.nvidia.com") == std::string::npos);
      check_levels_nest(nodes, levels);
    }
  }
}

TEST_CASE("k8s_labels: NVL72 racks sit between the SU switch and the host in Kueue") {
  const auto d = cluster("gb200-nvl72-576");
  auto tree = topology::switch_tree(d, *topology::NodeNamer::parse(topology::kDefaultNodePattern));
  REQUIRE(tree.ok());
  auto yaml = exports::k8s_labels_yaml(*tree, d);
  REQUIRE(yaml.ok());
  const auto docs = parse_yaml_documents(*yaml);
  const auto levels = kueue_levels(docs[1], "kueue.x-k8s.io/v1beta2");
  CHECK(levels ==
        std::vector<std::string>{"fabric.topograph.run/tier-1", "fabric.topograph.run/tier-0",
                                 "accelerator.topograph.run/domain", "kubernetes.io/hostname"});
  const auto nodes = node_labels(docs[0]);
  CHECK(nodes.at("node0000").at("accelerator.topograph.run/domain") == "nvl0");
  CHECK(nodes.at("node0143").at("accelerator.topograph.run/domain") == "nvl7");
  CHECK(nodes.at("node0143").at("fabric.topograph.run/tier-0") == "su7");
  CHECK(nodes.at("node0143").at("fabric.topograph.run/tier-1") == "spine");
}

TEST_CASE("k8s_labels: domain level placed where it nests, omitted where it straddles") {
  // Four leaves of two hosts under two spines under one core.
  topology::SwitchTree tree;
  tree.hosts = {"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"};
  tree.switches = {{"l0", 1, {}, {0, 1}}, {"l1", 1, {}, {2, 3}}, {"l2", 1, {}, {4, 5}},
                   {"l3", 1, {}, {6, 7}}, {"s0", 2, {0, 1}, {}}, {"s1", 2, {2, 3}, {}},
                   {"c", 3, {4, 5}, {}}};
  auto levels_for = [&](const std::vector<std::string>& domains) {
    auto yaml = exports::k8s_labels_yaml(tree, domains);
    REQUIRE_MESSAGE(yaml.ok(), yaml.status().message());
    return kueue_levels(parse_yaml_documents(*yaml)[1], "kueue.x-k8s.io/v1beta2");
  };
  const std::string t0 = "fabric.topograph.run/tier-0", t1 = "fabric.topograph.run/tier-1",
                    t2 = "fabric.topograph.run/tier-2", dom = "accelerator.topograph.run/domain",
                    host = "kubernetes.io/hostname";
  // A domain per spine (4 hosts): between tier-1 and tier-0.
  CHECK(levels_for({"a", "a", "a", "a", "b", "b", "b", "b"}) ==
        std::vector<std::string>{t2, t1, dom, t0, host});
  // A domain per host pair inside a leaf: above the hostname.
  CHECK(levels_for({"a", "a", "b", "b", "c", "c", "d", "d"}) ==
        std::vector<std::string>{t2, t1, t0, dom, host});
  // One domain over everything, the same partition as the core: below it, as
  // with equal partitions anywhere (the domain is the finer notion).
  CHECK(levels_for({"a", "a", "a", "a", "a", "a", "a", "a"}) ==
        std::vector<std::string>{t2, dom, t1, t0, host});
  // Straddling leaves (h1 and h2 share a domain, different leaves): no level.
  CHECK(levels_for({"a", "b", "b", "c", "d", "d", "e", "e"}) ==
        std::vector<std::string>{t2, t1, t0, host});
  // Only some hosts in a domain: label on those, no level.
  const std::vector<std::string> partial = {"a", "a", "", "", "", "", "", ""};
  CHECK(levels_for(partial) == std::vector<std::string>{t2, t1, t0, host});
  auto yaml = exports::k8s_labels_yaml(tree, partial);
  REQUIRE(yaml.ok());
  const auto nodes = node_labels(parse_yaml_documents(*yaml)[0]);
  CHECK(nodes.at("h0").count(dom) == 1);
  CHECK(nodes.at("h2").count(dom) == 0);
  // No domains at all.
  auto plain = exports::k8s_labels_yaml(tree, {});
  REQUIRE(plain.ok());
  const auto plain_docs = parse_yaml_documents(*plain);
  for (const auto& [name, labels] : node_labels(plain_docs[0])) CHECK(labels.count(dom) == 0);
  CHECK(kueue_levels(plain_docs[1], "kueue.x-k8s.io/v1beta2") ==
        std::vector<std::string>{t2, t1, t0, host});
  // Two spines without a core (two roots), one domain over both: above every tier.
  tree.switches.pop_back();
  CHECK(levels_for({"a", "a", "a", "a", "a", "a", "a", "a"}) ==
        std::vector<std::string>{dom, t1, t0, host});
}

TEST_CASE("k8s_labels: the kubectl script carries the same labels as the YAML") {
  for (const char* name : {"gb200-nvl72-576", "h100-16k-3tier"}) {
    CAPTURE(name);
    const auto d = cluster(name);
    auto tree = topology::switch_tree(d, *topology::NodeNamer::parse("gpu-{su:02}-{slot:03}"));
    REQUIRE(tree.ok());
    const exports::K8sLabelOptions options{.legacy_labels = true};
    auto yaml = exports::k8s_labels_yaml(*tree, d, options);
    auto script = exports::k8s_label_script(*tree, d, options);
    REQUIRE(yaml.ok());
    REQUIRE(script.ok());
    const auto from_yaml = node_labels(parse_yaml_documents(*yaml)[0]);
    std::map<std::string, Labels> from_script;
    std::vector<std::string> order;
    for (std::string_view line : split(*script, '\n')) {
      if (line.empty() || line.front() == '#' || line == "set -eu") continue;
      std::vector<std::string_view> words = split(line, ' ');
      REQUIRE(words.size() >= 5);
      CHECK(words[0] == "kubectl");
      CHECK(words[1] == "label");
      CHECK(words[2] == "node");
      CHECK(words.back() == "--overwrite");
      const std::string node(words[3]);
      CHECK_MESSAGE(!from_script.count(node), node);
      order.push_back(node);
      for (size_t i = 4; i + 1 < words.size(); ++i) {
        const size_t eq = words[i].find('=');
        REQUIRE(eq != std::string_view::npos);
        from_script[node][std::string(words[i].substr(0, eq))] =
            std::string(words[i].substr(eq + 1));
      }
    }
    CHECK(from_script == from_yaml);
    CHECK(order == tree->hosts);  // host order, one line each
    CHECK(script->rfind("#!/bin/sh\n", 0) == 0);
  }
}

TEST_CASE("k8s_labels: same input, same bytes, options reach the Topology object") {
  const auto d = cluster("h100-1024-2to1");
  auto tree = topology::switch_tree(d, *topology::NodeNamer::parse(topology::kDefaultNodePattern));
  REQUIRE(tree.ok());
  auto a = exports::k8s_labels_yaml(*tree, d);
  auto b = exports::k8s_labels_yaml(*tree, d);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == *b);
  exports::K8sLabelOptions options;
  options.kueue_topology_name = "fabric.v1";
  options.kueue_api_version = "kueue.x-k8s.io/v1beta1";
  auto c = exports::k8s_labels_yaml(*tree, d, options);
  REQUIRE(c.ok());
  const auto docs = parse_yaml_documents(*c);
  CHECK(docs[1].at("apiVersion").str() == "kueue.x-k8s.io/v1beta1");
  CHECK(docs[1].at("metadata").at("name").str() == "fabric.v1");
}

TEST_CASE("k8s_labels: invalid names and options are rejected, naming the value") {
  topology::SwitchTree base;
  base.hosts = {"node-a", "node-b"};
  base.switches = {{"leaf0", 1, {}, {0}}, {"leaf1", 1, {}, {1}}, {"spine", 2, {0, 1}, {}}};
  REQUIRE(exports::k8s_labels_yaml(base, {}).ok());
  struct Case {
    const char* what;
    void (*mutate)(topology::SwitchTree&);
    const char* needle;
  };
  const Case cases[] = {
      {"space in switch", [](topology::SwitchTree& t) { t.switches[0].name = std::string("leaf 0"); },
       "switch 'leaf 0'"},
      {"switch too long", [](topology::SwitchTree& t) { t.switches[2].name = std::string(64, 's'); },
       "64 characters"},
      {"switch starts with dash",
       [](topology::SwitchTree& t) { t.switches[1].name = std::string("-l1"); }, "switch '-l1'"},
      {"switch with slash", [](topology::SwitchTree& t) { t.switches[1].name = std::string("l/1"); },
       "'l/1'"},
      {"uppercase host", [](topology::SwitchTree& t) { t.hosts[0] = std::string("Node-A"); },
       "host 'Node-A'"},
      {"underscore host", [](topology::SwitchTree& t) { t.hosts[1] = std::string("node_b"); },
       "host 'node_b'"},
      {"non-ASCII host", [](topology::SwitchTree& t) { t.hosts[1] = std::string("n\xff"); },
       "host 'n\\xff'"},
      {"invalid tree", [](topology::SwitchTree& t) { t.switches[1].hosts.push_back(0); }, "host node-a"},
  };
  for (const Case& c : cases) {
    topology::SwitchTree t = base;
    c.mutate(t);
    auto yaml = exports::k8s_labels_yaml(t, {});
    REQUIRE_MESSAGE(!yaml.ok(), std::string(c.what));
    CHECK_MESSAGE(std::string(yaml.status().message()).find(c.needle) != std::string::npos,
                  std::string(c.what), ": ", yaml.status().message());
    CHECK_FALSE(exports::k8s_label_script(t, {}).ok());
  }
  const std::vector<std::string> bad_domain = {"nvl 0", "nvl 0"};
  auto s = exports::k8s_labels_yaml(base, bad_domain);
  REQUIRE(!s.ok());
  CHECK(std::string(s.status().message()).find("NVLink domain of host node-a 'nvl 0'") !=
        std::string::npos);
  const std::vector<std::string> short_domains = {"a"};
  CHECK_FALSE(exports::k8s_labels_yaml(base, short_domains).ok());
  exports::K8sLabelOptions bad_name;
  bad_name.kueue_topology_name = "Railyard";
  s = exports::k8s_labels_yaml(base, {}, bad_name);
  REQUIRE(!s.ok());
  CHECK(std::string(s.status().message()).find("kueue_topology_name=Railyard") !=
        std::string::npos);
  exports::K8sLabelOptions bad_api;
  bad_api.kueue_api_version = "v1beta2";
  CHECK_FALSE(exports::k8s_labels_yaml(base, {}, bad_api).ok());
  // A descriptor whose host count differs from the tree's.
  CHECK_FALSE(exports::k8s_labels_yaml(base, cluster("h100-1024")).ok());
  // A node pattern that Kubernetes rejects, through the descriptor path.
  const auto d = cluster("h100-1024");
  auto upper = topology::switch_tree(d, *topology::NodeNamer::parse("GPU{host:04}"));
  REQUIRE(upper.ok());
  s = exports::k8s_labels_yaml(*upper, d);
  REQUIRE(!s.ok());
  CHECK(std::string(s.status().message()).find("host 'GPU0000'") != std::string::npos);
}

TEST_CASE("k8s_labels: the test YAML reader rejects what it does not understand") {
  for (const char* bad : {"a: 1\na: 2\n", "a:\n\tb: 1\n", "a: {b: 1}\n", "a: \"x\n", "a: 1",
                          "a:\n  b: 1\n c: 2\n", "- a\nb: 1\n", "a: &x 1\n"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_yaml_documents(bad), YamlError);
  }
  const auto docs = parse_yaml_documents("# c\nk:\n- a: \"1\"\n  b: x\n- c: y\n---\nz:\n  - q\n");
  REQUIRE(docs.size() == 2);
  CHECK(docs[0].at("k").seq.size() == 2);
  CHECK(docs[0].at("k").seq[0].at("a").quoted);
  CHECK(docs[0].at("k").seq[0].at("b").str() == "x");
  CHECK(docs[1].at("z").seq[0].str() == "q");
}

// What Kueue's published CRD accepts, written down here from
// kubernetes-sigs/kueue config/components/crd/bases/kueue.x-k8s.io_topologies.yaml
// (checked at the release tags v0.9.0 ... v0.19.2 and main): the served versions,
// spec.levels required with 1 to 16 items (8 in v1alpha1 before v0.13, so 8 is
// the bound that holds for every release serving v1alpha1), each item an object
// with the one required key nodeLabel of 1 to 316 characters matching the
// pattern below, the levels unique, and kubernetes.io/hostname only as the last
// level (the CRD's x-kubernetes-validations rules).
namespace {
struct KueueCrdFacts {
  const char* version;
  size_t max_levels;
};
constexpr KueueCrdFacts kKueueCrd[] = {{"v1alpha1", 8}, {"v1beta1", 16}, {"v1beta2", 16}};
constexpr const char* kNodeLabelPattern =
    R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$)";

void check_against_kueue_crd(const YamlNode& topo, const KueueCrdFacts& crd) {
  CHECK(topo.at("apiVersion").str() == std::string("kueue.x-k8s.io/") + crd.version);
  CHECK(topo.at("kind").str() == "Topology");
  // Cluster-scoped object: metadata.name only (no namespace).
  CHECK_FALSE(topo.at("metadata").has("namespace"));
  CHECK_FALSE(topo.at("metadata").at("name").str().empty());
  // spec has only `levels` (required).
  REQUIRE(topo.at("spec").map.size() == 1);
  const auto& levels = topo.at("spec").at("levels").seq;
  CHECK(levels.size() >= 1);
  CHECK(levels.size() <= crd.max_levels);
  const std::regex pattern(kNodeLabelPattern);
  std::set<std::string> seen;
  for (size_t i = 0; i < levels.size(); ++i) {
    REQUIRE(levels[i].map.size() == 1);  // nodeLabel, the one (required) property
    const std::string& label = levels[i].at("nodeLabel").str();
    CAPTURE(label);
    CHECK(label.size() >= 1);
    CHECK(label.size() <= 316);
    CHECK(std::regex_match(label, pattern));
    CHECK(seen.insert(label).second);  // "must be unique"
    if (label == "kubernetes.io/hostname") CHECK(i + 1 == levels.size());
  }
}
}  // namespace

TEST_CASE("k8s_labels: the Topology passes Kueue's CRD schema for every version and preset") {
  // The pattern itself rejects what it should (so the check above can fail).
  const std::regex pattern(kNodeLabelPattern);
  CHECK(std::regex_match("fabric.topograph.run/tier-0", pattern));
  CHECK_FALSE(std::regex_match("Fabric.Topograph/tier-0", pattern));  // uppercase prefix
  CHECK_FALSE(std::regex_match("tier-0-", pattern));
  for (const auto& preset : topology::kPresets) {
    const auto d = cluster(preset.name);
    auto tree = topology::switch_tree(d, *topology::NodeNamer::parse(topology::kDefaultNodePattern));
    REQUIRE(tree.ok());
    auto domains = exports::domains_for_tree(*tree, d);
    REQUIRE(domains.ok());
    for (const KueueCrdFacts& crd : kKueueCrd) {
      CAPTURE(preset.name);
      CAPTURE(crd.version);
      exports::K8sLabelOptions options;
      options.kueue_api_version = std::string("kueue.x-k8s.io/") + crd.version;
      auto labeling = exports::k8s_labeling(*tree, *domains, options);
      REQUIRE(labeling.ok());
      // The Topology alone, and as the second document of the combined file.
      const std::string alone = exports::kueue_topology_yaml(*labeling, options);
      const auto alone_docs = parse_yaml_documents(alone);
      REQUIRE(alone_docs.size() == 1);
      check_against_kueue_crd(alone_docs[0], crd);
      CHECK(alone.find(std::string("kueue.x-k8s.io/") + crd.version + " is served by Kueue") !=
            std::string::npos);
      const std::string both = exports::k8s_labels_yaml(*labeling, options);
      // The node labels alone are the first document, byte for byte, the Topology the second.
      CHECK(both.starts_with(exports::k8s_node_labels_yaml(*labeling, options) + "---\n"));
      CHECK(both.ends_with(alone));
      if (d.hosts() > 4096) continue;  // parsing 16k nodes' YAML adds seconds, nothing new
      const auto docs = parse_yaml_documents(both);
      REQUIRE(docs.size() == 2);
      check_against_kueue_crd(docs[1], crd);
      CHECK(parse_yaml_documents(exports::k8s_node_labels_yaml(*labeling, options)).size() == 1);
    }
  }
  exports::K8sLabelOptions old;
  old.kueue_api_version = "kueue.x-k8s.io/v1alpha2";  // never served
  topology::SwitchTree t;
  t.hosts = {"a", "b"};
  t.switches = {{"s0", 1, {}, {0, 1}}};
  auto bad = exports::k8s_labeling(t, {}, old);
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).starts_with("kueue_api_version=kueue.x-k8s.io/v1alpha2:"));
}

}  // namespace railyard_test_export_k8s_labels_test
