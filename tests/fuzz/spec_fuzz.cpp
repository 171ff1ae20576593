// Fuzz targets for the text that describes a cluster and names its hosts:
// cluster spec strings (topology/parse_cluster.hpp) and host names, both Slurm
// hostlist expressions (io/hostlist.hpp) and node-name patterns
// (io/node_names.hpp).
//
// Each accepted input is checked against a second, independent reading: the
// spec's values are read back from the text by a minimal key=value splitter
// here, hostlist sizes are counted from the bracket ranges without expanding,
// pattern names are rendered here from the pattern; and against what another
// code path computes from the same value: the closed-form path counts of a
// descriptor against route enumeration and against the materialized Fabric,
// the inventory's counts and bisection against the graph.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../support/hostlist_expand.hpp"
#include "fuzz_target.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/core/hostlist.hpp"
#include "railyard/topology/host_lookup.hpp"
#include "railyard/topology/node_names.hpp"
#include "railyard/topology/cluster_spec.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"
#include "railyard/topology/inventory.hpp"
#include "railyard/topology/parse_cluster.hpp"
#include "railyard/topology/shape.hpp"

// Everything in this file is in its own namespace: the fuzz targets compile in
// one unity batch (tests/fuzz/CMakeLists.txt).
namespace railyard_fuzz_spec_fuzz {

namespace {

using railyard::fuzz::contains;
using railyard::fuzz::decimal;
using railyard::fuzz::kMaxInput;
using railyard::fuzz::message;

using railyard::HostId;
using railyard::NicIndex;
using railyard::NicPort;
using railyard::NodeId;
using railyard::PlaneId;
using railyard::Ratio;
using railyard::topology::ClosShape;
using railyard::topology::ClusterDescriptor;
using railyard::topology::ClusterSpec;



// A deterministic stream of numbers derived from the input (FNV-1a, then an LCG):
// samples the same port pairs every time the same input runs.
class Sampler {
 public:
  explicit Sampler(std::string_view input) {
    for (unsigned char c : input) state_ = (state_ ^ c) * 1099511628211ull;
  }
  uint64_t next(uint64_t bound) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return bound == 0 ? 0 : (state_ >> 17) % bound;
  }

 private:
  uint64_t state_ = 14695981039346656037ull;
};

// ---------------------------------------------------------------------------
// cluster_spec
// ---------------------------------------------------------------------------

// The spec keys by the ClusterSpec field they set (docs/cluster-spec.md#keys).
constexpr std::pair<std::string_view, int32_t ClusterSpec::*> kIntegerKeys[] = {
    {"hosts", &ClusterSpec::hosts},
    {"gpus_per_host", &ClusterSpec::gpus_per_host},
    {"nics_per_host", &ClusterSpec::nics_per_host},
    {"nic_gbps", &ClusterSpec::nic_gbps},
    {"hosts_per_su", &ClusterSpec::hosts_per_su},
    {"switch_radix", &ClusterSpec::switch_radix},
    {"tiers", &ClusterSpec::tiers},
    {"sus_per_pod", &ClusterSpec::sus_per_pod},
    {"scale_up", &ClusterSpec::scale_up},
    {"nvlink_gbps", &ClusterSpec::nvlink_gbps},
    {"planes", &ClusterSpec::planes},
    {"host_leaf_m", &ClusterSpec::host_leaf_m},
    {"leaf_spine_m", &ClusterSpec::leaf_spine_m},
    {"spine_core_m", &ClusterSpec::spine_core_m},
};
// The documented GPU and CPU names, in the enums' order (docs/cluster-spec.md#keys).
constexpr std::string_view kGpuNames[] = {"h100", "h200", "b200", "b300", "gb200", "gb300", "a100"};
constexpr std::string_view kCpuNames[] = {"intel", "amd", "grace"};
constexpr std::pair<std::string_view, Ratio ClusterSpec::*> kRatioKeys[] = {
    {"oversub", &ClusterSpec::oversub},
    {"pod_oversub", &ClusterSpec::pod_oversub},
};

// Reads each written key back from the text and compares it with the parsed
// spec; keys not written must hold their defaults (docs/cluster-spec.md#keys).
void check_values_as_written(std::string_view text, const ClusterSpec& spec) {
  for (const auto& preset : railyard::topology::kPresets)
    if (text == preset.name) {
      auto expanded = railyard::topology::parse_cluster(preset.spec);
      RAILYARD_FUZZ_CHECK(expanded.ok() && *expanded == spec, "a preset is its spec string");
      return;
    }
  const size_t colon = text.find(':');
  RAILYARD_FUZZ_CHECK(text.substr(0, colon) == railyard::topology::to_string(spec.kind),
                      "the kind is the text before ':'");
  ClusterSpec expected;  // the documented defaults
  expected.kind = spec.kind;
  std::set<std::string_view> keys;
  const std::string_view body = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  auto integer = [](std::string_view value) {
    auto v = decimal(value);
    RAILYARD_FUZZ_CHECK(v.has_value(), "an accepted integer value is plain digits");
    return static_cast<int32_t>(*v);
  };
  auto ratio = [](std::string_view value) {
    const size_t c = value.find(':');
    auto down = decimal(value.substr(0, c));
    auto up =
        c == std::string_view::npos ? std::optional<int64_t>(1) : decimal(value.substr(c + 1));
    RAILYARD_FUZZ_CHECK(down && up && *down >= *up && *up >= 1, "an accepted ratio is down:up");
    const int64_t g = std::gcd(*down, *up);
    return Ratio{static_cast<int32_t>(*down / g), static_cast<int32_t>(*up / g)};
  };
  if (!body.empty())
    for (std::string_view item : railyard::split(body, ',')) {
      const size_t eq = item.find('=');
      RAILYARD_FUZZ_CHECK(eq != std::string_view::npos && eq > 0 && eq + 1 < item.size(),
                          "every accepted item is key=value");
      const std::string_view key = item.substr(0, eq);
      const std::string_view value = item.substr(eq + 1);
      RAILYARD_FUZZ_CHECK(keys.insert(key).second, "no key accepted twice");
      bool known = false;
      for (const auto& [name, field] : kIntegerKeys)
        if (key == name) {
          expected.*field = integer(value);
          known = true;
        }
      for (const auto& [name, field] : kRatioKeys)
        if (key == name) {
          expected.*field = ratio(value);
          known = true;
        }
      if (key == "switch_layout") {
        RAILYARD_FUZZ_CHECK(value == "reference" || value == "vms", "a documented layout");
        expected.switch_layout = value == "vms" ? railyard::topology::SwitchLayout::kVms
                                                : railyard::topology::SwitchLayout::kReference;
        known = true;
      }
      for (size_t i = 0; i < std::size(kGpuNames); ++i)
        if (key == "gpu" && value == kGpuNames[i]) {
          expected.gpu = static_cast<railyard::topology::GpuModel>(i);
          known = true;
        }
      for (size_t i = 0; i < std::size(kCpuNames); ++i)
        if (key == "cpu" && value == kCpuNames[i]) {
          expected.cpu = static_cast<railyard::topology::CpuModel>(i);
          known = true;
        }
      RAILYARD_FUZZ_CHECK(known, "only documented keys are accepted");
    }
  RAILYARD_FUZZ_CHECK(keys.count("hosts") == 1, "hosts is required");
  // A Grace superchip's CPU is Grace unless written (and only Grace is accepted).
  if (keys.count("cpu") == 0 && (expected.gpu == railyard::topology::GpuModel::kGb200 ||
                                 expected.gpu == railyard::topology::GpuModel::kGb300))
    expected.cpu = railyard::topology::CpuModel::kGrace;
  if (keys.count("scale_up") == 0) expected.scale_up = expected.gpus_per_host;
  // A one-tier cluster is one SU: hosts_per_su defaults to hosts.
  if (keys.count("hosts_per_su") == 0 && expected.tiers == 1) expected.hosts_per_su = expected.hosts;
  RAILYARD_FUZZ_CHECK(spec == expected, "the spec holds the values written, defaults elsewhere");
}

// The defining properties of the shape (shape.hpp's construction), in closed form.
void check_shape(const ClusterSpec& s, const ClosShape& c) {
  const bool tor = s.kind == railyard::topology::Kind::kTorFatTree;
  // A partial last SU or pod holds the remainder (shape.hpp): at least one, at most a full one.
  RAILYARD_FUZZ_CHECK(int64_t{c.sus - 1} * s.hosts_per_su < s.hosts &&
                          s.hosts <= int64_t{c.sus} * s.hosts_per_su,
                      "SUs cover the hosts, the last one partial at most");
  RAILYARD_FUZZ_CHECK(int64_t{c.pods - 1} * c.sus_per_pod < c.sus &&
                          c.sus <= int64_t{c.pods} * c.sus_per_pod,
                      "pods cover the SUs, the last one partial at most");
  if (s.tiers == 1) RAILYARD_FUZZ_CHECK(s.hosts_per_su == s.hosts, "one tier: no partial SU");
  RAILYARD_FUZZ_CHECK(int64_t{c.hosts_per_domain} * s.gpus_per_host == s.scale_up,
                      "an NVLink domain holds scale_up GPUs");
  if (tor) {
    RAILYARD_FUZZ_CHECK(int64_t{c.hosts_per_leaf} * c.leaves_per_su == s.hosts_per_su,
                        "ToR leaves tile an SU");
    RAILYARD_FUZZ_CHECK(c.leaf_down_ports == c.hosts_per_leaf * s.nics_per_host);
  } else {
    RAILYARD_FUZZ_CHECK(c.leaves_per_su == s.nics_per_host, "one leaf per rail and SU");
    RAILYARD_FUZZ_CHECK(c.leaf_down_ports == s.hosts_per_su, "a rail leaf takes its whole SU");
  }
  RAILYARD_FUZZ_CHECK(int64_t{c.leaf_down_ports} + c.leaf_up_ports <= s.switch_radix,
                      "a leaf fits its radix");
  if (c.leaf_up_ports == 0) {
    RAILYARD_FUZZ_CHECK(c.leaves_per_pod == 1 && c.pods == 1, "only a lone leaf has no uplinks");
    return;
  }
  RAILYARD_FUZZ_CHECK(
      int64_t{c.leaf_down_ports} * s.oversub.up <= int64_t{c.leaf_up_ports} * s.oversub.down,
      "uplinks honour the leaf oversubscription");
  RAILYARD_FUZZ_CHECK(c.spines_per_pod >= 1 && c.leaf_up_ports >= c.spines_per_pod,
                      "every leaf reaches every spine of its pod");
  RAILYARD_FUZZ_CHECK(
      int64_t{c.spines_per_pod} * c.spine_down_ports >= int64_t{c.leaves_per_pod} * c.leaf_up_ports,
      "every leaf uplink lands on a spine port");
  RAILYARD_FUZZ_CHECK(int64_t{c.spine_down_ports} + c.spine_up_ports <= s.switch_radix,
                      "a spine fits its radix");
  if (c.pods > 1) {
    RAILYARD_FUZZ_CHECK(c.cores_per_group >= 1 && c.spine_up_ports >= c.cores_per_group,
                        "every spine reaches every core of its group");
    RAILYARD_FUZZ_CHECK(
        int64_t{c.cores_per_group} * s.switch_radix >= int64_t{c.pods} * c.spine_up_ports,
        "every spine uplink lands on a core port");
  } else {
    RAILYARD_FUZZ_CHECK(c.spine_up_ports == 0 && c.cores_per_group == 0, "one pod: no cores");
  }
}

// A random NIC port of the cluster.
NicPort sample_port(const ClusterDescriptor<>& d, Sampler& sampler) {
  return {HostId{static_cast<int32_t>(sampler.next(static_cast<uint64_t>(d.hosts())))},
          NicIndex{static_cast<int32_t>(sampler.next(static_cast<uint64_t>(d.nics_per_host())))},
          PlaneId{static_cast<int32_t>(sampler.next(static_cast<uint64_t>(d.planes())))}};
}

// Port pairs to compare path counts on: two fixed far-apart pairs and a few
// sampled ones.
std::vector<std::pair<NicPort, NicPort>> port_pairs(const ClusterDescriptor<>& d,
                                                    std::string_view input) {
  const HostId last{d.hosts() - 1};
  std::vector<std::pair<NicPort, NicPort>> pairs = {
      {{HostId{0}, NicIndex{0}, PlaneId{0}}, {last, NicIndex{0}, PlaneId{0}}},
      {{HostId{0}, NicIndex{0}, PlaneId{0}}, {last, NicIndex{d.nics_per_host() - 1}, PlaneId{0}}},
      {{HostId{0}, NicIndex{0}, PlaneId{0}}, {HostId{d.hosts() / 2}, NicIndex{0}, PlaneId{0}}},
  };
  Sampler sampler(input);
  for (int i = 0; i < 4; ++i) pairs.push_back({sample_port(d, sampler), sample_port(d, sampler)});
  return pairs;
}

// The closed-form path count against its own route enumeration (a separate
// loop over the wiring rule), for pairs where enumerating is cheap.
void check_routes(const ClusterDescriptor<>& d, std::string_view input) {
  const ClosShape& c = d.shape();
  const bool cheap_routes = int64_t{c.leaf_up_ports} * std::max(1, c.spine_up_ports) <= 65536;
  for (const auto& [a, b] : port_pairs(d, input)) {
    const int64_t count = d.path_count(a, b);
    RAILYARD_FUZZ_CHECK(count >= 0 && count == d.path_count(b, a), "path counts are symmetric");
    if (a == b || a.plane != b.plane)
      RAILYARD_FUZZ_CHECK(count == 0, "no path to self or across planes");
    if (!cheap_routes || count > 65536) continue;
    int64_t routes = 0;
    d.for_each_route(a, b, [&](const railyard::topology::Route&) { ++routes; });
    RAILYARD_FUZZ_CHECK(routes == count, "path_count equals the enumerated routes");
  }
}

// Materializes a small cluster and checks the graph against the descriptor and
// the inventory: node and cable counts, per-switch port use within the radix,
// the wiring's reach, path counts, and the bisection.
void check_fabric(const ClusterDescriptor<>& d, std::string_view input) {
  using railyard::topology::LinkTier;
  using railyard::topology::NodeKind;
  using railyard::topology::SwitchTier;
  const ClusterSpec& s = d.spec();
  const ClosShape& c = d.shape();
  const railyard::topology::Fabric f = railyard::topology::materialize(d);
  const railyard::topology::Inventory inv = railyard::topology::inventory(d);

  std::array<int64_t, 6> nodes{};
  std::array<int64_t, 5> cables{};
  for (int32_t n = 0; n < f.node_count(); ++n) ++nodes[static_cast<size_t>(f.kind(NodeId{n}))];
  for (int32_t l = 0; l < f.link_count(); l += 2)
    ++cables[static_cast<size_t>(f.tier(railyard::LinkId{l}))];
  RAILYARD_FUZZ_CHECK(nodes[size_t(NodeKind::kGpu)] == inv.gpus && inv.gpus == s.gpus());
  RAILYARD_FUZZ_CHECK(nodes[size_t(NodeKind::kNicPort)] == inv.nic_ports);
  RAILYARD_FUZZ_CHECK(nodes[size_t(NodeKind::kNvSwitch)] == inv.nvlink_domains);
  RAILYARD_FUZZ_CHECK(nodes[size_t(NodeKind::kLeaf)] == inv.tier(SwitchTier::kLeaf).switches);
  RAILYARD_FUZZ_CHECK(nodes[size_t(NodeKind::kSpine)] == inv.tier(SwitchTier::kSpine).switches);
  RAILYARD_FUZZ_CHECK(nodes[size_t(NodeKind::kCore)] == inv.tier(SwitchTier::kCore).switches);
  RAILYARD_FUZZ_CHECK(cables[size_t(LinkTier::kHostLeaf)] == inv.links_host_leaf);
  RAILYARD_FUZZ_CHECK(cables[size_t(LinkTier::kLeafSpine)] == inv.links_leaf_spine);
  RAILYARD_FUZZ_CHECK(cables[size_t(LinkTier::kSpineCore)] == inv.links_spine_core);
  RAILYARD_FUZZ_CHECK(cables[size_t(LinkTier::kNvlink)] == inv.gpus, "one NVLink per GPU");

  // Port use per switch, counted on the graph: every leaf has exactly its
  // down and up ports, no switch exceeds the radix, every leaf reaches each
  // spine of its pod and every spine each core of its group.
  int64_t most_spine_down = 0;
  for (int32_t n = 0; n < f.node_count(); ++n) {
    const NodeId node{n};
    const NodeKind kind = f.kind(node);
    if (kind != NodeKind::kLeaf && kind != NodeKind::kSpine && kind != NodeKind::kCore) continue;
    int64_t down = 0, up = 0;
    std::set<int32_t> above;
    for (railyard::LinkId l : f.out_links(node)) {
      if (f.level(f.dst(l)) > f.level(node)) {
        ++up;
        above.insert(f.dst(l).value());
      } else {
        ++down;
      }
    }
    RAILYARD_FUZZ_CHECK(down + up <= s.switch_radix, "no switch uses more ports than its radix");
    if (kind == NodeKind::kLeaf) {
      // A leaf of a partial last SU is cabled as a full one but has only the
      // SU's hosts (shape.hpp); a ToR leaf past the last host has none.
      const int32_t leaf = f.owner(node);
      const int32_t su = leaf / c.leaves_per_su % c.sus;
      int64_t hosts_down = c.leaf_down_ports;
      if (s.kind == railyard::topology::Kind::kTorFatTree) {
        const int64_t first = int64_t{leaf % c.leaves_per_su} * c.hosts_per_leaf;
        hosts_down = std::clamp<int64_t>(d.hosts_in_su(su) - first, 0, c.hosts_per_leaf) *
                     s.nics_per_host;
      } else if (d.hosts_in_su(su) < s.hosts_per_su) {
        hosts_down = d.hosts_in_su(su);
      }
      RAILYARD_FUZZ_CHECK(down == hosts_down && up == c.leaf_up_ports,
                          "each leaf has its SU's hosts below and the shape's up ports");
      RAILYARD_FUZZ_CHECK(static_cast<int64_t>(above.size()) == c.spines_per_pod,
                          "each leaf reaches every spine of its pod");
    }
    if (kind == NodeKind::kSpine) {
      most_spine_down = std::max(most_spine_down, down);
      RAILYARD_FUZZ_CHECK(up == c.spine_up_ports, "each spine has the shape's uplinks");
      RAILYARD_FUZZ_CHECK(static_cast<int64_t>(above.size()) == c.cores_per_group,
                          "each spine reaches every core of its group");
    }
  }
  if (c.spines_per_pod > 0)
    RAILYARD_FUZZ_CHECK(most_spine_down == c.spine_down_ports,
                        "spine_down_ports is the busiest spine's down ports");

  // Up/down paths found on the graph (a search over links) against the closed form.
  for (const auto& [a, b] : port_pairs(d, input))
    RAILYARD_FUZZ_CHECK(f.count_paths(f.nic_port(a), f.nic_port(b)) == d.path_count(a, b),
                        "graph path count equals the descriptor's");

  // The inventory's bisection (closed form or a max flow on one plane and
  // partition) against a max flow over the whole graph.
  if (inv.gpus <= 1024 && s.hosts >= 2) {
    const double graph = railyard::topology::fabric_half_cut_gbps(f);
    RAILYARD_FUZZ_CHECK(std::abs(graph - inv.bisection_gbps) <= 1e-6 * std::max(1.0, graph),
                        "bisection equals the max flow across the half cut");
  }
}

// A rejected spec is InvalidArgument and names what to change: a key, the kind,
// or a piece of the text.
void check_spec_rejection(const absl::Status& status, std::string_view text) {
  RAILYARD_FUZZ_CHECK(!status.ok());
  RAILYARD_FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument,
                      "bad specs are InvalidArgument");
  const std::string m = message(status);
  RAILYARD_FUZZ_CHECK(!m.empty());
  for (std::string_view key : railyard::topology::kClusterKeys)
    if (contains(m, key)) return;
  const size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  if (contains(m, "kind") || (!kind.empty() && contains(m, kind))) return;
  const std::string_view body = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  for (std::string_view item : railyard::split(body, ',')) {
    if (!item.empty() && contains(m, item.substr(0, item.find('=')))) return;
    // An empty entry ("a=1,,b=2") has nothing to name but itself: ''.
    if (contains(m, railyard::str_cat("'", item, "'"))) return;
  }
  RAILYARD_FUZZ_CHECK(false, "the error names a key, the kind or the text");
}

}  // namespace

// parse_cluster: errors are InvalidArgument naming the key; an accepted spec
// holds the values written, re-parses from its canonical string, has a shape
// meeting its construction rules, and (when small) a Fabric that agrees with
// its descriptor and inventory.
RAILYARD_FUZZ_TARGET(cluster_spec) {
  if (input.size() > kMaxInput) return;
  auto spec = railyard::topology::parse_cluster(input);
  if (!spec.ok()) {
    check_spec_rejection(spec.status(), input);
    return;
  }
  check_values_as_written(input, *spec);

  const std::string canonical = railyard::topology::to_spec_string(*spec);
  auto again = railyard::topology::parse_cluster(canonical);
  RAILYARD_FUZZ_CHECK(again.ok() && *again == *spec, "the canonical string round-trips");
  RAILYARD_FUZZ_CHECK(railyard::topology::to_spec_string(*again) == canonical,
                      "the canonical string is a fixed point");

  const railyard::topology::ShapeResult shape = railyard::topology::derive_shape(*spec);
  RAILYARD_FUZZ_CHECK(shape.ok(), "parse_cluster returns only specs with a shape");
  check_shape(*spec, shape.shape);
  auto desc = railyard::topology::make_descriptor(*spec);
  RAILYARD_FUZZ_CHECK(desc.ok() && desc->shape().spines_per_pod == shape.shape.spines_per_pod);
  check_routes(*desc, input);

  // Materialize only small clusters: every count below bounds the graph's size.
  const ClosShape& c = shape.shape;
  const int64_t switches = c.total_leaves() + c.total_spines() + c.total_cores();
  const int64_t links = c.leaf_spine_links() + c.spine_core_links();
  if (spec->gpus() <= 4096 && spec->nics() * spec->planes <= 8192 && switches <= 4096 &&
      links <= 65536)
    check_fabric(*desc, input);
}

namespace {

// ---------------------------------------------------------------------------
// host_names: hostlist expressions
// ---------------------------------------------------------------------------

bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t'; }

// The names one item expands to, counted from its bracket ranges (documented
// grammar of hostlist.hpp), or nullopt when the item is malformed.
std::optional<uint64_t> count_item(std::string_view item) {
  uint64_t count = 1;
  size_t pos = 0;
  bool any_group = false;
  for (;;) {
    const size_t open = item.find('[', pos);
    const size_t stray = item.find(']', pos);
    if (open == std::string_view::npos) {
      if (stray != std::string_view::npos) return std::nullopt;  // ']' without '['
      if (any_group && pos != item.size()) return std::nullopt;  // text after the last ']'
      return count;
    }
    if (stray < open) return std::nullopt;
    const size_t close = item.find(']', open);
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view body = item.substr(open + 1, close - open - 1);
    if (contains(body, "[")) return std::nullopt;  // nested
    uint64_t group = 0;
    for (std::string_view part : railyard::split(body, ',')) {
      const size_t dash = part.find('-');
      const std::string_view lo_text = part.substr(0, dash);
      const std::string_view hi_text =
          dash == std::string_view::npos ? lo_text : part.substr(dash + 1);
      // Range numbers are at most 18 digits, leading zeros included (they set the width).
      if (lo_text.size() > 18 || hi_text.size() > 18) return std::nullopt;
      const int64_t lo = decimal(lo_text).value_or(-1);
      const int64_t hi = decimal(hi_text).value_or(-1);
      if (lo < 0 || hi < 0 || lo > hi) return std::nullopt;
      const auto names = static_cast<uint64_t>(hi - lo) + 1;
      if (names > railyard::kMaxHostlistRange) return std::nullopt;
      group += names;
    }
    // Saturate: anything above the library's cap is an error either way.
    count = std::min<uint64_t>(count * group, uint64_t{1} << 40);
    any_group = true;
    pos = close + 1;
  }
}

struct HostlistForecast {
  bool valid = true;
  uint64_t names = 0;  // when valid
  // What the library materializes before it stops: names, and a bound on their
  // bytes (a name is never longer than its item).
  uint64_t work_names = 0;
  uint64_t work_bytes = 0;
};

// Splits on separators outside brackets (an unbalanced bracket makes the rest
// of the text one item, which is then malformed) and counts every item.
HostlistForecast forecast(std::string_view text) {
  HostlistForecast f;
  size_t i = 0;
  while (i < text.size()) {
    if (is_separator(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    int depth = 0;
    while (end < text.size() && (depth > 0 || !is_separator(text[end]))) {
      if (text[end] == '[') ++depth;
      if (text[end] == ']') --depth;
      if (depth < 0 || depth > 1) break;
      ++end;
    }
    if (depth != 0) {
      f.valid = false;
      return f;
    }
    const std::string_view item = text.substr(i, end - i);
    auto n = count_item(item);
    if (!n || f.names + *n > railyard::kMaxHostlistNames) {
      f.valid = false;  // the library checks the size before it expands the item
      return f;
    }
    f.names += *n;
    f.work_names = f.names;
    f.work_bytes += *n * item.size();
    i = end;
  }
  return f;
}

void check_hostlist(std::string_view text) {
  const HostlistForecast expected = forecast(text);
  // Expanding tens of thousands of names (or megabytes of them) is correct but
  // slow; such inputs teach the fuzzer nothing the short ones do not. 2^17 names
  // still reach past the 65536-name range cap.
  if (expected.work_names > (uint64_t{1} << 17) || expected.work_bytes > (uint64_t{1} << 21))
    return;
  auto names = railyard::expand_hostlist(text);
  RAILYARD_FUZZ_CHECK(names.ok() == expected.valid,
                      "accepted exactly when the documented grammar allows");
  if (!names.ok()) {
    RAILYARD_FUZZ_CHECK(names.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string m = message(names.status());
    const std::string_view lead = "hostlist item \"";
    RAILYARD_FUZZ_CHECK(m.starts_with(lead), "the error quotes the item");
    // The item may itself contain '"': try every closing quote.
    bool quoted = false;
    for (size_t q = m.find("\": ", lead.size()); q != std::string::npos && !quoted;
         q = m.find("\": ", q + 1)) {
      const std::string_view item = std::string_view(m).substr(lead.size(), q - lead.size());
      quoted = !item.empty() && contains(text, item);
    }
    RAILYARD_FUZZ_CHECK(quoted, "the quoted item is from the text");
    return;
  }
  RAILYARD_FUZZ_CHECK(names->size() == expected.names, "as many names as the ranges hold");
  if (names->size() <= 4096) {
    auto independent = railyard::testing::expand_hostlist_for_test(std::string(text));
    RAILYARD_FUZZ_CHECK(independent.has_value() && *independent == *names,
                        "the same names as an independent expander");
  }
  for (const std::string& name : *names)
    RAILYARD_FUZZ_CHECK(!name.empty() && name.find_first_of(",[] \t") == std::string::npos,
                        "expanded names are compressible");
  const std::string compressed = railyard::compress_hostlist(*names);
  auto back = railyard::expand_hostlist(compressed);
  RAILYARD_FUZZ_CHECK(back.ok() && *back == *names, "compress then expand gives the names back");
  RAILYARD_FUZZ_CHECK(compressed.size() <= railyard::join(*names, ",").size(),
                      "never longer than the names listed");
}

// ---------------------------------------------------------------------------
// host_names: node-name patterns
// ---------------------------------------------------------------------------

// Clusters of different shapes for the patterns: several SUs, multi-host
// NVLink domains, pods, a single host.
constexpr std::array<std::string_view, 5> kNamingClusters = {
    "rail_fat_tree:hosts=64",
    "gb200-nvl72-576",
    "rail_fat_tree:hosts=256,hosts_per_su=8,nics_per_host=1,switch_radix=16,tiers=3,sus_per_pod=2",
    "tor_fat_tree:hosts=12,hosts_per_su=4",
    "rail_fat_tree:hosts=1,hosts_per_su=1",
};

struct PatternPiece {
  std::string literal;
  int field = 0;       // index into NodeNamer::kFieldNames
  size_t width = 0;    // 0: unpadded
  int64_t offset = 0;  // {field+N}
};
struct Pattern {
  std::vector<PatternPiece> pieces;
  std::string tail;
};

bool host_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

// The pattern grammar of node_names.hpp, read independently.
std::optional<Pattern> read_pattern(std::string_view text) {
  Pattern p;
  std::string literal;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      if (!host_name_char(text[i])) return std::nullopt;
      literal += text[i];
      continue;
    }
    const size_t close = text.find('}', i);
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view body = text.substr(i + 1, close - i - 1);
    const size_t colon = body.find(':');
    PatternPiece piece{literal, -1, 0, 0};
    std::string_view field = body.substr(0, colon);
    if (const size_t plus = field.find('+'); plus != std::string_view::npos) {
      const std::string_view n = field.substr(plus + 1);
      if (n.empty() || n.size() > 10) return std::nullopt;
      for (char c : n) {
        if (c < '0' || c > '9') return std::nullopt;
        piece.offset = piece.offset * 10 + (c - '0');
      }
      if (piece.offset > 1'000'000'000) return std::nullopt;
      field = field.substr(0, plus);
    }
    const auto& names = railyard::topology::NodeNamer::kFieldNames;
    for (size_t f = 0; f < names.size(); ++f)
      if (field == names[f]) piece.field = static_cast<int>(f);
    if (piece.field < 0) return std::nullopt;
    if (colon != std::string_view::npos) {
      const std::string_view w = body.substr(colon + 1);
      if (w.size() < 2 || w.size() > 3 || w[0] != '0') return std::nullopt;
      auto width = decimal(w.substr(1));
      if (!width || *width < 1 || *width > 12) return std::nullopt;
      piece.width = static_cast<size_t>(*width);
    }
    p.pieces.push_back(std::move(piece));
    literal.clear();
    i = close;
  }
  if (p.pieces.empty()) return std::nullopt;
  p.tail = literal;
  return p;
}

// Placeholder values from the spec alone (host ids are SU-major).
std::array<int64_t, 5> field_values(const ClusterDescriptor<>& d, int32_t h) {
  const int64_t su = h / d.spec().hosts_per_su;
  return {h, su, su / d.shape().sus_per_pod, h % d.spec().hosts_per_su,
          h / d.shape().hosts_per_domain};
}

void check_node_names(const ClusterDescriptor<>& d, std::string_view text) {
  auto namer = railyard::topology::NodeNamer::parse(text);
  const std::optional<Pattern> pattern = read_pattern(text);
  RAILYARD_FUZZ_CHECK(namer.ok() == pattern.has_value(),
                      "accepted exactly when the documented grammar allows");
  if (!namer.ok()) {
    RAILYARD_FUZZ_CHECK(namer.status().code() == absl::StatusCode::kInvalidArgument);
    RAILYARD_FUZZ_CHECK(
        message(namer.status()).starts_with(railyard::str_cat("node_pattern=", text)),
        "the error names node_pattern and the pattern");
    return;
  }
  // Widest value of each piece over the cluster (brute force over the hosts).
  std::vector<size_t> widest(pattern->pieces.size(), 0);
  for (int32_t h = 0; h < d.hosts(); ++h) {
    const auto v = field_values(d, h);
    for (size_t k = 0; k < pattern->pieces.size(); ++k) {
      const PatternPiece& p = pattern->pieces[k];
      widest[k] = std::max(widest[k],
                           railyard::str_cat(v[static_cast<size_t>(p.field)] + p.offset).size());
    }
  }
  bool all_padded = true;
  for (const PatternPiece& p : pattern->pieces) all_padded = all_padded && p.width > 0;

  const std::vector<std::string> names = namer->names(d);
  RAILYARD_FUZZ_CHECK(static_cast<int32_t>(names.size()) == d.hosts(), "one name per host");
  std::vector<std::vector<int64_t>> tuples;  // placeholder values, in pattern order
  for (int32_t h = 0; h < d.hosts(); ++h) {
    const auto v = field_values(d, h);
    std::string expected;
    std::vector<int64_t> tuple;
    for (size_t k = 0; k < pattern->pieces.size(); ++k) {
      const PatternPiece& p = pattern->pieces[k];
      const auto f = static_cast<size_t>(p.field);
      std::string digits = railyard::str_cat(v[f] + p.offset);
      if (p.width > 0) {
        const size_t width = std::max(p.width, widest[k]);
        digits.insert(0, width - std::min(width, digits.size()), '0');
      }
      expected += p.literal + digits;
      tuple.push_back(v[f]);
    }
    expected += pattern->tail;
    tuples.push_back(tuple);
    RAILYARD_FUZZ_CHECK(names[static_cast<size_t>(h)] == expected, "the name the pattern spells");
    RAILYARD_FUZZ_CHECK(namer->name(d, HostId{h}) == expected);
  }
  const std::set<std::string> distinct(names.begin(), names.end());
  const absl::Status unique = namer->check(d);
  RAILYARD_FUZZ_CHECK(unique.ok() == (distinct.size() == names.size()),
                      "check() fails exactly when two hosts share a name");
  if (!unique.ok()) RAILYARD_FUZZ_CHECK(message(unique).starts_with("node_pattern="));

  // Fully padded patterns give fixed-width fields: names sort like the values.
  if (all_padded) {
    std::vector<int32_t> by_name(names.size()), by_value(names.size());
    std::iota(by_name.begin(), by_name.end(), 0);
    std::iota(by_value.begin(), by_value.end(), 0);
    std::sort(by_name.begin(), by_name.end(), [&](int32_t a, int32_t b) {
      return std::pair(names[size_t(a)], a) < std::pair(names[size_t(b)], b);
    });
    std::sort(by_value.begin(), by_value.end(), [&](int32_t a, int32_t b) {
      return std::pair(tuples[size_t(a)], a) < std::pair(tuples[size_t(b)], b);
    });
    RAILYARD_FUZZ_CHECK(by_name == by_value, "padded names sort in placeholder-value order");
  }

  // The names go into Slurm files as hostlists: they must survive compression.
  const std::string compressed = railyard::compress_hostlist(names);
  auto back = railyard::expand_hostlist(compressed);
  RAILYARD_FUZZ_CHECK(back.ok() && *back == names, "node names round-trip through a hostlist");

  // --hosts by name: the compressed list resolves to every host in id order,
  // or (numeric names only) is refused as ambiguous, never to other hosts.
  if (unique.ok()) {
    auto ids = railyard::topology::resolve_hosts("hosts", compressed, names);
    if (ids.ok()) {
      bool in_order = static_cast<int32_t>(ids->size()) == d.hosts();
      for (size_t i = 0; in_order && i < ids->size(); ++i)
        in_order = (*ids)[i].value() == static_cast<int32_t>(i);
      RAILYARD_FUZZ_CHECK(in_order, "a hostlist of every name resolves to ids 0..n-1");
    } else {
      RAILYARD_FUZZ_CHECK(message(ids.status()).find("ambiguous") != std::string::npos,
                          "resolving the cluster's own names fails only as ambiguous");
    }
  }
}

}  // namespace

// Host names. The first byte picks the mode: even -> the rest is a Slurm
// hostlist expression; odd -> the rest is a node-name pattern applied to one of
// kNamingClusters (picked by the byte's upper bits).
RAILYARD_FUZZ_TARGET(host_names) {
  if (input.empty() || input.size() > kMaxInput) return;
  const auto mode = static_cast<unsigned char>(input[0]);
  input.remove_prefix(1);
  if (mode % 2 == 0) {
    check_hostlist(input);
    return;
  }
  static const std::vector<ClusterDescriptor<>> clusters = [] {
    std::vector<ClusterDescriptor<>> out;
    for (std::string_view text : kNamingClusters) {
      auto spec = railyard::topology::parse_cluster(text);
      RAILYARD_FUZZ_CHECK(spec.ok(), "the naming clusters are valid");
      auto desc = railyard::topology::make_descriptor(*spec);
      RAILYARD_FUZZ_CHECK(desc.ok());
      out.push_back(*desc);
    }
    return out;
  }();
  check_node_names(clusters[(mode / 2u) % clusters.size()], input);
}

}  // namespace railyard_fuzz_spec_fuzz
