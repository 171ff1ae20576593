// Renders railyard's link heat maps to PNG with rsvg-convert and looks at them
// as a person would: is the picture a readable size, is the deliberately hot
// link drawn in the darkest colour, are idle switches drawn idle?
//
//   heatmap_render <rsvg-convert> <work dir> [SVG...]
//
// Two maps (report/heatmap_svg.hpp), with utilizations built here by hand:
//   h100-1024 (48 switches, one row per switch): leaves 0-15 and the spines
//     above them at 40 % on every port in use, one uplink of leaf5 at 48 % --
//     an ECMP collision 1.2 x its neighbours; leaves 16-31 idle.
//   h100-16k-3tier (1,280 switches, summarized): pods 0-3 at 30 % on every leaf,
//     spine and core port, one spine -> core link of pod 2 at 36 %; pods 4-15
//     idle.
// Checked on the PNGs (tests/render/png_reader.hpp): the image size (the 16k
// map under 2,000 px tall), the cell of the hottest link (rendered alone with
// rsvg-convert --export-id=hot1) all #800026, the darkest colour of the scale,
// and one cell's worth of that colour in its row while the 40 % (30 %) cells
// around it are visibly lighter (lightness +20 of 255, RGB distance >= 50);
// every cell of an idle row grey #d0d0d0 and nothing in it coloured.
// The hottest link is the one set by hand, read from the SVG's list.
// Each further SVG (written by `railyard simulate --svg`, tests/cli/heat.cmake)
// is rendered too: at most 2,000 px each way, its hot1 cell all #800026.
//
// Exit 0 when every check passes, 1 on a failure, 77 (CTest SKIP_RETURN_CODE)
// when rsvg-convert is missing: the test is then reported skipped, never passed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "png_reader.hpp"
#include "railyard/report/heatmap_svg.hpp"
#include "railyard/topology/cluster.hpp"

namespace {

namespace fs = std::filesystem;
using railyard::LinkId;
using railyard::NodeId;
using railyard::SwitchIndex;
using railyard::test::Png;
using railyard::test::Rgba;
using railyard::topology::Fabric;
using railyard::topology::NodeKind;

constexpr uint32_t kDarkest = 0x800026;  // YlOrRd's last stop: the scale's top
constexpr uint32_t kIdle = 0xd0d0d0;
constexpr int kCellPixels = 8 * 12;
// A row rendered alone starts at its label's ink, a fractional x: each cell
// then keeps at least 7 x 12 pixels of pure colour, its edges blended.
constexpr int kCellPurePixels = 7 * 12;

int failures = 0;

void check(bool ok, const std::string& what) {
  std::cout << (ok ? "ok    " : "FAIL  ") << what << "\n";
  if (!ok) ++failures;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string hex(uint32_t rgb) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%06x", rgb);
  return buf;
}

struct Renderer {
  std::string rsvg;
  fs::path dir;

  // `svg` rendered to PNG (only element `id` when given); empty Png on failure.
  Png render(const fs::path& svg, std::string_view id, const std::string& name) const {
    const fs::path png = dir / (name + ".png");
    std::string cmd = "'" + rsvg + "'";
    if (!id.empty()) cmd += " --export-id=" + std::string(id);
    cmd += " -o '" + png.string() + "' '" + svg.string() + "'";
    if (std::system(cmd.c_str()) != 0) {
      check(false, "rsvg-convert ran: " + cmd);
      return {};
    }
    try {
      return railyard::test::read_png(read_file(png));
    } catch (const railyard::test::PngError& e) {
      check(false, png.string() + ": " + e.what());
      return {};
    }
  }
};

// Pixels per opaque colour.
std::map<uint32_t, int64_t> histogram(const Png& png) {
  std::map<uint32_t, int64_t> h;
  for (const Rgba& p : png.pixels)
    if (p.a == 255) ++h[p.rgb()];
  return h;
}

// Perceived lightness, 0 (black) .. 255 (white).
double luma(uint32_t rgb) {
  return 0.299 * (rgb >> 16 & 0xff) + 0.587 * (rgb >> 8 & 0xff) + 0.114 * (rgb & 0xff);
}

fs::path write_svg(const fs::path& dir, const std::string& name, const Fabric& f,
                   const std::vector<double>& u, const std::string& title) {
  auto svg = railyard::report::heatmap_svg(
      f, u, {.title = title, .metric = "utilization set by hand for the rendering test"});
  if (!svg.ok()) {
    check(false, name + ": heatmap_svg: " + std::string(svg.status().message()));
    return {};
  }
  const fs::path path = dir / (name + ".svg");
  std::ofstream(path, std::ios::binary) << *svg;
  return path;
}

// The hot link, found in the SVG's hottest list as "1. src -> dst".
bool lists_first(const fs::path& svg, const Fabric& f, LinkId hot) {
  const std::string text = read_file(svg);
  const std::string want =
      "1. " + f.node_name(f.src(hot)) + " -&gt; " + f.node_name(f.dst(hot)) + " (";
  return text.find(want) != std::string::npos;
}

void check_hot_cell(const Renderer& r, const fs::path& svg, const std::string& name) {
  const Png cell = r.render(svg, "hot1", name + "_hot1");
  check(cell.width == 8 && cell.height == 12,
        name + ": the hottest cell renders as one 8 x 12 cell (got " + std::to_string(cell.width) +
            " x " + std::to_string(cell.height) + ")");
  const auto h = histogram(cell);
  check(h.size() == 1 && h.begin()->first == kDarkest &&
            h.begin()->second == static_cast<int64_t>(cell.pixels.size()),
        name + ": the hottest link's cell is drawn all " + hex(kDarkest) + " (the darkest colour)" +
            (h.empty() ? std::string() : ", first colour " + hex(h.begin()->first)));
}

void check_idle_row(const Renderer& r, const fs::path& svg, const std::string& id, int cells,
                    const std::string& name) {
  const Png row = r.render(svg, id, name + "_" + id);
  const auto h = histogram(row);
  const int64_t grey = h.count(kIdle) ? h.at(kIdle) : 0;
  bool coloured = false;  // any opaque pixel that is not grey (cells or black text)
  for (const auto& [rgb, n] : h)
    if ((rgb >> 16 & 0xff) != (rgb >> 8 & 0xff) || (rgb >> 8 & 0xff) != (rgb & 0xff))
      coloured = true;
  check(
      grey >= int64_t{cells} * kCellPurePixels && grey <= int64_t{cells} * kCellPixels && !coloured,
      name + ": idle row " + id + " is " + std::to_string(cells) + " grey " + hex(kIdle) +
          " cells and nothing coloured (grey pixels " + std::to_string(grey) + ")");
}

// The row holding the hot cell: exactly one cell of the darkest colour, its
// neighbours a clearly lighter colour.
void check_hot_row(const Renderer& r, const fs::path& svg, const std::string& id,
                   const std::string& name) {
  const Png row = r.render(svg, id, name + "_" + id);
  const auto h = histogram(row);
  const int64_t dark = h.count(kDarkest) ? h.at(kDarkest) : 0;
  check(dark >= kCellPurePixels && dark <= kCellPixels,
        name + ": row " + id + " has exactly one cell of " + hex(kDarkest) + " (" +
            std::to_string(dark) + " px)");
  // The most common colour other than grey and the darkest: the 40 % (30 %) cells.
  uint32_t common = 0;
  int64_t most = 0;
  for (const auto& [rgb, n] : h)
    if (rgb != kIdle && rgb != kDarkest && n > most) common = rgb, most = n;
  // 1.2 x the neighbours' load is 1 / 1.2 = 83 % of the scale: #ca0923 beside
  // #800026. A fixed 0-100 % scale drew 40 % and 48 % as two oranges.
  const double distance =
      std::hypot(double((common >> 16 & 0xff) - 0x80), double((common >> 8 & 0xff) - 0x00),
                 double(int(common & 0xff) - 0x26));
  check(most >= 8 * kCellPurePixels && luma(common) - luma(kDarkest) >= 20 && distance >= 50,
        name + ": the busy cells beside the hot one are visibly lighter: " + hex(common) +
            " (lightness " + std::to_string(static_cast<int>(luma(common))) + " vs " +
            std::to_string(static_cast<int>(luma(kDarkest))) + ", RGB distance " +
            std::to_string(static_cast<int>(distance)) + ")");
}

railyard::topology::Cluster cluster(std::string_view spec) {
  auto c = railyard::topology::make_cluster(spec);
  if (!c.ok()) {
    std::cerr << spec << ": " << c.status().message() << "\n";
    std::exit(1);
  }
  return *std::move(c);
}

void small_map(const Renderer& r) {
  const auto c = cluster("h100-1024");
  const Fabric& f = c.fabric;
  std::vector<double> u(static_cast<size_t>(f.link_count()), 0.0);
  // Every link touching leaves 0-15 at 40 % (both directions), hosts included.
  for (int32_t i = 0; i < f.link_count(); ++i) {
    const LinkId l{i};
    for (NodeId n : {f.src(l), f.dst(l)})
      if (f.kind(n) == NodeKind::kLeaf && f.owner(n) < 16) u[static_cast<size_t>(i)] = 0.40;
  }
  const LinkId hot = f.leaf_uplink(SwitchIndex{5}, 7);
  u[static_cast<size_t>(hot.value())] = 0.48;
  const fs::path svg = write_svg(r.dir, "small", f, u, "h100-1024, one hot uplink (leaf5)");
  if (svg.empty()) return;
  check(lists_first(svg, f, hot), "small: the hottest list opens with leaf5's hot uplink");
  const Png whole = r.render(svg, "", "small");
  check(whole.width > 400 && whole.width <= 1600 && whole.height > 400 && whole.height <= 1600,
        "small: whole map " + std::to_string(whole.width) + " x " + std::to_string(whole.height) +
            " px, within 400..1600 each way");
  check_hot_cell(r, svg, "small");
  check_hot_row(r, svg, "row-leaf-5", "small");
  check_idle_row(r, svg, "row-leaf-20", 64, "small");
}

void big_map(const Renderer& r) {
  const auto c = cluster("h100-16k-3tier");
  const Fabric& f = c.fabric;
  // 32 leaves and 32 spines per pod (tests/cli/CMakeLists.txt works the shape out).
  auto pod = [&](NodeId n) {
    const NodeKind k = f.kind(n);
    return k == NodeKind::kLeaf || k == NodeKind::kSpine ? f.owner(n) / 32 : -1;
  };
  std::vector<double> u(static_cast<size_t>(f.link_count()), 0.0);
  for (int32_t i = 0; i < f.link_count(); ++i) {
    const LinkId l{i};
    const int32_t p = std::max(pod(f.src(l)), pod(f.dst(l)));
    if (p >= 0 && p < 4) u[static_cast<size_t>(i)] = 0.30;
  }
  const LinkId hot = f.spine_uplink(SwitchIndex{2 * 32 + 5}, 3);
  u[static_cast<size_t>(hot.value())] = 0.36;
  const fs::path svg = write_svg(r.dir, "big", f, u, "h100-16k-3tier, one hot spine uplink");
  if (svg.empty()) return;
  check(lists_first(svg, f, hot), "big: the hottest list opens with the hot spine uplink");
  const std::string file = read_file(r.dir / "big.svg");
  check(file.size() < 1'000'000, "big: SVG of " + std::to_string(file.size()) + " bytes < 1 MB");
  const Png whole = r.render(svg, "", "big");
  check(whole.height > 500 && whole.height <= 2000 && whole.width <= 2000,
        "big: whole map " + std::to_string(whole.width) + " x " + std::to_string(whole.height) +
            " px, at most 2000 px each way");
  check_hot_cell(r, svg, "big");
  check_hot_row(r, svg, "row-spine-2", "big");       // pod 2's spines
  check_idle_row(r, svg, "row-leaf-15", 64, "big");  // pod 15's leaves
}

// A map written by the CLI: readable size, its hottest cell drawn darkest.
void given_map(const Renderer& r, const fs::path& svg, int index) {
  const std::string name = "given" + std::to_string(index);
  std::error_code ec;
  if (!fs::exists(svg, ec)) {
    check(false, svg.string() + ": no such file");
    return;
  }
  const Png whole = r.render(svg, "", name);
  check(whole.width > 0 && whole.width <= 2000 && whole.height > 0 && whole.height <= 2000,
        svg.filename().string() + ": " + std::to_string(whole.width) + " x " +
            std::to_string(whole.height) + " px, at most 2000 px each way");
  check_hot_cell(r, svg, name);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: heatmap_render <rsvg-convert> <work dir> [SVG...]\n";
    return 2;
  }
  Renderer r{argv[1], argv[2]};
  std::error_code ec;
  if (r.rsvg.empty() || r.rsvg.find("NOTFOUND") != std::string::npos || !fs::exists(r.rsvg, ec)) {
    std::cout << "SKIPPED: rsvg-convert not found (install librsvg2-bin); got '" << r.rsvg << "'\n";
    return 77;
  }
  fs::create_directories(r.dir, ec);
  small_map(r);
  big_map(r);
  for (int i = 3; i < argc; ++i) given_map(r, argv[i], i - 2);
  std::cout << (failures == 0 ? "all checks passed" : std::to_string(failures) + " failed") << "\n";
  return failures == 0 ? 0 : 1;
}
