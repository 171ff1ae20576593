#include "railyard/report/heatmap_svg.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "../support/xml_parser.hpp"
#include "railyard/topology/cluster.hpp"

// Everything in this file is in its own namespace: the test files compile in
// unity batches (CMakeLists.txt, RAILYARD_TESTS_UNITY).
namespace railyard_test_report_heatmap_svg_test {

namespace {

using railyard::LinkId;
using railyard::NodeId;
using railyard::SwitchIndex;
using railyard::report::heatmap_svg;
using railyard::report::HeatmapOptions;
using railyard::test::parse_xml;
using railyard::test::XmlElement;
using railyard::topology::Fabric;
using railyard::topology::FabricBuilder;
using railyard::topology::LinkTier;
using railyard::topology::Medium;
using railyard::topology::NodeKind;

constexpr std::string_view kUnused = "#d0d0d0";

railyard::topology::Cluster cluster(std::string_view spec) {
  auto c = railyard::topology::make_cluster(spec);
  REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  return *std::move(c);
}

std::string render(const Fabric& f, const std::vector<double>& u, const HeatmapOptions& o = {}) {
  auto svg = heatmap_svg(f, u, o);
  REQUIRE_MESSAGE(svg.ok(), svg.status().ToString());
  return *std::move(svg);
}

XmlElement parse(const std::string& text) {
  auto doc = parse_xml(text);  // strict: rejects unclosed or mismatched tags, bare '&', ...
  REQUIRE_MESSAGE(doc.ok, doc.error);
  return doc.root;
}

std::vector<double> zeros(const Fabric& f) {
  return std::vector<double>(static_cast<size_t>(f.link_count()), 0.0);
}
double& at(std::vector<double>& u, LinkId l) { return u[static_cast<size_t>(l.value())]; }

const XmlElement* child(const XmlElement& e, std::string_view name) {
  for (const XmlElement& c : e.children)
    if (c.name == name) return &c;
  return nullptr;
}
std::string title_of(const XmlElement& e) {
  const XmlElement* t = child(e, "title");
  return t ? t->text : std::string();
}
std::vector<const XmlElement*> groups(const XmlElement& parent, std::string_view cls) {
  std::vector<const XmlElement*> out;
  for (const XmlElement* g : parent.all("g"))
    if (g->attr("class") == std::string(cls)) out.push_back(g);
  return out;
}
std::vector<const XmlElement*> tiers(const XmlElement& root) { return groups(root, "tier"); }
std::vector<const XmlElement*> rows(const XmlElement& tier) { return groups(tier, "row"); }
std::vector<const XmlElement*> cells(const XmlElement& row) { return row.all("use"); }
std::string label_of(const XmlElement& row) { return child(row, "text")->text; }
std::string fill_of(const XmlElement& cell) { return cell.attr("fill").value_or(""); }
int int_attr(const XmlElement& e, std::string_view key) { return std::stoi(*e.attr(key)); }
// The (x, y) of a row's "translate(x,y)".
std::pair<int, int> origin(const XmlElement& row) {
  const std::string t = *row.attr("transform");
  REQUIRE(t.rfind("translate(", 0) == 0);
  const size_t comma = t.find(',');
  return {std::stoi(t.substr(10, comma - 10)), std::stoi(t.substr(comma + 1))};
}

std::vector<NodeId> switches(const Fabric& f, NodeKind k) {
  std::vector<NodeId> out;
  for (int32_t n = 0; n < f.node_count(); ++n)
    if (f.kind(NodeId{n}) == k) out.push_back(NodeId{n});
  return out;
}
// A switch's cables as the links leaving it: down block (odd ids: the switch is
// the upper end) then up block, each in increasing id.
std::vector<LinkId> egress_order(const Fabric& f, NodeId sw) {
  std::vector<LinkId> out;
  for (bool up : {false, true})
    for (LinkId l : f.out_links(sw))
      if (Fabric::is_up(l) == up) out.push_back(l);
  return out;
}
std::vector<LinkId> down_links(const Fabric& f, NodeId sw) {
  std::vector<LinkId> out;
  for (LinkId l : f.out_links(sw))
    if (!Fabric::is_up(l)) out.push_back(l);
  return out;
}
std::vector<LinkId> up_links(const Fabric& f, NodeId sw) {
  std::vector<LinkId> out;
  for (LinkId l : f.out_links(sw))
    if (Fabric::is_up(l)) out.push_back(l);
  return out;
}

std::string arrow(const Fabric& f, LinkId l) {
  return f.node_name(f.src(l)) + " -> " + f.node_name(f.dst(l));
}

// Every <text> of the document, in order.
void texts(const XmlElement& e, std::vector<std::string>& out) {
  if (e.name == "text") out.push_back(e.text);
  for (const XmlElement& c : e.children) texts(c, out);
}
bool has_text(const XmlElement& root, std::string_view s) {
  std::vector<std::string> all;
  texts(root, all);
  for (const std::string& t : all)
    if (t == s) return true;
  return false;
}

// Fill of every cell in the document, row by row.
std::vector<std::string> all_fills(const XmlElement& root) {
  std::vector<std::string> out;
  for (const XmlElement* t : tiers(root))
    for (const XmlElement* r : rows(*t))
      for (const XmlElement* c : cells(*r)) out.push_back(fill_of(*c));
  return out;
}
int64_t non_grey(const XmlElement& root) {
  int64_t n = 0;
  for (const std::string& fill : all_fills(root)) n += fill != kUnused ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("heatmap_svg: a standalone, well-formed SVG 1.1 document") {
  const auto c = cluster("h100-1024");
  const std::string svg = render(c.fabric, zeros(c.fabric), {.title = "allreduce"});
  CHECK(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"", 0) == 0);
  CHECK(svg.back() == '\n');
  const XmlElement root = parse(svg);
  CHECK(root.name == "svg");
  CHECK(root.attr("xmlns") == std::string("http://www.w3.org/2000/svg"));
  CHECK(root.attr("xmlns:xlink") == std::string("http://www.w3.org/1999/xlink"));
  CHECK(root.attr("version") == std::string("1.1"));
  const int width = int_attr(root, "width");
  const int height = int_attr(root, "height");
  CHECK(width > 0);
  CHECK(height > 0);
  CHECK(root.attr("viewBox") == "0 0 " + std::to_string(width) + " " + std::to_string(height));
  CHECK(title_of(root) == "allreduce");
  CHECK(has_text(root, "allreduce"));

  // The one cell shape every <use> refers to: 8 x 12 px.
  const XmlElement* defs = child(root, "defs");
  REQUIRE(defs != nullptr);
  const XmlElement* cell = child(*defs, "rect");
  REQUIRE(cell != nullptr);
  CHECK(cell->attr("id") == std::string("c"));
  CHECK(int_attr(*cell, "width") == 8);
  CHECK(int_attr(*cell, "height") == 12);

  // Every cell inside the canvas; rows one per line of the output.
  int64_t n = 0;
  for (const XmlElement* t : tiers(root))
    for (const XmlElement* r : rows(*t)) {
      const auto [x, y] = origin(*r);
      CHECK(y + 12 <= height);
      for (const XmlElement* u : cells(*r)) {
        CHECK(u->attr("xlink:href") == std::string("#c"));
        CHECK(x + int_attr(*u, "x") >= 0);
        CHECK(x + int_attr(*u, "x") + 8 <= width);
        ++n;
      }
    }
  CHECK(n == 32 * 64 + 16 * 64);
  CHECK(std::count(svg.begin(), svg.end(), '\n') > 48);
  CHECK(svg.find("<g class=\"row\"") != std::string::npos);
}

TEST_CASE("heatmap_svg: sections top-down, one row per switch, one cell per cable") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  const XmlElement root = parse(render(f, zeros(f)));
  const auto ts = tiers(root);
  // h100-1024 is two-tier: no core switches, so no core section.
  REQUIRE(ts.size() == 2);
  CHECK(ts[0]->attr("id") == std::string("tier-spine"));
  CHECK(ts[1]->attr("id") == std::string("tier-leaf"));
  const NodeKind kinds[2] = {NodeKind::kSpine, NodeKind::kLeaf};
  for (size_t t = 0; t < 2; ++t) {
    const std::vector<NodeId> sws = switches(f, kinds[t]);
    const auto rs = rows(*ts[t]);
    REQUIRE(rs.size() == sws.size());
    for (size_t i = 0; i < sws.size(); ++i) {
      CAPTURE(f.node_name(sws[i]));
      CHECK(label_of(*rs[i]) == f.node_name(sws[i]));
      CHECK(child(*rs[i], "title") == nullptr);  // nothing merged: no row tooltip
      const std::vector<LinkId> order = egress_order(f, sws[i]);
      const auto cs = cells(*rs[i]);
      REQUIRE(cs.size() == order.size());
      CHECK(cs.size() == f.out_links(sws[i]).size());
      for (size_t k = 0; k < cs.size(); ++k) {
        CHECK(title_of(*cs[k]) == arrow(f, order[k]) + ": 0.0% / back: 0.0% [link " +
                                      std::to_string(order[k].value()) + "]");
        CHECK(fill_of(*cs[k]) == kUnused);
        if (k > 0) CHECK(int_attr(*cs[k], "x") > int_attr(*cs[k - 1], "x"));
      }
    }
  }
  // Leaves have down and up cables: one dark bar between the blocks, spanning
  // every row; spines (top of a two-tier fabric) have only down cables.
  CHECK(ts[0]->all("line").empty());
  const auto bars = ts[1]->all("line");
  REQUIRE(bars.size() == 1);
  const XmlElement* first_row = rows(*ts[1]).front();
  const auto [x0, y0] = origin(*first_row);
  const auto leaf_cells = cells(*first_row);
  const int bar_x = int_attr(*bars[0], "x1");
  CHECK(int_attr(*bars[0], "x2") == bar_x);
  CHECK(x0 + int_attr(*leaf_cells[31], "x") + 8 < bar_x);  // after the last down cell
  CHECK(bar_x < x0 + int_attr(*leaf_cells[32], "x"));      // before the first up cell
  CHECK(int_attr(*bars[0], "y1") <= y0);
  CHECK(int_attr(*bars[0], "y2") >= origin(*rows(*ts[1]).back()).second + 12);
}

TEST_CASE("heatmap_svg: one link's utilization colours exactly its cell") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  std::vector<double> u = zeros(f);
  const LinkId up = f.leaf_uplink(SwitchIndex{3}, 1);  // leaf3 -> some spine
  at(u, up) = 0.5;
  at(u, Fabric::reverse(up)) = 0.125;
  const XmlElement root = parse(render(f, u));
  const auto ts = tiers(root);
  REQUIRE(ts.size() == 2);

  // leaf3's row: 32 down cells, then its up cables; uplink 1 is cell 33.
  const auto leaf3 = rows(*ts[1])[3];
  CHECK(label_of(*leaf3) == "leaf3");
  const auto cs = cells(*leaf3);
  REQUIRE(cs.size() == 64);
  CHECK(fill_of(*cs[33]) == "#800026");  // the busiest port: the scale's darkest stop
  CHECK(title_of(*cs[33]) ==
        arrow(f, up) + ": 50.0% / back: 12.5% [link " + std::to_string(up.value()) + "]");

  // The spine's row shows the other direction, found by its tooltip.
  const NodeId spine = f.dst(up);
  const auto spine_row = rows(*ts[0])[static_cast<size_t>(f.owner(spine))];
  CHECK(label_of(*spine_row) == f.node_name(spine));
  const std::string want = arrow(f, Fabric::reverse(up)) + ": 12.5% / back: 50.0% [link " +
                           std::to_string(Fabric::reverse(up).value()) + "]";
  int found = 0;
  for (const XmlElement* cell : cells(*spine_row))
    if (title_of(*cell) == want) {
      ++found;
      CHECK(fill_of(*cell) == "#fed976");  // 12.5% of a 50% scale: stop 2 of 8
    }
  CHECK(found == 1);
  // Nothing else is coloured.
  CHECK(non_grey(root) == 2);
}

TEST_CASE("heatmap_svg: colour scale, unused grey and over capacity") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  std::vector<double> u = zeros(f);
  const std::vector<LinkId> down = down_links(f, f.leaf(SwitchIndex{0}));
  const double values[] = {0.0, 1e-9, 0.0625, 0.25, 1.0, 1.5};
  for (size_t i = 0; i < 6; ++i) at(u, down[i]) = values[i];
  // The busiest port within capacity is at 100%: the scale is 0-100%.
  const XmlElement root = parse(render(f, u));
  const auto cs = cells(*rows(*tiers(root)[1])[0]);
  CHECK(fill_of(*cs[0]) == "#d0d0d0");  // exactly 0: unused grey
  CHECK(fill_of(*cs[1]) == "#ffffcc");  // tiny but non-zero: the palest ramp colour
  CHECK(fill_of(*cs[2]) == "#fff6b6");  // halfway between #ffffcc and #ffeda0
  CHECK(fill_of(*cs[3]) == "#fed976");
  CHECK(fill_of(*cs[4]) == "#800026");  // 100%: darkest red
  CHECK(fill_of(*cs[5]) == "#3f007d");  // over capacity: purple
  CHECK(title_of(*cs[5]).find(": 150.0% / back: 0.0% (over capacity) [link ") != std::string::npos);
  CHECK(title_of(*cs[4]).find("over capacity") == std::string::npos);
  CHECK(has_text(root, "over capacity (> 100%): 1 links"));
  CHECK(has_text(root, "worst: " + arrow(f, down[5]) + " 150.0%"));
}

TEST_CASE("heatmap_svg: legend summarizes each link tier") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  std::vector<double> u = zeros(f);
  at(u, f.leaf_uplink(SwitchIndex{0}, 0)) = 0.5;
  at(u, f.leaf_uplink(SwitchIndex{1}, 0)) = 0.25;
  const LinkId hot = Fabric::reverse(f.leaf_uplink(SwitchIndex{2}, 3));
  at(u, hot) = 1.25;
  int64_t leaf_spine = 0, host_leaf = 0;
  for (int32_t l = 0; l < f.link_count(); ++l) {
    leaf_spine += f.tier(LinkId{l}) == LinkTier::kLeafSpine ? 1 : 0;
    host_leaf += f.tier(LinkId{l}) == LinkTier::kHostLeaf ? 1 : 0;
  }
  CHECK(leaf_spine == 2048);
  const XmlElement root = parse(render(f, u));
  // mean of 50%, 25%, 125% = 66.7%
  CHECK(has_text(root, "leaf_spine: 3 of " + std::to_string(leaf_spine) +
                           " links carry traffic; max 125.0%, mean 66.7%; 1 over capacity"));
  CHECK(has_text(root, "host_leaf: 0 of " + std::to_string(host_leaf) + " links carry traffic"));
  CHECK(has_text(root, "worst: " + arrow(f, hot) + " 125.0%"));
  // Section headers summarize their switches' egress: leaves sent 0.5 and 0.25,
  // the spine sent 1.25.
  CHECK(has_text(root,
                 "egress: 2 of 2048 links carry traffic; max 50.0%, mean 37.5%; "
                 "0 over capacity"));
  CHECK(has_text(root,
                 "egress: 1 of 1024 links carry traffic; max 125.0%, mean 125.0%; "
                 "1 over capacity"));
  // NVLink/PCIe links touch no switch: not summarized.
  std::vector<std::string> all;
  texts(root, all);
  for (const std::string& t : all) {
    CHECK(t.rfind("nvlink", 0) != 0);
    CHECK(t.rfind("pcie", 0) != 0);
  }
}

TEST_CASE("heatmap_svg: beyond max_rows switches merge into bands keeping the maximum") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  std::vector<double> u = zeros(f);
  at(u, down_links(f, f.leaf(SwitchIndex{5}))[2]) = 0.5;
  at(u, down_links(f, f.leaf(SwitchIndex{6}))[2]) = 0.25;
  at(u, Fabric::reverse(down_links(f, f.leaf(SwitchIndex{6}))[2])) = 0.9;  // ingress: not shown

  SUBCASE("32 leaves in bands of 4, 16 spines in bands of 2") {
    const XmlElement root = parse(render(f, u, {.scale_max = 1, .max_rows = 10}));
    const auto ts = tiers(root);
    const auto leaves = rows(*ts[1]);
    REQUIRE(leaves.size() == 8);
    for (size_t r = 0; r < 8; ++r) {
      CHECK(label_of(*leaves[r]) ==
            "leaf" + std::to_string(4 * r) + "..leaf" + std::to_string(4 * r + 3));
      CHECK(title_of(*leaves[r]).find("maximum over 4 switches") != std::string::npos);
      const auto cs = cells(*leaves[r]);
      REQUIRE(cs.size() == 64);
      for (size_t k = 0; k < cs.size(); ++k) {
        CHECK(child(*cs[k], "title") == nullptr);  // merged cells: the row's tooltip
        CHECK(fill_of(*cs[k]) == (r == 1 && k == 2 ? "#fd8d3c" : kUnused));  // max(0.5, 0.25)
      }
    }
    const auto spines = rows(*ts[0]);
    REQUIRE(spines.size() == 8);
    CHECK(label_of(*spines[7]) == "spine14..spine15");
    CHECK(non_grey(root) == 1);  // the 0.9 enters leaf6 from a host: not its egress
  }
  SUBCASE("uneven bands: the last one is shorter, a lone switch keeps its tooltips") {
    const XmlElement root = parse(render(f, u, {.scale_max = 1, .max_rows = 6}));
    const auto ts = tiers(root);
    const auto leaves = rows(*ts[1]);  // ceil(32 / 6) = 6 per band
    REQUIRE(leaves.size() == 6);
    CHECK(label_of(*leaves[0]) == "leaf0..leaf5");
    CHECK(label_of(*leaves[5]) == "leaf30..leaf31");
    CHECK(fill_of(*cells(*leaves[0])[2]) == "#fd8d3c");
    CHECK(fill_of(*cells(*leaves[1])[2]) == "#fed976");  // leaf6 is in the second band
    const auto spines = rows(*ts[0]);                    // ceil(16 / 6) = 3 per band: 5 x 3 + 1
    REQUIRE(spines.size() == 6);
    CHECK(label_of(*spines[4]) == "spine12..spine14");
    CHECK(label_of(*spines[5]) == "spine15");
    CHECK(child(*spines[5], "title") == nullptr);
    for (const XmlElement* cell : cells(*spines[5]))
      CHECK(title_of(*cell).rfind("spine15 -> leaf", 0) == 0);
  }
  SUBCASE("exactly max_rows switches: no merging") {
    const XmlElement root = parse(render(f, u, {.max_rows = 32}));
    CHECK(rows(*tiers(root)[1]).size() == 32);
    CHECK(rows(*tiers(root)[0]).size() == 16);
  }
  SUBCASE("one row per tier") {
    const XmlElement root = parse(render(f, u, {.scale_max = 1, .max_rows = 1}));
    const auto leaves = rows(*tiers(root)[1]);
    REQUIRE(leaves.size() == 1);
    CHECK(label_of(*leaves[0]) == "leaf0..leaf31");
    CHECK(fill_of(*cells(*leaves[0])[2]) == "#fd8d3c");
  }
}

TEST_CASE("heatmap_svg: beyond max_columns ports merge per cell keeping the maximum") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  std::vector<double> u = zeros(f);
  const std::vector<LinkId> ups = up_links(f, f.leaf(SwitchIndex{0}));
  at(u, ups[5]) = 0.75;
  at(u, ups[6]) = 0.5;
  at(u, down_links(f, f.leaf(SwitchIndex{0}))[31]) = 0.25;

  SUBCASE("64 cables in 16 cells of 4 ports") {
    const XmlElement root = parse(render(f, u, {.scale_max = 1, .max_columns = 16}));
    const auto ts = tiers(root);
    const auto leaves = rows(*ts[1]);
    REQUIRE(leaves.size() == 32);
    CHECK(label_of(*leaves[0]) == "leaf0");
    CHECK(title_of(*leaves[0]).find("and 4 consecutive ports") != std::string::npos);
    const auto cs = cells(*leaves[0]);
    REQUIRE(cs.size() == 16);
    for (size_t k = 0; k < 16; ++k) {
      CHECK(child(*cs[k], "title") == nullptr);
      // up ports 4..7 are up cell 1 = cell 9: max(0.75, 0.5); down ports 28..31 = cell 7
      CHECK(fill_of(*cs[k]) == (k == 9 ? "#e31a1c" : k == 7 ? "#fed976" : kUnused));
    }
    for (const XmlElement* r : rows(*ts[0])) CHECK(cells(*r).size() == 16);
    // The bar still separates down cell 7 from up cell 8.
    const int bar_x = int_attr(*ts[1]->all("line")[0], "x1");
    const int x0 = origin(*leaves[0]).first;
    CHECK(x0 + int_attr(*cs[7], "x") + 8 < bar_x);
    CHECK(bar_x < x0 + int_attr(*cs[8], "x"));
  }
  SUBCASE("max_columns = 1: one cell per non-empty block") {
    const XmlElement root = parse(render(f, u, {.scale_max = 1, .max_columns = 1}));
    const auto ts = tiers(root);
    const auto cs = cells(*rows(*ts[1])[0]);
    REQUIRE(cs.size() == 2);
    CHECK(fill_of(*cs[0]) == "#fed976");
    CHECK(fill_of(*cs[1]) == "#e31a1c");
    for (const XmlElement* r : rows(*ts[0])) CHECK(cells(*r).size() == 1);
  }
  SUBCASE("cell count never exceeds max_columns, and equals the cables when it fits") {
    for (int32_t mc : {2, 3, 7, 16, 31, 33, 63, 64, 65, 128}) {
      CAPTURE(mc);
      const XmlElement root = parse(render(f, u, {.max_columns = mc}));
      for (const XmlElement* t : tiers(root))
        for (const XmlElement* r : rows(*t)) {
          const size_t n = cells(*r).size();
          CHECK(n <= static_cast<size_t>(mc));
          if (mc >= 64) CHECK(n == 64);
        }
    }
  }
}

TEST_CASE("heatmap_svg: deterministic bytes") {
  const auto a = cluster("h100-1024");
  const auto b = cluster("h100-1024");
  std::vector<double> u = zeros(a.fabric);
  for (size_t i = 0; i < u.size(); ++i)
    u[i] = static_cast<double>((i * 2654435761u) % 1300) / 1000.0 * (i % 5 != 0 ? 1 : 0);
  for (const HeatmapOptions& o :
       {HeatmapOptions{.title = "t"}, HeatmapOptions{.max_rows = 7, .max_columns = 10},
        HeatmapOptions{.hottest = 25, .summarize_above = 10}}) {
    const std::string first = render(a.fabric, u, o);
    CHECK(first == render(a.fabric, u, o));
    CHECK(first == render(b.fabric, u, o));
    parse(first);
  }
  CHECK(render(a.fabric, u, {.title = "x"}) != render(a.fabric, u, {.title = "y"}));
}

TEST_CASE("heatmap_svg: errors name the field and the value") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  auto message = [&](const std::vector<double>& u, const HeatmapOptions& o = {}) {
    auto svg = heatmap_svg(f, u, o);
    REQUIRE_FALSE(svg.ok());
    CHECK(svg.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(svg.status().message());
  };
  CHECK(message(std::vector<double>(12, 0.0)) == "utilization: 12 values for 8192 links");
  CHECK(message({}) == "utilization: 0 values for 8192 links");
  std::vector<double> u = zeros(f);
  u[7] = -0.5;
  CHECK(message(u) == "utilization[7]=-0.5: must be >= 0");
  u[7] = 0.0;
  u[3] = std::numeric_limits<double>::quiet_NaN();
  const std::string nan = message(u);
  CHECK(nan.rfind("utilization[3]=", 0) == 0);
  CHECK(nan.find("nan: must be >= 0") != std::string::npos);
  u[3] = std::numeric_limits<double>::infinity();
  CHECK(message(u) == "utilization[3]=inf: must be finite");
  u[3] = -0.0;  // negative zero is zero
  CHECK(heatmap_svg(f, u).ok());
  CHECK(message(u, {.max_rows = 0}) == "max_rows=0: must be >= 1");
  CHECK(message(u, {.max_columns = -2}) == "max_columns=-2: must be >= 1");
}

TEST_CASE("heatmap_svg: builder fabrics, uneven ports and escaped names") {
  FabricBuilder b;
  const NodeId nic0 = b.add_named_node(NodeKind::kNicPort, 0, "h0");
  const NodeId nic1 = b.add_named_node(NodeKind::kNicPort, 1, "h1");
  const NodeId nic2 = b.add_named_node(NodeKind::kNicPort, 2, "h2");
  const NodeId leaf_a = b.add_named_node(NodeKind::kLeaf, 0, "leaf<&>\"'A");
  const NodeId leaf_b = b.add_named_node(NodeKind::kLeaf, 1, "leafB");
  const NodeId spine = b.add_named_node(NodeKind::kSpine, 0, std::string("sp\xff\x01ine"));
  auto cable = [&](NodeId lo, NodeId hi, LinkTier t) {
    return b.add_cable(lo, hi, t, 400, 100, Medium::kOptical);
  };
  cable(nic0, leaf_a, LinkTier::kHostLeaf);
  const LinkId a1 = cable(nic1, leaf_a, LinkTier::kHostLeaf);
  cable(nic2, leaf_b, LinkTier::kHostLeaf);
  cable(leaf_a, spine, LinkTier::kLeafSpine);
  cable(leaf_b, spine, LinkTier::kLeafSpine);
  const LinkId b2 = cable(leaf_b, spine, LinkTier::kLeafSpine);  // a parallel cable
  const Fabric f = std::move(b).build();
  std::vector<double> u = zeros(f);
  at(u, Fabric::reverse(a1)) = 0.25;  // leafA -> h1
  at(u, b2) = 0.5;                    // leafB -> spine, second cable

  const std::string title = "a<b & \"c\" 'd'\x02";
  const std::string svg = render(f, u, {.title = title, .scale_max = 1});
  CHECK(svg.find('\x01') == std::string::npos);
  CHECK(svg.find('\x02') == std::string::npos);
  CHECK(svg.find('\xff') == std::string::npos);
  const XmlElement root = parse(svg);
  CHECK(title_of(root) == "a<b & \"c\" 'd'?");
  const auto ts = tiers(root);
  REQUIRE(ts.size() == 2);  // no core switches, no core section
  CHECK(ts[0]->attr("id") == std::string("tier-spine"));
  CHECK(ts[1]->attr("id") == std::string("tier-leaf"));

  SUBCASE("one row per switch") {
    const auto leaves = rows(*ts[1]);
    REQUIRE(leaves.size() == 2);
    CHECK(label_of(*leaves[0]) == "leaf<&>\"'A");
    const auto ca = cells(*leaves[0]);  // 2 down + 1 up
    REQUIRE(ca.size() == 3);
    CHECK(title_of(*ca[1]).rfind("leaf<&>\"'A -> h1: 25.0% / back: 0.0%", 0) == 0);
    CHECK(fill_of(*ca[1]) == "#fed976");
    CHECK(title_of(*ca[2]).rfind("leaf<&>\"'A -> sp??ine: 0.0%", 0) == 0);
    const auto cb = cells(*leaves[1]);  // 1 down + 2 up
    REQUIRE(cb.size() == 3);
    CHECK(fill_of(*cb[2]) == "#fd8d3c");
    CHECK(title_of(*cb[2]) ==
          "leafB -> sp??ine: 50.0% / back: 0.0% [link " + std::to_string(b2.value()) + "]");
    const auto spines = rows(*ts[0]);
    REQUIRE(spines.size() == 1);
    CHECK(label_of(*spines[0]) == "sp??ine");
    CHECK(cells(*spines[0]).size() == 3);
    CHECK(has_text(root, "leaf: 2 switches, 1-2 down + 1-2 up cables each"));
  }
  SUBCASE("a band of switches with different port counts") {
    const XmlElement merged = parse(render(f, u, {.scale_max = 1, .max_rows = 1}));
    const auto leaves = rows(*tiers(merged)[1]);
    REQUIRE(leaves.size() == 1);
    CHECK(label_of(*leaves[0]) == "leaf<&>\"'A..leafB");
    const auto cs = cells(*leaves[0]);  // max 2 down + max 2 up
    REQUIRE(cs.size() == 4);
    CHECK(fill_of(*cs[0]) == kUnused);
    CHECK(fill_of(*cs[1]) == "#fed976");
    CHECK(fill_of(*cs[2]) == kUnused);
    CHECK(fill_of(*cs[3]) == "#fd8d3c");
  }
}

TEST_CASE("heatmap_svg: fabrics without switches") {
  FabricBuilder b;
  const NodeId gpu = b.add_node(NodeKind::kGpu, 0);
  const NodeId nic = b.add_node(NodeKind::kNicPort, 0);
  b.add_cable(gpu, nic, LinkTier::kPcie, 400, 10, Medium::kInternal);
  const Fabric f = std::move(b).build();
  const XmlElement root = parse(render(f, {0.5, 0.5}));
  CHECK(tiers(root).empty());
  CHECK(has_text(root, "This fabric has no leaf, spine or core switches."));
  CHECK(has_text(root, "over capacity (> 100%): 0 links"));
  const Fabric empty;
  CHECK(tiers(parse(render(empty, {}))).empty());
}

TEST_CASE("heatmap_svg: a 131,072-GPU fabric drawn per switch stays a few MB thanks to merging") {
  const auto c = cluster("h100-128k-3tier");
  const Fabric& f = c.fabric;
  // Every link busy: no cell is cheaper than another.
  std::vector<double> u(static_cast<size_t>(f.link_count()));
  for (size_t i = 0; i < u.size(); ++i)
    u[i] = 0.001 + static_cast<double>((i * 2654435761u) % 1100) / 1000.0;
  const std::string svg = render(f, u, {.title = "h100-128k-3tier", .summarize_above = 1 << 20});
  MESSAGE("h100-128k-3tier heatmap, per switch: ", svg.size(), " bytes");
  CHECK(svg.size() < 5'000'000);
  const XmlElement root = parse(svg);
  const auto ts = tiers(root);
  REQUIRE(ts.size() == 3);
  CHECK(ts[0]->attr("id") == std::string("tier-core"));
  CHECK(ts[1]->attr("id") == std::string("tier-spine"));
  CHECK(ts[2]->attr("id") == std::string("tier-leaf"));
  for (const XmlElement* t : ts) {
    const auto rs = rows(*t);
    CHECK(rs.size() == 256);
    for (const XmlElement* r : rs) CHECK(cells(*r).size() == 128);
  }
  CHECK(label_of(*rows(*ts[0])[0]) == "core0..core3");
  CHECK(label_of(*rows(*ts[2]).back()) == "leaf2040..leaf2047");
}

namespace {

// Every <text> whose content starts with `prefix`.
std::vector<std::string> texts_from(const XmlElement& root, std::string_view prefix) {
  std::vector<std::string> all, out;
  texts(root, all);
  for (const std::string& t : all)
    if (t.rfind(prefix, 0) == 0) out.push_back(t);
  return out;
}

// The cell with id="<id>", or nullptr.
const XmlElement* cell_by_id(const XmlElement& root, std::string_view id) {
  for (const XmlElement* t : tiers(root))
    for (const XmlElement* r : rows(*t))
      for (const XmlElement* u : cells(*r))
        if (u->attr("id") == std::string(id)) return u;
  return nullptr;
}

}  // namespace

TEST_CASE("heatmap_svg: the legend says what the values are and what the darkest colour is") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  std::vector<double> u = zeros(f);
  const std::vector<LinkId> ups = up_links(f, f.leaf(SwitchIndex{0}));
  at(u, ups[0]) = 0.4;
  at(u, ups[1]) = 0.2;
  at(u, ups[2]) = 0.9;
  at(u, ups[3]) = 1.5;  // over capacity: purple whatever the scale, not the scale's top

  SUBCASE("default: the busiest port within capacity is the darkest") {
    const XmlElement root =
        parse(render(f, u, {.metric = "average over the run: bytes / (capacity x time)"}));
    CHECK(has_text(root, "values: average over the run: bytes / (capacity x time)"));
    CHECK(has_text(root,
                   "scale: darkest #800026 = 90.0%, the busiest switch port; lighter in "
                   "proportion down to 0"));
    for (std::string_view tick : {"0%", "22.5%", "45.0%", "67.5%", "90.0%"})
      CHECK(has_text(root, tick));
    const auto cs = cells(*rows(*tiers(root)[1])[0]);
    CHECK(fill_of(*cs[32 + 2]) == "#800026");
    CHECK(fill_of(*cs[32 + 3]) == "#3f007d");
    // 0.4 / 0.9 = 4/9 of the ramp: 0.556 of the way from stop 3 #feb24c to stop 4 #fd8d3c.
    CHECK(fill_of(*cs[32 + 0]) == "#fd9d43");
    CHECK(fill_of(*cs[32 + 1]) == "#fedd7f");  // 2/9: 0.778 from #ffeda0 to #fed976
  }
  SUBCASE("a fixed scale, named in the legend") {
    const XmlElement root =
        parse(render(f, u, {.scale_max = 0.8, .scale_note = "shared by two maps"}));
    CHECK(has_text(root, "values: utilization (traffic / capacity)"));
    CHECK(has_text(root,
                   "scale: darkest #800026 = 80.0% (shared by two maps), lighter in proportion "
                   "down to 0"));
    const auto cs = cells(*rows(*tiers(root)[1])[0]);
    CHECK(fill_of(*cs[32 + 0]) == "#fd8d3c");  // 0.4 / 0.8: stop 4 of 8
    CHECK(fill_of(*cs[32 + 2]) == "#800026");  // above the top, within capacity: darkest
    CHECK(fill_of(*cs[32 + 3]) == "#3f007d");
  }
  SUBCASE("nothing carries traffic") {
    const XmlElement root = parse(render(f, zeros(f)));
    CHECK(has_text(root, "scale: no switch port within capacity carries traffic"));
    CHECK(texts_from(root, "hottest").empty());
  }
}

TEST_CASE("heatmap_svg: heatmap_busiest is the scale's top: switch egress within capacity") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  std::vector<double> u = zeros(f);
  CHECK(railyard::report::heatmap_busiest(f, u) == 0);
  const LinkId up = f.leaf_uplink(SwitchIndex{4}, 2);
  at(u, up) = 0.7;
  at(u, Fabric::reverse(up)) = 0.3;
  CHECK(railyard::report::heatmap_busiest(f, u) == 0.7);
  at(u, Fabric::reverse(up)) = 1.2;  // over capacity: not the top
  CHECK(railyard::report::heatmap_busiest(f, u) == 0.7);
  // A NIC's egress toward its leaf is not drawn as a cell: not the top either.
  at(u, Fabric::reverse(down_links(f, f.leaf(SwitchIndex{0}))[0])) = 0.95;
  CHECK(railyard::report::heatmap_busiest(f, u) == 0.7);
}

TEST_CASE("heatmap_svg: the hottest switch ports are listed and their cells carry ids") {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  std::vector<double> u = zeros(f);
  // Twelve leaf uplinks at 12%, 13%, ..., 23%; a host port of the same leaf at
  // 23% too (a tie: the higher tier, the leaf's uplink, ranks first).
  const std::vector<LinkId> ups = up_links(f, f.leaf(SwitchIndex{2}));
  for (size_t k = 0; k < 12; ++k) at(u, ups[k]) = 0.12 + 0.01 * static_cast<double>(k);
  const LinkId host_port = down_links(f, f.leaf(SwitchIndex{2}))[4];
  at(u, host_port) = 0.23;

  const XmlElement root = parse(render(f, u));
  CHECK(has_text(root, "hottest 10 switch ports (egress), busiest first:"));
  const std::string tier = " (leaf_spine): ";
  CHECK(has_text(root, "1. " + arrow(f, ups[11]) + tier + "23.0%"));
  CHECK(has_text(root, "2. " + arrow(f, host_port) + " (host_leaf): 23.0%"));
  for (int k = 3; k <= 10; ++k) {
    const LinkId l = ups[static_cast<size_t>(13 - k)];
    CHECK(has_text(root, std::to_string(k) + ". " + arrow(f, l) + tier +
                             railyard::report::percent(0.12 + 0.01 * (13 - k))));
  }
  CHECK(texts_from(root, "11. ").empty());
  // The cells: hot1..hot10 on exactly the listed links, found by their tooltips.
  auto tooltip_link = [](const XmlElement* cell) {
    const std::string t = title_of(*cell);
    return t.substr(t.rfind("[link ") + 6);
  };
  REQUIRE(cell_by_id(root, "hot1") != nullptr);
  CHECK(tooltip_link(cell_by_id(root, "hot1")) == std::to_string(ups[11].value()) + "]");
  REQUIRE(cell_by_id(root, "hot2") != nullptr);
  CHECK(tooltip_link(cell_by_id(root, "hot2")) == std::to_string(host_port.value()) + "]");
  REQUIRE(cell_by_id(root, "hot10") != nullptr);
  CHECK(tooltip_link(cell_by_id(root, "hot10")) == std::to_string(ups[3].value()) + "]");
  CHECK(cell_by_id(root, "hot11") == nullptr);

  SUBCASE("hottest = 3, and none") {
    const XmlElement three = parse(render(f, u, {.hottest = 3}));
    CHECK(has_text(three, "hottest 3 switch ports (egress), busiest first:"));
    CHECK(cell_by_id(three, "hot3") != nullptr);
    CHECK(cell_by_id(three, "hot4") == nullptr);
    const XmlElement none = parse(render(f, u, {.hottest = 0}));
    CHECK(texts_from(none, "hottest").empty());
    CHECK(cell_by_id(none, "hot1") == nullptr);
  }
  SUBCASE("a NIC's egress busier than every switch port is named") {
    const LinkId nic_up = Fabric::reverse(down_links(f, f.leaf(SwitchIndex{9}))[0]);
    at(u, nic_up) = 0.5;
    const XmlElement busier = parse(render(f, u));
    CHECK(has_text(busier, "busier still: " + arrow(f, nic_up) +
                               " (host_leaf): 50.0%, a NIC's egress: drawn only as its leaf "
                               "port's \"back\""));
  }
}

TEST_CASE("heatmap_svg: big fabrics get one row per pod, the busiest tier first") {
  const auto c = cluster("h100-16k-3tier");
  const Fabric& f = c.fabric;
  // 16 pods of 32 leaves (leaf0..leaf31 is pod 0) and 32 spines; 256 cores in
  // 32 groups of 8 (tests/cli/CMakeLists.txt works the shape out). Pod 3's
  // leaves send 25% on every port, one of them 50% on one uplink.
  std::vector<double> u = zeros(f);
  for (int32_t l = 96; l < 128; ++l)
    for (LinkId out : f.out_links(f.leaf(SwitchIndex{l}))) at(u, out) = 0.25;
  const LinkId hot = f.leaf_uplink(SwitchIndex{100}, 9);
  at(u, hot) = 0.5;

  const std::string svg = render(f, u);
  const XmlElement root = parse(svg);
  MESSAGE("h100-16k-3tier summary: ", svg.size(), " bytes, ", int_attr(root, "height"), " px tall");
  CHECK(int_attr(root, "height") < 2000);
  CHECK(svg.size() < 400'000);
  CHECK(has_text(root,
                 "Summary of 1280 switches (more than 256): one row per pod or group of "
                 "switches; a cell is the busiest egress port at that position among the row's "
                 "switches; max and mean of all the row's ports at its right."));
  const auto ts = tiers(root);
  REQUIRE(ts.size() == 3);
  // The leaves carry everything: first; spines and cores send nothing: one line each.
  CHECK(ts[0]->attr("id") == std::string("tier-leaf"));
  CHECK(ts[1]->attr("id") == std::string("tier-core"));
  CHECK(ts[2]->attr("id") == std::string("tier-spine"));
  CHECK(rows(*ts[1]).empty());
  CHECK(rows(*ts[2]).empty());
  CHECK(has_text(root,
                 "core: 256 switches, 64 down + 0 up cables each: all idle (no port carries "
                 "traffic), rows left out"));
  const auto leaves = rows(*ts[0]);
  REQUIRE(leaves.size() == 16);
  for (size_t p = 0; p < 16; ++p) {
    CHECK(label_of(*leaves[p]) == "pod" + std::to_string(p) + " leaf" + std::to_string(32 * p) +
                                      "..leaf" + std::to_string(32 * p + 31));
    CHECK(leaves[p]->attr("id") == "row-leaf-" + std::to_string(p));
    const auto cs = cells(*leaves[p]);
    REQUIRE(cs.size() == 64);
    std::vector<std::string> all;
    texts(*leaves[p], all);
    if (p != 3) {
      CHECK(all.back() == "idle");
      for (const XmlElement* cell : cs) CHECK(fill_of(*cell) == kUnused);
      continue;
    }
    // Mean over the pod's 32 x 64 ports: (2047 x 25% + 50%) / 2048 = 25.01%.
    CHECK(all.back() == "max 50.0% mean 25.0%");
    for (size_t k = 0; k < 64; ++k)
      CHECK(fill_of(*cs[k]) == (k == 32 + 9 ? "#800026" : "#fd8d3c"));  // 25% of a 50% scale
    CHECK(cs[32 + 9]->attr("id") == std::string("hot1"));
  }
  CHECK(has_text(root, "1. " + arrow(f, hot) + " (leaf_spine): 50.0%"));

  SUBCASE("busy spines and cores come before idle leaves") {
    std::vector<double> v = zeros(f);
    at(v, f.spine_uplink(SwitchIndex{40}, 1)) = 0.5;                    // spine40 -> a core
    at(v, Fabric::reverse(f.spine_uplink(SwitchIndex{70}, 2))) = 0.75;  // a core -> spine70
    const XmlElement busy = parse(render(f, v));
    const auto order = tiers(busy);
    REQUIRE(order.size() == 3);
    CHECK(order[0]->attr("id") == std::string("tier-core"));
    CHECK(order[1]->attr("id") == std::string("tier-spine"));
    CHECK(order[2]->attr("id") == std::string("tier-leaf"));
    CHECK(rows(*order[2]).empty());
    const auto cores = rows(*order[0]);
    REQUIRE(cores.size() == 32);
    CHECK(label_of(*cores[0]) == "group0 core0..core7");
  }
}

TEST_CASE("heatmap_svg: summarize_above is the switch count beyond which rows are groups") {
  const auto c = cluster("h100-1024");  // 32 leaves in 4 SUs of 8, 16 spines: 48 switches
  const Fabric& f = c.fabric;
  std::vector<double> u = zeros(f);
  at(u, up_links(f, f.leaf(SwitchIndex{9}))[0]) = 0.5;
  const XmlElement per_switch = parse(render(f, u, {.summarize_above = 48}));
  CHECK(rows(*tiers(per_switch)[1]).size() == 32);
  const XmlElement summary = parse(render(f, u, {.summarize_above = 47}));
  const auto ts = tiers(summary);
  REQUIRE(ts.size() == 2);
  CHECK(ts[0]->attr("id") == std::string("tier-leaf"));  // the busy tier first
  const auto leaves = rows(*ts[0]);
  REQUIRE(leaves.size() == 4);  // two tiers: leaves by scalable unit
  CHECK(label_of(*leaves[1]) == "su1 leaf8..leaf15");
  CHECK(rows(*ts[1]).empty());  // idle spines: no rows
}

TEST_CASE("heatmap_svg: a 131,072-GPU summary stays under 2,000 px") {
  const auto c = cluster("h100-128k-3tier");
  const Fabric& f = c.fabric;
  std::vector<double> u(static_cast<size_t>(f.link_count()));
  for (size_t i = 0; i < u.size(); ++i)
    u[i] = 0.001 + static_cast<double>((i * 2654435761u) % 1000) / 1000.0;
  const std::string svg = render(f, u, {.title = "h100-128k-3tier"});
  const XmlElement root = parse(svg);
  MESSAGE("h100-128k-3tier summary: ", svg.size(), " bytes, ", int_attr(root, "height"), " px");
  CHECK(int_attr(root, "height") < 2000);
  for (const XmlElement* t : tiers(root)) {
    CHECK(rows(*t).size() <= 32);
    CHECK(!rows(*t).empty());
  }
}

TEST_CASE("heatmap_svg: option errors name the option and the value") {
  const auto c = cluster("h100-1024");
  const std::vector<double> u = zeros(c.fabric);
  auto message = [&](const HeatmapOptions& o) {
    auto svg = heatmap_svg(c.fabric, u, o);
    REQUIRE_FALSE(svg.ok());
    CHECK(svg.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(svg.status().message());
  };
  CHECK(message({.summarize_above = 0}) == "summarize_above=0: must be >= 1");
  CHECK(message({.hottest = -1}) == "hottest=-1: must be >= 0");
  CHECK(message({.scale_max = -1}) == "scale_max=-1: must be >= 0 and finite");
  CHECK(message({.scale_max = std::numeric_limits<double>::infinity()}) ==
        "scale_max=inf: must be >= 0 and finite");
}

}  // namespace railyard_test_report_heatmap_svg_test
