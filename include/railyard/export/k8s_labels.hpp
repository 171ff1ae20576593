// railyard/export/k8s_labels.hpp — Kubernetes node labels for a cluster's fabric
// position, in the keys NVIDIA topograph (>= 1.0) writes, and a Kueue
// `Topology` object whose levels are those labels, so that Kueue's
// topology-aware scheduling (TAS) and any pod-affinity rule keyed on the labels
// see the same switch tree railyard plans with.
//
//   auto namer = railyard::topology::NodeNamer::parse(railyard::topology::kDefaultNodePattern);
//   auto tree = railyard::topology::switch_tree(descriptor, *namer);
//   railyard::StatusOr<std::string> yaml =
//       railyard::exports::k8s_labels_yaml(*tree, descriptor, {.legacy_labels = true});
//   // kubectl label commands instead of YAML:
//   railyard::StatusOr<std::string> sh = railyard::exports::k8s_label_script(*tree, descriptor);
//
// Labels per node (each checked at the source named with it):
// * `fabric.topograph.run/tier-N` = the name of the switch N+1 levels above the
//   node: tier-0 is its leaf-level switch (nearest the node),
//   tier-1 its parent, tier-2 the core. One key per switch level the node has
//   above it, so 1 to 3 keys. Source: NVIDIA/topograph pkg/topology/topology.go
//   ("Fabric tier zero is closest to the compute node", KeyFabricTierPrefix =
//   "fabric.topograph.run/tier-"), docs/engines/k8s.md (example: switch s1 ->
//   tier-0, s2 -> tier-1, s3 -> tier-2), CHANGELOG.md [v1.0.0] ("variable,
//   closest-first tiers"; the fixed leaf/spine/core keys were replaced).
// * `accelerator.topograph.run/domain` = the NVLink domain, `nvl<N>` with N
//   zero-padded to the widest domain number (topograph's own docs use `nvl1`
//   as the example value; real deployments carry `<ClusterUUID>.<CliqueID>`,
//   which railyard cannot know). Emitted only for domains that span more than
//   one host (NVL72 racks). An HGX host is its own NVLink domain; topograph
//   writes no accelerator domain for such hosts (its docs, reference/
//   node-labels.md: on non-MNNVL systems the GPU fabric never completes and no
//   clique exists), and a one-host domain would only repeat the hostname.
// * With `legacy_labels`, also the pre-1.0 keys of topograph's k8s engine
//   (pkg/engines/k8s/labeler.go before 1.0): `network.topology.nvidia.com/`
//   `leaf`, `spine`, `core` (tier-0, -1, -2) and `accelerator` (the domain).
// Keys appear in byte order (as kubectl prints them); values are the switch
// names of the SwitchTree.
//
// The Kueue Topology (kubernetes-sigs/kueue apis/kueue/v1beta2/topology_types.go
// and site/content/en/docs/concepts/topology.md): `apiVersion:
// kueue.x-k8s.io/<version>`, set by K8sLabelOptions::kueue_api_version. Which
// Kueue releases serve which version (the CRD,
// config/components/crd/bases/kueue.x-k8s.io_topologies.yaml, at each release
// tag): v1alpha1 in v0.9 to v0.13 (the Topology API appeared in v0.9);
// v1beta1 from v0.14 (storage version in v0.14 and v0.15, still served after);
// v1beta2 from v0.15 (storage version from v0.16). The default, v1beta2, needs
// Kueue >= 0.15; pick v1alpha1 for 0.9 - 0.13. The spec is the same in the
// three (levels of nodeLabel) except that v1alpha1 before v0.13 allows at most
// 8 levels, later releases 16 (railyard writes at most 5).
// `kind: Topology`, `spec.levels[].nodeLabel` ordered coarsest first, 1 to 16
// unique levels, `kubernetes.io/hostname` allowed only as the last level. The
// levels are tier-(T-1) ... tier-0, then `kubernetes.io/hostname` (set by the
// kubelet, not by railyard). The NVLink domain becomes a level where it nests:
// below the nearest tier whose switches each hold whole domains, provided each
// switch of the tier under it lies inside one domain (an NVL72 rack under its
// SU switch: ..., tier-0, domain, hostname). Domains that straddle switches, or
// that only some nodes have, keep their label but get no Kueue level. Kueue
// levels always use the topograph >= 1.0 keys, never the legacy ones.
//
// Names are checked, not rewritten (topograph hashes values longer than 63
// characters; railyard refuses them so the labels stay readable): every label
// value must be a Kubernetes label value (1-63 characters, letters, digits,
// '-', '_', '.', starting and ending with a letter or digit) and every node
// name an RFC 1123 subdomain (lowercase letters, digits, '-', '.') of at most
// 63 characters, since Kueue's hostname level reads the node's
// kubernetes.io/hostname label. Errors name the offending host or switch.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/topology/switch_tree.hpp"
#include "railyard/topology/descriptor.hpp"

namespace railyard::exports {

// Label keys (sources in the header comment).
inline constexpr std::string_view kTopographTierPrefix = "fabric.topograph.run/tier-";
inline constexpr std::string_view kTopographDomainKey = "accelerator.topograph.run/domain";
inline constexpr std::string_view kLegacyAcceleratorKey = "network.topology.nvidia.com/accelerator";
inline constexpr std::array<std::string_view, 3> kLegacyTierKeys = {
    "network.topology.nvidia.com/leaf", "network.topology.nvidia.com/spine",
    "network.topology.nvidia.com/core"};
inline constexpr std::string_view kHostnameKey = "kubernetes.io/hostname";
inline constexpr std::string_view kKueueApiVersion = "kueue.x-k8s.io/v1beta2";
// The Topology API versions some Kueue release serves (see the header comment).
inline constexpr std::array<std::string_view, 3> kKueueTopologyVersions = {"v1alpha1", "v1beta1",
                                                                           "v1beta2"};

struct K8sLabelOptions {
  bool legacy_labels = false;                    // also write network.topology.nvidia.com/* keys
  std::string kueue_topology_name = "railyard";  // metadata.name
  std::string kueue_api_version = std::string(kKueueApiVersion);  // e.g. .../v1beta1
};

// The labels of one node, sorted by key.
struct K8sNodeLabels {
  std::string node;
  std::vector<std::pair<std::string, std::string>> labels;
};

// Everything the YAML and the script are written from.
struct K8sLabeling {
  std::vector<K8sNodeLabels> nodes;       // by host index
  std::vector<std::string> kueue_levels;  // node label keys, coarsest first, hostname last
};

// "fabric.topograph.run/tier-<tier>"; tier 0 is nearest the node.
RAILYARD_LAZY
[[nodiscard]] std::string topograph_tier_key(int tier) {
  return str_cat(kTopographTierPrefix, tier);
}

// NVLink domain name per host: `nvl<N>` (N zero-padded to the widest domain
// number) when a domain spans several hosts, else "" (no domain label; see the
// header comment).
RAILYARD_LAZY
[[nodiscard]] std::vector<std::string> nvlink_domain_names(
    const topology::ClusterDescriptor<>& d) {
  std::vector<std::string> out(static_cast<size_t>(d.hosts()));
  if (d.hosts_per_domain() <= 1) return out;
  const int64_t domains = d.hosts() / d.hosts_per_domain();
  for (int32_t h = 0; h < d.hosts(); ++h)
    out[static_cast<size_t>(h)] = topology::padded_name("nvl", d.domain_of(HostId{h}), domains);
  return out;
}

namespace detail {

// For messages: the name in quotes, bytes outside printable ASCII as \xNN.
RAILYARD_LAZY
std::string k8s_quoted(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      constexpr std::string_view kHex = "0123456789abcdef";
      str_append(out, "\\x", kHex[u >> 4], kHex[u & 15]);
    }
  }
  out += '\'';
  return out;
}

RAILYARD_LAZY
bool k8s_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c);
}

}  // namespace detail

// OK when `value` is a non-empty Kubernetes label value (Kubernetes
// apimachinery validation.IsValidLabelValue: at most 63 characters,
// (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?). `what` names the value's
// owner in the error ("switch", "NVLink domain of host node0003", ...).
RAILYARD_LAZY
[[nodiscard]] Status check_k8s_label_value(std::string_view what,
                                                        std::string_view value) {
  auto fail = [&](std::string_view problem) {
    return invalid_argument_error(str_cat(what, " ", detail::k8s_quoted(value),
                                              ": not a valid Kubernetes label value (", problem,
                                              ")"));
  };
  if (value.empty()) return fail("empty");
  if (value.size() > 63) return fail(str_cat(value.size(), " characters, at most 63"));
  if (!detail::k8s_alnum(value.front()) || !detail::k8s_alnum(value.back()))
    return fail("must start and end with a letter or digit");
  for (const char c : value)
    if (!detail::k8s_alnum(c) && c != '-' && c != '_' && c != '.')
      return fail(str_cat("character ", detail::k8s_quoted(std::string_view(&c, 1)),
                          "; only letters, digits, '-', '_' and '.'"));
  return ok_status();
}

namespace detail {

// Empty when `name` is an RFC 1123 subdomain of at most `max_size` characters
// (Kubernetes apimachinery validation.IsDNS1123Subdomain), else the problem.
RAILYARD_LAZY
std::string dns_subdomain_problem(std::string_view name, size_t max_size) {
  if (name.empty()) return "empty";
  if (name.size() > max_size) return str_cat(name.size(), " characters, at most ", max_size);
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || is_digit(c); };
  for (std::string_view part : split(name, '.')) {
    if (part.empty()) return "empty part between dots";
    if (!lower_alnum(part.front()) || !lower_alnum(part.back()))
      return "each dot-separated part must start and end with a lowercase letter or digit";
    for (const char c : part)
      if (!lower_alnum(c) && c != '-')
        return str_cat("character ", k8s_quoted(std::string_view(&c, 1)),
                       "; only lowercase letters, digits, '-' and '.'");
  }
  return {};
}

}  // namespace detail

// OK when `name` can be a Node name that Kueue's hostname level can use: an
// RFC 1123 subdomain (dot-separated parts of lowercase letters, digits and '-',
// each starting and ending with a letter or digit) of at most 63 characters
// (the kubernetes.io/hostname label value holds it).
RAILYARD_LAZY
[[nodiscard]] Status check_k8s_node_name(std::string_view name) {
  if (std::string problem = detail::dns_subdomain_problem(name, 63); !problem.empty())
    return invalid_argument_error(str_cat(
        "host ", detail::k8s_quoted(name), ": not a valid Kubernetes node name (", problem, ")"));
  return ok_status();
}

namespace detail {

// True when every group of `fine` lies inside one group of `coarse` (per-host
// group ids; -1 = the host has none, which never nests).
RAILYARD_LAZY
bool k8s_nests(const std::vector<int32_t>& fine, const std::vector<int32_t>& coarse) {
  std::map<int32_t, int32_t> outer;
  for (size_t h = 0; h < fine.size(); ++h) {
    if (fine[h] < 0 || coarse[h] < 0) return false;
    auto [it, inserted] = outer.emplace(fine[h], coarse[h]);
    if (!inserted && it->second != coarse[h]) return false;
  }
  return true;
}

}  // namespace detail

// The labels of every host of `tree` and the Kueue levels. `domains` holds the
// NVLink domain name per host ("" = none), or is empty for no domains at all.
// Errors: an invalid tree (validate_tree), a `domains` size other than 0 or the
// host count, an invalid node name, switch name or domain name (naming it),
// invalid Kueue options. Complexity O(hosts x levels).
RAILYARD_LAZY
[[nodiscard]] StatusOr<K8sLabeling> k8s_labeling(const topology::SwitchTree& tree,
                                                              std::span<const std::string> domains,
                                                              const K8sLabelOptions& options) {
  RAILYARD_RETURN_IF_ERROR(topology::validate_tree(tree));
  const size_t hosts = tree.hosts.size();
  if (!domains.empty() && domains.size() != hosts)
    return invalid_argument_error(
        str_cat("NVLink domains given for ", domains.size(), " hosts, the tree has ", hosts));
  if (std::string problem = detail::dns_subdomain_problem(options.kueue_topology_name, 253);
      !problem.empty())
    return invalid_field("kueue_topology_name", options.kueue_topology_name,
                         str_cat("not an RFC 1123 subdomain name (", problem, ")"));
  if (options.kueue_api_version.rfind("kueue.x-k8s.io/", 0) != 0 ||
      std::find(kKueueTopologyVersions.begin(), kKueueTopologyVersions.end(),
                std::string_view(options.kueue_api_version).substr(15)) ==
          kKueueTopologyVersions.end())
    return invalid_field("kueue_api_version", options.kueue_api_version,
                         "expected kueue.x-k8s.io/ then v1alpha1 (Kueue 0.9-0.13), v1beta1 "
                         "(0.14+) or v1beta2 (0.15+)");
  for (const std::string& name : tree.hosts) RAILYARD_RETURN_IF_ERROR(check_k8s_node_name(name));
  for (const auto& sw : tree.switches)
    RAILYARD_RETURN_IF_ERROR(check_k8s_label_value("switch", sw.name));
  for (size_t h = 0; h < domains.size(); ++h)
    if (!domains[h].empty())
      RAILYARD_RETURN_IF_ERROR(
          check_k8s_label_value(str_cat("NVLink domain of host ", tree.hosts[h]), domains[h]));

  // Per host, its switch at each tier (-1: none, for hosts under a shorter branch).
  std::vector<int32_t> parent(tree.switches.size(), -1);
  for (size_t i = 0; i < tree.switches.size(); ++i)
    for (int32_t c : tree.switches[i].children)
      parent[static_cast<size_t>(c)] = static_cast<int32_t>(i);
  const int tiers = tree.top_level();
  std::vector<std::vector<int32_t>> at_tier(static_cast<size_t>(tiers),
                                            std::vector<int32_t>(hosts, -1));
  for (size_t i = 0; i < tree.switches.size(); ++i)
    if (tree.switches[i].level == 1)
      for (int32_t h : tree.switches[i].hosts) {
        int32_t s = static_cast<int32_t>(i);
        for (int t = 0; t < tiers && s >= 0; ++t, s = parent[static_cast<size_t>(s)])
          at_tier[static_cast<size_t>(t)][static_cast<size_t>(h)] = s;
      }

  K8sLabeling out;
  out.nodes.reserve(hosts);
  for (size_t h = 0; h < hosts; ++h) {
    K8sNodeLabels node{tree.hosts[h], {}};
    const bool has_domain = !domains.empty() && !domains[h].empty();
    if (has_domain) node.labels.emplace_back(std::string(kTopographDomainKey), domains[h]);
    for (int t = 0; t < tiers; ++t)
      if (int32_t s = at_tier[static_cast<size_t>(t)][h]; s >= 0)
        node.labels.emplace_back(topograph_tier_key(t), tree.switches[static_cast<size_t>(s)].name);
    if (options.legacy_labels) {
      if (has_domain) node.labels.emplace_back(std::string(kLegacyAcceleratorKey), domains[h]);
      for (int t = 0; t < tiers; ++t)
        if (int32_t s = at_tier[static_cast<size_t>(t)][h]; s >= 0)
          node.labels.emplace_back(std::string(kLegacyTierKeys[static_cast<size_t>(t)]),
                                   tree.switches[static_cast<size_t>(s)].name);
    }
    std::sort(node.labels.begin(), node.labels.end());
    out.nodes.push_back(std::move(node));
  }

  // Kueue levels: tiers coarsest first, the domain where it nests, hostname.
  for (int t = tiers - 1; t >= 0; --t) out.kueue_levels.push_back(topograph_tier_key(t));
  out.kueue_levels.emplace_back(kHostnameKey);
  const bool every_host_has_domain =
      !domains.empty() &&
      std::none_of(domains.begin(), domains.end(), [](const std::string& s) { return s.empty(); });
  if (every_host_has_domain) {
    std::map<std::string_view, int32_t> ids;
    std::vector<int32_t> domain_id(hosts);
    for (size_t h = 0; h < hosts; ++h)
      domain_id[h] = ids.emplace(domains[h], static_cast<int32_t>(ids.size())).first->second;
    std::vector<int32_t> host_id(hosts);
    for (size_t h = 0; h < hosts; ++h) host_id[h] = static_cast<int32_t>(h);
    // The nearest tier holding whole domains (tiers = above every tier).
    int k = 0;
    while (k < tiers && !detail::k8s_nests(domain_id, at_tier[static_cast<size_t>(k)])) ++k;
    const std::vector<int32_t>& below = k == 0 ? host_id : at_tier[static_cast<size_t>(k - 1)];
    if (detail::k8s_nests(below, domain_id)) {
      // Levels are [tier-(T-1) .. tier-0, hostname]: tier-k sits at index T-1-k.
      out.kueue_levels.insert(out.kueue_levels.begin() + (tiers - k),
                              std::string(kTopographDomainKey));
    }
  }
  return out;
}

// The node labels alone, as one YAML document: a comment, then a `kind: List`
// of partial `v1` Node objects (metadata.name and metadata.labels only). Names
// and values are double-quoted so none reads as a YAML number or boolean.
// Apply with `kubectl apply --server-side --field-manager=railyard -f FILE`
// (labels existing nodes; server-side apply would also create stub Nodes for
// names the cluster lacks, so prefer k8s_label_script() when the names are not
// certain).
RAILYARD_LAZY
[[nodiscard]] std::string k8s_node_labels_yaml(const K8sLabeling& labeling,
                                               const K8sLabelOptions& options) {
  std::string out;
  str_append(out,
             "# Kubernetes node labels written by railyard: the fabric position of each node in "
             "the keys of\n# NVIDIA topograph >= 1.0 (fabric.topograph.run/tier-N, N = 0 nearest "
             "the node;\n# accelerator.topograph.run/domain = multi-host NVLink domain)",
             options.legacy_labels ? " and the legacy\n# network.topology.nvidia.com/* keys" : "",
             ".\n# Apply on its own: kubectl apply --server-side --field-manager=railyard -f FILE\n");
  str_append(out, "apiVersion: v1\nkind: List\nitems:\n");
  for (const K8sNodeLabels& node : labeling.nodes) {
    str_append(out, "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: \"", node.node,
               "\"\n    labels:\n");
    for (const auto& [key, value] : node.labels)
      str_append(out, "      ", key, ": \"", value, "\"\n");
  }
  return out;
}

// The Kueue Topology alone, as one YAML document with a comment saying which
// Kueue releases serve its apiVersion. Apply with `kubectl apply -f FILE` once
// Kueue is installed, then name it in a ResourceFlavor's spec.topologyName.
RAILYARD_LAZY
[[nodiscard]] std::string kueue_topology_yaml(const K8sLabeling& labeling,
                                              const K8sLabelOptions& options) {
  const std::string_view version = std::string_view(options.kueue_api_version).substr(15);
  const std::string_view served = version == "v1alpha1"  ? "Kueue 0.9 to 0.13"
                                  : version == "v1beta1" ? "Kueue 0.14 and later"
                                                         : "Kueue 0.15 and later";
  std::string out = str_cat(
      "# Kueue Topology written by railyard: levels are node labels, coarsest first, hostname "
      "last.\n# ",
      options.kueue_api_version, " is served by ", served,
      ". Apply on its own: kubectl apply -f FILE;\n# then set spec.topologyName: ",
      options.kueue_topology_name, " on the ResourceFlavor of these nodes.\n");
  str_append(out, "apiVersion: ", options.kueue_api_version, "\nkind: Topology\nmetadata:\n",
             "  name: \"", options.kueue_topology_name, "\"\nspec:\n  levels:\n");
  for (const std::string& level : labeling.kueue_levels)
    str_append(out, "  - nodeLabel: \"", level, "\"\n");
  return out;
}

// Both documents in one stream, node labels first, separated by `---`: the
// whole file applies with `kubectl apply --server-side -f FILE` (Kueue must be
// installed for the Topology), and each document carries its own comment and
// can be applied alone (k8s_node_labels_yaml, kueue_topology_yaml). Same input,
// same bytes.
RAILYARD_LAZY
[[nodiscard]] std::string k8s_labels_yaml(const K8sLabeling& labeling,
                                                 const K8sLabelOptions& options) {
  return str_cat(k8s_node_labels_yaml(labeling, options), "---\n",
                 kueue_topology_yaml(labeling, options));
}

// The labeling as a POSIX shell script of `kubectl label node NAME k=v ...
// --overwrite` lines, one per node. Names and values need no shell quoting:
// k8s_labeling() admits only [A-Za-z0-9._-] in them. The Kueue Topology is not
// in the script (take it from the YAML).
RAILYARD_LAZY
[[nodiscard]] std::string k8s_label_script(const K8sLabeling& labeling) {
  std::string out =
      "#!/bin/sh\n# Written by railyard: label every node with its fabric position "
      "(NVIDIA topograph >= 1.0 keys).\nset -eu\n";
  for (const K8sNodeLabels& node : labeling.nodes) {
    str_append(out, "kubectl label node ", node.node);
    for (const auto& [key, value] : node.labels) str_append(out, " ", key, "=", value);
    out += " --overwrite\n";
  }
  return out;
}

// k8s_labeling() then the YAML; `domains` as for k8s_labeling().
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> k8s_labels_yaml(
    const topology::SwitchTree& tree, std::span<const std::string> domains,
    const K8sLabelOptions& options = {}) {
  RAILYARD_ASSIGN_OR_RETURN(K8sLabeling labeling, k8s_labeling(tree, domains, options));
  return k8s_labels_yaml(labeling, options);
}

// The NVLink domain names of a tree built from `d` (switch_tree(d, namer));
// fails when the tree's host count differs from d's.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::vector<std::string>> domains_for_tree(
    const topology::SwitchTree& tree, const topology::ClusterDescriptor<>& d) {
  if (static_cast<int64_t>(tree.hosts.size()) != d.hosts())
    return invalid_argument_error(
        str_cat("switch tree has ", tree.hosts.size(), " hosts, the cluster ", d.hosts()));
  return nvlink_domain_names(d);
}

// For a tree built from `d`: the NVLink domains come from the descriptor.
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> k8s_labels_yaml(const topology::SwitchTree& tree,
                                                          const topology::ClusterDescriptor<>& d,
                                                          const K8sLabelOptions& options = {}) {
  RAILYARD_ASSIGN_OR_RETURN(std::vector<std::string> domains, domains_for_tree(tree, d));
  return k8s_labels_yaml(tree, domains, options);
}

// k8s_labeling() then the script; `domains` as for k8s_labeling().
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> k8s_label_script(
    const topology::SwitchTree& tree, std::span<const std::string> domains,
    const K8sLabelOptions& options = {}) {
  RAILYARD_ASSIGN_OR_RETURN(K8sLabeling labeling, k8s_labeling(tree, domains, options));
  return k8s_label_script(labeling);
}

RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> k8s_label_script(const topology::SwitchTree& tree,
                                                           const topology::ClusterDescriptor<>& d,
                                                           const K8sLabelOptions& options = {}) {
  RAILYARD_ASSIGN_OR_RETURN(std::vector<std::string> domains, domains_for_tree(tree, d));
  return k8s_label_script(tree, domains, options);
}

}  // namespace railyard::exports
