// railyard/report/heatmap_svg.hpp — a link-utilization heatmap of a fabric as standalone SVG.
//
// Given one utilization value per directed link (traffic / capacity, from a
// simulator or from counters), heatmap_svg() draws the switch ports of the
// fabric as small coloured cells, lists the hottest ports as text above them,
// and says what the values are and what the darkest colour means, so hot spots,
// idle ports and asymmetric up/down load show at a glance in any browser:
//
//   auto cluster = railyard::topology::make_cluster("h100-1024");
//   std::vector<double> util(static_cast<size_t>(cluster->fabric.link_count()), 0.0);
//   util[static_cast<size_t>(cluster->fabric.leaf_uplink(railyard::SwitchIndex{3}, 1).value())] =
//       0.875;
//   railyard::StatusOr<std::string> svg = railyard::report::heatmap_svg(
//       cluster->fabric, util,
//       {.title = "allreduce, 1024 GPUs",
//        .metric = "average over the run: bytes / (capacity x run time)"});
//   // Write *svg to heatmap.svg and open it; hover a cell for its exact values.
//
// Layout, top-down:
//
//   <title>
//   legend: what the values are (HeatmapOptions::metric), how to read a row,
//           the colour scale and its top, per-link-tier summary, over capacity
//   hottest: the `hottest` busiest switch ports, "1. leaf3 -> spine1 (leaf_spine): 87.5%"
//   core / spine / leaf sections, one row per switch (or per pod: see below)
//
//   leaf3  [][][][] ... [][] | [][][] ... [][]
//          down ports (to hosts)  up ports (to spines)
//
// What a cell is. Rows are switches of kind kLeaf/kSpine/kCore in node-id
// order, labelled with Fabric::node_name(). A row has one cell per cable
// attached to the switch: first its down cables (the switch is the upper end:
// odd link ids leave it), then its up cables, each block ordered by link id; a
// dark bar separates the two blocks. A cell is coloured by the utilization of
// the direction LEAVING the row's switch (the egress of that port: "drawn
// links" below); its <title> tooltip gives both directions and the id of the
// egress link (parallel cables look alike otherwise), e.g.
// "leaf3 -> spine1: 87.5% / back: 12.0% [link 6338]". A NIC's egress toward its
// leaf is drawn only as that port's "back"; when such a link is busier than
// every drawn one, the hottest list says so.
//
// Colour scale (ColorBrewer YlOrRd, lightness decreasing with load): a drawn
// link's utilization u in (0, top] is mapped to u / top and interpolated
// linearly in sRGB between the stops #ffffcc #ffeda0 #fed976 #feb24c #fd8d3c
// #fc4e2a #e31a1c #bd0026 #800026 at 0, 1/8, ..., 1. The top is
// HeatmapOptions::scale_max when set (maps meant to be compared share one),
// else the busiest drawn link within capacity (heatmap_busiest()): the darkest
// red #800026 is always the hottest port, so an ECMP collision at 60 % among
// ports at 30 % shows dark among orange instead of two shades of pale yellow.
// The legend states it ("darkest #800026 = 87.5%: the busiest switch port")
// and labels the scale bar 0 .. top. A value above the top but within capacity
// (a fixed scale) is drawn darkest. u == 0 (unused) is grey #d0d0d0; u > 1
// (over capacity) is dark purple #3f007d whatever the scale, says "(over
// capacity)" in its tooltip and is counted in the legend. The legend also
// summarizes each link tier (host_leaf, leaf_spine, spine_core: directed links
// with a switch at either end): how many carry traffic, their maximum and mean
// utilization. Each section header summarizes its switches' egress links.
//
// The hottest list names the `hottest` (default 10) busiest drawn links, busiest
// first to a millionth (ties: the higher link tier, then the lower link id),
// "rank. src -> dst (tier): u"; the cell of each gets id="hot<rank>" (a merged
// cell: the best rank it covers), so a viewer or a test can find it (rsvg-convert
// --export-id=hot1).
//
// Big fabrics are summarized. A fabric with more than `summarize_above` (256)
// switches in all tiers is drawn one row per GROUP of switches instead of one per
// switch: leaves and spines by pod (three tiers; by scalable unit for leaves of
// two tiers), cores by core group (the cores above spine s of every pod), from the
// fabric's descriptor; a fabric without one (imported) or with groups that are not
// runs of consecutive switches gets bands of consecutive switches. A tier never
// gets more than 32 rows (consecutive groups share a row beyond that). A summary
// cell shows the MAXIMUM at its port position over the row's switches (a hot port
// is never averaged away), and each row ends with "max 87.5% mean 3.1%" over all
// of its switches' egress ports ("idle" when none carries traffic). Sections are
// ordered busiest first (by their hottest port, then by the mean over all their
// ports; ties keep core, spine, leaf), and a tier whose ports are all idle is one
// line ("all idle") with no rows, so busy tiers are never hidden below idle ones.
// h100-16k-3tier (1,280 switches) becomes 16 leaf + 16 spine + 32 core rows, about
// 1,460 px tall when every tier is busy (672 px when only the leaves are);
// h100-128k-3tier 3 x 32 rows, 1,908 px. Smaller fabrics keep one row per switch in reading order
// (core, spine, leaf), where `max_rows` still bands a tier with more switches.
//
// Merging keeps rows narrow: a tier whose switches have more than
// `max_columns` cables is drawn with g consecutive ports per cell in each block
// (the smallest g that fits; each non-empty block keeps at least one cell),
// cell = maximum. Merged cells carry no tooltip of their own; the row's
// <title> names the switches and the merge factors. Output: at most
// tiers * rows * max(max_columns, 2) cells of about 45 bytes (+ ~65 for the
// tooltip of an unmerged cell): h100-1024 (48 switches, 3072 cells) is
// ~0.37 MB, the summarized h100-16k-3tier 55-210 KB, h100-128k-3tier ~0.6 MB.
//
// Geometry is fixed: cells are 8 x 12 px at a 9 x 14 px pitch (one <rect id="c">
// in <defs>, instantiated by <use> per cell so each cell costs ~45 bytes). Every
// row is one line of the output, a <g class="row" id="row-<tier>-<index>">
// whose <use> children are its cells, inside a <g class="tier"
// id="tier-leaf"> (spine, core) section. The document is written by
// report/svg.hpp: standalone SVG 1.1 (XML declaration, xmlns,
// width/height/viewBox), text XML-escaped (invalid UTF-8 and control characters
// become '?'), and bytes that depend only on the input: coordinates are integers
// and percentages have one decimal, '.' whatever the locale.
//
// Errors (absl::InvalidArgumentError): "max_rows=0: must be >= 1" (likewise
// max_columns, summarize_above), "hottest=-1: must be >= 0", "scale_max=-1:
// must be >= 0 and finite", "utilization: 12 values for 40 links",
// "utilization[7]=-0.5: must be >= 0" (also NaN), "utilization[7]=inf: must be
// finite". Cost: O(nodes + links) time, output size as above.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "railyard/core/ids.hpp"
#include "railyard/core/lazy.hpp"
#include "railyard/core/status.hpp"
#include "railyard/core/strings.hpp"
#include "railyard/report/format.hpp"
#include "railyard/report/svg.hpp"
#include "railyard/topology/descriptor.hpp"
#include "railyard/topology/fabric.hpp"

namespace railyard::report {

// What heatmap_svg() draws beyond the data.
struct HeatmapOptions {
  // Printed at the top and used as the document's <title> (XML-escaped).
  std::string title = {};
  // What the values are, printed first in the legend after "values: ", e.g.
  // "average over the run: bytes / (capacity x run time)". Empty: "utilization
  // (traffic / capacity)".
  std::string metric = {};
  // The utilization drawn darkest; 0 = the busiest drawn link within capacity
  // (heatmap_busiest). Set it to give maps meant to be compared one scale.
  double scale_max = 0;
  // Why scale_max is what it is, for the legend (e.g. "the busiest port of
  // either map"); empty: "fixed".
  std::string scale_note = {};
  // Busiest switch ports listed as text above the map (0: no list).
  int32_t hottest = 10;
  // A fabric with more switches is drawn one row per pod or group (overview).
  int32_t summarize_above = 256;
  // Switches per tier shown as individual rows (fabrics not summarized); a
  // tier with more is drawn as bands of consecutive switches (cell = max). >= 1.
  int32_t max_rows = 256;
  // Cells per row shown individually; switches with more cables get consecutive
  // ports merged per cell (cell = max). >= 1.
  int32_t max_columns = 128;
};

namespace detail {

inline constexpr int kHeatmapCellW = 8;
inline constexpr int kHeatmapCellH = 12;
inline constexpr int kHeatmapPitchX = 9;  // 1 px between cells
inline constexpr int kHeatmapPitchY = 14;
inline constexpr int kHeatmapBlockGap = 6;  // extra room for the down | up bar
inline constexpr int kHeatmapMargin = 12;
inline constexpr int kHeatmapCharW = 7;       // generous advance of a 10 px monospace glyph
inline constexpr int kHeatmapTitleCharW = 9;  // ... of a 14 px bold one
inline constexpr int kHeatmapScaleW = 240;
inline constexpr int32_t kHeatmapSummaryRows = 32;  // per tier, summarized fabrics

// YlOrRd, 9 classes, at u = 0, 1/8, ..., 1.
inline constexpr std::array<uint32_t, 9> kHeatmapRamp = {
    0xffffcc, 0xffeda0, 0xfed976, 0xfeb24c, 0xfd8d3c, 0xfc4e2a, 0xe31a1c, 0xbd0026, 0x800026};
inline constexpr uint32_t kHeatmapUnusedRgb = 0xd0d0d0;
inline constexpr uint32_t kHeatmapOverRgb = 0x3f007d;

// The ramp at u in (0, 1] (0: unused grey, > 1: over-capacity purple).
// Precondition: u >= 0 and finite.
RAILYARD_LAZY
uint32_t heatmap_rgb(double u) {
  if (u == 0) return kHeatmapUnusedRgb;
  if (u > 1) return kHeatmapOverRgb;
  const double t = u * 8;
  const int i = std::min(static_cast<int>(t), 7);
  const double f = t - i;
  uint32_t out = 0;
  for (int shift = 16; shift >= 0; shift -= 8) {
    const double a = (kHeatmapRamp[static_cast<size_t>(i)] >> shift) & 0xffu;
    const double b = (kHeatmapRamp[static_cast<size_t>(i) + 1] >> shift) & 0xffu;
    out |= static_cast<uint32_t>(std::lround(a + (b - a) * f)) << shift;
  }
  return out;
}

// A cell's colour on a scale whose darkest colour is `top` (> 0).
RAILYARD_LAZY
uint32_t heatmap_cell_rgb(double u, double top) {
  if (u == 0 || u > 1) return heatmap_rgb(u);
  return heatmap_rgb(std::min(1.0, u / top));
}

RAILYARD_LAZY
int heatmap_text_w(std::string_view s, int char_w = kHeatmapCharW) {
  return static_cast<int>(s.size()) * char_w;
}

// Links of one class that carry traffic (u > 0).
struct HeatmapStats {
  int64_t links = 0;
  int64_t busy = 0;
  int64_t over = 0;
  double max = 0;
  double sum = 0;

  void add(double u) {
    ++links;
    if (u <= 0) return;
    ++busy;
    over += u > 1 ? 1 : 0;
    max = std::max(max, u);
    sum += u;
  }
  [[nodiscard]] std::string text() const {
    std::string s = str_cat(busy, " of ", links, " links carry traffic");
    if (busy > 0)
      str_append(s, "; max ", percent(max), ", mean ", percent(sum / static_cast<double>(busy)),
                 "; ", over, " over capacity");
    return s;
  }
};

RAILYARD_LAZY
std::string_view heatmap_plural(topology::NodeKind k) {
  static constexpr std::string_view kNames[6] = {"GPUs",   "hosts",  "NVLink switches",
                                                 "leaves", "spines", "cores"};
  return kNames[static_cast<size_t>(k)];
}

RAILYARD_LAZY
bool heatmap_is_switch(topology::NodeKind k) {
  return k == topology::NodeKind::kLeaf || k == topology::NodeKind::kSpine ||
         k == topology::NodeKind::kCore;
}

// A link drawn as a cell: one leaving a switch.
RAILYARD_LAZY
bool heatmap_drawn(const topology::Fabric& f, LinkId l) {
  return heatmap_is_switch(f.kind(f.src(l)));
}

// One switch's cables: the links leaving it, down block then up block.
struct HeatmapPorts {
  std::vector<LinkId> down, up;
};

RAILYARD_LAZY
HeatmapPorts heatmap_ports(const topology::Fabric& f, NodeId sw) {
  HeatmapPorts p;
  for (LinkId l : f.out_links(sw)) (topology::Fabric::is_up(l) ? p.up : p.down).push_back(l);
  return p;
}

RAILYARD_LAZY
int32_t heatmap_ceil_div(int32_t a, int32_t b) { return (a + b - 1) / b; }

// One row of a section: switches [first, end) of the section, and its label.
struct HeatmapRow {
  int32_t first = 0, end = 0;
  std::string label;
};

// Bands of `band` consecutive switches.
RAILYARD_LAZY
std::vector<HeatmapRow> heatmap_bands(const topology::Fabric& f, std::span<const NodeId> sws,
                                      int32_t band) {
  std::vector<HeatmapRow> rows;
  const auto n = static_cast<int32_t>(sws.size());
  for (int32_t first = 0; first < n; first += band) {
    HeatmapRow r{first, std::min(n, first + band), f.node_name(sws[static_cast<size_t>(first)])};
    if (r.end - first > 1)
      str_append(r.label, "..", f.node_name(sws[static_cast<size_t>(r.end - 1)]));
    rows.push_back(std::move(r));
  }
  return rows;
}

// The rows of a summarized tier (see the overview): the descriptor's pods or
// groups when each is a run of consecutive switches, else bands; at most
// kHeatmapSummaryRows rows.
RAILYARD_LAZY
std::vector<HeatmapRow> heatmap_summary_rows(const topology::Fabric& f, topology::NodeKind kind,
                                             std::span<const NodeId> sws) {
  using topology::NodeKind;
  const auto n = static_cast<int32_t>(sws.size());
  // Group key of each switch and the group's unit name, from the descriptor.
  std::vector<int32_t> key;
  std::string_view unit = "group";
  if (f.has_descriptor()) {
    const auto& d = f.descriptor();
    const topology::ClosShape& s = d.shape();
    const bool plain = s.planes == 1 && s.partitions == 1;
    int32_t per = 0;  // switches per group, in index order
    if (kind == NodeKind::kLeaf && s.leaves_per_su > 0) {
      if (d.tiers() >= 3 && s.sus_per_pod > 0) {
        per = s.leaves_per_su * s.sus_per_pod;
        unit = plain ? "pod" : "group";
      } else {
        per = s.leaves_per_su;
        unit = s.planes == 1 ? "su" : "group";
      }
    } else if (kind == NodeKind::kSpine && s.spines_per_pod > 0) {
      per = s.spines_per_pod;
      unit = plain && d.tiers() >= 3 ? "pod" : "group";
    } else if (kind == NodeKind::kCore && s.cores_per_group > 0) {
      per = s.cores_per_group;
    }
    if (per > 0) {
      key.reserve(sws.size());
      // Leaves by (plane, pod): a partial last pod (topology/shape.hpp) has fewer
      // than `per` leaves, so the index alone would run into the next plane.
      const bool leaf_pods = kind == NodeKind::kLeaf && d.tiers() >= 3;
      for (NodeId sw : sws)
        key.push_back(leaf_pods ? d.plane_of_leaf(SwitchIndex{f.owner(sw)}) * s.pods +
                                      d.pod_of_leaf(SwitchIndex{f.owner(sw)})
                                : f.owner(sw) / per);
      for (size_t i = 1; i < key.size(); ++i)
        if (key[i] < key[i - 1]) key.clear();  // not runs of consecutive switches
    }
  }
  if (key.empty()) return heatmap_bands(f, sws, heatmap_ceil_div(n, kHeatmapSummaryRows));
  // Runs of equal keys, then consecutive runs merged to fit the row budget.
  std::vector<int32_t> starts;
  for (int32_t i = 0; i < n; ++i)
    if (i == 0 || key[static_cast<size_t>(i)] != key[static_cast<size_t>(i) - 1])
      starts.push_back(i);
  const auto runs = static_cast<int32_t>(starts.size());
  const int32_t per_row = heatmap_ceil_div(runs, kHeatmapSummaryRows);
  std::vector<HeatmapRow> rows;
  for (int32_t r = 0; r < runs; r += per_row) {
    const int32_t last_run = std::min(runs, r + per_row) - 1;
    HeatmapRow row;
    row.first = starts[static_cast<size_t>(r)];
    row.end = last_run + 1 < runs ? starts[static_cast<size_t>(last_run) + 1] : n;
    const int32_t k0 = key[static_cast<size_t>(row.first)];
    const int32_t k1 = key[static_cast<size_t>(row.end) - 1];
    row.label = str_cat(unit, k0);
    if (k1 != k0) str_append(row.label, "-", k1);
    str_append(row.label, " ", f.node_name(sws[static_cast<size_t>(row.first)]));
    if (row.end - row.first > 1)
      str_append(row.label, "..", f.node_name(sws[static_cast<size_t>(row.end) - 1]));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace detail

// The top of heatmap_svg()'s colour scale when HeatmapOptions::scale_max is 0:
// the highest utilization <= 1 of a drawn link (one leaving a leaf, spine or
// core switch); 0 when no such link carries traffic. Values beyond the
// fabric's links are ignored.
RAILYARD_LAZY
[[nodiscard]] double heatmap_busiest(const topology::Fabric& fabric,
                                     std::span<const double> utilization) {
  double top = 0;
  const size_t n = std::min(utilization.size(), static_cast<size_t>(fabric.link_count()));
  for (size_t i = 0; i < n; ++i) {
    const double u = utilization[i];
    if (u > top && u <= 1 && detail::heatmap_drawn(fabric, LinkId{static_cast<int32_t>(i)}))
      top = u;
  }
  return top;
}

// The heatmap of `utilization` (one value per directed link, index = link id,
// traffic / capacity, >= 0; > 1 means over capacity) over the switches of
// `fabric`, as a standalone SVG 1.1 document (layout above). Errors: see the
// overview. Deterministic; O(nodes + links).
RAILYARD_LAZY
[[nodiscard]] StatusOr<std::string> heatmap_svg(const topology::Fabric& fabric,
                                                std::span<const double> utilization,
                                                const HeatmapOptions& options = {}) {
  using topology::Fabric;
  using topology::NodeKind;
  namespace d = detail;

  if (options.max_rows < 1)
    return invalid_argument_error(str_cat("max_rows=", options.max_rows, ": must be >= 1"));
  if (options.max_columns < 1)
    return invalid_argument_error(str_cat("max_columns=", options.max_columns, ": must be >= 1"));
  if (options.summarize_above < 1)
    return invalid_argument_error(
        str_cat("summarize_above=", options.summarize_above, ": must be >= 1"));
  if (options.hottest < 0)
    return invalid_argument_error(str_cat("hottest=", options.hottest, ": must be >= 0"));
  if (!(options.scale_max >= 0) || !std::isfinite(options.scale_max))
    return invalid_argument_error(
        str_cat("scale_max=", options.scale_max, ": must be >= 0 and finite"));
  if (utilization.size() != static_cast<size_t>(fabric.link_count()))
    return invalid_argument_error(str_cat("utilization: ", utilization.size(), " values for ",
                                          fabric.link_count(), " links"));
  for (size_t i = 0; i < utilization.size(); ++i) {
    const double v = utilization[i];
    if (!(v >= 0))
      return invalid_argument_error(str_cat("utilization[", i, "]=", v, ": must be >= 0"));
    if (!std::isfinite(v))
      return invalid_argument_error(str_cat("utilization[", i, "]=", v, ": must be finite"));
  }
  auto util = [&](LinkId l) { return utilization[static_cast<size_t>(l.value())]; };
  auto arrow = [&](LinkId l) {
    return str_cat(fabric.node_name(fabric.src(l)), " -> ", fabric.node_name(fabric.dst(l)));
  };
  auto tier_name = [&](LinkId l) {
    return topology::kLinkTierNames[static_cast<size_t>(fabric.tier(l))];
  };

  // Link-tier summary over links with a switch at either end; the worst
  // over-capacity link (lowest id on ties); the drawn links by load, and the
  // busiest undrawn one (a NIC's egress).
  std::array<d::HeatmapStats, topology::kLinkTierCount> tier_stats{};
  int64_t over_total = 0;
  LinkId worst{-1};
  LinkId busiest_undrawn{-1};
  std::vector<LinkId> hot;  // drawn links carrying traffic
  for (int32_t i = 0; i < fabric.link_count(); ++i) {
    const LinkId l{i};
    const bool drawn = d::heatmap_drawn(fabric, l);
    if (!drawn && !d::heatmap_is_switch(fabric.kind(fabric.dst(l)))) continue;
    const double u = util(l);
    tier_stats[static_cast<size_t>(fabric.tier(l))].add(u);
    if (u > 1) {
      ++over_total;
      if (worst.value() < 0 || u > util(worst)) worst = l;
    }
    if (u <= 0) continue;
    if (drawn)
      hot.push_back(l);
    else if (busiest_undrawn.value() < 0 || u > util(busiest_undrawn))
      busiest_undrawn = l;
  }
  const size_t hot_n = std::min(hot.size(), static_cast<size_t>(options.hottest));
  // Busiest first at the shown precision (ppm); ties: the higher link tier
  // (a leaf's uplink says more than the host port beside it), then lower id.
  auto hotter = [&](LinkId a, LinkId b) {
    const int64_t ua = std::llround(util(a) * 1e6), ub = std::llround(util(b) * 1e6);
    if (ua != ub) return ua > ub;
    if (fabric.tier(a) != fabric.tier(b)) return fabric.tier(a) > fabric.tier(b);
    return a.value() < b.value();
  };
  double busiest_drawn = 0;
  for (LinkId l : hot) busiest_drawn = std::max(busiest_drawn, util(l));
  std::partial_sort(hot.begin(), hot.begin() + static_cast<std::ptrdiff_t>(hot_n), hot.end(),
                    hotter);
  hot.resize(hot_n);
  auto hot_rank = [&](LinkId l) {  // 1-based; 0: not listed
    for (size_t k = 0; k < hot.size(); ++k)
      if (hot[k] == l) return static_cast<int32_t>(k) + 1;
    return 0;
  };
  const bool fixed_scale = options.scale_max > 0;
  const double top = fixed_scale ? options.scale_max : heatmap_busiest(fabric, utilization);

  // Sections.
  int32_t switch_count = 0;
  for (int32_t n = 0; n < fabric.node_count(); ++n)
    switch_count += d::heatmap_is_switch(fabric.kind(NodeId{n})) ? 1 : 0;
  const bool summarized = switch_count > options.summarize_above;
  struct Section {
    NodeKind kind = NodeKind::kLeaf;
    std::vector<NodeId> switches;
    std::vector<d::HeatmapPorts> ports;
    int32_t max_down = 0, max_up = 0, min_down = 0, min_up = 0;
    int32_t group = 1;  // ports per cell
    int32_t down_cells = 0, up_cells = 0;
    NodeKind down_to = NodeKind::kNicPort, up_to = NodeKind::kCore;
    d::HeatmapStats egress;
    std::vector<d::HeatmapRow> rows;
  };
  std::vector<Section> sections;
  for (NodeKind kind : {NodeKind::kCore, NodeKind::kSpine, NodeKind::kLeaf}) {
    Section s;
    s.kind = kind;
    for (int32_t n = 0; n < fabric.node_count(); ++n)
      if (fabric.kind(NodeId{n}) == kind) s.switches.push_back(NodeId{n});
    if (s.switches.empty()) continue;
    s.min_down = s.min_up = INT32_MAX;
    bool have_down = false, have_up = false;
    for (NodeId sw : s.switches) {
      d::HeatmapPorts p = d::heatmap_ports(fabric, sw);
      const auto nd = static_cast<int32_t>(p.down.size());
      const auto nu = static_cast<int32_t>(p.up.size());
      s.max_down = std::max(s.max_down, nd);
      s.max_up = std::max(s.max_up, nu);
      s.min_down = std::min(s.min_down, nd);
      s.min_up = std::min(s.min_up, nu);
      if (!have_down && nd > 0) s.down_to = fabric.kind(fabric.dst(p.down[0])), have_down = true;
      if (!have_up && nu > 0) s.up_to = fabric.kind(fabric.dst(p.up[0])), have_up = true;
      for (LinkId l : fabric.out_links(sw)) s.egress.add(util(l));
      s.ports.push_back(std::move(p));
    }
    const auto n = static_cast<int32_t>(s.switches.size());
    if (summarized)
      s.rows = d::heatmap_summary_rows(fabric, kind, s.switches);
    else
      s.rows = d::heatmap_bands(
          fabric, s.switches, n > options.max_rows ? d::heatmap_ceil_div(n, options.max_rows) : 1);
    const int32_t blocks = (s.max_down > 0 ? 1 : 0) + (s.max_up > 0 ? 1 : 0);
    const int32_t limit = std::max(options.max_columns, blocks);
    if (s.max_down + s.max_up > limit) {
      s.group = d::heatmap_ceil_div(s.max_down + s.max_up, limit);
      while (d::heatmap_ceil_div(s.max_down, s.group) + d::heatmap_ceil_div(s.max_up, s.group) >
             limit)
        ++s.group;
    }
    s.down_cells = d::heatmap_ceil_div(s.max_down, s.group);
    s.up_cells = d::heatmap_ceil_div(s.max_up, s.group);
    sections.push_back(std::move(s));
  }
  // A summary opens with the busiest tier: by its hottest port, then by the
  // mean over all its ports (stable: core, spine, leaf on ties).
  if (summarized)
    std::stable_sort(sections.begin(), sections.end(), [](const Section& a, const Section& b) {
      if (a.egress.max != b.egress.max) return a.egress.max > b.egress.max;
      return a.egress.sum / static_cast<double>(std::max<int64_t>(1, a.egress.links)) >
             b.egress.sum / static_cast<double>(std::max<int64_t>(1, b.egress.links));
    });

  size_t label_chars = 4;
  for (const Section& s : sections)
    for (const d::HeatmapRow& r : s.rows) label_chars = std::max(label_chars, r.label.size());
  const int m = d::kHeatmapMargin;
  const int cells_x = m + static_cast<int>(label_chars) * d::kHeatmapCharW + 8;

  // The body first: the document's size is known only once it is laid out.
  SvgWriter body;
  int y = m;
  int width = m + d::kHeatmapScaleW + 420;  // the scale row
  auto text_line = [&](int x, int baseline, std::string_view text, std::string_view fill = {}) {
    body.text(x, baseline);
    if (!fill.empty()) body.attr("fill", fill);
    body.end(text);
    width = std::max(width, x + d::heatmap_text_w(text) + m);
  };
  auto bold_line = [&](int x, int baseline, std::string_view text, int font_size, int char_w) {
    body.text(x, baseline).attr("font-size", font_size).attr("font-weight", "bold").end(text);
    width = std::max(width, x + d::heatmap_text_w(text, char_w) + m);
  };

  // Title.
  if (!options.title.empty()) {
    bold_line(m, y + 14, options.title, 14, d::kHeatmapTitleCharW);
    y += 24;
  }

  // Legend.
  body.group().attr("id", "legend").open();
  text_line(m, y + 10,
            str_cat("values: ", options.metric.empty()
                                    ? std::string_view("utilization (traffic / capacity)")
                                    : std::string_view(options.metric)));
  y += 14;
  if (summarized)
    text_line(m, y + 10,
              str_cat("Summary of ", switch_count, " switches (more than ", options.summarize_above,
                      "): one row per pod or group of switches; a cell is the busiest egress port "
                      "at that position among the row's switches; max and mean of all the row's "
                      "ports at its right."));
  else
    text_line(m, y + 10,
              "Egress utilization of every switch port: one row per switch, one cell per cable, "
              "coloured by the direction leaving that switch.");
  text_line(m, y + 24,
            "Left of the dark bar: down ports (toward hosts); right of it: up ports (toward the "
            "core); each block in link-id order. Hover a cell for its values.");
  y += 34;
  const double tick_top = top > 0 ? top : 1.0;
  body.rect(m, y, d::kHeatmapScaleW, 12)
      .attr("fill", "url(#heatmap-scale)")
      .attr("stroke", "#808080")
      .end();
  for (int k = 0; k <= 4; ++k) {
    const std::string_view anchor = k == 0 ? "start" : k == 4 ? "end" : "middle";
    body.text(m + k * d::kHeatmapScaleW / 4, y + 24)
        .attr("text-anchor", anchor)
        .end(k == 0 ? std::string("0%") : percent(tick_top * k / 4));
  }
  int sx = m + d::kHeatmapScaleW + 16;
  body.rect(sx, y, 8, 12).attr("fill", svg_color(d::kHeatmapUnusedRgb)).end();
  text_line(sx + 12, y + 10, "unused (0%)");
  sx += 12 + d::heatmap_text_w("unused (0%)") + 16;
  body.rect(sx, y, 8, 12).attr("fill", svg_color(d::kHeatmapOverRgb)).end();
  text_line(sx + 12, y + 10, str_cat("over capacity (> 100%): ", over_total, " links"));
  y += 30;
  {
    const std::string darkest = svg_color(d::kHeatmapRamp.back());
    std::string scale;
    if (fixed_scale)
      scale = str_cat("scale: darkest ", darkest, " = ", percent(top), " (",
                      options.scale_note.empty() ? std::string_view("fixed")
                                                 : std::string_view(options.scale_note),
                      "), lighter in proportion down to 0");
    else if (top > 0)
      scale = str_cat("scale: darkest ", darkest, " = ", percent(top),
                      ", the busiest switch port; lighter in proportion down to 0");
    else
      scale = "scale: no switch port within capacity carries traffic";
    text_line(m, y + 10, scale);
    y += 14;
  }
  for (int t = topology::kLinkTierCount - 1; t >= 0; --t) {
    const d::HeatmapStats& st = tier_stats[static_cast<size_t>(t)];
    if (st.links == 0) continue;
    text_line(m, y + 10, str_cat(topology::kLinkTierNames[t], ": ", st.text()));
    y += 14;
  }
  if (over_total > 0) {
    text_line(m, y + 10, str_cat("worst: ", arrow(worst), " ", percent(util(worst))));
    y += 14;
  }
  body.close();
  y += 6;

  // The hottest ports, as text.
  if (!hot.empty()) {
    body.group().attr("id", "hottest").open();
    bold_line(
        m, y + 11,
        str_cat("hottest ",
                hot.size() == 1 ? std::string("switch port") : str_cat(hot.size(), " switch ports"),
                " (egress), busiest first:"),
        12, d::kHeatmapCharW);
    y += 16;
    for (size_t k = 0; k < hot.size(); ++k) {
      text_line(m + 8, y + 10,
                str_cat(k + 1, ". ", arrow(hot[k]), " (", tier_name(hot[k]),
                        "): ", percent(util(hot[k]))));
      y += 14;
    }
    if (busiest_undrawn.value() >= 0 && util(busiest_undrawn) > busiest_drawn) {
      text_line(m + 8, y + 10,
                str_cat("busier still: ", arrow(busiest_undrawn), " (", tier_name(busiest_undrawn),
                        "): ", percent(util(busiest_undrawn)),
                        ", a NIC's egress: drawn only as its leaf port's \"back\""));
      y += 14;
    }
    body.close();
    y += 6;
  }
  y += 4;

  if (sections.empty()) {
    text_line(m, y + 10, "This fabric has no leaf, spine or core switches.");
    y += 14;
  }

  constexpr std::string_view kGrey = "#404040";
  for (const Section& s : sections) {
    const std::string_view name = topology::kNodeKindNames[static_cast<size_t>(s.kind)];
    body.group().attr("class", "tier").attr("id", str_cat("tier-", name)).open();
    auto range = [](int32_t lo, int32_t hi) {
      return lo == hi ? str_cat(lo) : str_cat(lo, "-", hi);
    };
    const bool idle = s.egress.busy == 0;
    bold_line(
        m, y + 11,
        str_cat(name, ": ", s.switches.size(), " switches, ", range(s.min_down, s.max_down),
                " down + ", range(s.min_up, s.max_up), " up cables each",
                summarized && idle ? ": all idle (no port carries traffic), rows left out" : ""),
        12, d::kHeatmapCharW);
    y += 16;
    if (summarized && idle) {
      body.close();
      y += 8;
      continue;
    }
    text_line(m, y + 10, str_cat("egress: ", s.egress.text()), kGrey);
    y += 14;
    const int32_t band = s.rows.empty() ? 1 : s.rows.front().end - s.rows.front().first;
    if (summarized) {
      text_line(m, y + 10,
                str_cat(s.rows.size(), " rows of about ", band, band == 1 ? " switch" : " switches",
                        s.group > 1 ? str_cat(", ", s.group, " ports per cell") : std::string(),
                        "; a cell shows the maximum it covers"),
                kGrey);
      y += 14;
    } else if (band > 1 || s.group > 1) {
      std::string merged = "merged: ";
      if (band > 1) str_append(merged, band, " switches per row");
      if (band > 1 && s.group > 1) merged += ", ";
      if (s.group > 1) str_append(merged, s.group, " ports per cell");
      merged += "; a cell shows the maximum it covers";
      text_line(m, y + 10, merged, kGrey);
      y += 14;
    }
    const int up_x = s.down_cells > 0 ? s.down_cells * d::kHeatmapPitchX + d::kHeatmapBlockGap : 0;
    const std::string down_head = str_cat("down ports (to ", d::heatmap_plural(s.down_to), ")");
    const std::string up_head = str_cat("up ports (to ", d::heatmap_plural(s.up_to), ")");
    if (s.down_cells > 0 && s.up_cells > 0 &&
        up_x < d::heatmap_text_w(down_head) + d::kHeatmapCharW) {
      text_line(cells_x, y + 10, str_cat(down_head, " | ", up_head), kGrey);
    } else {
      if (s.down_cells > 0) text_line(cells_x, y + 10, down_head, kGrey);
      if (s.up_cells > 0) text_line(cells_x + up_x, y + 10, up_head, kGrey);
    }
    y += 14;
    const int rows_top = y;
    const int cells_w =
        s.up_cells > 0 ? up_x + s.up_cells * d::kHeatmapPitchX : s.down_cells * d::kHeatmapPitchX;

    for (size_t row = 0; row < s.rows.size(); ++row) {
      const d::HeatmapRow& r = s.rows[row];
      const bool single = r.end - r.first == 1 && s.group == 1;
      body.group()
          .attr("class", "row")
          .attr("id", str_cat("row-", name, "-", row))
          .attr("transform", str_cat("translate(", cells_x, ",", y, ")"))
          .open(SvgLayout::kOneLine);
      d::HeatmapStats row_stats;  // a summary row's max and mean, over all its ports
      if (summarized)
        for (int32_t i = r.first; i < r.end; ++i)
          for (LinkId l : fabric.out_links(s.switches[static_cast<size_t>(i)]))
            row_stats.add(util(l));
      if (!single) {
        std::string merged =
            str_cat(r.label, ": each cell shows the maximum over ", r.end - r.first,
                    r.end - r.first == 1 ? " switch" : " switches");
        if (s.group > 1) str_append(merged, " and ", s.group, " consecutive ports");
        body.title(merged);
      }
      body.text(-6, 10).attr("text-anchor", "end").end(r.label);
      for (int block = 0; block < 2; ++block) {
        auto links_of = [&](int32_t i) -> const std::vector<LinkId>& {
          const d::HeatmapPorts& p = s.ports[static_cast<size_t>(i)];
          return block == 0 ? p.down : p.up;
        };
        int32_t count = 0;
        for (int32_t i = r.first; i < r.end; ++i)
          count = std::max(count, static_cast<int32_t>(links_of(i).size()));
        const int x0 = block == 0 ? 0 : up_x;
        for (int32_t cell = 0; cell * s.group < count; ++cell) {
          double egress = 0, back = 0;
          LinkId one{-1};
          int32_t rank = 0;
          for (int32_t i = r.first; i < r.end; ++i) {
            const std::vector<LinkId>& links = links_of(i);
            const auto lo = static_cast<size_t>(cell * s.group);
            const size_t hi = std::min(links.size(), lo + static_cast<size_t>(s.group));
            for (size_t k = lo; k < hi; ++k) {
              one = links[k];
              egress = std::max(egress, util(links[k]));
              back = std::max(back, util(Fabric::reverse(links[k])));
              if (const int32_t h = util(links[k]) > 0 ? hot_rank(links[k]) : 0;
                  h > 0 && (rank == 0 || h < rank))
                rank = h;
            }
          }
          body.start("use");
          if (rank > 0) body.attr("id", str_cat("hot", rank));
          body.attr("xlink:href", "#c")
              .attr("x", x0 + cell * d::kHeatmapPitchX)
              .attr("fill", svg_color(d::heatmap_cell_rgb(egress, top)));
          if (!single) {
            body.end();
            continue;
          }
          // The tooltip of an unmerged cell. " -> " is raw: content() would
          // write "-&gt;", 3 more bytes in each of thousands of cells.
          body.open().start("title").open();
          body.content(fabric.node_name(fabric.src(one)))
              .raw(" -> ")
              .content(fabric.node_name(fabric.dst(one)))
              .content(str_cat(": ", percent(egress), " / back: ", percent(back),
                               egress > 1 ? " (over capacity)" : "", " [link ", one.value(), "]"));
          body.close().close();
        }
      }
      if (summarized) {
        const std::string stats =
            row_stats.busy == 0
                ? std::string("idle")
                : str_cat("max ", percent(row_stats.max), " mean ",
                          percent(row_stats.sum / static_cast<double>(row_stats.links)));
        body.text(cells_w + 8, 10).end(stats);
        width = std::max(width, cells_x + cells_w + 8 + d::heatmap_text_w(stats) + m);
      }
      body.close();
      width = std::max(width, cells_x + cells_w + m);
      y += d::kHeatmapPitchY;
    }
    if (s.down_cells > 0 && s.up_cells > 0) {
      const int bar_x = cells_x + s.down_cells * d::kHeatmapPitchX + 2;
      body.line(bar_x, rows_top - 2, bar_x, y)
          .attr("stroke", "#202020")
          .attr("stroke-width", 2)
          .end();
    }
    body.close();
    y += 12;
  }
  const int height = y + m;

  SvgWriter svg;
  svg.begin_document({.width = width,
                      .height = height,
                      .title = options.title.empty() ? "link utilization" : options.title,
                      .desc = "Link utilization heatmap written by railyard::report::heatmap_svg.",
                      .font_family = "monospace",
                      .font_size = 10,
                      .xlink = true});
  // One cell shape, instantiated by <use> per cell (about 45 bytes each).
  svg.start("defs").open();
  svg.start("rect")
      .attr("id", "c")
      .attr("width", d::kHeatmapCellW)
      .attr("height", d::kHeatmapCellH)
      .end();
  svg.start("linearGradient")
      .attr("id", "heatmap-scale")
      .attr("x1", 0)
      .attr("y1", 0)
      .attr("x2", 1)
      .attr("y2", 0)
      .open(SvgLayout::kOneLine);
  for (size_t k = 0; k < d::kHeatmapRamp.size(); ++k)
    svg.start("stop")
        .attr("offset", fixed(static_cast<double>(k) / 8.0, 3))
        .attr("stop-color", svg_color(d::kHeatmapRamp[k]))
        .end();
  svg.close().close();
  svg.background("#ffffff");
  svg.append(body);
  return std::move(svg).finish();
}

}  // namespace railyard::report
