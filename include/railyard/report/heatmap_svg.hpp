// railyard/report/heatmap_svg.hpp — a link-utilization heatmap of a fabric as standalone SVG.
//
// Given one utilization value per directed link (traffic / capacity, from a
// simulator or from counters), heatmap_svg() draws every switch port of the
// fabric as a small coloured cell, so hot spots, idle ports and asymmetric
// up/down load show at a glance in any browser:
//
//   auto cluster = railyard::topology::make_cluster("h100-1024");
//   std::vector<double> util(static_cast<size_t>(cluster->fabric.link_count()), 0.0);
//   util[static_cast<size_t>(cluster->fabric.leaf_uplink(railyard::SwitchIndex{3}, 1).value())] =
//       0.875;
//   railyard::StatusOr<std::string> svg =
//       railyard::report::heatmap_svg(cluster->fabric, util, {.title = "allreduce, 1024 GPUs"});
//   // Write *svg to heatmap.svg and open it; hover a cell for its exact values.
//
// Layout, top-down as one reads a fat tree:
//
//   <title>
//   legend: colour scale, per-link-tier summary, over-capacity count
//   core   section: one row per core switch
//   spine  section: one row per spine switch
//   leaf   section: one row per leaf switch
//
//   leaf3  [][][][] ... [][] | [][][] ... [][]
//          down ports (to hosts)  up ports (to spines)
//
// Only tiers that have switches get a section (a FabricBuilder fabric may lack
// some). Rows are switches of kind kLeaf/kSpine/kCore in node-id order, labelled
// with Fabric::node_name(). A row has one cell per cable attached to the switch:
// first its down cables (the switch is the upper end: odd link ids leave it),
// then its up cables, each block ordered by link id; a dark bar separates the two
// blocks. A cell is coloured by the utilization of the direction LEAVING the
// row's switch (the egress of that port); its <title> tooltip gives both
// directions and the id of the egress link (parallel cables look alike otherwise),
// e.g. "leaf3 -> spine1: 87.5% / back: 12.0% [link 6338]".
//
// Colour scale (fixed, lightness decreasing with load; ColorBrewer YlOrRd):
// utilization u in (0, 1] is interpolated linearly in sRGB between the stops
// #ffffcc #ffeda0 #fed976 #feb24c #fd8d3c #fc4e2a #e31a1c #bd0026 #800026 at
// u = 0, 1/8, ..., 1 (so 0.5 is exactly #fd8d3c and 1.0 is #800026). A link with
// u == 0 (unused) is grey #d0d0d0; u > 1 (over capacity) is dark purple #3f007d,
// says "(over capacity)" in its tooltip and is counted in the legend. The legend
// also summarizes each link tier (host_leaf, leaf_spine, spine_core: directed
// links with a switch at either end): how many carry traffic, their maximum and
// mean utilization. Each section header summarizes its switches' egress links.
//
// Merging keeps big fabrics readable and the file small. A tier with more than
// `max_rows` switches is drawn as bands of b = ceil(switches / max_rows)
// consecutive switches (node-id order), one row per band, labelled
// "leaf0..leaf7"; a tier whose switches have more than `max_columns` cables is
// drawn with g consecutive ports per cell in each block (the smallest g that
// fits; each non-empty block keeps at least one cell). A merged cell shows the
// MAXIMUM over the ports and switches it covers (a hot port is never averaged
// away); merged cells carry no tooltip of their own, the row's <title> names
// the band and the merge factors. The output has at most
// tiers * max_rows * max(max_columns, 2) cells of about 45 bytes (+ ~65 for the
// tooltip of an unmerged cell): h100-1024 (48 switches, 3072 cells) is ~0.37 MB,
// and h100-128k-3tier (2048 leaves, 2048 spines, 1024 cores of 128 ports) is
// drawn as 3 x 256 rows of 128 merged cells, ~4.6 MB.
//
// Geometry is fixed: cells are 8 x 12 px at a 9 x 14 px pitch (one <rect id="c">
// in <defs>, instantiated by <use> per cell so each cell costs ~45 bytes), so the
// picture grows with ports and switches. Every row is one line of the output,
// a <g class="row"> whose <use> children are its cells, inside a
// <g class="tier" id="tier-leaf"> (spine, core) section. The document is
// written by report/svg.hpp: standalone SVG 1.1 (XML declaration, xmlns,
// width/height/viewBox), text XML-escaped (invalid UTF-8 and control characters
// become '?'), and bytes that depend only on the input: coordinates are integers
// and percentages have one decimal, '.' whatever the locale.
//
// Errors (absl::InvalidArgumentError): "max_rows=0: must be >= 1" (likewise
// max_columns), "utilization: 12 values for 40 links",
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
  // Switches per tier shown as individual rows; a tier with more switches is
  // drawn as bands of consecutive switches (cell = max over the band). >= 1.
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

// YlOrRd, 9 classes, at u = 0, 1/8, ..., 1.
inline constexpr std::array<uint32_t, 9> kHeatmapRamp = {
    0xffffcc, 0xffeda0, 0xfed976, 0xfeb24c, 0xfd8d3c, 0xfc4e2a, 0xe31a1c, 0xbd0026, 0x800026};
inline constexpr uint32_t kHeatmapUnusedRgb = 0xd0d0d0;
inline constexpr uint32_t kHeatmapOverRgb = 0x3f007d;

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
      str_append(s, "; max ", percent(max), ", mean ",
                 percent(sum / static_cast<double>(busy)), "; ", over, " over capacity");
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

}  // namespace detail

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
    return invalid_argument_error(
        str_cat("max_columns=", options.max_columns, ": must be >= 1"));
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

  // Link-tier summary over links with a switch at either end; the worst
  // over-capacity link (lowest id on ties).
  std::array<d::HeatmapStats, topology::kLinkTierCount> tier_stats{};
  int64_t over_total = 0;
  LinkId worst{-1};
  for (int32_t i = 0; i < fabric.link_count(); ++i) {
    const LinkId l{i};
    if (!d::heatmap_is_switch(fabric.kind(fabric.src(l))) &&
        !d::heatmap_is_switch(fabric.kind(fabric.dst(l))))
      continue;
    const double u = util(l);
    tier_stats[static_cast<size_t>(fabric.tier(l))].add(u);
    if (u > 1) {
      ++over_total;
      if (worst.value() < 0 || u > util(worst)) worst = l;
    }
  }

  // Sections, top-down.
  struct Section {
    NodeKind kind = NodeKind::kLeaf;
    std::vector<NodeId> switches;
    std::vector<d::HeatmapPorts> ports;
    int32_t max_down = 0, max_up = 0, min_down = 0, min_up = 0;
    int32_t band = 1;   // switches per row
    int32_t group = 1;  // ports per cell
    int32_t down_cells = 0, up_cells = 0;
    NodeKind down_to = NodeKind::kNicPort, up_to = NodeKind::kCore;
    d::HeatmapStats egress;
    std::vector<std::string> labels;  // per row
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
    if (n > options.max_rows) s.band = d::heatmap_ceil_div(n, options.max_rows);
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
    for (int32_t first = 0; first < n; first += s.band) {
      const int32_t last = std::min(n, first + s.band) - 1;
      std::string label = fabric.node_name(s.switches[static_cast<size_t>(first)]);
      if (last > first)
        str_append(label, "..", fabric.node_name(s.switches[static_cast<size_t>(last)]));
      s.labels.push_back(std::move(label));
    }
    sections.push_back(std::move(s));
  }

  size_t label_chars = 4;
  for (const Section& s : sections)
    for (const std::string& l : s.labels) label_chars = std::max(label_chars, l.size());
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
            "Egress utilization of every switch port: one row per switch, one cell per cable, "
            "coloured by the direction leaving that switch.");
  text_line(m, y + 24,
            "Left of the dark bar: down ports (toward hosts); right of it: up ports (toward the "
            "core); each block in link-id order. Hover a cell for both directions.");
  y += 34;
  body.rect(m, y, d::kHeatmapScaleW, 12)
      .attr("fill", "url(#heatmap-scale)")
      .attr("stroke", "#808080")
      .end();
  for (int k = 0; k <= 4; ++k) {
    const std::string_view anchor = k == 0 ? "start" : k == 4 ? "end" : "middle";
    body.text(m + k * d::kHeatmapScaleW / 4, y + 24)
        .attr("text-anchor", anchor)
        .end(str_cat(k * 25, "%"));
  }
  int sx = m + d::kHeatmapScaleW + 16;
  body.rect(sx, y, 8, 12).attr("fill", svg_color(d::kHeatmapUnusedRgb)).end();
  text_line(sx + 12, y + 10, "unused (0%)");
  sx += 12 + d::heatmap_text_w("unused (0%)") + 16;
  body.rect(sx, y, 8, 12).attr("fill", svg_color(d::kHeatmapOverRgb)).end();
  text_line(sx + 12, y + 10, str_cat("over capacity (> 100%): ", over_total, " links"));
  y += 30;
  for (int t = topology::kLinkTierCount - 1; t >= 0; --t) {
    const d::HeatmapStats& st = tier_stats[static_cast<size_t>(t)];
    if (st.links == 0) continue;
    text_line(m, y + 10, str_cat(topology::kLinkTierNames[t], ": ", st.text()));
    y += 14;
  }
  if (over_total > 0) {
    text_line(m, y + 10,
              str_cat("worst: ", fabric.node_name(fabric.src(worst)), " -> ",
                      fabric.node_name(fabric.dst(worst)), " ", percent(util(worst))));
    y += 14;
  }
  body.close();
  y += 10;

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
    bold_line(m, y + 11,
              str_cat(name, ": ", s.switches.size(), " switches, ", range(s.min_down, s.max_down),
                      " down + ", range(s.min_up, s.max_up), " up cables each"),
              12, d::kHeatmapCharW);
    y += 16;
    text_line(m, y + 10, str_cat("egress: ", s.egress.text()), kGrey);
    y += 14;
    if (s.band > 1 || s.group > 1) {
      std::string merged = "merged: ";
      if (s.band > 1) str_append(merged, s.band, " switches per row");
      if (s.band > 1 && s.group > 1) merged += ", ";
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

    const auto n = static_cast<int32_t>(s.switches.size());
    for (int32_t first = 0, row = 0; first < n; first += s.band, ++row) {
      const int32_t end = std::min(n, first + s.band);
      const bool single = end - first == 1 && s.group == 1;
      const std::string& label = s.labels[static_cast<size_t>(row)];
      body.group()
          .attr("class", "row")
          .attr("transform", str_cat("translate(", cells_x, ",", y, ")"))
          .open(SvgLayout::kOneLine);
      if (!single) {
        std::string merged = str_cat(label, ": each cell shows the maximum over ", end - first,
                                     end - first == 1 ? " switch" : " switches");
        if (s.group > 1) str_append(merged, " and ", s.group, " consecutive ports");
        body.title(merged);
      }
      body.text(-6, 10).attr("text-anchor", "end").end(label);
      for (int block = 0; block < 2; ++block) {
        auto links_of = [&](int32_t i) -> const std::vector<LinkId>& {
          const d::HeatmapPorts& p = s.ports[static_cast<size_t>(i)];
          return block == 0 ? p.down : p.up;
        };
        int32_t count = 0;
        for (int32_t i = first; i < end; ++i)
          count = std::max(count, static_cast<int32_t>(links_of(i).size()));
        const int x0 = block == 0 ? 0 : up_x;
        for (int32_t cell = 0; cell * s.group < count; ++cell) {
          double egress = 0, back = 0;
          LinkId one{-1};
          for (int32_t i = first; i < end; ++i) {
            const std::vector<LinkId>& links = links_of(i);
            const auto lo = static_cast<size_t>(cell * s.group);
            const size_t hi = std::min(links.size(), lo + static_cast<size_t>(s.group));
            for (size_t k = lo; k < hi; ++k) {
              one = links[k];
              egress = std::max(egress, util(links[k]));
              back = std::max(back, util(Fabric::reverse(links[k])));
            }
          }
          body.start("use")
              .attr("xlink:href", "#c")
              .attr("x", x0 + cell * d::kHeatmapPitchX)
              .attr("fill", svg_color(d::heatmap_rgb(egress)));
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
              .content(str_cat(": ", percent(egress),
                               " / back: ", percent(back),
                               egress > 1 ? " (over capacity)" : "", " [link ", one.value(), "]"));
          body.close().close();
        }
      }
      body.close();
      width = std::max(width, cells_x + up_x + s.up_cells * d::kHeatmapPitchX + m);
      width = std::max(width, cells_x + s.down_cells * d::kHeatmapPitchX + m);
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
